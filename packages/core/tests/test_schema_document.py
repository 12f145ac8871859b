"""The loaded `Schema`: look-ups, RelationEnd, the canonical document and its digest."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest

from lorebase_core.errors import KindNotFound, RelationNotFound
from lorebase_core.schema import RelationEnd, Schema, canonical_json, load_schema

Mutation = Callable[[dict[str, Any]], None]
Loads = Callable[[Mutation], Schema]


# --- look-ups --------------------------------------------------------------------------------


def test_kind_lookup(schema: Schema) -> None:
    assert schema.kind("Supplier") is schema.kinds["Supplier"]


def test_unknown_kind(schema: Schema) -> None:
    with pytest.raises(
        KindNotFound, match="Kind 'Vendor' does not exist in Domain 'supply'"
    ) as caught:
        schema.kind("Vendor")
    assert caught.value.status == 404
    assert caught.value.code == "kind-not-found"


def test_attribute_lookup(schema: Schema) -> None:
    attribute = schema.attribute("Supplier", "legal_name")
    assert attribute is not None
    assert attribute.required is True
    assert schema.attribute("Supplier", "nickname") is None
    with pytest.raises(KindNotFound):
        schema.attribute("Vendor", "legal_name")


def test_relation_lookup_by_forward_name_only(schema: Schema) -> None:
    assert schema.relation("supplied_by").to_kind == "Supplier"
    with pytest.raises(
        RelationNotFound, match="Relation 'supplies' does not exist in Domain 'supply'"
    ):
        schema.relation("supplies")


def test_kinds_implementing(schema: Schema) -> None:
    assert schema.kinds_implementing("Located") == ["Supplier"]
    assert schema.kinds_implementing("Priced") == []


def test_kinds_implementing_is_sorted(loads: Loads) -> None:
    def mutate(document: dict[str, Any]) -> None:
        for name in ("Zone", "Area"):
            document["kinds"][name] = {
                "key": "code",
                "traits": ["Located"],
                "attributes": {
                    "code": {"type": "string"},
                    "city": {"type": "string"},
                    "country": {"type": "string"},
                },
            }

    assert loads(mutate).kinds_implementing("Located") == ["Area", "Supplier", "Zone"]


# --- RelationEnd -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "relation", "direction", "source", "target"),
    [
        pytest.param("supplied_by", "supplied_by", "forward", "Part", "Supplier", id="forward"),
        pytest.param("supplies", "supplied_by", "inverse", "Supplier", "Part", id="inverse"),
        pytest.param(
            "with_supplier", "with_supplier", "forward", "Contract", "Supplier", id="forward-2"
        ),
        pytest.param(
            "contracts", "with_supplier", "inverse", "Supplier", "Contract", id="inverse-2"
        ),
        pytest.param("flagged_by", "flags", "inverse", "Supplier", "RiskFlag", id="inverse-3"),
    ],
)
def test_relation_end(
    schema: Schema, name: str, relation: str, direction: str, source: str, target: str
) -> None:
    end = schema.relation_end(name)
    assert isinstance(end, RelationEnd)
    assert end.name == relation
    assert end.relation is schema.relations[relation]
    assert end.direction == direction
    assert (end.source_kind, end.target_kind) == (source, target)


@pytest.mark.parametrize("name", ["supply", "Supplier", "", "SUPPLIES"])
def test_relation_end_unknown(schema: Schema, name: str) -> None:
    with pytest.raises(RelationNotFound, match="does not exist in Domain 'supply'"):
        schema.relation_end(name)


def test_relation_end_of_a_relation_without_inverse(loads: Loads) -> None:
    def mutate(document: dict[str, Any]) -> None:
        del document["relations"]["flags"]["inverse"]

    schema = loads(mutate)
    assert schema.relation_end("flags").direction == "forward"
    with pytest.raises(RelationNotFound):
        schema.relation_end("flagged_by")


def test_relation_end_of_a_self_relation(loads: Loads) -> None:
    def mutate(document: dict[str, Any]) -> None:
        document["relations"]["replaces"] = {
            "from": "Part",
            "to": "Part",
            "inverse": "replaced_by",
            "cardinality": "one_to_one",
        }

    schema = loads(mutate)
    forward, inverse = schema.relation_end("replaces"), schema.relation_end("replaced_by")
    assert (forward.direction, inverse.direction) == ("forward", "inverse")
    assert forward.source_kind == inverse.source_kind == "Part"


# --- document and digest ---------------------------------------------------------------------


def test_to_document_is_json_with_aliases(schema: Schema) -> None:
    document = schema.to_document()
    assert set(document) == {
        "domain",
        "search",
        "traits",
        "kinds",
        "relations",
        "lenses",
        "operations",
    }
    assert json.loads(json.dumps(document)) == document
    assert document["relations"]["supplied_by"]["from"] == "Part"
    assert document["relations"]["supplied_by"]["to"] == "Supplier"
    assert document["kinds"]["Part"]["key"] == ["part_number"]
    assert "required" not in document["kinds"]["Part"]["attributes"]["name"]


def test_document_reloads_to_an_equal_schema(schema: Schema) -> None:
    document = schema.to_document()
    for operation in document["operations"].values():
        operation["edits"] = [
            {
                edit.pop("op"): {
                    {"from_ref": "from", "to_ref": "to"}.get(k, k): v for k, v in edit.items()
                }
            }
            for edit in operation["edits"]
        ]
    again = load_schema(json.dumps(document))
    assert again == schema
    assert again.digest == schema.digest


def test_digest_is_a_sha256_hex(schema: Schema) -> None:
    assert re.fullmatch(r"[0-9a-f]{64}", schema.digest)


def test_digest_is_stable(schema_text: str) -> None:
    first = load_schema(schema_text)
    second = load_schema(schema_text)
    assert first.digest == first.digest == second.digest
    assert first == second


def test_digest_does_not_change_after_lookups(schema: Schema) -> None:
    before = schema.digest
    supplier = schema.kind("Supplier")
    assert supplier.attributes["risk_band"].derivation is not None
    assert supplier.attributes["risk_score"].value_type.base == "integer"
    assert schema.operations["flag_supplier_risk"].review_policy is not None
    schema.relation_end("supplies")
    assert schema.digest == before


@pytest.mark.parametrize(
    ("original", "rewritten"),
    [
        pytest.param(
            "name: supply                      # api name of the Domain",
            "name: supply",
            id="comment",
        ),
        pytest.param(
            "key: part_number                # a single name is accepted too",
            "key: [part_number]",
            id="key-spelling",
        ),
        pytest.param(
            "legal_name: {type: string, required: true}",
            "legal_name: {required: true, type: string}",
            id="member-order",
        ),
        pytest.param(
            "name: {type: string}", "name: {type: string, required: false}", id="explicit-default"
        ),
        pytest.param("country: {type: string}", "country:\n        type: string", id="block-style"),
        pytest.param("budget_tokens: 2000", "budget_tokens: 2_000", id="yaml-number-spelling"),
    ],
)
def test_equal_documents_have_equal_digests(
    schema_text: str, original: str, rewritten: str
) -> None:
    assert original in schema_text
    changed = schema_text.replace(original, rewritten, 1)
    assert changed != schema_text
    assert load_schema(changed).digest == load_schema(schema_text).digest


def test_section_order_does_not_change_the_digest(schema_text: str) -> None:
    sections = schema_text.split("\n\n")
    reordered = "\n\n".join(reversed(sections)) + "\n"
    assert load_schema(reordered).digest == load_schema(schema_text).digest


def test_kind_order_does_not_change_the_digest(loads: Loads, schema: Schema) -> None:
    def reverse_kinds(document: dict[str, Any]) -> None:
        document["kinds"] = dict(reversed(list(document["kinds"].items())))

    assert loads(reverse_kinds).digest == schema.digest


@pytest.mark.parametrize(
    ("original", "rewritten"),
    [
        pytest.param(
            "title: Supply chain of Corvane Industries", "title: Supply chain", id="domain-title"
        ),
        pytest.param("min: 0, max: 100", "min: 0, max: 99", id="bound"),
        pytest.param("values: [active, suspended]", "values: [suspended, active]", id="enum-order"),
        pytest.param("depth: 1", "depth: 2", id="lens"),
        pytest.param("side_effects: [risk_flag_raised]", "side_effects: []", id="operation"),
        pytest.param("A company that supplies parts.", "A company.", id="description"),
    ],
)
def test_different_documents_have_different_digests(
    schema_text: str, original: str, rewritten: str
) -> None:
    assert original in schema_text
    changed = schema_text.replace(original, rewritten, 1)
    assert load_schema(changed).digest != load_schema(schema_text).digest


@pytest.mark.parametrize(
    ("value", "text"),
    [
        pytest.param({"b": 1, "a": [1, 2]}, '{"a":[1,2],"b":1}', id="sorted-compact"),
        pytest.param({"name": "Zürich"}, '{"name":"Zürich"}', id="unicode-kept"),
        pytest.param([], "[]", id="empty-list"),
        pytest.param({"n": None, "t": True}, '{"n":null,"t":true}', id="json-literals"),
    ],
)
def test_canonical_json(value: object, text: str) -> None:
    assert canonical_json(value) == text
