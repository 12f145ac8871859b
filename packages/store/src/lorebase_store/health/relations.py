"""The Relation part of the health report (see `lorebase_store.health.report`): Links, orphans, gaps.

Per Relation, one statement counts the live Links and the orphans among them (anti-joins on the
visible Records of both ends) and one lists orphans when there are some; for a Relation with
`required_from`, one counts the Records of the from Kind without a Link and one lists them.
"""

from __future__ import annotations

import sqlalchemy as sa

from lorebase_core.schema import Schema
from lorebase_store import tables as t
from lorebase_store.health.shapes import HealthLimits, RelationHealth
from lorebase_store.reads.records import LINK_IDENTITY, RECORD_IDENTITY, visible_rows
from lorebase_store.versioned.views import View


def records_of(view: View, kind: str) -> sa.Subquery:
    """The rows of `kind`'s Records the View sees (tombstones included)."""
    return visible_rows(
        t.records, view.segments, RECORD_IDENTITY, lambda table: table.c.kind == kind
    )


def _links_of(view: View, relation_name: str) -> sa.Subquery:
    return visible_rows(
        t.links, view.segments, LINK_IDENTITY, lambda table: table.c.relation == relation_name
    )


def relation_health(
    connection: sa.Connection,
    view: View,
    schema: Schema,
    relation_name: str,
    limits: HealthLimits,
) -> RelationHealth:
    relation = schema.relations[relation_name]
    links_q = _links_of(view, relation_name)
    from_q = records_of(view, relation.from_kind)
    to_q = records_of(view, relation.to_kind)
    orphan = sa.or_(
        ~sa.exists().where(from_q.c.record_key == links_q.c.from_key, from_q.c.deleted.is_(False)),
        ~sa.exists().where(to_q.c.record_key == links_q.c.to_key, to_q.c.deleted.is_(False)),
    )
    live_link = links_q.c.deleted.is_(False)
    counts = connection.execute(
        sa.select(sa.func.count(), sa.func.coalesce(sa.func.sum(sa.case((orphan, 1), else_=0)), 0))
        .select_from(links_q)
        .where(live_link)
    ).one()
    links, orphans = int(counts[0]), int(counts[1])
    orphan_examples: tuple[tuple[str, str], ...] = ()
    if orphans:
        rows = connection.execute(
            sa.select(links_q.c.from_key, links_q.c.to_key)
            .where(live_link, orphan)
            .order_by(links_q.c.from_key, links_q.c.to_key)
            .limit(limits.max_orphans)
        ).all()
        orphan_examples = tuple((row.from_key, row.to_key) for row in rows)
    gaps: int | None = None
    gap_examples: tuple[str, ...] = ()
    if relation.required_from:
        gaps, gap_examples = _gaps(connection, view, relation_name, relation.from_kind, limits)
    return RelationHealth(
        relation=relation_name,
        from_kind=relation.from_kind,
        to_kind=relation.to_kind,
        links=links,
        orphans=orphans,
        orphan_examples=orphan_examples,
        gaps=gaps,
        gap_examples=gap_examples,
    )


def _gaps(
    connection: sa.Connection,
    view: View,
    relation_name: str,
    from_kind: str,
    limits: HealthLimits,
) -> tuple[int, tuple[str, ...]]:
    """Live Records of the from Kind without a live Link of a `required_from` Relation."""
    records_q = records_of(view, from_kind)
    links_q = _links_of(view, relation_name)
    missing = sa.and_(
        records_q.c.deleted.is_(False),
        ~sa.exists().where(
            links_q.c.from_key == records_q.c.record_key, links_q.c.deleted.is_(False)
        ),
    )
    count = int(
        connection.execute(
            sa.select(sa.func.count()).select_from(records_q).where(missing)
        ).scalar_one()
    )
    if not count:
        return 0, ()
    keys = connection.execute(
        sa.select(records_q.c.record_key)
        .where(missing)
        .order_by(records_q.c.record_key)
        .limit(limits.max_examples)
    ).scalars()
    return count, tuple(keys)
