"""Records and their Links: GET /kinds/{kind}/records[/{key}[/links/{rel}]]."""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from pydantic import Field

from lorebase_core.access import ReadScope
from lorebase_core.schema import KindDef, RelationDef
from lorebase_core.values import JsonValue
from lorebase_keeper.shapes.common import (
    JsonObject,
    Provenance,
    Shape,
    Stamped,
    StampedJson,
    Values,
    ValuesJson,
)
from lorebase_store import Lineage, LinkVersion, RecordVersion


def title_of(kind: KindDef, values: ValuesJson, scope: ReadScope) -> JsonValue:
    """The value of the Kind's title Attribute (None when it has none or it is masked)."""
    if kind.title is None or kind.title not in values:
        return None
    rules = kind.attributes.get(kind.title)
    if rules is not None and not scope.value_readable(rules):
        return None
    return values[kind.title]


def record_json(
    kind_name: str, kind: KindDef, record: RecordVersion, scope: ReadScope
) -> RecordSummaryJson:
    return {
        "ref": f"{kind_name}/{record.key}",
        "kind": kind_name,
        "key": record.key,
        "title": title_of(kind, record.values, scope),
        "values": scope.mask(kind.attributes, _ordered(kind, record.values)),
        "updated_revision": record.revision,
    }


def lineage_json(kind: KindDef, found: Lineage, scope: ReadScope) -> dict[str, JsonObject]:
    """Where each value came from, masked Attributes left out: whether one has an entry would
    tell whether it is set."""
    masked = set(scope.masked_names(kind.attributes))
    return {
        name: provenance.to_json()
        for name, provenance in found.attributes.items()
        if name not in masked
    }


def _ordered(kind: KindDef, values: ValuesJson) -> ValuesJson:
    """Values in the order the schema declares the Attributes."""
    return {name: values[name] for name in kind.attributes if name in values}


def link_json(
    relation: RelationDef, link: LinkVersion, scope: ReadScope, *, name: str
) -> LinkEntryJson:
    entry: LinkEntryJson = {
        "relation": name,
        "from": f"{relation.from_kind}/{link.from_key}",
        "to": f"{relation.to_kind}/{link.to_key}",
        "revision": link.revision,
    }
    values = scope.mask(relation.attributes, link.values)  # masked ones show, set or not
    if values:
        entry["values"] = values
    return entry


class RecordSummary(Shape):
    """A Record as lists and answers show it (`record_json`)."""

    ref: str = Field(description="Kind/key.")
    kind: str
    key: str
    title: object = Field(
        description="The value of the Kind's title Attribute (null: none, masked)."
    )
    values: Values = Field(
        description="In declared order; `***` for values the caller may not read."
    )
    updated_revision: str


class RecordSummaryJson(TypedDict):
    ref: str
    kind: str
    key: str
    title: JsonValue
    values: ValuesJson
    updated_revision: str


class RecordAnswer(Stamped, RecordSummary):
    """GET /kinds/{kind}/records/{key}."""

    links: dict[str, int] | None = Field(
        default=None, description="With links=true: live Links per Relation name."
    )
    lineage: dict[str, Provenance] | None = Field(
        default=None, description="With lineage=true: where each value came from."
    )


class RecordDetails(TypedDict, total=False):
    """What GET /kinds/{kind}/records/{key} adds when asked (`links=true`, `lineage=true`)."""

    links: dict[str, int]
    lineage: dict[str, JsonObject]


class RecordAnswerJson(StampedJson, RecordSummaryJson, RecordDetails):
    pass


class RecordsPage(Stamped):
    """GET /kinds/{kind}/records."""

    kind: str
    records: list[RecordSummary]
    next_cursor: str | None


class RecordsPageJson(StampedJson):
    kind: str
    records: list[RecordSummaryJson]
    next_cursor: str | None


class LinkEntry(Shape):
    relation: str
    from_: str = Field(alias="from", description="Kind/key of the from end.")
    to: str
    revision: str
    values: Values | None = Field(default=None, description="Only when the Link has values.")


LinkEntryJson = TypedDict(
    "LinkEntryJson",
    {"relation": str, "from": str, "to": str, "revision": str, "values": NotRequired[ValuesJson]},
)


class LinksPage(Stamped):
    """GET /kinds/{kind}/records/{key}/links/{relation}."""

    ref: str
    relation: str
    direction: Literal["forward", "inverse"]
    target_kind: str
    links: list[LinkEntry]
    next_cursor: str | None


class LinksPageJson(StampedJson):
    ref: str
    relation: str
    direction: Literal["forward", "inverse"]
    target_kind: str
    links: list[LinkEntryJson]
    next_cursor: str | None
