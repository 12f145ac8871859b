"""POST /context: a context pack's request and its JSON answer (docs/context.md)."""

from __future__ import annotations

from typing import Literal, TypedDict

from pydantic import Field

from lorebase_core.query import QueryRequest
from lorebase_keeper.shapes.common import JsonObject, Shape, Stamped, StampedJson, Values
from lorebase_keeper.shapes.reads.queries import GraphLink


class ContextRequest(Shape):
    """One seed selector (refs, query or search) and what to include."""

    refs: list[str] | None = None
    query: QueryRequest | None = Field(
        default=None, description="A query without aggregate, cursor, branch, at, coverage."
    )
    search: str | None = Field(default=None, description="Text: the best lexical hits.")
    branch: str | None = None
    budget_tokens: int | None = None
    depth: int | None = None
    relations: list[str] | None = None
    traits: list[str] | None = None
    lens: str | None = None
    include_schema: bool | Literal["compact"] | None = Field(
        default=None,
        description=(
            "true (default): the schema section with descriptions once per Kind and Relation; "
            '"compact": names, keys, titles and types only; false: no schema section.'
        ),
    )
    include_recent_changes: bool | None = None
    include_lineage: bool | None = None
    since: str | None = Field(default=None, description="Recent changes after this Revision.")
    format: Literal["json", "markdown"] | None = None


class Seed(Shape):
    ref: str
    title: str | None
    values: Values | None
    updated_revision: str | None


class Neighbor(Shape):
    ref: str
    title: str | None
    depth: int
    values: Values | None = None


class PackAttribute(Shape):
    name: str
    type: str


class PackKind(Shape):
    name: str
    description: str | None = None
    key: list[str]
    title: str | None
    attributes: list[PackAttribute]


class PackRelation(Shape):
    name: str
    inverse: str | None
    from_: str = Field(alias="from")
    to: str
    cardinality: str
    description: str | None = None
    attributes: list[PackAttribute] | None = None


class PackSchema(Shape):
    kinds: list[PackKind]
    relations: list[PackRelation]


class RecentChange(Shape):
    revision: str
    at: str
    ref: str
    change: Literal["created", "modified", "deleted"]
    attributes: list[str]
    actor: str
    origin: str
    message: str


class ImportedRecords(Shape):
    """The Records of the pack one import Revision created, counted in one entry."""

    revision: str
    at: str
    change: Literal["created"]
    records: int = Field(description="How many Records of the pack the Revision created.")
    actor: str
    origin: str
    message: str


class LineageEntry(Shape):
    ref: str
    attributes: list[str]
    origin: str
    actor: str
    at: str


class TrimStep(Shape):
    step: str
    count: int


class TrimStepJson(TypedDict):
    step: str
    count: int


class Budget(Shape):
    limit_tokens: int
    used_tokens: int
    chars_per_token: float
    sections: dict[str, int]
    trimmed: list[TrimStep]
    omitted: dict[str, object]
    over_budget: bool
    capped: bool


class BudgetJson(TypedDict):
    limit_tokens: int
    used_tokens: int
    chars_per_token: float
    sections: dict[str, int]
    trimmed: list[TrimStepJson]
    omitted: dict[str, str]
    over_budget: bool
    capped: bool


class ContextAnswer(Stamped):
    """The pack (format=json): the sections the budget kept, and the budget."""

    etag: str
    seeds: list[Seed] | None = None
    neighbors: list[Neighbor] | None = None
    links: dict[str, list[GraphLink]] | None = None
    pack_schema: PackSchema | None = Field(default=None, alias="schema")
    recent_changes: list[RecentChange | ImportedRecords] | None = None
    lineage: list[LineageEntry] | None = None
    budget: Budget


class PackSections(TypedDict, total=False):
    """The sections the budget kept, as `lorebase_core.context.section_json` makes them."""

    seeds: list[JsonObject]
    neighbors: list[JsonObject]
    links: dict[str, list[JsonObject]]
    schema: JsonObject
    recent_changes: list[JsonObject]
    lineage: list[JsonObject]


class ContextAnswerJson(StampedJson, PackSections):
    etag: str
    budget: BudgetJson
