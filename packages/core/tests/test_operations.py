"""Planning an Operation's execution: parameters, edit templates, review policy and summaries."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lorebase_core.changes import DeleteLink, DeleteRecord, UpsertLink, UpsertRecord
from lorebase_core.errors import Issue, NotFound, ValuesInvalid
from lorebase_core.operations import (
    Execution,
    OperationNotFound,
    execution_summary,
    parameter_view,
    plan_execution,
)
from lorebase_core.schema import Schema, load_schema

SUPPLY_SCHEMA = Path(__file__).parents[3] / "examples" / "supply" / "schema.yaml"
Mutation = Callable[[dict[str, Any]], None]
REASON = "Two late deliveries"

# Operations added to the conftest schema: every parameter type, a sensitive one, link and record
# deletes, computed values and expressions that fail.
EXTRA_OPERATIONS: dict[str, Any] = {
    "set_vat": {
        "parameters": {
            "code": {"type": "string", "required": True},
            "vat": {"type": "string", "sensitivity": ["confidential"]},
            "active": {"type": "boolean"},
            "since": {"type": "date"},
            "seen_at": {"type": "datetime"},
            "price": {"type": "decimal(10,2)"},
            "count": {"type": "integer"},
            "state": {"type": "enum", "values": ["active", "suspended"]},
            "terms": {"type": "json"},
            "note": {"type": "text"},
        },
        "edits": [
            {
                "update_record": {
                    "kind": "Supplier",
                    "key": "$code",
                    "values": {
                        "vat_number": "$vat",
                        "status": "$state",
                        "risk_score": {"expr": "count * 2"},
                    },
                }
            }
        ],
    },
    "unflag": {
        "parameters": {
            "flag": {"type": "string", "required": True},
            "supplier": {"type": "string", "required": True},
        },
        "edits": [
            {"delete_link": {"relation": "flags", "from": "$flag", "to": "$supplier"}},
            {"delete_record": {"kind": "RiskFlag", "key": "$flag"}},
        ],
    },
    "link_part": {
        "parameters": {
            "part": {"type": "integer", "required": True},
            "supplier": {"type": "string"},
            "primary": {"type": "boolean"},
        },
        "edits": [
            {
                "upsert_link": {
                    "relation": "supplied_by",
                    "from": "$part",
                    "to": "$supplier",
                    "values": {"is_primary": "$primary", "lead_time_days": 14},
                }
            }
        ],
    },
    "broken": {
        "parameters": {
            "code": {"type": "string"},
            "note": {"type": "text"},
        },
        "edits": [
            {
                "upsert_record": {
                    "kind": "Supplier",
                    "key": "$code",
                    "values": {"legal_name": {"expr": "int(note)"}},
                }
            },
            {"upsert_link": {"relation": "flags", "from": "", "to": {"expr": "int(note)"}}},
        ],
        "review": "decimal(note) > 1",
    },
}


@pytest.fixture(scope="module")
def supply() -> Schema:
    return load_schema(SUPPLY_SCHEMA.read_text())


@pytest.fixture
def extra(loads: Callable[[Mutation], Schema]) -> Schema:
    def add(document: dict[str, Any]) -> None:
        document["operations"].update(EXTRA_OPERATIONS)

    return loads(add)


def invalid(schema: Schema, name: str, raw: object) -> list[Issue]:
    with pytest.raises(ValuesInvalid) as caught:
        plan_execution(schema, name, raw, "inv_1")
    assert caught.value.detail.endswith("; nothing was written")
    return caught.value.issues


# --- plan_execution with the supply example ---------------------------------------------------


def test_update_supplier_changes_only_the_parameters_given(supply: Schema) -> None:
    execution = plan_execution(
        supply, "update_supplier", {"key": "S-1001", "risk_score": 75}, "inv_1"
    )
    assert execution == Execution(
        operation="update_supplier",
        parameters={"key": "S-1001", "risk_score": "75"},
        changes=[
            UpsertRecord(
                "Supplier",
                "S-1001",
                {"risk_score": "75"},
                replace=False,
                must_exist=True,
                source="edits.0.update_record",
            )
        ],
        edits=[
            {
                "op": "update_record",
                "kind": "Supplier",
                "key": "S-1001",
                "values": {"risk_score": "75"},
            }
        ],
        review_required=False,
    )


def test_parameters_given_as_none_are_left_out(supply: Schema) -> None:
    execution = plan_execution(
        supply,
        "update_supplier",
        {"key": "S-1001", "tier": None, "status": "Suspended", "city": "Poznan"},
        "inv_1",
    )
    assert execution.parameters == {"city": "Poznan", "key": "S-1001", "status": "suspended"}
    assert list(execution.parameters) == ["city", "key", "status"]
    assert execution.changes == [
        UpsertRecord(
            "Supplier",
            "S-1001",
            {"status": "suspended", "city": "Poznan"},
            must_exist=True,
            source="edits.0.update_record",
        )
    ]


def test_an_update_with_only_the_key_changes_nothing(supply: Schema) -> None:
    execution = plan_execution(supply, "update_supplier", {"key": "S-1001"}, "inv_1")
    assert execution.changes == [
        UpsertRecord("Supplier", "S-1001", {}, must_exist=True, source="edits.0.update_record")
    ]
    assert execution.edits == [
        {"op": "update_record", "kind": "Supplier", "key": "S-1001", "values": {}}
    ]


def test_json_numbers_and_dates_are_canonical(supply: Schema) -> None:
    execution = plan_execution(
        supply,
        "update_contract",
        {"key": "C-3013", "value": 1250000.5, "end_date": "2027-12-31"},
        "inv_1",
    )
    assert execution.parameters == {
        "end_date": "2027-12-31",
        "key": "C-3013",
        "value": "1250000.50",
    }
    assert execution.changes == [
        UpsertRecord(
            "Contract",
            "C-3013",
            {"end_date": "2027-12-31", "value": "1250000.50"},
            must_exist=True,
            source="edits.0.update_record",
        )
    ]


def test_flag_supplier_risk_raises_a_flag_and_links_it(supply: Schema) -> None:
    execution = plan_execution(
        supply,
        "flag_supplier_risk",
        {"supplier": "S-1001", "severity": "high", "reason": REASON},
        "inv_1",
    )
    values = {"severity": "high", "reason": REASON, "status": "open"}
    assert execution == Execution(
        operation="flag_supplier_risk",
        parameters={"reason": REASON, "severity": "high", "supplier": "S-1001"},
        changes=[
            UpsertRecord("RiskFlag", "RF-S-1001-inv_1", values, source="edits.0.upsert_record"),
            UpsertLink("flags", "RF-S-1001-inv_1", "S-1001", {}, source="edits.1.upsert_link"),
        ],
        edits=[
            {"op": "upsert_record", "kind": "RiskFlag", "key": "RF-S-1001-inv_1", "values": values},
            {
                "op": "upsert_link",
                "relation": "flags",
                "from": "RF-S-1001-inv_1",
                "to": "S-1001",
                "values": {},
            },
        ],
        review_required=False,
    )
    record = execution.changes[0]
    assert isinstance(record, UpsertRecord)
    assert (record.must_exist, record.replace) == (False, False)


@pytest.mark.parametrize(
    ("severity", "review_required"),
    [("low", False), ("medium", False), ("high", False), ("critical", True), ("CRITICAL", True)],
)
def test_review_policy_reads_canonical_parameters(
    supply: Schema, severity: str, review_required: bool
) -> None:
    raw = {"supplier": "S-1001", "severity": severity, "reason": REASON}
    execution = plan_execution(supply, "flag_supplier_risk", raw, "inv_1")
    assert execution.review_required is review_required
    assert execution.parameters["severity"] == severity.lower()


def test_an_operation_without_review_policy_needs_no_review(supply: Schema) -> None:
    raw = {"key": "S-1001", "risk_score": 100}
    assert plan_execution(supply, "update_supplier", raw, "inv_1").review_required is False


def test_every_parameter_problem_is_reported_together(supply: Schema) -> None:
    raw = {
        "risk_score": 101,
        "tier": 0,
        "status": "gone",
        "country": "pl",
        "city": 7,
        "colour": "red",
    }
    assert invalid(supply, "update_supplier", raw) == [
        Issue("parameters.city", "expected a string, got int 7", "value.invalid"),
        Issue(
            "parameters.colour",
            "'colour' is not a parameter of this Operation; did you mean 'country'? "
            "(its parameters: city, country, key, risk_score, status, tier)",
            "parameter.unknown",
        ),
        Issue("parameters.country", "'pl' does not match the pattern ^[A-Z]{2}$", "value.invalid"),
        Issue("parameters.key", "a value is required", "value.required"),
        Issue("parameters.risk_score", "101 is above the maximum 100", "value.invalid"),
        Issue(
            "parameters.status",
            "'gone' is not one of active, suspended, blocked",
            "value.invalid",
        ),
        Issue("parameters.tier", "0 is below the minimum 1", "value.invalid"),
    ]


def test_problems_of_flag_supplier_risk(supply: Schema) -> None:
    raw = {"supplier": "X-1", "severity": "extreme", "reason": None}
    with pytest.raises(ValuesInvalid) as caught:
        plan_execution(supply, "flag_supplier_risk", raw, "inv_1")
    assert caught.value.detail == (
        "Operation 'flag_supplier_risk' was not run: 3 problem(s); nothing was written"
    )
    assert caught.value.issues == [
        Issue("parameters.reason", "a value is required", "value.required"),
        Issue(
            "parameters.severity",
            "'extreme' is not one of low, medium, high, critical",
            "value.invalid",
        ),
        Issue(
            "parameters.supplier",
            "'X-1' does not match the pattern ^S-[0-9]{4}$",
            "value.invalid",
        ),
    ]


def test_a_required_parameter_given_as_none_is_missing(supply: Schema) -> None:
    assert invalid(supply, "update_supplier", {"key": None}) == [
        Issue("parameters.key", "a value is required", "value.required")
    ]


def test_a_wrong_type_is_invalid(supply: Schema) -> None:
    assert invalid(supply, "update_supplier", {"key": "S-1001", "risk_score": "high"}) == [
        Issue("parameters.risk_score", "expected an integer, got 'high'", "value.invalid")
    ]


def test_none_parameters_count_as_empty(supply: Schema) -> None:
    assert invalid(supply, "update_supplier", None) == [
        Issue("parameters.key", "a value is required", "value.required")
    ]


@pytest.mark.parametrize("raw", ["key=S-1001", ["S-1001"], 3, True])
def test_parameters_must_be_a_mapping(supply: Schema, raw: object) -> None:
    assert invalid(supply, "update_supplier", raw) == [
        Issue("parameters", "expected a mapping of parameter names to values")
    ]


def test_an_unknown_operation(supply: Schema) -> None:
    with pytest.raises(OperationNotFound) as caught:
        plan_execution(supply, "delete_everything", {}, "inv_1")
    error = caught.value
    assert isinstance(error, NotFound)
    assert error.detail == "Operation 'delete_everything' does not exist in Domain 'supply'"
    assert error.to_problem() == {
        "type": "https://lorebase.dev/problems/operation-not-found",
        "title": "Unknown Operation",
        "status": 404,
        "detail": "Operation 'delete_everything' does not exist in Domain 'supply'",
        "code": "operation-not-found",
        "operation": "delete_everything",
    }


# --- templates, deletes and expressions (operations added to the conftest schema) -------------


def test_deletes_take_no_values(extra: Schema) -> None:
    execution = plan_execution(
        extra, "unflag", {"flag": "RF-S-1001-1", "supplier": "S-1001"}, "inv_1"
    )
    assert execution.changes == [
        DeleteLink("flags", "RF-S-1001-1", "S-1001", source="edits.0.delete_link"),
        DeleteRecord("RiskFlag", "RF-S-1001-1", source="edits.1.delete_record"),
    ]
    assert execution.edits == [
        {"op": "delete_link", "relation": "flags", "from": "RF-S-1001-1", "to": "S-1001"},
        {"op": "delete_record", "kind": "RiskFlag", "key": "RF-S-1001-1"},
    ]


def test_link_values_literals_and_integer_keys(extra: Schema) -> None:
    raw = {"part": 10028, "supplier": "S-1001", "primary": True}
    execution = plan_execution(extra, "link_part", raw, "inv_1")
    values = {"is_primary": True, "lead_time_days": 14}
    assert execution.changes == [
        UpsertLink("supplied_by", "10028", "S-1001", values, source="edits.0.upsert_link")
    ]
    assert execution.edits == [
        {
            "op": "upsert_link",
            "relation": "supplied_by",
            "from": "10028",
            "to": "S-1001",
            "values": values,
        }
    ]


def test_a_link_end_without_value_is_refused(extra: Schema) -> None:
    assert invalid(extra, "link_part", {"part": 10028}) == [
        Issue("edits.0.upsert_link.to", "the key has no value", "key.invalid")
    ]


def test_computed_values_are_canonical_strings_and_missing_ones_left_out(extra: Schema) -> None:
    execution = plan_execution(
        extra, "set_vat", {"code": "S-1001", "count": 21, "vat": "PL1234567890"}, "inv_1"
    )
    assert execution.changes == [
        UpsertRecord(
            "Supplier",
            "S-1001",
            {"vat_number": "PL1234567890", "risk_score": "42"},
            must_exist=True,
            source="edits.0.update_record",
        )
    ]
    assert execution.parameters == {"code": "S-1001", "count": "21", "vat": "PL1234567890"}


def test_failing_expressions_and_empty_keys_are_reported_together(extra: Schema) -> None:
    assert invalid(extra, "broken", {"note": "abc"}) == [
        Issue("edits.0.upsert_record.key", "the key has no value", "key.invalid"),
        Issue(
            "edits.0.upsert_record.values.legal_name",
            "expected a number, got 'abc'",
            "expression",
        ),
        Issue("edits.1.upsert_link.from", "the key is empty", "key.invalid"),
        Issue("edits.1.upsert_link.to", "expected a number, got 'abc'", "expression"),
        Issue("review", "expected a number, got 'abc'", "expression"),
    ]


def test_parameter_problems_come_before_templates(extra: Schema) -> None:
    assert invalid(extra, "broken", {"note": 5}) == [
        Issue("parameters.note", "expected a string, got int 5", "value.invalid")
    ]


# --- parameter_view and execution_summary -----------------------------------------------------


def test_parameter_view_masks_sensitive_parameters(extra: Schema) -> None:
    operation = extra.operations["set_vat"]
    parameters = plan_execution(
        extra, "set_vat", {"vat": "PL1234567890", "code": "S-1001", "active": False}, "inv_1"
    ).parameters
    assert parameters == {"active": False, "code": "S-1001", "vat": "PL1234567890"}
    view = parameter_view(operation, parameters)
    assert view == {"active": False, "code": "S-1001", "vat": "***"}
    assert list(view) == ["active", "code", "vat"]


def test_parameter_view_of_a_plain_operation_is_unchanged(supply: Schema) -> None:
    parameters = {"supplier": "S-1001", "severity": "high"}
    view = parameter_view(supply.operations["flag_supplier_risk"], parameters)
    assert view == {"severity": "high", "supplier": "S-1001"}


def test_summary_quotes_text_and_sorts_names(supply: Schema) -> None:
    parameters = {"supplier": "S-1001", "severity": "high", "reason": REASON}
    operation = supply.operations["flag_supplier_risk"]
    summary = execution_summary("flag_supplier_risk", operation, parameters, "inv_x")
    assert summary == (
        '- flag_supplier_risk(reason="Two late deliveries", severity="high", supplier="S-1001")'
        " [inv_x]"
    )


def test_summary_with_names_only(supply: Schema) -> None:
    parameters = {"supplier": "S-1001", "severity": "high", "reason": REASON}
    operation = supply.operations["flag_supplier_risk"]
    summary = execution_summary("flag_supplier_risk", operation, parameters, "inv_x", values=False)
    assert summary == "- flag_supplier_risk(reason, severity, supplier) [inv_x]"


def test_summary_cuts_long_text(supply: Schema) -> None:
    operation = supply.operations["flag_supplier_risk"]
    parameters = {"reason": "0123456789abc", "severity": "low", "supplier": "S-1001"}
    summary = execution_summary("flag_supplier_risk", operation, parameters, "i", value_chars=10)
    assert summary == (
        '- flag_supplier_risk(reason="0123456789…", severity="low", supplier="S-1001") [i]'
    )
    exact = execution_summary(
        "flag_supplier_risk", operation, {"reason": "0123456789"}, "i", value_chars=10
    )
    assert exact == '- flag_supplier_risk(reason="0123456789") [i]'


def test_summary_cuts_at_80_characters_by_default(supply: Schema) -> None:
    operation = supply.operations["flag_supplier_risk"]
    summary = execution_summary("flag_supplier_risk", operation, {"reason": "x" * 81}, "i")
    assert summary == f'- flag_supplier_risk(reason="{"x" * 80}…") [i]'


def test_summary_of_every_type(extra: Schema) -> None:
    raw = {
        "code": "S-1001",
        "vat": "PL1234567890",
        "active": True,
        "since": "2026-01-31",
        "seen_at": "2026-01-31T08:00:00+01:00",
        "price": 12.5,
        "count": -3,
        "state": "Suspended",
        "terms": {"b": [1, 2], "a": "Łódź"},
        "note": "two\nlines, Łódź",
    }
    execution = plan_execution(extra, "set_vat", raw, "inv_9")
    summary = execution_summary(
        "set_vat", extra.operations["set_vat"], execution.parameters, "inv_9"
    )
    assert summary == (
        '- set_vat(active=true, code="S-1001", count=-3, note="two\\nlines, Łódź", '
        'price=12.50, seen_at=2026-01-31T07:00:00Z, since=2026-01-31, state="suspended", '
        'terms={"b":[1,2],"a":"Łódź"}, vat=***) [inv_9]'
    )
    names = execution_summary(
        "set_vat", extra.operations["set_vat"], execution.parameters, "inv_9", values=False
    )
    assert names == (
        "- set_vat(active, code, count, note, price, seen_at, since, state, terms, vat) [inv_9]"
    )


def test_summary_cuts_json_values(extra: Schema) -> None:
    operation = extra.operations["set_vat"]
    summary = execution_summary("set_vat", operation, {"terms": [1, 2, 3, 4]}, "i", value_chars=5)
    assert summary == "- set_vat(terms=[1,2,…) [i]"


def test_summary_without_parameters(supply: Schema) -> None:
    operation = supply.operations["update_supplier"]
    assert execution_summary("update_supplier", operation, {}, "inv_1") == (
        "- update_supplier() [inv_1]"
    )


def test_an_unknown_parameter_names_the_closest(supply: Schema) -> None:
    assert invalid(supply, "update_supplier", {"key": "S-1001", "risk_scor": 5}) == [
        Issue(
            "parameters.risk_scor",
            "'risk_scor' is not a parameter of this Operation; did you mean 'risk_score'? "
            "(its parameters: city, country, key, risk_score, status, tier)",
            "parameter.unknown",
        ),
    ]
