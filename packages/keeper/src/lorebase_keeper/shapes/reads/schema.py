"""The schema document: GET /schema, the part of the schema the caller may read."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from lorebase_core.access import ReadScope
from lorebase_core.schema import AttributeDef, KindDef, RelationDef, Schema, ValueRules
from lorebase_keeper.shapes.common import Shape, Stamped, ValueRulesShape
from lorebase_keeper.shapes.writes.operations import OperationEntry


def _rules_json(name: str, rules: ValueRules) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": name, "type": rules.type}
    if rules.description:
        entry["description"] = rules.description
    for member in ("required", "pattern", "min", "max", "min_length", "max_length"):
        value = getattr(rules, member)
        if value is not None and value is not False:  # a bound of 0 is a bound
            entry[member] = value
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


def kind_json(name: str, kind: KindDef) -> dict[str, Any]:
    return {
        "name": name,
        "description": kind.description,
        "key": list(kind.key),
        "title": kind.title,
        "aliases": list(kind.aliases),
        "traits": list(kind.traits),
        "attributes": [_rules_json(attr, rules) for attr, rules in kind.attributes.items()],
    }


def relation_json(name: str, relation: RelationDef) -> dict[str, Any]:
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


def schema_json(schema: Schema, scope: ReadScope) -> dict[str, Any]:
    """The part of the schema the caller may read: invisible Kinds are simply not there."""
    kinds = scope.visible_kinds(schema)
    relations = scope.visible_relations(schema)
    lenses = []
    for name, lens in schema.lenses.items():
        lens_kinds = [kind for kind in lens.kinds if scope.kind_visible(kind)]
        lens_traits = [
            trait
            for trait in lens.traits
            if any(scope.kind_visible(kind) for kind in schema.kinds_implementing(trait))
        ]
        if not lens_kinds and not lens_traits:
            continue  # a lens none of whose Kinds is readable does not exist for this caller
        entry: dict[str, Any] = {
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
        for member in (
            "depth",
            "budget_tokens",
            "include_schema",
            "include_recent_changes",
            "include_lineage",
        ):
            value = getattr(lens, member)
            if value is not None:
                entry[member] = value
        lenses.append(entry)
    traits = [
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
        "lenses": lenses,
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


class KindEntry(Shape):
    name: str
    description: str
    key: list[str]
    title: str | None
    aliases: list[str]
    traits: list[str]
    attributes: list[Rules]


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


class TraitEntry(Shape):
    name: str
    description: str
    attributes: list[Rules]
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


class SearchSettingsEntry(Shape):
    embedding: dict[str, Any] | None = Field(description="model and dimensions, or null.")


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


class CompactRelation(Shape):
    name: str
    inverse: str | None
    from_: str = Field(alias="from")
    to: str
    cardinality: str
    attributes: dict[str, str] | None = Field(
        default=None, description="Attribute name to type (an enum's as `enum(a|b)`)."
    )


class CompactKind(Shape):
    name: str
    key: list[str]
    title: str | None
    attributes: dict[str, str] = Field(
        description="Attribute name to type (an enum's as `enum(a|b)`), in declared order."
    )


class SchemaCompactAnswer(Stamped):
    """GET /schema?format=compact: names, keys and types, Relations first (docs/api.md)."""

    digest: str
    title: str
    relations: list[CompactRelation]
    kinds: list[CompactKind]
    lenses: list[str]
    operations: list[str]
