"""Checking Record and Link values against a schema (docs/schema.md, "Attribute members")."""

from __future__ import annotations

from typing import Any

import pytest

from lorebase_core.errors import BadRequest, Issue, KindNotFound
from lorebase_core.records import (
    check_value,
    check_values,
    derive,
    key_values,
    missing_required,
    record_key,
    record_title,
)
from lorebase_core.schema import AttributeDef, KindDef, Schema, ValueRules
from lorebase_core.values import ValueProblem


def rules(**members: Any) -> ValueRules:
    return ValueRules.model_validate(members)


def attribute(**members: Any) -> AttributeDef:
    return AttributeDef.model_validate(members)


def kind(
    key: list[str], attributes: dict[str, dict[str, Any]], title: str | None = None
) -> KindDef:
    return KindDef.model_validate({"key": key, "title": title, "attributes": attributes})


# --- check_value: canonical form plus constraints --------------------------------------------


@pytest.mark.parametrize(
    ("definition", "raw", "expected"),
    [
        pytest.param({"type": "integer"}, "042", "42", id="integer-canonical"),
        pytest.param({"type": "decimal(10,2)"}, "24.1", "24.10", id="decimal-canonical"),
        pytest.param({"type": "enum", "values": ["active"]}, "ACTIVE", "active", id="enum"),
        pytest.param(
            {"type": "string", "pattern": "^S-[0-9]{4}$"}, "S-1001", "S-1001", id="pattern"
        ),
        pytest.param(
            {"type": "string", "pattern": "[0-9]+"}, "123", "123", id="pattern-unanchored"
        ),
        pytest.param({"type": "text", "pattern": "a.*"}, "abc", "abc", id="pattern-text"),
        pytest.param({"type": "integer", "min": 0, "max": 100}, "0", "0", id="integer-at-min"),
        pytest.param({"type": "integer", "min": 0, "max": 100}, 100, "100", id="integer-at-max"),
        pytest.param(
            {"type": "integer", "min": 2, "max": 10}, "9", "9", id="integer-numeric-order"
        ),
        pytest.param({"type": "integer", "min": -5}, "-5", "-5", id="integer-negative-min"),
        pytest.param({"type": "integer", "min": "0"}, "1", "1", id="integer-bound-as-text"),
        pytest.param({"type": "decimal(10,2)", "min": 0.5}, "0.50", "0.50", id="decimal-at-min"),
        pytest.param({"type": "decimal(10,2)", "max": "9.99"}, "9.99", "9.99", id="decimal-at-max"),
        pytest.param(
            {"type": "decimal(10,2)", "max": 10}, "9.5", "9.50", id="decimal-numeric-order"
        ),
        pytest.param(
            {"type": "date", "min": "2024-01-01"}, "2024-01-01", "2024-01-01", id="date-min"
        ),
        pytest.param(
            {"type": "date", "max": "2024-12-31"}, "2024-12-31", "2024-12-31", id="date-max"
        ),
        pytest.param(
            {"type": "datetime", "min": "2024-01-01T00:00:00Z"},
            "2024-01-01T01:00:00+01:00",
            "2024-01-01T00:00:00Z",
            id="datetime-at-min-after-conversion",
        ),
        pytest.param({"type": "string", "min_length": 2}, "ab", "ab", id="min-length"),
        pytest.param({"type": "string", "max_length": 2}, "ab", "ab", id="max-length"),
        pytest.param(
            {"type": "string", "max_length": 2}, "ü✓", "ü✓", id="length-counts-characters"
        ),
        pytest.param({"type": "text", "min_length": 0}, "", "", id="empty-text"),
        pytest.param({"type": "integer", "min": 0, "required": True}, None, None, id="no-value"),
    ],
)
def test_check_value_accepts(definition: dict[str, Any], raw: object, expected: object) -> None:
    assert check_value(rules(**definition), raw) == expected


