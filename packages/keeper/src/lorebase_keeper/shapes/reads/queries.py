"""POST /query, /traverse, /neighborhood and /resolve: their requests and answers.

The request models describe the bodies for the document; the parsers of `lorebase_core`
(`parse_query`, `parse_traverse`, `parse_neighborhood`) and `routes.resolve.parse_resolve` stay
the validators, so every problem is listed with its path as before.
"""

from __future__ import annotations

from typing import Any, Literal, TypeAlias

from pydantic import ConfigDict, Field

from lorebase_keeper.shapes.common import Shape, Stamped, Values

Operator = Literal["eq", "ne", "lt", "lte", "gt", "gte", "in", "contains", "starts_with", "is_null"]


class Comparison(Shape):
    """`{"attr": ..., "op": ..., "value": ...}`: a list for `in`, a boolean for `is_null`."""

    attr: str
    op: Operator
    value: Any = None


class RelationCount(Shape):
    op: Literal["eq", "ne", "lt", "lte", "gt", "gte"]
    value: int


class RelationPredicate(Shape):
    """Records across a Relation (forward or inverse name) matching `where`, or counted."""

    rel: str
    where: Predicate | None = None
    count: RelationCount | None = None


class AllOf(Shape):
    and_: list[Predicate] = Field(alias="and")


class AnyOf(Shape):
    or_: list[Predicate] = Field(alias="or")


class NoneOf(Shape):
    not_: Predicate = Field(alias="not")


Predicate: TypeAlias = AllOf | AnyOf | NoneOf | Comparison | RelationPredicate


class OrderKey(Shape):
    attr: str
    dir: Literal["asc", "desc"] = "asc"


class Aggregate(Shape):
    group_by: str | None = None
    metrics: dict[str, dict[Literal["count", "sum", "avg", "min", "max"], str]] = Field(
        default_factory=dict, description='name to {"count": "*"}, {"avg": "risk_score"} ...'
    )


class QueryRequest(Shape):
    """The query DSL (docs/query.md): one of kind or trait."""

    kind: str | None = None
    trait: str | None = None
    where: Predicate | None = None
    select: list[str] | None = None
    order_by: list[OrderKey] | None = None
    limit: int | None = None
    cursor: str | None = None
    aggregate: Aggregate | None = None
    branch: str | None = None
    at: str | None = None
    coverage: bool | None = Field(default=None, description="false: no coverage block.")


class CoveredKind(Shape):
    kind: str
    records: int
    as_of: str | None
    approximate: bool


class CoveredAttribute(Shape):
    kind: str
    attribute: str
    missing: float = Field(description="The share of the Kind's Records without a value.")
    missing_records: int
    used_in: list[str]


class UnknownPhrase(Shape):
    phrase: str
    reason: str


class ClosestTerm(Shape):
    """A stored term near a text filter that matched nothing."""

    term: str
    records: int = Field(description="Records whose value holds it.")


class FilterCheck(Shape):
    """One filter of an empty answer's where, counted alone."""

    path: str = Field(description="Where the filter is in the request, e.g. where.and[0].")
    filter: dict[str, Any] = Field(description="The filter as checked, in canonical form.")
    records: int = Field(description="Records of the queried Kinds it matches on its own.")
    closest: list[ClosestTerm] | None = Field(
        default=None, description="A text filter matching nothing: the nearest stored terms."
    )


class EmptyAnswer(Shape):
    """Why a query answered no Records (its first page only)."""

    filters: list[FilterCheck]
    combination: bool = Field(
        description="Every filter matches some Records alone: their combination matches none."
    )
    skipped: int = Field(description="Checks not run past read.query.explain_empty_max_checks.")


class Coverage(Shape):
    """How much of the data a filter could see (docs/query.md)."""

    kinds: list[CoveredKind]
    attributes: list[CoveredAttribute]
    sources: list[Any]
    notes: list[str]
    omitted: str | None = Field(default=None, description="Why no statistics are given.")
    unknown: list[UnknownPhrase] | None = Field(default=None, description="POST /resolve only.")
    empty: EmptyAnswer | None = Field(
        default=None, description="POST /query without Records: why (docs/query.md)."
    )


class QueryRecord(Shape):
    ref: str
    kind: str
    key: str
    values: Values


