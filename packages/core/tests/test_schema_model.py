"""The schema models (schema/model.py): parsed types, compiled expressions, frozen members."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from lorebase_core.expressions import ExpressionError
from lorebase_core.schema import (
    AttributeDef,
    EditDef,
    KindDef,
    OperationDef,
    RelationDef,
    ValueRules,
)
from lorebase_core.values import ValueType


def rules(**members: Any) -> ValueRules:
    return ValueRules.model_validate(members)


@pytest.mark.parametrize(
    ("definition", "expected"),
    [
        pytest.param({"type": "integer"}, ValueType("integer"), id="integer"),
        pytest.param({"type": "decimal(10,2)"}, ValueType("decimal", 10, 2), id="decimal"),
        pytest.param({"type": "decimal( 8 , 3 )"}, ValueType("decimal", 8, 3), id="decimal-spaces"),
        pytest.param(
            {"type": "enum", "values": ["a", "B"]},
            ValueType("enum", enum_values=("a", "B")),
            id="enum",
        ),
    ],
)
def test_value_type(definition: dict[str, Any], expected: ValueType) -> None:
    assert rules(**definition).value_type == expected


def test_sensitive() -> None:
    assert rules(type="string", sensitivity=["pii", "restricted"]).sensitive is True
    assert rules(type="string").sensitive is False


def test_models_are_frozen() -> None:
    definition = rules(type="string")
    with pytest.raises(ValidationError):
        definition.required = True  # type: ignore[misc]


def test_models_refuse_unknown_members() -> None:
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        KindDef.model_validate({"key": ["id"], "attributes": {}, "colour": "red"})


def test_attribute_derivation() -> None:
    derived = AttributeDef.model_validate({"type": "string", "derived": "lower(name)"})
    assert derived.derivation is not None
    assert derived.derivation.names == frozenset({"name"})
    assert derived.derivation.evaluate({"name": "ABC"}) == "abc"
    assert AttributeDef.model_validate({"type": "string"}).derivation is None


def test_attribute_derivation_refuses_bad_expressions() -> None:
    derived = AttributeDef.model_validate({"type": "string", "derived": "name.upper()"})
    with pytest.raises(ExpressionError):
        _ = derived.derivation


def test_relation_accepts_from_and_to() -> None:
    relation = RelationDef.model_validate({"from": "Part", "to": "Supplier"})
    assert (relation.from_kind, relation.to_kind) == ("Part", "Supplier")
    assert relation.cardinality == "many_to_many"
    assert relation.required_from is False
    assert relation.model_dump(by_alias=True, exclude_defaults=True) == {
        "from": "Part",
        "to": "Supplier",
    }


def test_operation_review_policy() -> None:
    operation = OperationDef.model_validate(
        {
            "edits": [{"op": "delete_record", "kind": "Part", "key": "$part"}],
            "review": "part == 'P-1'",
        }
    )
    assert operation.permissions == ("operation.execute",)
    policy = operation.review_policy
    assert policy is not None
    assert policy.evaluate({"part": "P-1"}) is True


def test_edit_op_is_one_of_five() -> None:
    with pytest.raises(ValidationError):
        EditDef.model_validate({"op": "drop_record", "kind": "Part"})