@pytest.mark.parametrize(
    ("definition", "raw", "message"),
    [
        pytest.param({"type": "integer"}, "4.2", "expected an integer", id="type"),
        pytest.param(
            {"type": "string", "pattern": "^S-[0-9]{4}$"}, "S-10012", "does not match", id="pattern"
        ),
        pytest.param(
            {"type": "string", "pattern": "[0-9]+"},
            "12a",
            "does not match",
            id="pattern-whole-value",
        ),
        pytest.param(
            {"type": "string", "pattern": "a"}, "ba", "does not match", id="pattern-prefix"
        ),
        pytest.param(
            {"type": "integer", "min": 0}, "-1", "below the minimum 0", id="integer-below"
        ),
        pytest.param(
            {"type": "integer", "max": 100}, "101", "above the maximum 100", id="integer-above"
        ),
        pytest.param(
            {"type": "integer", "max": 9}, "10", "above the maximum 9", id="integer-not-text"
        ),
        pytest.param(
            {"type": "decimal(10,2)", "min": 0},
            "-0.01",
            "below the minimum 0.00",
            id="decimal-below",
        ),
        pytest.param(
            {"type": "decimal(10,2)", "max": 99.99},
            "100",
            "above the maximum 99.99",
            id="decimal-above",
        ),
        pytest.param(
            {"type": "decimal(10,2)", "max": 9.5},
            "10.00",
            "above the maximum 9.50",
            id="decimal-not-text",
        ),
        pytest.param(
            {"type": "date", "min": "2024-01-01"},
            "2023-12-31",
            "below the minimum",
            id="date-below",
        ),
        pytest.param(
            {"type": "date", "max": "2024-12-31"},
            "2025-01-01",
            "above the maximum",
            id="date-above",
        ),
        pytest.param(
            {"type": "datetime", "max": "2024-01-01T00:00:00Z"},
            "2024-01-01T00:30:00-01:00",
            "above the maximum",
            id="datetime-above-after-conversion",
        ),
        pytest.param({"type": "string", "min_length": 3}, "ab", "shorter than 3", id="min-length"),
        pytest.param({"type": "text", "max_length": 3}, "abcd", "longer than 3", id="max-length"),
    ],
)
def test_check_value_refuses(definition: dict[str, Any], raw: object, message: str) -> None:
    with pytest.raises(ValueProblem, match=message):
        check_value(rules(**definition), raw)


def test_pattern_applies_to_the_canonical_value() -> None:
    definition = rules(type="string", pattern="^[a-z]+$")
    with pytest.raises(ValueProblem, match="does not match"):
        check_value(definition, " abc")


def test_check_value_reads_text_values() -> None:
    assert check_value(rules(type="boolean"), "yes", from_text=True) is True
    with pytest.raises(ValueProblem):
        check_value(rules(type="boolean"), "yes")


def test_datetime_max_with_fractional_seconds() -> None:
    definition = rules(type="datetime", max="2024-01-01T10:00:00Z")
    with pytest.raises(ValueProblem, match="above the maximum"):
        check_value(definition, "2024-01-01T10:00:00.5Z")


# --- check_values ----------------------------------------------------------------------------


def test_check_values_canonicalizes_a_record(schema: Schema) -> None:
    checked = check_values(
        schema.kind("Supplier").attributes,
        {
            "supplier_code": "S-1001",
            "legal_name": "Corvane Metals",
            "risk_score": "042",
            "status": "SUSPENDED",
            "vat_number": None,
        },
    )
    assert checked.issues == []
    assert checked.values == {
        "supplier_code": "S-1001",
        "legal_name": "Corvane Metals",
        "risk_score": "42",
        "status": "suspended",
    }


def test_check_values_reports_every_issue_by_attribute(schema: Schema) -> None:
    checked = check_values(
        schema.kind("Supplier").attributes,
        {"supplier_code": "X-1", "risk_score": "101", "nickname": "C", "status": "gone"},
    )
    assert checked.values == {}
    assert {(issue.path, issue.code) for issue in checked.issues} == {
        ("supplier_code", "value.invalid"),
        ("risk_score", "value.invalid"),
        ("nickname", "attribute.unknown"),
        ("status", "value.invalid"),
        ("legal_name", "value.required"),
    }


def test_required_attribute_must_have_a_value(schema: Schema) -> None:
    attributes = schema.kind("Supplier").attributes
    assert check_values(attributes, {"supplier_code": "S-1001"}).issues == [
        Issue("legal_name", "a value is required", "value.required")
    ]
    assert check_values(attributes, {"legal_name": None}).issues == [
        Issue("legal_name", "a value is required", "value.required")
    ]


def test_partial_values_skip_required(schema: Schema) -> None:
    checked = check_values(schema.kind("Supplier").attributes, {"risk_score": 5}, partial=True)
    assert checked.issues == []
    assert checked.values == {"risk_score": "5"}


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param("high", id="value"),
        pytest.param("normal", id="the-value-it-would-have"),
    ],
)
def test_derived_attribute_cannot_be_written(schema: Schema, raw: str) -> None:
    checked = check_values(
        schema.kind("Supplier").attributes,
        {"supplier_code": "S-1001", "legal_name": "C", "risk_band": raw},
    )
    assert checked.issues == [
        Issue("risk_band", "'risk_band' is derived and cannot be written", "attribute.derived")
    ]
    assert "risk_band" not in checked.values


