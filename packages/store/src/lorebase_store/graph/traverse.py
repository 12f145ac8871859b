"""POST /traverse in the store: follow a path of Relations from some Records, hop by hop.

Each hop is two statements per batch of keys (`sql.py`): the live Links of the hop's Relation
touching the frontier, then the live Records at their other ends (a Link whose end Record does
not exist is not followed), with their values on the last hop. At most `max_fanout` Links are
followed from one Record per hop, in key order of the other end. Keys are ordered in Python,
never by the database's collation, so both backends answer alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from lorebase_core.access import ReadScope
from lorebase_core.graph_requests import Hop, TraverseRequest
from lorebase_core.schema import Schema
from lorebase_store.graph.results import Cap, HopResult, TraverseResult, graph_record
from lorebase_store.graph.sql import KeyColumn, fetch_links, fetch_records
from lorebase_store.versioned.views import Segment, View


@dataclass(frozen=True)
class _Step:
    reached: dict[str, Any]
    """The live Records reached: key -> stored values (None when they were not read)."""
    links: int
    fanout_cut: bool


def traverse(
    connection: sa.Connection,
    view: View,
    schema: Schema,
    scope: ReadScope,
    request: TraverseRequest,
    *,
    max_fanout: int,
) -> TraverseResult:
    """The Records at the end of `request.path` from `request.start`, as `view` sees them.

    Args:
        connection: a connection inside the read's transaction.
        view: the branch and Revision read (`make_view` with the request's branch and at).
        schema: the schema of that Revision.
        scope: what the caller may read: values are masked accordingly.
        request: the parsed request (`lorebase_core.graph_requests.parse_traverse`).
        max_fanout: Links followed from one Record per hop (`store.traverse.max_fanout`).

    Raises:
        KindNotFound, RelationNotFound: the scope may not read a Kind or Relation of the path.
    """
    chain = view.segments
    scope.kind(schema, request.start_kind)
    for hop in request.path:
        scope.relation_end(schema, hop.name)
    wanted = [ref.key for ref in request.start]
    rows = fetch_records(connection, chain, request.start_kind, wanted, with_values=False)
    reached: dict[str, Any] = {row.record_key: None for row in rows}
    missing = tuple(str(ref) for ref in request.start if ref.key not in reached)
    caps: set[Cap] = set()
    reached, hops = _follow(connection, chain, request.path, reached, max_fanout, caps)
    keys = sorted(reached)
    if len(keys) > request.limit:
        caps.add(request.limit_cap)
        del keys[request.limit :]
    kind = request.end_kind
    kind_def = schema.kind(kind)
    records = tuple(
        graph_record(kind, kind_def, key, reached[key], scope, with_values=True) for key in keys
    )
    return TraverseResult(
        start=tuple(str(ref) for ref in request.start),
        missing=missing,
        path=tuple(hop.name for hop in request.path),
        hops=hops,
        records=records,
        caps=tuple(sorted(caps)),
    )


def _follow(
    connection: sa.Connection,
    chain: tuple[Segment, ...],
    path: Sequence[Hop],
    reached: dict[str, Any],
    max_fanout: int,
    caps: set[Cap],
) -> tuple[dict[str, Any], tuple[HopResult, ...]]:
    """Follow the path hop by hop: the Records reached at its end (values read on the last hop)
    and what each hop reached; adds "max_fanout" to `caps` when a hop was cut."""
    hops: list[HopResult] = []
    for index, hop in enumerate(path):
        last = index == len(path) - 1
        step = _step(connection, chain, hop, sorted(reached), max_fanout, with_values=last)
        if step.fanout_cut:
            caps.add("max_fanout")
        hops.append(
            HopResult(
                relation=hop.name,
                direction=hop.direction,
                from_kind=hop.source_kind,
                to_kind=hop.target_kind,
                records=len(step.reached),
                links=step.links,
            )
        )
        reached = step.reached
    return reached, tuple(hops)


def _step(
    connection: sa.Connection,
    chain: tuple[Segment, ...],
    hop: Hop,
    frontier: list[str],
    max_fanout: int,
    *,
    with_values: bool,
) -> _Step:
    """Follow one hop from the frontier's keys to the live Records at the other ends."""
    if not frontier:
        return _Step({}, 0, False)
    forward = hop.direction == "forward"
    column: KeyColumn = "from_key" if forward else "to_key"
    others_of: dict[str, list[str]] = {}
    for row in fetch_links(connection, chain, hop.relation, column, frontier, with_values=False):
        source, other = (row.from_key, row.to_key) if forward else (row.to_key, row.from_key)
        others_of.setdefault(source, []).append(other)
    cut = False
    followed: list[str] = []
    for others in others_of.values():
        others.sort()
        if len(others) > max_fanout:
            cut = True
            del others[max_fanout:]
        followed.extend(others)
    rows = fetch_records(connection, chain, hop.target_kind, followed, with_values=with_values)
    live = {row.record_key: row.values_json if with_values else None for row in rows}
    return _Step(live, sum(1 for other in followed if other in live), cut)
