"""POST /query, /traverse, /neighborhood and /resolve: their requests and answers.

The request of POST /query is described once, in `lorebase_core.query` (`QueryRequest`, whose
members `parse_query` reads); the other request models describe their bodies for the document.
The parsers of `lorebase_core` (`parse_query`, `parse_traverse`, `parse_neighborhood`) and
`routes.resolve.parse_resolve` stay the validators, so every problem is listed with its path as
before.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypeAlias, TypedDict

from pydantic import ConfigDict, Field

from lorebase_core.query import PredicateRequest as Predicate
from lorebase_core.query import QueryRequest
from lorebase_core.query import RelationCountRequest as RelationCount
from lorebase_keeper.shapes.common import JsonObject, Shape, Stamped, StampedJson, Values


class CoveredKind(Shape):
    kind: str
    records: int
    as_of: str | None
    approximate: bool


class CoveredKindJson(TypedDict):
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


class CoveredAttributeJson(TypedDict):
    kind: str
    attribute: str
    missing: float
    missing_records: int
    used_in: list[str]


class UnknownPhrase(Shape):
    phrase: str
    reason: str


class UnknownPhraseJson(TypedDict):
    phrase: str
    reason: str


class ClosestTerm(Shape):
    """A stored term near a text filter that matched nothing."""

    term: str
    records: int = Field(description="Records whose value holds it.")


class ClosestTermJson(TypedDict):
    term: str
    records: int


class FilterCheck(Shape):
    """One filter of an empty answer's where, counted alone."""

    path: str = Field(description="Where the filter is in the request, e.g. where.and[0].")
    filter: dict[str, object] = Field(description="The filter as checked, in canonical form.")
    records: int = Field(description="Records of the queried Kinds it matches on its own.")
    closest: list[ClosestTerm] | None = Field(
        default=None, description="A text filter matching nothing: the nearest stored terms."
    )


class FilterCheckJson(TypedDict):
    path: str
    filter: JsonObject
    records: int
    closest: NotRequired[list[ClosestTermJson]]


class EmptyAnswer(Shape):
    """Why a query answered no Records (its first page only)."""

    filters: list[FilterCheck]
    combination: bool = Field(
        description="Every filter matches some Records alone: their combination matches none."
    )
    skipped: int = Field(description="Checks not run past read.query.explain_empty_max_checks.")


class EmptyAnswerJson(TypedDict):
    filters: list[FilterCheckJson]
    combination: bool
    skipped: int


class Coverage(Shape):
    """How much of the data a filter could see (docs/query.md)."""

    kinds: list[CoveredKind]
    attributes: list[CoveredAttribute]
    sources: list[object]
    notes: list[str]
    omitted: str | None = Field(default=None, description="Why no statistics are given.")
    unknown: list[UnknownPhrase] | None = Field(default=None, description="POST /resolve only.")
    empty: EmptyAnswer | None = Field(
        default=None, description="POST /query without Records: why (docs/query.md)."
    )


class CoverageJson(TypedDict):
    kinds: list[CoveredKindJson]
    attributes: list[CoveredAttributeJson]
    sources: list[object]
    notes: list[str]
    omitted: NotRequired[str]
    unknown: NotRequired[list[UnknownPhraseJson]]
    empty: NotRequired[EmptyAnswerJson]


class QueryRecord(Shape):
    ref: str
    kind: str
    key: str
    values: Values


class QueryGroup(Shape):
    """A group of an aggregate, with its metrics as further members."""

    model_config = ConfigDict(extra="allow")

    key: object = Field(description="The group's value (null: no value).")
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


class QueryTarget(TypedDict, total=False):
    """What a query read: a Kind, or a Trait and its Kinds."""

    kind: str
    trait: str
    kinds: list[str]


class QueryRows(TypedDict, total=False):
    """Records (`QueryRecord`s), or groups for an aggregate (`QueryGroup`s), as the store
    gives them."""

    records: list[JsonObject]
    groups: list[JsonObject]


class WithCoverage(TypedDict, total=False):
    """The coverage block of POST /query and /resolve, unless asked without."""

    coverage: CoverageJson


class QueryAnswerJson(StampedJson, QueryTarget, QueryRows, WithCoverage):
    next_cursor: str | None


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


class SkippedJson(TypedDict):
    level: str
    reason: str


class ResolveAnswer(Stamped):
    candidates: list[Candidate]
    suggestions: list[Suggestion]
    truncated: bool
    unmatched: list[str]
    skipped: list[Skipped]
    coverage: Coverage | None = None


class ResolveAnswerJson(StampedJson, WithCoverage):
    candidates: list[JsonObject]
    suggestions: list[JsonObject]
    truncated: bool
    unmatched: list[str]
    skipped: list[SkippedJson]