@pytest.mark.parametrize(
    ("raw", "from_text"),
    [
        pytest.param(None, False, id="none"),
        pytest.param("", True, id="empty-cell"),
    ],
)
def test_derived_attribute_may_be_left_empty(schema: Schema, raw: object, from_text: bool) -> None:
    checked = check_values(
        schema.kind("Supplier").attributes,
        {"supplier_code": "S-1001", "legal_name": "C", "risk_band": raw},
        from_text=from_text,
    )
    assert checked.issues == []


def test_text_values_from_a_csv_row(schema: Schema) -> None:
    checked = check_values(
        schema.kind("Part").attributes,
        {
            "part_number": "P-1",
            "name": "",
            "unit_price": "24.1",
            "in_stock": "YES",
            "stock_count": "",
        },
        from_text=True,
    )
    assert checked.issues == []
    assert checked.values == {"part_number": "P-1", "unit_price": "24.10", "in_stock": True}


def test_empty_string_is_a_value_outside_text_files(schema: Schema) -> None:
    checked = check_values(schema.kind("Part").attributes, {"part_number": "P-1", "name": ""})
    assert checked.values == {"part_number": "P-1", "name": ""}
    bad = check_values(schema.kind("Part").attributes, {"part_number": "P-1", "stock_count": ""})
    assert [issue.path for issue in bad.issues] == ["stock_count"]


def test_json_cell_is_json_text(schema: Schema) -> None:
    attributes = schema.kind("Contract").attributes
    checked = check_values(attributes, {"terms": '{"net": 30}'}, from_text=True, partial=True)
    assert checked.values == {"terms": {"net": 30}}
    checked = check_values(attributes, {"terms": '{"net": 30}'}, partial=True)
    assert checked.values == {"terms": '{"net": 30}'}


def test_link_attributes(schema: Schema) -> None:
    attributes = schema.relation("supplied_by").attributes
    checked = check_values(attributes, {"is_primary": "no", "lead_time_days": "-1"}, from_text=True)
    assert checked.values == {"is_primary": False}
    assert [(issue.path, issue.code) for issue in checked.issues] == [
        ("lead_time_days", "value.invalid")
    ]


def test_missing_required_treats_key_attributes_as_required(schema: Schema) -> None:
    supplier = schema.kind("Supplier")
    issues = missing_required(supplier.attributes, {"legal_name": "C"}, supplier.key)
    assert issues == [Issue("supplier_code", "a value is required", "value.required")]
    assert missing_required(supplier.attributes, {"legal_name": "C"}) == []


# --- derive ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("risk_score", "band"),
    [
        pytest.param("75", "high", id="high"),
        pytest.param("70", "high", id="boundary"),
        pytest.param("9", "normal", id="numeric-comparison"),
    ],
)
def test_derive_computes_derived_attributes(schema: Schema, risk_score: str, band: str) -> None:
    values = derive(schema.kind("Supplier"), {"supplier_code": "S-1", "risk_score": risk_score})
    assert values == {"supplier_code": "S-1", "risk_score": risk_score, "risk_band": band}


def test_derive_gives_canonical_exact_decimals(schema: Schema) -> None:
    values = derive(
        schema.kind("Part"), {"part_number": "P-1", "unit_price": "24.10", "stock_count": "3"}
    )
    assert values["total_value"] == "72.30"
    values = derive(
        schema.kind("Part"), {"part_number": "P-1", "unit_price": "0.10", "stock_count": "3"}
    )
    assert values["total_value"] == "0.30"


def test_derive_leaves_out_a_missing_result(schema: Schema) -> None:
    values = derive(schema.kind("Part"), {"part_number": "P-1", "unit_price": "24.10"})
    assert values == {"part_number": "P-1", "unit_price": "24.10"}


def test_derive_replaces_a_stale_derived_value(schema: Schema) -> None:
    values = derive(schema.kind("Part"), {"part_number": "P-1", "total_value": "1.00"})
    assert "total_value" not in values
    values = derive(schema.kind("Supplier"), {"risk_score": "90", "risk_band": "normal"})
    assert values["risk_band"] == "high"


