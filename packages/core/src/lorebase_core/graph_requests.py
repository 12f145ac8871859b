"""The request documents of POST /traverse and POST /neighborhood (docs/graph.md), parsed.

Parsing is pure and happens against the schema and the caller's `ReadScope`: a Kind or a Relation
the request names that does not exist, or that the scope may not read, answers like an unknown one
(404 `kind-not-found` / `relation-not-found`) before anything else is reported. Every other problem
is collected into one `GraphRequestInvalid` (422 `graph-request-invalid`) that lists each issue
with its JSON path (`start[1]`, `path[2].rel`, `limit`) and a code:

| code | meaning |
| --- | --- |
| `missing` | a required member is absent |
| `unknown` | a member the request does not take |
| `type` | a member of the wrong JSON type |
| `range` | a number or a list length outside its bounds |
| `bad-ref` | a Record reference that is not `Kind/key` |
| `kind-mismatch` | traversal start Records of more than one Kind |
| `path-mismatch` | a hop that does not start at the Kind the previous hop ends at |
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from lorebase_core.access import ReadScope
from lorebase_core.errors import (
    GraphRequestInvalid,
    Issue,
    quoted,
    shortened,
)
from lorebase_core.members import (
    json_object,
    optional_integer,
    optional_text,
    record_refs,
    unknown_members,
)
from lorebase_core.refs import RecordRef
from lorebase_core.schema import Direction, RelationEnd, Schema

LimitCap = Literal["limit", "max_results"]

_TRAVERSE_MEMBERS = ("start", "path", "limit", "branch", "at")
_NEIGHBORHOOD_MEMBERS = ("refs", "depth", "relations", "values", "branch", "at")
_HOP_MEMBERS = ("rel",)


@dataclass(frozen=True)
class Hop:
    """One step of a traversal path: a Relation read from one of its ends."""

    name: str
    """The name as the request wrote it (forward or inverse)."""
    end: RelationEnd

    @property
    def relation(self) -> str:
        """The Relation's forward name (the one its Links are stored under)."""
        return self.end.name

    @property
    def direction(self) -> Direction:
        return self.end.direction

    @property
    def source_kind(self) -> str:
        return self.end.source_kind

    @property
    def target_kind(self) -> str:
        return self.end.target_kind


@dataclass(frozen=True)
class TraverseRequest:
    """POST /traverse: follow `path` from the `start` Records (all of one Kind).

    Attributes:
        start: the start Records, distinct and sorted.
        path: the hops, in order; each starts at the Kind the previous one ends at.
        limit: Records answered at most.
        limit_cap: the cap a cut at `limit` is reported as (`limit` when the request asked for
            fewer than `read.traverse.max_results`).
        branch: the branch read (None: the Domain's default).
        at: the Revision or tag read (None: the branch head).
    """

    start: tuple[RecordRef, ...]
    path: tuple[Hop, ...]
    limit: int
    limit_cap: LimitCap = "max_results"
    branch: str | None = None
    at: str | None = None

    @property
    def start_kind(self) -> str:
        return self.start[0].kind

    @property
    def end_kind(self) -> str:
        return self.path[-1].target_kind


@dataclass(frozen=True)
class NeighborhoodRequest:
    """POST /neighborhood: the Records around `refs`, breadth first up to `depth`.

    Attributes:
        refs: the seed Records, distinct and sorted.
        depth: hops from the seeds (0: the seeds alone).
        relations: forward names of the Relations followed (in both directions), sorted.
        values: whether Records and Links carry their values (False: headers and endpoints).
        branch: the branch read (None: the Domain's default).
        at: the Revision or tag read (None: the branch head).
        kinds: when set, neighbors are limited to these Kinds (seeds are kept whatever their
            Kind). Not part of the request document: context packs set it from a lens or Traits.
    """

    refs: tuple[RecordRef, ...]
    depth: int = 1
    relations: tuple[str, ...] = ()
    values: bool = True
    branch: str | None = None
    at: str | None = None
    kinds: frozenset[str] | None = None


def parse_traverse(
    document: object,
    schema: Schema,
    scope: ReadScope,
    *,
    max_hops: int,
    max_results: int,
    max_start: int = 100,
) -> TraverseRequest:
    """Check a POST /traverse document and resolve its names.

    Args:
        document: the parsed JSON body.
        schema: the schema of the Domain read.
        scope: what the caller may read; unreadable Kinds and Relations answer 404.
        max_hops: most Relations in `path` (`read.traverse.max_hops`).
        max_results: largest `limit`, and its default (`read.traverse.max_results`).
        max_start: most `start` Records.

    Raises:
        KindNotFound, RelationNotFound: a name that is unknown or not readable (or
            KindForbidden when the scope does not hide unreadable Kinds).
        GraphRequestInvalid: every other problem, each with its path.
    """
    body = json_object(document, GraphRequestInvalid)
    issues = unknown_members(body, _TRAVERSE_MEMBERS)
    start = record_refs(body.get("start"), "start", schema, scope, max_start, issues)
    hops = _path(body, schema, scope, max_hops, issues)
    limit = optional_integer(body, "limit", issues, low=1, high=max_results)
    branch, at = optional_text(body, "branch", issues), optional_text(body, "at", issues)
    start_kind = _start_kind(start, issues)
    _check_path(hops, start_kind, issues)
    if issues:
        raise GraphRequestInvalid(f"{len(issues)} problem(s) in the traversal request", issues)
    if limit is None:
        limit = max_results
    return TraverseRequest(
        start=tuple(sorted({ref for _index, ref in start}, key=str)),
        path=tuple(hop for hop in hops if hop is not None),
        limit=limit,
        limit_cap="max_results" if limit >= max_results else "limit",
        branch=branch,
        at=at,
    )


