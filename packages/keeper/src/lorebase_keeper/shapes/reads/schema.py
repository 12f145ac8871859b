"""The schema document: GET /schema, the part of the schema the caller may read."""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from pydantic import Field

from lorebase_core.access import ReadScope
from lorebase_core.schema import AttributeDef, KindDef, RelationDef, Schema, ValueRules
from lorebase_keeper.shapes.common import (
    JsonObject,
    Shape,
    Stamped,
    StampedJson,
    ValueRulesShape,
)
from lorebase_keeper.shapes.writes.operations import OperationEntry


def _rules_json(name: str, rules: ValueRules) -> RulesJson:
    entry: RulesJson = {"name": name, "type": rules.type}
    if rules.description:
        entry["description"] = rules.description
    if rules.required:
        entry["required"] = True
    # a bound of 0 is a bound
    if rules.pattern is not None:
        entry["pattern"] = rules.pattern
    if rules.min is not None:
        entry["min"] = rules.min
    if rules.max is not None:
        entry["max"] = rules.max
    if rules.min_length is not None:
        entry["min_length"] = rules.min_length
    if rules.max_length is not None:
        entry["max_length"] = rules.max_length
    if rules.values:
        entry["values"] = list(rules.values)
    if rules.sensitivity:
        entry["sensitivity"] = list(rules.sensitivity)
    if isinstance(rules, AttributeDef):
        if rules.unique:
            entry["unique"] = True
        if rules.aliases:
            entry["aliases"] = list(rules.aliases)
        if rules.vocabulary:
            entry["vocabulary"] = rules.vocabulary
        if rules.derived:
            entry["derived"] = rules.derived
    return entry


def kind_json(name: str, kind: KindDef) -> KindEntryJson:
    return {
        "name": name,
        "description": kind.description,
        "key": list(kind.key),
        "title": kind.title,
        "aliases": list(kind.aliases),
        "traits": list(kind.traits),
        "attributes": [_rules_json(attr, rules) for attr, rules in kind.attributes.items()],
    }


def relation_json(name: str, relation: RelationDef) -> RelationEntryJson:
    return {
        "name": name,
        "inverse": relation.inverse,
        "aliases": list(relation.aliases),
        "from": relation.from_kind,
        "to": relation.to_kind,
        "cardinality": relation.cardinality,
        "required_from": relation.required_from,
        "description": relation.description,
        "attributes": [_rules_json(attr, rules) for attr, rules in relation.attributes.items()],
    }


def _lens_json(name: str, schema: Schema, scope: ReadScope) -> LensEntryJson | None:
    """A lens as the caller sees it; None when none of its Kinds is readable (for this caller
    the lens does not exist)."""
    lens = schema.lenses[name]
    lens_kinds = [kind for kind in lens.kinds if scope.kind_visible(kind)]
    lens_traits = [
        trait
        for trait in lens.traits
        if any(scope.kind_visible(kind) for kind in schema.kinds_implementing(trait))
    ]
    if not lens_kinds and not lens_traits:
        return None
    entry: LensEntryJson = {
        "name": name,
        "description": lens.description,
        "kinds": lens_kinds,
        "traits": lens_traits,
        "relations": [
            relation
            for relation in lens.relations
            if scope.relation_visible(schema, schema.relation_end(relation).name)
        ],
    }
    if lens.depth is not None:
        entry["depth"] = lens.depth
    if lens.budget_tokens is not None:
        entry["budget_tokens"] = lens.budget_tokens
    if lens.include_schema is not None:
        entry["include_schema"] = lens.include_schema
    if lens.include_recent_changes is not None:
        entry["include_recent_changes"] = lens.include_recent_changes
    if lens.include_lineage is not None:
        entry["include_lineage"] = lens.include_lineage
    return entry


def schema_json(schema: Schema, scope: ReadScope) -> SchemaDocument:
    """The part of the schema the caller may read: invisible Kinds are simply not there."""
    kinds = scope.visible_kinds(schema)
    relations = scope.visible_relations(schema)
    lenses = [_lens_json(name, schema, scope) for name in schema.lenses]
    traits: list[TraitEntryJson] = [
        {
            "name": name,
            "description": trait.description,
            "attributes": [_rules_json(attr, rules) for attr, rules in trait.attributes.items()],
            "kinds": [kind for kind in schema.kinds_implementing(name) if kind in kinds],
        }
        for name, trait in schema.traits.items()
    ]
    embedding = schema.search.embedding
    return {
        "digest": schema.digest,
        "title": schema.domain.title,
        "description": schema.domain.description,
        "examples": list(schema.domain.examples),
        "kinds": [kind_json(name, schema.kinds[name]) for name in kinds],
        "relations": [relation_json(name, schema.relations[name]) for name in relations],
        "traits": [trait for trait in traits if trait["kinds"]],
        "lenses": [lens for lens in lenses if lens is not None],
        "search": {"embedding": embedding.model_dump() if embedding is not None else None},
    }


