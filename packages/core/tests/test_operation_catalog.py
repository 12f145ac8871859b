"""Describing Operations for callers: review policies in words, parameter rules and what they name."""

from __future__ import annotations

from pathlib import Path

import pytest

from lorebase_core.expressions import compile_expression
from lorebase_core.operation_catalog import (
    ParameterUse,
    describe_operation,
    parameter_summary,
    parameter_uses,
    policy_words,
    review_json,
    review_need,
)
from lorebase_core.schema import OperationDef, Schema, ValueRules, load_schema

SUPPLY_SCHEMA = Path(__file__).parents[3] / "examples" / "supply" / "schema.yaml"


@pytest.fixture(scope="module")
def supply() -> Schema:
    return load_schema(SUPPLY_SCHEMA.read_text())


def _operation(review: str | None) -> OperationDef:
    return OperationDef.model_validate(
        {
            "parameters": {"severity": {"type": "string"}},
            "edits": [{"op": "update_record", "kind": "Supplier", "key": "$severity"}],
            "review": review,
        }
    )


@pytest.mark.parametrize(
    ("source", "words"),
    [
        pytest.param("severity == 'critical'", "severity is 'critical'", id="eq"),
        pytest.param("risk != 3", "risk is not 3", id="ne"),
        pytest.param("risk >= 80", "risk is at least 80", id="gte"),
        pytest.param("risk > 80", "risk is greater than 80", id="gt"),
        pytest.param("risk <= 8", "risk is at most 8", id="lte"),
        pytest.param("risk < 8", "risk is less than 8", id="lt"),
        pytest.param("0 < risk < 9", "0 is less than risk and risk is less than 9", id="chain"),
        pytest.param(
            "severity in ['high', 'critical']", "severity is one of 'high', 'critical'", id="in"
        ),
        pytest.param("tier not in [1, 2]", "tier is not one of 1, 2", id="not-in"),
        pytest.param("note == null", "note is not given", id="null"),
        pytest.param("note != None", "note is given", id="not-null"),
        pytest.param("urgent", "urgent is true", id="name"),
        pytest.param("not urgent", "urgent is false or not given", id="not-name"),
        pytest.param("urgent == true", "urgent is true", id="true"),
        pytest.param(
            "severity == 'critical' or (tier == 1 and risk > 50)",
            "severity is 'critical' or (tier is 1 and risk is greater than 50)",
            id="nested",
        ),
        pytest.param("not (a == 1 or b == 2)", "not (a is 1 or b is 2)", id="not-group"),
        pytest.param("len(reason) > 100", "len(reason) is greater than 100", id="call"),
    ],
)
def test_a_policy_in_words(source: str, words: str) -> None:
    assert policy_words(compile_expression(source)) == words


@pytest.mark.parametrize(
    ("review", "protected", "need"),
    [
        pytest.param(None, False, "never", id="no-policy"),
        pytest.param(None, True, "always", id="protected"),
        pytest.param("severity == 'x'", False, "conditional", id="policy"),
        pytest.param("severity == 'x'", True, "always", id="policy-protected"),
        pytest.param("true", False, "always", id="true"),
        pytest.param("False", False, "never", id="false"),
    ],
)
def test_when_review_is_needed(review: str | None, protected: bool, need: str) -> None:
    assert review_need(_operation(review), protected=protected) == need


def test_a_constant_policy_has_no_words_and_says_always() -> None:
    review = review_json(_operation("true"), branch="work", protected=False)
    assert review["when"] is None
    assert review["reasons"] == ["review-policy"]
    assert "needs review always (its review policy)" in review["description"]
    never = review_json(_operation("false"), branch="work", protected=False)
    assert never["reasons"] == []
    assert never["description"] == "No review: an execution on branch 'work' commits directly."


@pytest.mark.parametrize(
    ("rules", "summary"),
    [
        pytest.param({"type": "string"}, "Optional. A string.", id="string"),
        pytest.param(
            {"type": "integer", "required": True, "min": 0},
            "Required. An integer at least 0.",
            id="min",
        ),
        pytest.param({"type": "integer", "max": 9}, "Optional. An integer at most 9.", id="max"),
        pytest.param(
            {"type": "text", "min_length": 1, "max_length": 80},
            "Optional. A text of 1 to 80 characters.",
            id="lengths",
        ),
        pytest.param(
            {"type": "decimal(10,2)", "min": 0, "max": 5},
            "Optional. A decimal(10,2) (at most 10 digits, 2 after the point) from 0 to 5.",
            id="decimal",
        ),
        pytest.param(
            {"type": "enum", "values": ["a", "b"]}, "Optional. One of 'a', 'b'.", id="enum"
        ),
        pytest.param({"type": "json"}, "Optional. A JSON value.", id="json"),
        pytest.param(
            {"type": "string", "sensitivity": ["pii"]},
            "Optional. A string. Its value is pii.",
            id="sensitive",
        ),
    ],
)
def test_a_parameter_in_words(rules: dict[str, object], summary: str) -> None:
    assert parameter_summary(ValueRules.model_validate(rules)) == summary


def test_parameters_name_the_kinds_they_are_keys_of_and_the_attributes_they_set(
    supply: Schema,
) -> None:
    uses = parameter_uses(supply.operations["flag_supplier_risk"], supply)
    assert uses["supplier"] == ParameterUse({"Supplier"}, [])  # the `to` of a flags Link
    assert uses["severity"] == ParameterUse(set(), ["RiskFlag.severity"])
    update = parameter_uses(supply.operations["update_supplier"], supply)
    assert update["key"].refers_to == {"Supplier"}
    assert update["risk_score"].sets == ["Supplier.risk_score"]


def test_every_supply_operation_is_described(supply: Schema) -> None:
    for name, operation in supply.operations.items():
        found = describe_operation(supply, name, branch="main", protected=True)
        assert found["name"] == name
        assert [param["name"] for param in found["parameters"]] == list(operation.parameters)
        assert found["review"]["needed"] == "always"
        assert found["permissions"] == list(operation.permissions)
    flag = describe_operation(supply, "flag_supplier_risk", branch="work", protected=False)
    assert flag["edits"] == [
        {"op": "upsert_record", "kind": "RiskFlag", "attributes": ["severity", "reason", "status"]},
        {
            "op": "upsert_link",
            "relation": "flags",
            "from": "RiskFlag",
            "to": "Supplier",
            "attributes": [],
        },
    ]
    assert flag["review"]["needed"] == "conditional"
