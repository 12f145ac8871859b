"""Why a Record is what it is: history, lineage and explain."""

from __future__ import annotations

from typing import Literal, TypedDict

from pydantic import Field

from lorebase_core.values import JsonValue
from lorebase_keeper.shapes.common import (
    JsonObject,
    Origin,
    OriginJson,
    Provenance,
    Shape,
    Stamped,
    StampedJson,
    Values,
)


class Change(Shape):
    """One change of a Record."""

    revision: str
    author: str
    at: str
    message: str
    origin: Origin
    change: str = Field(description="created, modified or deleted.")
    attributes: list[str]
    before: Values | None = Field(default=None, description="With values=true.")
    after: Values | None = Field(default=None, description="With values=true.")


class HistoryPage(Stamped):
    """GET .../history: newest first."""

    ref: str
    changes: list[Change]
    next_cursor: str | None


class HistoryPageJson(StampedJson):
    ref: str
    changes: list[JsonObject]
    next_cursor: str | None


class LineageAnswer(Stamped):
    """GET .../lineage."""

    ref: str
    attributes: dict[str, Provenance]
    changes: int
    changes_truncated: bool


class LineageAnswerJson(StampedJson):
    ref: str
    attributes: dict[str, JsonObject]
    changes: int
    changes_truncated: bool


class Created(Shape):
    revision: str
    at: str
    author: str
    origin: Origin
    message: str


class CreatedJson(TypedDict):
    revision: str
    at: str
    author: str
    origin: OriginJson
    message: str


class ExplainedAttribute(Shape):
    """A value and its provenance (all null for a value the caller may not read)."""

    name: str
    value: object
    revision: str | None
    origin: Origin | None
    actor: str | None
    at: str | None
    message: str | None
    operation: str | None = None
    brought_by: Provenance | None = None
    proposal: str | None = None


class ExplainedLink(Shape):
    relation: str
    direction: Literal["forward", "inverse"]
    ref: str
    revision: str


class ExplainedLinkJson(TypedDict):
    relation: str
    direction: Literal["forward", "inverse"]
    ref: str
    revision: str


class ProposalLink(Shape):
    id: str
    url: str


class ProposalLinkJson(TypedDict):
    id: str
    url: str


class ExplainAnswer(Stamped):
    """GET .../explain (format=json)."""

    ref: str
    title: object
    changes: int
    changes_truncated: bool
    created: Created
    attributes: list[ExplainedAttribute]
    links: list[ExplainedLink]
    links_truncated: bool
    proposals: list[ProposalLink]


class ExplainAnswerJson(StampedJson):
    ref: str
    title: JsonValue
    changes: int
    changes_truncated: bool
    created: CreatedJson
    attributes: list[JsonObject]  # `ExplainedAttribute`: a value and the store's provenance
    links: list[ExplainedLinkJson]
    links_truncated: bool
    proposals: list[ProposalLinkJson]