def test_derive_leaves_out_a_failing_derivation() -> None:
    ratio = kind(
        ["code"],
        {
            "code": {"type": "string"},
            "a": {"type": "integer"},
            "b": {"type": "integer"},
            "ratio": {"type": "decimal(10,2)", "derived": "a / b"},
            "label": {"type": "integer", "derived": "concat('n', a)"},
        },
    )
    assert derive(ratio, {"code": "x", "a": "1", "b": "0"}) == {"code": "x", "a": "1", "b": "0"}
    assert derive(ratio, {"code": "x", "a": "1", "b": "4"}) == {
        "code": "x",
        "a": "1",
        "b": "4",
        "ratio": "0.25",
    }


def test_derive_integer_result_is_canonical() -> None:
    doubled = kind(
        ["code"],
        {
            "code": {"type": "string"},
            "n": {"type": "integer"},
            "twice": {"type": "integer", "derived": "n * 2"},
            "flag": {"type": "boolean", "derived": "n > 5"},
        },
    )
    assert derive(doubled, {"code": "c", "n": "50"}) == {
        "code": "c",
        "n": "50",
        "twice": "100",
        "flag": True,
    }


# --- keys and titles -------------------------------------------------------------------------


def test_record_key_single(schema: Schema) -> None:
    assert (
        record_key(schema.kind("Supplier"), {"supplier_code": "S-1001", "legal_name": "C"})
        == "S-1001"
    )


@pytest.mark.parametrize(
    ("values", "key"),
    [
        pytest.param({"supplier_code": "S-1001", "number": "42"}, "S-1001,42", id="declared-order"),
        pytest.param(
            {"number": "42", "supplier_code": "S-1001"}, "S-1001,42", id="order-of-values-ignored"
        ),
        pytest.param({"supplier_code": "a,b", "number": "1"}, "a%2Cb,1", id="comma-escaped"),
        pytest.param({"supplier_code": "5%", "number": "1"}, "5%25,1", id="percent-escaped"),
    ],
)
def test_record_key_composite(schema: Schema, values: dict[str, Any], key: str) -> None:
    assert record_key(schema.kind("Contract"), values) == key


@pytest.mark.parametrize(
    "values",
    [
        pytest.param({"number": "42"}, id="first-missing"),
        pytest.param({"supplier_code": "S-1"}, id="second-missing"),
        pytest.param({"supplier_code": "S-1", "number": None}, id="none"),
        pytest.param({}, id="empty"),
    ],
)
def test_record_key_needs_every_key_attribute(schema: Schema, values: dict[str, Any]) -> None:
    assert record_key(schema.kind("Contract"), values) is None


def test_record_key_of_a_boolean_is_its_canonical_text() -> None:
    flagged = kind(
        ["region", "active"], {"region": {"type": "string"}, "active": {"type": "boolean"}}
    )
    assert record_key(flagged, {"region": "north", "active": True}) == "north,true"


def test_record_title(schema: Schema) -> None:
    assert record_title(schema.kind("Supplier"), {"legal_name": "Corvane"}) == "Corvane"
    assert record_title(schema.kind("Supplier"), {}) is None
    assert record_title(schema.kind("Contract"), {"number": "42"}) == "42"
    assert record_title(schema.kind("RiskFlag"), {"flag_id": "RF-1"}) is None


def test_key_values_single(schema: Schema) -> None:
    assert key_values(schema, "Supplier", "S-1001") == {"supplier_code": "S-1001"}


def test_key_values_composite_are_canonical(schema: Schema) -> None:
    assert key_values(schema, "Contract", "S-1001,042") == {
        "supplier_code": "S-1001",
        "number": "42",
    }
    assert key_values(schema, "Contract", "a%2Cb,7") == {"supplier_code": "a,b", "number": "7"}


def test_key_values_round_trip_record_key(schema: Schema) -> None:
    contract = schema.kind("Contract")
    values = {"supplier_code": "x,%y", "number": "3"}
    key = record_key(contract, values)
    assert key is not None
    assert key_values(schema, "Contract", key) == values


@pytest.mark.parametrize(
    ("kind_name", "key", "error"),
    [
        pytest.param("Contract", "S-1001", BadRequest, id="too-few-parts"),
        pytest.param("Contract", "S-1001,x", ValueProblem, id="bad-integer"),
        pytest.param("Supplier", "X-1", ValueProblem, id="pattern"),
        pytest.param("Nope", "x", KindNotFound, id="unknown-kind"),
    ],
)
def test_key_values_refuses(
    schema: Schema, kind_name: str, key: str, error: type[Exception]
) -> None:
    with pytest.raises(error):
        key_values(schema, kind_name, key)
