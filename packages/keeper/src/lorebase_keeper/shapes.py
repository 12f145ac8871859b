"""JSON shapes shared by several routes: Records, the schema document, provenance."""

from __future__ import annotations

from typing import Any

from lorebase_core.access import ReadScope
from lorebase_core.schema import Schema
from lorebase_core.schema.model import AttributeDef, KindDef, RelationDef, ValueRules
from lorebase_store import Lineage, LinkVersion, RecordVersion


def title_of(kind: KindDef, values: dict[str, Any], scope: ReadScope) -> Any:
    """The value of the Kind's title Attribute (None when it has none or it is masked)."""
    if kind.title is None or kind.title not in values:
        return None
    rules = kind.attributes.get(kind.title)
    if rules is not None and not scope.value_readable(rules):
        return None
    return values[kind.title]


def record_json(
    kind_name: str, kind: KindDef, record: RecordVersion, scope: ReadScope
) -> dict[str, Any]:
    return {
        "ref": f"{kind_name}/{record.key}",
        "kind": kind_name,
        "key": record.key,
        "title": title_of(kind, record.values, scope),
        "values": scope.mask(kind.attributes, _ordered(kind, record.values)),
        "updated_revision": record.revision,
    }


def lineage_json(kind: KindDef, found: Lineage, scope: ReadScope) -> dict[str, Any]:
    """Where each value came from, masked Attributes left out: whether one has an entry would
    tell whether it is set."""
    masked = set(scope.masked_names(kind.attributes))
    return {
        name: provenance.to_json()
        for name, provenance in found.attributes.items()
        if name not in masked
    }


def _ordered(kind: KindDef, values: dict[str, Any]) -> dict[str, Any]:
    """Values in the order the schema declares the Attributes."""
    return {name: values[name] for name in kind.attributes if name in values}


def link_json(
    relation: RelationDef, link: LinkVersion, scope: ReadScope, *, name: str
) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "relation": name,
        "from": f"{relation.from_kind}/{link.from_key}",
        "to": f"{relation.to_kind}/{link.to_key}",
        "revision": link.revision,
    }
    values = scope.mask(relation.attributes, link.values)  # masked ones show, set or not
    if values:
        entry["values"] = values
    return entry


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