class QueryGroup(Shape):
    """A group of an aggregate, with its metrics as further members."""

    model_config = ConfigDict(extra="allow")

    key: Any = Field(description="The group's value (null: no value).")
    count: int


class QueryAnswer(Stamped):
    """POST /query: records, or groups for an aggregate."""

    kind: str | None = Field(default=None, description="A Kind query's Kind.")
    trait: str | None = Field(default=None, description="A Trait query's Trait.")
    kinds: list[str] | None = Field(default=None, description="The Kinds of a Trait query.")
    records: list[QueryRecord] | None = None
    groups: list[QueryGroup] | None = None
    next_cursor: str | None
    coverage: Coverage | None = None


Hop: TypeAlias = str | dict[Literal["rel"], str]


class TraverseRequest(Shape):
    start: list[str] = Field(description="Record refs (Kind/key).")
    path: list[Hop] = Field(description='Relation names, or {"rel": name}.')
    limit: int | None = None
    branch: str | None = None
    at: str | None = None


class NeighborhoodRequest(Shape):
    refs: list[str]
    depth: int | None = None
    relations: list[str] | None = None
    values: bool | None = Field(default=None, description="false: headers and Link ends only.")
    branch: str | None = None
    at: str | None = None


class GraphRecord(Shape):
    ref: str
    kind: str
    key: str
    title: str | None
    values: Values | None = None


class GraphNeighbor(Shape):
    ref: str
    kind: str
    title: str | None
    depth: int
    values: Values | None = None


class GraphLink(Shape):
    from_: str = Field(alias="from")
    to: str
    values: Values | None = None


class HopCounts(Shape):
    relation: str
    direction: Literal["forward", "inverse"]
    from_kind: str
    to_kind: str
    records: int
    links: int


Cap = Literal["max_fanout", "limit", "max_results", "max_records", "max_links"]


class TraverseAnswer(Stamped):
    start: list[str]
    missing: list[str]
    path: list[str]
    hops: list[HopCounts]
    records: list[GraphRecord]
    capped: bool
    caps: list[Cap]


class NeighborhoodAnswer(Stamped):
    seeds: list[GraphRecord]
    missing: list[str]
    neighbors: list[GraphNeighbor]
    links: dict[str, list[GraphLink]] = Field(description="By the Relation's forward name.")
    capped: bool
    caps: list[Cap]


class ResolveTextRequest(Shape):
    """The words of a question to ground (docs/resolve.md)."""

    text: str = Field(description="The words of a question.")
    query_vector: list[float] | None = None
    record_misses: bool | None = None
    coverage: bool | None = None
    branch: str | None = None
    at: str | None = None


class Candidate(Shape):
    """What a phrase may stand for (docs/resolve.md)."""

    target: Literal["kind", "attribute", "relation", "value", "comparison", "count"]
    kind: str = Field(description="For a Relation: the Kind it is read from.")
    attribute: str | None = None
    type: str | None = None
    relation: str | None = Field(default=None, description="The api name read from `kind`.")
    direction: Literal["forward", "inverse"] | None = None
    to_kind: str | None = Field(default=None, description="The Kind at the Relation's other end.")
    values: list[str] | None = None
    predicate: Predicate | None = Field(
        default=None,
        description="For a value or a comparison: the filter; for a Relation: its `rel` skeleton.",
    )
    count: RelationCount | None = Field(
        default=None, description="For a count: how many Records of the Kind, across a Relation."
    )
    score: float
    level: str
    matched: str
    why: str = Field(description="Why the phrase matched, in words.")
    records: int | None = None


class Suggestion(Shape):
    """A POST /query body composed from the candidates (never run by resolve)."""

    query: QueryRequest
    score: float
    uses: list[str] = Field(description="The phrases of the text it uses.")
    why: str


class Skipped(Shape):
    level: str
    reason: str


class ResolveAnswer(Stamped):
    candidates: list[Candidate]
    suggestions: list[Suggestion]
    truncated: bool
    unmatched: list[str]
    skipped: list[Skipped]
    coverage: Coverage | None = None


for _model in (RelationPredicate, AllOf, AnyOf, NoneOf, QueryRequest):
    _model.model_rebuild()
