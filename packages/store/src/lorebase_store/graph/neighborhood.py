"""POST /neighborhood in the store: the Records around some seeds, breadth first, and their Links.

The walk goes hop by hop. A hop reads, for each chosen Relation and direction whose source Kind is
in the frontier, the live Links touching the frontier (one statement per batch of keys), then the
live Records newly reached, one statement per Kind. Each Record is kept once, at its smallest
depth. At most `max_fanout` new Records are reached from one Record per hop (in order of their
references). The Links of the answer are all the live Links of the chosen Relations whose two
ends are in the answer: those touching a Record short of the last depth were read when the walk
left it; those between two Records of the last depth take one more statement per Relation.

The cuts are deterministic: neighbors beyond `max_records` go deepest first, then by reference;
Links beyond `max_links` go when they reach deepest, then by Relation and ends.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import sqlalchemy as sa

from lorebase_core.access import ReadScope
from lorebase_core.graph_requests import NeighborhoodRequest
from lorebase_core.schema import RelationDef, Schema
from lorebase_store.graph.results import (
    Cap,
    GraphLink,
    GraphRecord,
    NeighborhoodResult,
    declared_order,
    graph_record,
)
from lorebase_store.graph.sql import KeyColumn, fetch_links, fetch_records
from lorebase_store.versioned.views import View

Node = tuple[str, str]
"""A Record as (Kind, key)."""
LinkId = tuple[str, str, str]
"""A Link as (Relation, from key, to key)."""
Frontier = dict[str, list[str]]
"""Keys by Kind."""


def neighborhood(
    connection: sa.Connection,
    view: View,
    schema: Schema,
    scope: ReadScope,
    request: NeighborhoodRequest,
    *,
    max_records: int,
    max_links: int,
    max_fanout: int,
) -> NeighborhoodResult:
    """The seeds, the Records around them up to `request.depth`, and the Links among them.

    Args:
        connection: a connection inside the read's transaction.
        view: the branch and Revision read (`make_view` with the request's branch and at).
        schema: the schema of that Revision.
        scope: what the caller may read: only Relations with both ends readable are followed,
            and values are masked accordingly.
        request: the parsed request (`lorebase_core.graph_requests.parse_neighborhood`).
        max_records: neighbors answered at most (`read.neighborhood.max_records`).
        max_links: Links answered at most (`read.neighborhood.max_links`).
        max_fanout: new Records reached from one Record per hop (`store.traverse.max_fanout`).

    Raises:
        KindNotFound: a seed of a Kind the scope may not read.
    """
    walk = _Walk(connection, view, schema, scope, request, max_fanout)
    frontier = walk.seed()
    for depth in range(1, request.depth + 1):
        if not frontier:
            break
        if len(walk.depth_of) - len(walk.seeds) > max_records:
            break  # deeper Records would all be cut
        frontier = walk.expand(frontier, depth)
    walk.close(frontier)
    return walk.result(max_records, max_links)


class _Walk:
    """The state of one neighborhood walk."""

    def __init__(
        self,
        connection: sa.Connection,
        view: View,
        schema: Schema,
        scope: ReadScope,
        request: NeighborhoodRequest,
        max_fanout: int,
    ) -> None:
        self.connection = connection
        self.chain = view.segments
        self.schema = schema
        self.scope = scope
        self.request = request
        self.max_fanout = max_fanout
        self.relations = [
            (name, schema.relation(name))
            for name in request.relations
            if scope.relation_visible(schema, name)
        ]
        self.seeds: set[Node] = set()
        self.depth_of: dict[Node, int] = {}
        self.stored: dict[Node, Any] = {}
        self.kinds_present: set[str] = set()
        self.links: dict[LinkId, Any] = {}
        self.caps: set[Cap] = set()

    # -- reading ---------------------------------------------------------------------------------
    def _load(self, kind: str, keys: list[str], depth: int) -> list[str]:
        """Keep the live Records among `keys` at `depth`; their keys, sorted."""
        kind_def = self.schema.kind(kind)
        with_values = self.request.values or kind_def.title is not None
        found: list[str] = []
        for row in fetch_records(self.connection, self.chain, kind, keys, with_values=with_values):
            node = (kind, row.record_key)
            self.depth_of[node] = depth
            self.stored[node] = row.values_json if with_values else None
            found.append(row.record_key)
        if found:
            self.kinds_present.add(kind)
        return sorted(found)

    def seed(self) -> Frontier:
        """Load the seeds (depth 0); the frontier they make."""
        by_kind: dict[str, list[str]] = {}
        for ref in self.request.refs:
            self.scope.kind(self.schema, ref.kind)
            by_kind.setdefault(ref.kind, []).append(ref.key)
        frontier = {kind: self._load(kind, keys, 0) for kind, keys in sorted(by_kind.items())}
        self.seeds = set(self.depth_of)
        return {kind: keys for kind, keys in frontier.items() if keys}

    def _directions(self) -> Iterator[tuple[str, RelationDef, KeyColumn, str, str]]:
        """Each chosen Relation in each direction: (name, Relation, column, source, target)."""
        for name, relation in self.relations:
            yield name, relation, "from_key", relation.from_kind, relation.to_kind
            yield name, relation, "to_key", relation.to_kind, relation.from_kind

    def _reaches(self, kind: str) -> bool:
        """Whether neighbors may be of this Kind."""
        return self.scope.kind_visible(kind) and (
            self.request.kinds is None or kind in self.request.kinds
        )

    def expand(self, frontier: Frontier, depth: int) -> Frontier:
        """One hop from the frontier: read its Links, load the new Records at `depth`."""
        candidates: dict[Node, set[Node]] = {}
        for name, _relation, column, source_kind, target_kind in self._directions():
            keys = frontier.get(source_kind)
            reaches = self._reaches(target_kind)
            if not keys or not (reaches or target_kind in self.kinds_present):
                continue
            rows = fetch_links(
                self.connection,
                self.chain,
                name,
                column,
                keys,
                with_values=self.request.values,
            )
            forward = column == "from_key"
            for row in rows:
                self.links[(name, row.from_key, row.to_key)] = (
                    row.values_json if self.request.values else None
                )
                source, other = (
                    (row.from_key, row.to_key) if forward else (row.to_key, row.from_key)
                )
                if reaches and (target_kind, other) not in self.depth_of:
                    candidates.setdefault((source_kind, source), set()).add((target_kind, other))
        new: dict[str, list[str]] = {}
        for others in candidates.values():
            ordered = sorted(others, key=_ref_order)
            if len(ordered) > self.max_fanout:
                self.caps.add("max_fanout")
                del ordered[self.max_fanout :]
            for kind, key in ordered:
                new.setdefault(kind, []).append(key)
        reached = {kind: self._load(kind, keys, depth) for kind, keys in sorted(new.items())}
        return {kind: keys for kind, keys in reached.items() if keys}

    def close(self, frontier: Frontier) -> None:
        """Read the Links between two Records of the last frontier (not read by a hop)."""
        for name, relation in self.relations:
            sources = frontier.get(relation.from_kind)
            targets = set(frontier.get(relation.to_kind, ()))
            if not sources or not targets:
                continue
            rows = fetch_links(
                self.connection,
                self.chain,
                name,
                "from_key",
                sources,
                with_values=self.request.values,
            )
            for row in rows:
                if row.to_key in targets:
                    self.links[(name, row.from_key, row.to_key)] = (
                        row.values_json if self.request.values else None
                    )

    # -- shaping ---------------------------------------------------------------------------------
    def _record(self, node: Node) -> GraphRecord:
        kind, key = node
        return graph_record(
            kind,
            self.schema.kind(kind),
            key,
            self.stored[node],
            self.scope,
            with_values=self.request.values,
            depth=self.depth_of[node],
        )

    def result(self, max_records: int, max_links: int) -> NeighborhoodResult:
        """The answer, cut to the caps."""
        order = sorted(
            (node for node in self.depth_of if node not in self.seeds),
            key=lambda node: (self.depth_of[node], _ref_order(node)),
        )
        if len(order) > max_records:
            self.caps.add("max_records")
            del order[max_records:]
        kept = self.seeds | set(order)
        links = self._links(kept, max_links)
        missing = sorted(
            str(ref) for ref in self.request.refs if (ref.kind, ref.key) not in self.seeds
        )
        return NeighborhoodResult(
            seeds=tuple(self._record(node) for node in sorted(self.seeds, key=_ref_order)),
            missing=tuple(missing),
            neighbors=tuple(self._record(node) for node in order),
            links=links,
            caps=tuple(sorted(self.caps)),
        )

    def _links(self, kept: set[Node], max_links: int) -> tuple[GraphLink, ...]:
        """The Links with both ends kept, cut to `max_links` (deepest first)."""
        chosen: list[tuple[int, str, str, str, Any]] = []
        relations = dict(self.relations)
        for (name, from_key, to_key), stored in self.links.items():
            relation = relations[name]
            ends = ((relation.from_kind, from_key), (relation.to_kind, to_key))
            if ends[0] in kept and ends[1] in kept:
                reach = max(self.depth_of[ends[0]], self.depth_of[ends[1]])
                chosen.append((reach, name, _ref_order(ends[0]), _ref_order(ends[1]), stored))
        chosen.sort(key=lambda link: link[:4])
        if len(chosen) > max_links:
            self.caps.add("max_links")
            del chosen[max_links:]
        links = []
        for _reach, name, from_ref, to_ref, stored in chosen:
            values = None
            if self.request.values:  # masked ones show whether set or not
                attributes = relations[name].attributes
                ordered = declared_order(attributes, stored or {})
                values = self.scope.mask(attributes, ordered) or None
            links.append(GraphLink(name, from_ref, to_ref, values))
        return tuple(sorted(links, key=lambda link: (link.relation, link.from_ref, link.to_ref)))


def _ref_order(node: Node) -> str:
    """The reference of a Record: what answers are sorted by."""
    return f"{node[0]}/{node[1]}"
