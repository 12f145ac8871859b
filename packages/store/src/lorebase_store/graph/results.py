"""What graph reads answer: Records and Links as frozen dataclasses with their JSON shapes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from lorebase_core.access import ReadScope
from lorebase_core.schema import Direction, KindDef, canonical_json
from lorebase_store.results import Values
from lorebase_store.rows import field_document

Cap = Literal["max_fanout", "limit", "max_results", "max_records", "max_links"]
"""A cap that cut an answer: the setting (or request member) that bounds it."""


@dataclass(frozen=True)
class GraphRecord:
    """A Record a graph read reached, with its values as the caller may read them.

    Attributes:
        kind: the Kind's name.
        key: the key string.
        title: the value of the Kind's `title` Attribute (None when the Kind has none, the
            Record has no value, or the caller may not read it).
        values: the values, masked for the caller; None when the request asked for none.
        depth: hops from the seeds (0 for a seed or a traversal result).
    """

    kind: str
    key: str
    title: str | None
    values: Values | None
    depth: int = 0

    @property
    def ref(self) -> str:
        return f"{self.kind}/{self.key}"

    def to_json(self) -> dict[str, Any]:
        """`{"ref", "kind", "key", "title", "values"}` (seeds, traversal results)."""
        return self._document(ref=self.ref, kind=self.kind, key=self.key, title=self.title)

    def neighbor_json(self) -> dict[str, Any]:
        """`{"ref", "kind", "title", "depth", "values"}` (neighbors of a neighborhood)."""
        return self._document(ref=self.ref, kind=self.kind, title=self.title, depth=self.depth)

    def _document(self, **members: Any) -> dict[str, Any]:
        """`members`, then the values when they were read."""
        if self.values is not None:
            members["values"] = self.values
        return members


def graph_record(
    kind: str,
    kind_def: KindDef,
    key: str,
    stored: Mapping[str, Any] | None,
    scope: ReadScope,
    *,
    with_values: bool,
    depth: int = 0,
) -> GraphRecord:
    """A `GraphRecord` from the stored values (None when they were not read)."""
    title: str | None = None
    if stored is not None and kind_def.title is not None:
        rules = kind_def.attributes.get(kind_def.title)
        value = stored.get(kind_def.title)
        if value is not None and (rules is None or scope.value_readable(rules)):
            title = value if isinstance(value, str) else canonical_json(value)
    values = None
    if with_values and stored is not None:
        values = scope.mask(kind_def.attributes, declared_order(kind_def.attributes, stored))
    return GraphRecord(kind, key, title, values, depth)


def declared_order(attributes: Mapping[str, object], stored: Mapping[str, Any]) -> dict[str, Any]:
    """The values in the order their Attributes are declared (JSONB keeps its own order)."""
    ordered = {name: stored[name] for name in attributes if name in stored}
    ordered.update((name, stored[name]) for name in sorted(stored) if name not in ordered)
    return ordered


@dataclass(frozen=True)
class GraphLink:
    """A Link between two reached Records: its Relation's forward name and its two ends."""

    relation: str
    from_ref: str
    to_ref: str
    values: Values | None = None

    def to_json(self) -> dict[str, Any]:
        """`{"from", "to", "values"}`; `values` only when the Link has some and they were asked."""
        document: dict[str, Any] = {"from": self.from_ref, "to": self.to_ref}
        if self.values:
            document["values"] = self.values
        return document


@dataclass(frozen=True, kw_only=True)
class HopResult:
    """One hop of a traversal: the Records it reached and the Links it followed."""

    relation: str
    """The Relation's name as the request wrote it."""
    direction: Direction
    from_kind: str
    to_kind: str
    records: int
    links: int

    def to_json(self) -> dict[str, Any]:
        return field_document(self)


class _CutByCaps:
    """An answer that caps may have cut: `caps` names them, sorted."""

    caps: tuple[Cap, ...]

    @property
    def capped(self) -> bool:
        return bool(self.caps)


@dataclass(frozen=True, kw_only=True)
class TraverseResult(_CutByCaps):
    """The answer of POST /traverse (without the Revision, which Keeper adds).

    Attributes:
        start: the start references (distinct, sorted).
        missing: the start references that name no live Record.
        path: the Relation names, as written.
        hops: each hop's counts.
        records: the distinct live Records at the end of the path, in key order, at most the
            request's limit.
        caps: the caps that cut the answer (`max_fanout`, `limit` or `max_results`), sorted.
    """

    start: tuple[str, ...]
    missing: tuple[str, ...]
    path: tuple[str, ...]
    hops: tuple[HopResult, ...]
    records: tuple[GraphRecord, ...]
    caps: tuple[Cap, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "start": list(self.start),
            "missing": list(self.missing),
            "path": list(self.path),
            "hops": [hop.to_json() for hop in self.hops],
            "records": [record.to_json() for record in self.records],
            "capped": self.capped,
            "caps": list(self.caps),
        }


@dataclass(frozen=True)
class NeighborhoodResult(_CutByCaps):
    """The answer of POST /neighborhood (without the Revision, which Keeper adds).

    Attributes:
        seeds: the seed Records that exist, by reference.
        missing: the seed references that name no live Record.
        neighbors: the Records reached, each once at its smallest depth, by (depth, reference).
        links: the Links among seeds and neighbors, by (Relation, from, to).
        caps: the caps that cut the answer (`max_fanout`, `max_records`, `max_links`), sorted.
    """

    seeds: tuple[GraphRecord, ...]
    missing: tuple[str, ...]
    neighbors: tuple[GraphRecord, ...]
    links: tuple[GraphLink, ...]
    caps: tuple[Cap, ...]

    def links_json(self) -> dict[str, list[dict[str, Any]]]:
        """The Links grouped by the Relation's forward name (names sorted)."""
        grouped: dict[str, list[dict[str, Any]]] = {}
        for link in self.links:
            grouped.setdefault(link.relation, []).append(link.to_json())
        return grouped

    def to_json(self) -> dict[str, Any]:
        return {
            "seeds": [seed.to_json() for seed in self.seeds],
            "missing": list(self.missing),
            "neighbors": [neighbor.neighbor_json() for neighbor in self.neighbors],
            "links": self.links_json(),
            "capped": self.capped,
            "caps": list(self.caps),
        }
