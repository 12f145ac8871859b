"""Reads of Records and Links through a `View`: one Record, a Kind's Records, a Record's Links."""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa

from lorebase_store import tables as t
from lorebase_store.results import LinkVersion, RecordVersion
from lorebase_store.versioned.current import current_records
from lorebase_store.versioned.provenance import expand
from lorebase_store.versioned.views import Segment, View, not_shadowed, revisions_by_pk, visible

RECORD_IDENTITY = ("kind", "record_key")
LINK_IDENTITY = ("relation", "from_key", "to_key")
Where = Callable[[sa.Table], sa.ColumnElement[bool]]


def visible_rows(
    table: sa.Table, chain: tuple[Segment, ...], identity: tuple[str, ...], where: Where
) -> sa.Subquery:
    """Every Record or Link version the chain sees (tombstones included), as one subquery."""
    parts = [
        sa.select(table).where(
            visible(table, segment),
            where(table),
            not_shadowed(table, table, chain[:index], identity),
        )
        for index, segment in enumerate(chain)
    ]
    return (parts[0] if len(parts) == 1 else sa.union_all(*parts)).subquery()


def get_record(connection: sa.Connection, view: View, kind: str, key: str) -> RecordVersion | None:
    """The Record as the view sees it, or None (never existed, or deleted)."""
    found = current_records(connection, view.segments, kind, [key]).get(key)
    if found is None or found.deleted:
        return None
    return RecordVersion(
        kind=kind,
        key=key,
        values=found.values,
        revision=found.revision_id,
        provenance=expand(found.provenance, found.values),
    )


def list_records(
    connection: sa.Connection, view: View, kind: str, *, limit: int, after_key: str | None = None
) -> list[RecordVersion]:
    """Live Records of a Kind in key order, `limit` of them after `after_key`."""
    rows_q = visible_rows(
        t.records, view.segments, RECORD_IDENTITY, lambda table: table.c.kind == kind
    )
    query = (
        sa.select(rows_q)
        .where(rows_q.c.deleted.is_(False))
        .order_by(rows_q.c.record_key)
        .limit(limit)
    )
    if after_key is not None:
        query = query.where(rows_q.c.record_key > after_key)
    rows = connection.execute(query).mappings().all()
    revisions = revisions_by_pk(connection, [row["revision_pk"] for row in rows])
    return [
        RecordVersion(
            kind=kind,
            key=row["record_key"],
            values=dict(row["values_json"]),
            revision=revisions[row["revision_pk"]].id,
            provenance=expand(row["provenance_json"], row["values_json"]),
        )
        for row in rows
    ]


def count_records(connection: sa.Connection, view: View, kind: str) -> int:
    rows_q = visible_rows(
        t.records, view.segments, RECORD_IDENTITY, lambda table: table.c.kind == kind
    )
    return int(
        connection.execute(
            sa.select(sa.func.count()).select_from(rows_q).where(rows_q.c.deleted.is_(False))
        ).scalar_one()
    )


def links_of(
    connection: sa.Connection,
    view: View,
    relation: str,
    *,
    from_key: str | None = None,
    to_key: str | None = None,
    limit: int = 1000,
    after: str | None = None,
) -> list[LinkVersion]:
    """Live Links of a Relation from (or to) one Record, ordered by the other end's key.

    `after` pages on: the other end's key (from a Record), or the from key (to a Record).
    """

    def where(table: sa.Table) -> sa.ColumnElement[bool]:
        condition = table.c.relation == relation
        if from_key is not None:
            condition = sa.and_(condition, table.c.from_key == from_key)
        if to_key is not None:
            condition = sa.and_(condition, table.c.to_key == to_key)
        return condition

    rows_q = visible_rows(t.links, view.segments, LINK_IDENTITY, where)
    other = rows_q.c.to_key if from_key is not None else rows_q.c.from_key
    query = (
        sa.select(rows_q)
        .where(rows_q.c.deleted.is_(False))
        .order_by(other, rows_q.c.from_key, rows_q.c.to_key)
        .limit(limit)
    )
    if after is not None:
        query = query.where(other > after)
    rows = connection.execute(query).mappings().all()
    revisions = revisions_by_pk(connection, [row["revision_pk"] for row in rows])
    return [
        LinkVersion(
            relation=relation,
            from_key=row["from_key"],
            to_key=row["to_key"],
            values=dict(row["values_json"]),
            revision=revisions[row["revision_pk"]].id,
        )
        for row in rows
    ]


def duplicate_values(
    connection: sa.Connection,
    chain: tuple[Segment, ...],
    kind: str,
    attribute: str,
    values: set[str],
) -> list[tuple[str, list[str]]]:
    """Values of a unique Attribute that more than one live Record holds, with their keys."""
    rows_q = visible_rows(t.records, chain, RECORD_IDENTITY, lambda table: table.c.kind == kind)
    value = rows_q.c.values_json[attribute].as_string()
    query = sa.select(value.label("value"), rows_q.c.record_key).where(
        rows_q.c.deleted.is_(False), value.is_not(None)
    )
    if len(values) <= 500:
        query = query.where(value.in_(sorted(values)))
    by_value: dict[str, list[str]] = {}
    for row in connection.execute(query):
        if row.value in values:
            by_value.setdefault(row.value, []).append(row.record_key)
    return [(found, sorted(keys)) for found, keys in sorted(by_value.items()) if len(keys) > 1]


def count_links(
    connection: sa.Connection,
    view: View,
    relation: str,
    *,
    from_key: str | None = None,
    to_key: str | None = None,
) -> int:
    """How many live Links of a Relation start (or end) at one Record."""

    def where(table: sa.Table) -> sa.ColumnElement[bool]:
        if from_key is not None:
            return sa.and_(table.c.relation == relation, table.c.from_key == from_key)
        return sa.and_(table.c.relation == relation, table.c.to_key == to_key)

    rows_q = visible_rows(t.links, view.segments, LINK_IDENTITY, where)
    return int(
        connection.execute(
            sa.select(sa.func.count()).select_from(rows_q).where(rows_q.c.deleted.is_(False))
        ).scalar_one()
    )
