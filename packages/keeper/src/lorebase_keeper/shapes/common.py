"""Members many answers share: the stamp of a read, origins, provenance, hints, problems.

Every model here and in the other `shapes` modules describes a JSON shape for the OpenAPI
document; the answers themselves are built as the `*Json` TypedDicts beside the models (plain
dicts) and rendered as they always were (`answers.render_json`), so the bytes and ETags do not
depend on the models.
"""

from __future__ import annotations

from typing import NotRequired, TypeAlias, TypedDict

from pydantic import BaseModel, ConfigDict, Field

from lorebase_core.values import JsonValue

Values: TypeAlias = dict[str, object]
"""Attribute name to canonical value (integers and decimals as strings, ISO 8601 times), as the
models describe it (in the document, `object` is any JSON value)."""

JsonObject: TypeAlias = dict[str, JsonValue]
"""A JSON object whose members no shape here names: one the store or core built (`to_json`),
a request body, a member of the OpenAPI document."""

ValuesJson: TypeAlias = dict[str, JsonValue]
"""`Values` as the `*Json` shapes hold it."""


class Shape(BaseModel):
    """An answer member with exactly these members: anything else is not in the contract."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class ValueRulesShape(Shape):
    """What a value must be (an Attribute's or an Operation parameter's rules); members whose
    value is the default are left out."""

    name: str
    type: str
    description: str | None = None
    pattern: str | None = None
    min: object = None
    max: object = None
    min_length: int | None = None
    max_length: int | None = None
    values: list[str] | None = Field(default=None, description="The names of an enum.")
    sensitivity: list[str] | None = None


class Stamped(Shape):
    """The members every read starts with: where it was read."""

    domain: str
    branch: str
    revision: str | None = Field(description="The Revision the answer was read at.")


class StampedJson(TypedDict):
    domain: str
    branch: str
    revision: str | None


class Origin(Shape):
    type: str = Field(description="import, operation, merge, extraction or source_sync.")
    ref: str | None


class OriginJson(TypedDict):
    type: str
    ref: str | None


class Provenance(Shape):
    """Where one value came from."""

    revision: str
    origin: Origin
    actor: str
    at: str
    message: str
    operation: str | None = Field(default=None, description="The Operation an execution ran.")
    brought_by: Provenance | None = Field(
        default=None, description="The merge Revision that brought a value from another branch."
    )
    proposal: str | None = Field(default=None, description="The Proposal whose merge brought it.")


class Hint(Shape):
    """A call that moves things forward."""

    action: str
    detail: str
    method: str
    href: str
    permission: str | None = None


class HintJson(TypedDict):
    action: str
    detail: str
    method: str
    href: str
    permission: NotRequired[str]


class Issue(Shape):
    path: str = Field(description="JSON path of the member in question ('' for the whole body).")
    message: str
    code: str


class Problem(BaseModel):
    """A problem document (RFC 9457, `application/problem+json`); errors add their own members
    (`proposal`, `blockers`, `missing` ...)."""

    model_config = ConfigDict(extra="allow")

    type: str
    title: str
    status: int
    detail: str
    code: str = Field(description="Stable code, e.g. kind-not-found.")
    instance: str | None = None
    issues: list[Issue] | None = Field(default=None, description="Every issue, with its path.")
