"""Look up the visible versions of Records and Links for a batch of keys, nearest segment first."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

import sqlalchemy as sa

from lorebase_store import tables as t
from lorebase_store.versioned.views import Segment, visible

_CHUNK = 500


@dataclass(kw_only=True)
class Current:
    """A visible version: its row id, whether it lives in the nearest segment, and its content."""

    row_id: int
    own: bool
    from_seq: int
    deleted: bool
    values: dict[str, Any]
    provenance: dict[str, Any]
    revision_id: str = ""


def _chunks(items: list[Any]) -> Iterable[list[Any]]:
    for start in range(0, len(items), _CHUNK):
        yield items[start : start + _CHUNK]


def _versions_query(
    table: sa.Table, identity: sa.ColumnElement[bool], *, at_head: bool
) -> sa.Select[Any]:
    """Visible versions in one segment (bound parameters: branch_id, upto, and the identity's)."""
    condition = [table.c.branch_id == sa.bindparam("branch_id"), identity]
    if at_head:
        condition.append(table.c.to_seq.is_(None))
    else:
        condition += [
            table.c.from_seq <= sa.bindparam("upto"),
            sa.or_(table.c.to_seq.is_(None), table.c.to_seq > sa.bindparam("upto")),
        ]
    return (
        sa.select(table, t.revisions.c.id.label("revision_id"))
        .join_from(table, t.revisions, t.revisions.c.pk == table.c.revision_pk)
        .where(*condition)
    )


def _lookups(table: sa.Table, partition: str, key: str) -> dict[bool, sa.Select[Any]]:
    """The look-up of some keys of one Kind or Relation, in a segment at its head and not.

    Built once: SQLAlchemy then reuses their compiled form instead of rebuilding them per call.
    """
    identity = sa.and_(
        table.c[partition] == sa.bindparam(partition),
        table.c[key].in_(sa.bindparam("keys", expanding=True)),
    )
    return {at_head: _versions_query(table, identity, at_head=at_head) for at_head in (True, False)}


_RECORDS = _lookups(t.records, "kind", "record_key")
_LINKS = _lookups(t.links, "relation", "from_key")


def _current(row: Any, own: bool) -> Current:
    return Current(
        row_id=row.id,
        own=own,
        from_seq=row.from_seq,
        deleted=row.deleted,
        values=dict(row.values_json),
        provenance=dict(row.provenance_json),
        revision_id=row.revision_id,
    )


LinkId = tuple[str, str]
Identity = TypeVar("Identity", str, LinkId)


def current_records(
    connection: sa.Connection, chain: tuple[Segment, ...], kind: str, keys: Iterable[str]
) -> dict[str, Current]:
    """The visible version of each Record (tombstones included), nearest segment first."""
    return _nearest(connection, chain, _RECORDS, {"kind": kind}, keys, _record_key, _key_itself)


def current_links(
    connection: sa.Connection, chain: tuple[Segment, ...], relation: str, pairs: Iterable[LinkId]
) -> dict[LinkId, Current]:
    """The visible version of each Link (tombstones included), nearest segment first."""
    return _nearest(connection, chain, _LINKS, {"relation": relation}, pairs, _link_id, _from_key)


def _nearest(
    connection: sa.Connection,
    chain: tuple[Segment, ...],
    lookups: dict[bool, sa.Select[Any]],
    partition: dict[str, str],
    identities: Iterable[Identity],
    identity_of: Callable[[Any], Identity],
    key_of: Callable[[Identity], str],
) -> dict[Identity, Current]:
    """The visible version of each identity, nearest segment first: each segment is asked (in
    chunks of keys, `key_of` an identity) for those no nearer segment had a version of."""
    found: dict[Identity, Current] = {}
    remaining = sorted(set(identities))
    for index, segment in enumerate(chain):
        if not remaining:
            break
        asked = set(remaining)
        for chunk in _chunks(sorted({key_of(identity) for identity in remaining})):
            parameters = {
                "branch_id": segment.branch_id,
                "upto": segment.upto,
                **partition,
                "keys": chunk,
            }
            for row in connection.execute(lookups[segment.at_head], parameters):
                identity = identity_of(row)
                if identity in asked and identity not in found:
                    found[identity] = _current(row, index == 0)
        remaining = [identity for identity in remaining if identity not in found]
    return found


def _record_key(row: Any) -> str:
    return str(row.record_key)


def _key_itself(key: str) -> str:
    return key


def _link_id(row: Any) -> LinkId:
    return (row.from_key, row.to_key)


def _from_key(pair: LinkId) -> str:
    return pair[0]


def links_touching(
    connection: sa.Connection,
    chain: tuple[Segment, ...],
    relation: str,
    column: str,
    keys: list[str],
) -> list[tuple[str, str]]:
    """Visible, live Links of `relation` whose `column` (from_key or to_key) is one of `keys`."""
    table = t.links
    result: dict[LinkId, bool] = {}
    seen: set[LinkId] = set()
    for segment in chain:
        for chunk in _chunks(sorted(set(keys))):
            rows = connection.execute(
                sa.select(table.c.from_key, table.c.to_key, table.c.deleted).where(
                    visible(table, segment),
                    table.c.relation == relation,
                    table.c[column].in_(chunk),
                )
            ).all()
            for row in rows:
                pair = (row.from_key, row.to_key)
                if pair not in seen:
                    result[pair] = not row.deleted
            seen.update(result)
        # rows a nearer segment touched shadow the base, whether or not they are visible there
        for chunk in _chunks(sorted(set(keys))):
            touched = connection.execute(
                sa.select(table.c.from_key, table.c.to_key).where(
                    table.c.branch_id == segment.branch_id,
                    table.c.relation == relation,
                    table.c[column].in_(chunk),
                    table.c.from_seq <= segment.upto,
                )
            ).all()
            seen.update((row.from_key, row.to_key) for row in touched)
    return sorted(pair for pair, live in result.items() if live)