def parse_neighborhood(
    document: object,
    schema: Schema,
    scope: ReadScope,
    *,
    max_depth: int,
    max_refs: int = 100,
) -> NeighborhoodRequest:
    """Check a POST /neighborhood document and resolve its names.

    Args:
        document: the parsed JSON body.
        schema: the schema of the Domain read.
        scope: what the caller may read; unreadable Kinds and Relations answer 404, and the
            default `relations` are the readable ones.
        max_depth: largest `depth` (`read.neighborhood.max_depth`).
        max_refs: most seed `refs`.

    Raises:
        KindNotFound, RelationNotFound: a name that is unknown or not readable (or
            KindForbidden when the scope does not hide unreadable Kinds).
        GraphRequestInvalid: every other problem, each with its path.
    """
    body = json_object(document, GraphRequestInvalid)
    issues = unknown_members(body, _NEIGHBORHOOD_MEMBERS)
    refs = record_refs(body.get("refs"), "refs", schema, scope, max_refs, issues)
    depth = optional_integer(body, "depth", issues, low=0, high=max_depth)
    relations = _relations(body, schema, scope, issues)
    values = body.get("values", True)
    if not isinstance(values, bool):
        issues.append(Issue("values", "expected true or false", "type"))
    branch, at = optional_text(body, "branch", issues), optional_text(body, "at", issues)
    if issues:
        raise GraphRequestInvalid(f"{len(issues)} problem(s) in the neighborhood request", issues)
    return NeighborhoodRequest(
        refs=tuple(sorted({ref for _index, ref in refs}, key=str)),
        depth=min(1, max_depth) if depth is None else depth,
        relations=relations,
        values=bool(values),
        branch=branch,
        at=at,
    )


# -- members ---------------------------------------------------------------------------------


def _relation_name(item: object, path: str, issues: list[Issue]) -> str | None:
    """The Relation name of a hop: `"name"` or `{"rel": "name"}`."""
    if isinstance(item, str) and item:
        return item
    if not isinstance(item, Mapping):
        issues.append(Issue(path, 'expected a Relation name or {"rel": "name"}', "type"))
        return None
    issues.extend(
        Issue(f"{path}.{shortened(name)}", "unknown member; expected rel", "unknown")
        for name in sorted(str(name) for name in set(item) - set(_HOP_MEMBERS))
    )
    name = item.get("rel")
    if name is None:
        issues.append(Issue(f"{path}.rel", "required: a Relation name", "missing"))
        return None
    if not isinstance(name, str) or not name:
        issues.append(Issue(f"{path}.rel", "expected a Relation name", "type"))
        return None
    return name


def _path(
    body: Mapping[str, object],
    schema: Schema,
    scope: ReadScope,
    max_hops: int,
    issues: list[Issue],
) -> list[Hop | None]:
    """The hops of `path` (None where a hop has a problem), Relations checked readable."""
    value = body.get("path")
    if value is None:
        issues.append(Issue("path", "required: a list of Relation names", "missing"))
        return []
    if not isinstance(value, list):
        issues.append(Issue("path", "expected a list of Relation names", "type"))
        return []
    if not 1 <= len(value) <= max_hops:
        issues.append(Issue("path", f"give 1 to {max_hops} Relations", "range"))
    hops: list[Hop | None] = []
    for index, item in enumerate(value):
        name = _relation_name(item, f"path[{index}]", issues)
        hops.append(None if name is None else Hop(name, scope.relation_end(schema, name)))
    return hops


def _start_kind(start: list[tuple[int, RecordRef]], issues: list[Issue]) -> str | None:
    if not start:
        return None
    kind = start[0][1].kind
    for index, ref in start[1:]:
        if ref.kind != kind:
            issues.append(
                Issue(
                    f"start[{index}]",
                    f"all start Records must be of one Kind; {quoted(str(ref))} is a {ref.kind}, "
                    f"the first is a {kind}",
                    "kind-mismatch",
                )
            )
    return kind


def _check_path(hops: list[Hop | None], start_kind: str | None, issues: list[Issue]) -> None:
    at_kind = start_kind
    for index, hop in enumerate(hops):
        if hop is None:
            at_kind = None
            continue
        if at_kind is not None and hop.source_kind != at_kind:
            where = "the start Records are" if index == 0 else "the previous hop ends at"
            issues.append(
                Issue(
                    f"path[{index}]",
                    f"{quoted(hop.name)} goes from {hop.source_kind} to {hop.target_kind}, but {where} "
                    f"{at_kind}; use a Relation that starts at {at_kind}",
                    "path-mismatch",
                )
            )
        at_kind = hop.target_kind


def _relations(
    body: Mapping[str, object], schema: Schema, scope: ReadScope, issues: list[Issue]
) -> tuple[str, ...]:
    """Forward names of the Relations to follow: the listed ones, or every readable one."""
    value = body.get("relations")
    if value is None:
        return tuple(sorted(scope.visible_relations(schema)))
    if not isinstance(value, list):
        issues.append(Issue("relations", "expected a list of Relation names", "type"))
        return ()
    names: set[str] = set()
    for index, item in enumerate(value):
        if not isinstance(item, str) or not item:
            issues.append(Issue(f"relations[{index}]", "expected a Relation name", "type"))
            continue
        names.add(scope.relation_end(schema, item).name)
    return tuple(sorted(names))