class Rules(ValueRulesShape):
    """An Attribute of a Kind, Relation or Trait."""

    required: bool | None = None
    unique: bool | None = None
    aliases: list[str] | None = None
    vocabulary: Literal["iso3166", "iso4217"] | None = Field(
        default=None, description="The standard codes the values are (for resolve)."
    )
    derived: str | None = Field(default=None, description="The expression of a derived value.")


class RulesJson(TypedDict):
    name: str
    type: str
    description: NotRequired[str]
    required: NotRequired[bool]
    pattern: NotRequired[str]
    min: NotRequired[int | float | str]
    max: NotRequired[int | float | str]
    min_length: NotRequired[int]
    max_length: NotRequired[int]
    values: NotRequired[list[str]]
    sensitivity: NotRequired[list[str]]
    unique: NotRequired[bool]
    aliases: NotRequired[list[str]]
    vocabulary: NotRequired[Literal["iso3166", "iso4217"]]
    derived: NotRequired[str]


class KindEntry(Shape):
    name: str
    description: str
    key: list[str]
    title: str | None
    aliases: list[str]
    traits: list[str]
    attributes: list[Rules]


class KindEntryJson(TypedDict):
    name: str
    description: str
    key: list[str]
    title: str | None
    aliases: list[str]
    traits: list[str]
    attributes: list[RulesJson]


class RelationEntry(Shape):
    name: str
    inverse: str | None
    aliases: list[str] = Field(description="Words that also name the Relation (for resolve).")
    from_: str = Field(alias="from")
    to: str
    cardinality: str
    required_from: bool
    description: str
    attributes: list[Rules]


RelationEntryJson = TypedDict(
    "RelationEntryJson",
    {
        "name": str,
        "inverse": str | None,
        "aliases": list[str],
        "from": str,
        "to": str,
        "cardinality": str,
        "required_from": bool,
        "description": str,
        "attributes": list[RulesJson],
    },
)


class TraitEntry(Shape):
    name: str
    description: str
    attributes: list[Rules]
    kinds: list[str]


class TraitEntryJson(TypedDict):
    name: str
    description: str
    attributes: list[RulesJson]
    kinds: list[str]


class LensEntry(Shape):
    name: str
    description: str
    kinds: list[str]
    traits: list[str]
    relations: list[str]
    depth: int | None = None
    budget_tokens: int | None = None
    include_schema: bool | None = None
    include_recent_changes: bool | None = None
    include_lineage: bool | None = None


class LensEntryJson(TypedDict):
    name: str
    description: str
    kinds: list[str]
    traits: list[str]
    relations: list[str]
    depth: NotRequired[int]
    budget_tokens: NotRequired[int]
    include_schema: NotRequired[bool]
    include_recent_changes: NotRequired[bool]
    include_lineage: NotRequired[bool]


class SearchSettingsEntry(Shape):
    embedding: dict[str, object] | None = Field(description="model and dimensions, or null.")


class SearchSettingsEntryJson(TypedDict):
    embedding: JsonObject | None


class SchemaAnswer(Stamped):
    """GET /schema: invisible Kinds, and what only they use, are simply not there."""

    digest: str
    title: str
    description: str
    examples: list[str]
    kinds: list[KindEntry]
    relations: list[RelationEntry]
    traits: list[TraitEntry]
    lenses: list[LensEntry]
    search: SearchSettingsEntry
    operations: list[OperationEntry] = Field(
        description="The Operations the caller may read (GET /operations answers the same)."
    )


class SchemaDocument(TypedDict):
    """What `schema_json` makes of a schema: `SchemaAnswer` without its stamp and Operations."""

    digest: str
    title: str
    description: str
    examples: list[str]
    kinds: list[KindEntryJson]
    relations: list[RelationEntryJson]
    traits: list[TraitEntryJson]
    lenses: list[LensEntryJson]
    search: SearchSettingsEntryJson


class SchemaAnswerJson(StampedJson, SchemaDocument):
    operations: list[JsonObject]


class CompactRelation(Shape):
    name: str
    inverse: str | None
    from_: str = Field(alias="from")
    to: str
    cardinality: str
    attributes: dict[str, str] | None = Field(
        default=None, description="Attribute name to type (an enum's as `enum(a|b)`)."
    )


CompactRelationJson = TypedDict(
    "CompactRelationJson",
    {
        "name": str,
        "inverse": str | None,
        "from": str,
        "to": str,
        "cardinality": str,
        "attributes": NotRequired[dict[str, str]],
    },
)


class CompactKind(Shape):
    name: str
    key: list[str]
    title: str | None
    attributes: dict[str, str] = Field(
        description="Attribute name to type (an enum's as `enum(a|b)`), in declared order."
    )


class CompactKindJson(TypedDict):
    name: str
    key: list[str]
    title: str | None
    attributes: dict[str, str]


class SchemaCompactAnswer(Stamped):
    """GET /schema?format=compact: names, keys and types, Relations first (docs/api.md)."""

    digest: str
    title: str
    relations: list[CompactRelation]
    kinds: list[CompactKind]
    lenses: list[str]
    operations: list[str]


class SchemaCompactAnswerJson(StampedJson):
    digest: str
    title: str
    relations: list[CompactRelationJson]
    kinds: list[CompactKindJson]
    lenses: list[str]
    operations: list[str]
