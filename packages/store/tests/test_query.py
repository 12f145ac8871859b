"""The query DSL run by the store (docs/query.md) on the supply example, on SQLite and PostgreSQL.

Answers are checked against the supply example's documented answers and against oracles computed
in Python from the Store's plain reads (records and links), so that both backends must agree with
the same definition of each operator.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from decimal import Decimal
from functools import cmp_to_key
from pathlib import Path
from typing import Any

import pytest

from lorebase_core.access import ReadScope
from lorebase_core.changes import DeleteLink, DeleteRecord, UpsertLink, UpsertRecord
from lorebase_core.errors import BadCursor, TraitNotFound
from lorebase_core.query import QueryInvalid, ascii_lower, decode_cursor, encode_cursor, parse_query
from lorebase_core.schema import Schema, load_schema
from lorebase_core.values import CanonicalValue, ValueType, canonical, compare
from lorebase_store.engine import read_transaction
from lorebase_store.reads.query import (
    QueryResult,
    _StatementCache,
    build_query_statement,
    query_sql,
    run_query,
)
from lorebase_store.reads.query_sql import IN_LIST_PARAMETERS, average
from lorebase_store.store import BranchMode, Store
from lorebase_store.testing import change_request, read_links, read_record, read_records
from lorebase_store.testing import commit_changes as commit

DOMAIN = "supply"
LIMITS = {
    "default_limit": 100,
    "max_limit": 1000,
    "max_predicates": 64,
    "max_hops": 4,
    "max_string_length": 1000,
    "max_in_values": 1000,
    "max_metrics": 32,
}
EVERYTHING = ReadScope.everything()
NO_CLEARANCE = ReadScope(None, frozenset())
DOCS = Path(__file__).parents[3] / "docs" / "query.md"
MODES = [pytest.param("overlay", id="overlay"), pytest.param("copy", id="copy")]


def ask(
    store: Store,
    document: dict[str, Any],
    *,
    scope: ReadScope = EVERYTHING,
    branch: str | None = None,
    at: str | None = None,
    offset: int = 0,
    domain: str = DOMAIN,
) -> QueryResult:
    schema = store.schema(domain, branch=branch, at=at)
    query = parse_query(document, schema, scope, **LIMITS)
    view = store.view(domain, branch=branch, at=at)
    with read_transaction(store.engine) as connection:
        return run_query(connection, view, schema, query, scope, offset=offset)


def keys(result: QueryResult) -> list[str]:
    return [row.key for row in result.records]


def refs(result: QueryResult) -> list[str]:
    return [row.ref for row in result.records]


def everything(store: Store, kind: str, **where: Any) -> dict[str, dict[str, CanonicalValue]]:
    """Every live Record of a Kind by key, read without the DSL."""
    return {
        record.key: record.values
        for record in read_records(store, DOMAIN, kind, limit=10000, **where)
    }


def linked(store: Store, relation: str, **where: Any) -> list[tuple[str, str]]:
    return [(link.from_key, link.to_key) for link in read_links(store, DOMAIN, relation, **where)]


# --- the five questions of the supply example (examples/supply/README.md) ----------------------


def test_parts_with_a_single_supplier(supply: Store) -> None:
    result = ask(
        supply, {"kind": "Part", "where": {"rel": "supplied_by", "count": {"op": "eq", "value": 1}}}
    )
    assert keys(result) == ["P-10007", "P-10019", "P-10033"]
    assert result.next_offset is None


def test_tier_one_suppliers_at_high_risk_with_open_orders(supply: Store) -> None:
    document = {
        "kind": "Supplier",
        "where": {
            "and": [
                {"attr": "tier", "op": "eq", "value": 1},
                {"attr": "risk_score", "op": "gte", "value": 70},
                {
                    "rel": "supplier_orders",
                    "where": {"attr": "status", "op": "eq", "value": "open"},
                },
            ]
        },
    }
    assert keys(ask(supply, document)) == ["S-1001", "S-1012"]
    # the same through the RiskFlags: open high or critical flags
    flagged = {
        "kind": "Supplier",
        "where": {
            "and": [
                {"attr": "tier", "op": "eq", "value": "1"},
                {
                    "rel": "supplier_orders",
                    "where": {"attr": "status", "op": "eq", "value": "open"},
                },
                {
                    "rel": "risk_flags",
                    "where": {
                        "and": [
                            {"attr": "status", "op": "eq", "value": "open"},
                            {"attr": "severity", "op": "in", "value": ["high", "critical"]},
                        ]
                    },
                },
            ]
        },
    }
    assert keys(ask(supply, flagged)) == ["S-1001", "S-1012"]


def test_what_depends_on_s_1007(supply: Store) -> None:
    by_s_1007 = {
        "rel": "supplied_by",
        "where": {"attr": "supplier_code", "op": "eq", "value": "S-1007"},
    }
    only_one = {"rel": "supplied_by", "count": {"op": "eq", "value": 1}}
    assert keys(ask(supply, {"kind": "Part", "where": by_s_1007})) == [
        "P-10007",
        "P-10019",
        "P-10021",
    ]
    assert keys(ask(supply, {"kind": "Part", "where": {"and": [by_s_1007, only_one]}})) == [
        "P-10007",
        "P-10019",
    ]
    assert keys(
        ask(supply, {"kind": "Part", "where": {"and": [by_s_1007, {"not": only_one}]}})
    ) == ["P-10021"]
    contracts = {
        "kind": "Contract",
        "where": {
            "rel": "with_supplier",
            "where": {"attr": "supplier_code", "op": "eq", "value": "S-1007"},
        },
    }
    assert keys(ask(supply, contracts)) == ["C-3007"]
    orders = ask(
        supply,
        {
            "kind": "PurchaseOrder",
            "where": {
                "rel": "ordered_from",
                "where": {"attr": "supplier_code", "op": "eq", "value": "S-1007"},
            },
            "select": ["status"],
        },
    )
    assert [(row.key, row.values["status"]) for row in orders.records] == [
        ("PO-200012", "received"),
        ("PO-200037", "open"),
        ("PO-200043", "open"),
    ]
    flags = {
        "kind": "RiskFlag",
        "where": {
            "rel": "flags",
            "where": {"attr": "supplier_code", "op": "eq", "value": "S-1007"},
        },
    }
    assert keys(ask(supply, flags)) == []
    plants = {"kind": "Plant", "where": {"rel": "stocks", "where": {"and": [by_s_1007, only_one]}}}
    assert keys(ask(supply, plants)) == ["PL-04"]


def test_parts_named_bearing(supply: Store) -> None:
    for needle in ("bearing", "BEARING", "Bearing"):
        found = ask(
            supply, {"kind": "Part", "where": {"attr": "name", "op": "contains", "value": needle}}
        )
        assert keys(found) == ["P-10004", "P-10012", "P-10023", "P-10036"]
    assert (
        keys(
            ask(
                supply,
                {"kind": "Part", "where": {"attr": "name", "op": "contains", "value": "bering"}},
            )
        )
        == []
    )
    category = ask(
        supply, {"kind": "Part", "where": {"attr": "category", "op": "eq", "value": "bearing"}}
    )
    assert keys(category) == ["P-10004", "P-10012", "P-10023", "P-10036"]
    starts = ask(
        supply,
        {"kind": "Part", "where": {"attr": "name", "op": "starts_with", "value": "deep GROOVE"}},
    )
    assert keys(starts) == ["P-10004"]


# --- comparisons against an oracle, with missing values ----------------------------------------


def _oracle(
    schema: Schema, kind: str, values: dict[str, CanonicalValue], predicate: dict[str, Any]
) -> bool:
    """What a predicate of and/or/not and comparisons means (docs/query.md), in Python."""
    if "and" in predicate:
        return all(_oracle(schema, kind, values, child) for child in predicate["and"])
    if "or" in predicate:
        return any(_oracle(schema, kind, values, child) for child in predicate["or"])
    if "not" in predicate:
        return not _oracle(schema, kind, values, predicate["not"])
    value_type = schema.kinds[kind].attributes[predicate["attr"]].value_type
    value, op = values.get(predicate["attr"]), predicate["op"]
    if op == "is_null":
        return (value is None) is predicate.get("value", True)
    if value is None:
        return False
    if op in ("contains", "starts_with"):
        text, needle = ascii_lower(str(value)), ascii_lower(predicate["value"])
        return needle in text if op == "contains" else text.startswith(needle)
    if op == "in":
        return value in [canonical(value_type, item) for item in predicate["value"]]
    order = compare(value_type, value, canonical(value_type, predicate["value"]))
    return {
        "eq": order == 0,
        "ne": order != 0,
        "lt": order < 0,
        "lte": order <= 0,
        "gt": order > 0,
        "gte": order >= 0,
    }[op]


ORACLE_CASES: list[tuple[str, dict[str, Any]]] = [
    ("Supplier", {"attr": "country", "op": "eq", "value": "IT"}),
    ("Supplier", {"attr": "country", "op": "ne", "value": "IT"}),
    ("Supplier", {"not": {"attr": "country", "op": "eq", "value": "IT"}}),
    ("Supplier", {"attr": "risk_score", "op": "lt", "value": 41}),
    ("Supplier", {"attr": "risk_score", "op": "lte", "value": "41"}),
    ("Supplier", {"attr": "risk_score", "op": "gt", "value": 9}),
    ("Supplier", {"attr": "risk_score", "op": "gte", "value": 100}),
    ("Supplier", {"not": {"attr": "risk_score", "op": "gte", "value": 50}}),
    ("Supplier", {"attr": "tier", "op": "in", "value": [1, 3]}),
    ("Supplier", {"not": {"attr": "tier", "op": "in", "value": [1, 3]}}),
    ("Supplier", {"attr": "city", "op": "is_null"}),
    ("Supplier", {"attr": "city", "op": "is_null", "value": False}),
    ("Supplier", {"not": {"attr": "city", "op": "starts_with", "value": "P"}}),
    ("Supplier", {"attr": "legal_name", "op": "lt", "value": "M"}),
    ("Supplier", {"attr": "legal_name", "op": "contains", "value": "gmbh"}),
    ("Supplier", {"attr": "status", "op": "in", "value": ["suspended", "blocked"]}),
    ("Supplier", {"or": [{"attr": "tier", "op": "eq", "value": 1}, {"not": {"attr": "risk_score", "op": "gt", "value": 30}}]}),
    ("Supplier", {"not": {"and": [{"attr": "tier", "op": "eq", "value": 2}, {"not": {"attr": "country", "op": "eq", "value": "DE"}}]}}),
    ("Supplier", {"attr": "risk_band", "op": "eq", "value": "high"}),
    ("Part", {"attr": "unit_cost", "op": "gt", "value": "100"}),
    ("Part", {"attr": "unit_cost", "op": "lte", "value": 4.85}),
    ("Part", {"attr": "unit_cost", "op": "in", "value": ["4.85", 9.6, "0.38"]}),
    ("Part", {"attr": "unit", "op": "ne", "value": "piece"}),
    ("Part", {"attr": "name", "op": "contains", "value": "M1"}),
    ("PurchaseOrder", {"attr": "quantity", "op": "gte", "value": 2500}),
    ("PurchaseOrder", {"attr": "quantity", "op": "lt", "value": "100"}),
    ("PurchaseOrder", {"attr": "total", "op": "gte", "value": "10000.00"}),
    ("PurchaseOrder", {"attr": "order_date", "op": "lt", "value": "2026-05-01"}),
    ("PurchaseOrder", {"and": [{"attr": "due_date", "op": "gte", "value": "2026-09-01"}, {"attr": "status", "op": "eq", "value": "open"}]}),
    ("Contract", {"attr": "value", "op": "gt", "value": 1000000}),
    ("Contract", {"attr": "end_date", "op": "lte", "value": "2026-12-31"}),
    ("Contract", {"attr": "currency", "op": "ne", "value": "EUR"}),
    ("RiskFlag", {"attr": "raised_at", "op": "gt", "value": "2026-09-18T10:12:00Z"}),
    ("RiskFlag", {"attr": "raised_at", "op": "lte", "value": "2026-09-18T12:12:00+02:00"}),
    ("RiskFlag", {"attr": "reason", "op": "contains", "value": "DELIVER"}),
    ("RiskFlag", {"attr": "severity", "op": "in", "value": ["high", "critical"]}),
]  # fmt: skip


@pytest.fixture
def gappy(supply: Store) -> Store:
    """The supply example with some values cleared, so that comparisons meet missing values."""
    commit(
        supply,
        [
            UpsertRecord("Supplier", "S-1002", {"city": None, "risk_score": None}),
            UpsertRecord("Supplier", "S-1003", {"tier": None, "country": None}),
            UpsertRecord("Supplier", "S-1004", {"status": None}),
            UpsertRecord("Part", "P-10001", {"unit_cost": None}),
            UpsertRecord("PurchaseOrder", "PO-200001", {"due_date": None, "total": None}),
            UpsertRecord("RiskFlag", "RF-S-1005-0001", {"raised_at": None}),
        ],
        message="Clear some values",
    )
    return supply


def test_comparisons_match_their_definition(gappy: Store) -> None:
    schema = gappy.schema(DOMAIN)
    records = {kind: everything(gappy, kind) for kind in {kind for kind, _ in ORACLE_CASES}}
    for kind, predicate in ORACLE_CASES:
        expected = [
            key
            for key, values in sorted(records[kind].items())
            if _oracle(schema, kind, values, predicate)
        ]
        assert keys(ask(gappy, {"kind": kind, "where": predicate})) == expected, (kind, predicate)


def test_not_is_the_complement_and_ne_needs_a_value(gappy: Store) -> None:
    all_suppliers = keys(ask(gappy, {"kind": "Supplier"}))
    in_poznan = keys(
        ask(gappy, {"kind": "Supplier", "where": {"attr": "city", "op": "eq", "value": "Poznan"}})
    )
    not_there = keys(
        ask(
            gappy,
            {"kind": "Supplier", "where": {"not": {"attr": "city", "op": "eq", "value": "Poznan"}}},
        )
    )
    elsewhere = keys(
        ask(gappy, {"kind": "Supplier", "where": {"attr": "city", "op": "ne", "value": "Poznan"}})
    )
    assert sorted(in_poznan + not_there) == all_suppliers
    assert "S-1002" in not_there
    assert "S-1002" not in elsewhere
    assert sorted([*elsewhere, "S-1002"]) == not_there


# --- Relation predicates ------------------------------------------------------------------------


def test_relation_predicates_match_the_links(supply: Store) -> None:
    parts = everything(supply, "Part")
    suppliers = everything(supply, "Supplier")
    supplied_by = linked(supply, "supplied_by")
    stocked_at = linked(supply, "stocked_at")
    plants = everything(supply, "Plant")

    def suppliers_of(part: str) -> list[str]:
        return [supplier for found, supplier in supplied_by if found == part]

    # forward, with a filter on the other end
    risky = {key for key, values in suppliers.items() if int(str(values["risk_score"])) >= 60}
    expected = sorted(part for part in parts if any(s in risky for s in suppliers_of(part)))
    where = {"rel": "supplied_by", "where": {"attr": "risk_score", "op": "gte", "value": 60}}
    assert keys(ask(supply, {"kind": "Part", "where": where})) == expected
    # counted: parts with at least three suppliers, and with two risky ones
    three = sorted(part for part in parts if len(suppliers_of(part)) >= 3)
    assert (
        keys(
            ask(
                supply,
                {
                    "kind": "Part",
                    "where": {"rel": "supplied_by", "count": {"op": "gte", "value": 3}},
                },
            )
        )
        == three
    )
    two_risky = sorted(part for part in parts if sum(s in risky for s in suppliers_of(part)) == 2)
    counted = {**where, "count": {"op": "eq", "value": 2}}
    assert keys(ask(supply, {"kind": "Part", "where": counted})) == two_risky
    # inverse: suppliers of some part stocked at a plant in the Netherlands (three hops)
    dutch = {key for key, values in plants.items() if values["country"] == "NL"}
    dutch_parts = {part for part, plant in stocked_at if plant in dutch}
    expected = sorted({supplier for part, supplier in supplied_by if part in dutch_parts})
    three_hops = {
        "kind": "Supplier",
        "where": {
            "rel": "supplies",
            "where": {"rel": "stocked_at", "where": {"attr": "country", "op": "eq", "value": "NL"}},
        },
    }
    assert keys(ask(supply, three_hops)) == expected
    assert expected


def test_no_link_is_count_zero_and_not_exists(supply: Store) -> None:
    ordered = {supplier for _, supplier in linked(supply, "ordered_from")}
    expected = sorted(set(everything(supply, "Supplier")) - ordered)
    assert expected == ["S-1026"]
    for where in (
        {"not": {"rel": "supplier_orders"}},
        {"rel": "supplier_orders", "count": {"op": "eq", "value": 0}},
        {"rel": "supplier_orders", "count": {"op": "lt", "value": 1}},
    ):
        assert keys(ask(supply, {"kind": "Supplier", "where": where})) == expected
    assert keys(ask(supply, {"kind": "Part", "where": {"not": {"rel": "stocked_at"}}})) == []


# --- order, select, masks and pages -------------------------------------------------------------


def _sorted(
    schema: Schema,
    rows: dict[tuple[str, str], dict[str, CanonicalValue]],
    order: list[tuple[str, str, str]],
) -> list[str]:
    """Keys in the documented order: each (Kind-independent) key, missing first ascending."""

    def cmp(
        a: tuple[tuple[str, str], dict[str, Any]], b: tuple[tuple[str, str], dict[str, Any]]
    ) -> int:
        for attr, direction, kind in order:
            value_type = schema.kinds[kind].attributes[attr].value_type
            left, right = a[1].get(attr), b[1].get(attr)
            if left is None or right is None:
                result = (left is not None) - (right is not None)
            else:
                result = compare(value_type, left, right)
            if result:
                return result if direction == "asc" else -result
        return (a[0] > b[0]) - (a[0] < b[0])

    return [f"{kind}/{key}" for (kind, key), _ in sorted(rows.items(), key=cmp_to_key(cmp))]


@pytest.mark.parametrize(
    ("kind", "order"),
    [
        pytest.param(
            "Supplier", [("risk_score", "desc"), ("legal_name", "asc")], id="integer-desc"
        ),
        pytest.param("Supplier", [("tier", "asc"), ("risk_score", "asc")], id="two-integers"),
        pytest.param("Supplier", [("country", "desc")], id="string"),
        pytest.param("Supplier", [("status", "asc"), ("city", "desc")], id="enum"),
        pytest.param("Part", [("unit_cost", "desc")], id="decimal"),
        pytest.param("Part", [("unit_cost", "asc")], id="decimal-asc"),
        pytest.param("PurchaseOrder", [("due_date", "asc"), ("total", "desc")], id="date"),
        pytest.param("PurchaseOrder", [("quantity", "desc")], id="integer-past-text-order"),
        pytest.param("RiskFlag", [("raised_at", "desc")], id="datetime"),
    ],
)
def test_records_come_in_the_order_asked(
    gappy: Store, kind: str, order: list[tuple[str, str]]
) -> None:
    schema = gappy.schema(DOMAIN)
    rows = {(kind, key): values for key, values in everything(gappy, kind).items()}
    document = {
        "kind": kind,
        "order_by": [{"attr": attr, "dir": direction} for attr, direction in order],
    }
    expected = _sorted(schema, rows, [(attr, direction, kind) for attr, direction in order])
    assert refs(ask(gappy, document)) == expected


def test_pages_follow_cursors_without_gaps_or_repeats(supply: Store) -> None:
    document: dict[str, Any] = {
        "kind": "Part",
        "order_by": [{"attr": "unit_cost", "dir": "desc"}],
        "select": ["unit_cost"],
        "limit": 7,
    }
    whole = ask(supply, {**document, "limit": 1000})
    schema = supply.schema(DOMAIN)
    digest = parse_query(document, schema, EVERYTHING, **LIMITS).digest()
    revision = supply.branch(DOMAIN, "main").head_revision
    pages: list[list[str]] = []
    cursor: str | None = None
    while True:
        offset = 0 if cursor is None else decode_cursor(cursor, digest).offset
        page = ask(supply, {**document, "cursor": cursor}, offset=offset)
        pages.append(keys(page))
        if page.next_offset is None:
            break
        cursor = encode_cursor(revision, page.next_offset, digest)
    assert [len(page) for page in pages] == [7, 7, 7, 7, 7, 5]
    assert [key for page in pages for key in page] == keys(whole)
    with pytest.raises(BadCursor):
        decode_cursor(
            encode_cursor(revision, 7, digest),
            parse_query({**document, "limit": 8}, schema, EVERYTHING, **LIMITS).digest(),
        )


def test_a_page_past_the_end_is_empty(supply: Store) -> None:
    result = ask(supply, {"kind": "Plant"}, offset=5)
    assert (result.records, result.next_offset) == ([], None)
    assert ask(supply, {"kind": "Plant", "limit": 5}).next_offset is None
    assert ask(supply, {"kind": "Plant", "limit": 4}).next_offset == 4


def test_select_keeps_the_attributes_asked_in_their_order(supply: Store) -> None:
    result = ask(
        supply,
        {
            "kind": "Supplier",
            "where": {"attr": "supplier_code", "op": "eq", "value": "S-1001"},
            "select": ["risk_score", "legal_name"],
        },
    )
    assert result.to_json() == {
        "records": [
            {
                "ref": "Supplier/S-1001",
                "kind": "Supplier",
                "key": "S-1001",
                "values": {"risk_score": "90", "legal_name": "Kavsen Alloys Sp. z o.o."},
            }
        ]
    }
    assert list(result.records[0].values) == ["risk_score", "legal_name"]
    bare = ask(supply, {"kind": "Supplier", "select": [], "limit": 2})
    assert [row.to_json() for row in bare.records] == [
        {"ref": "Supplier/S-1001", "kind": "Supplier", "key": "S-1001", "values": {}},
        {"ref": "Supplier/S-1002", "kind": "Supplier", "key": "S-1002", "values": {}},
    ]


def test_without_select_every_attribute_in_declared_order(supply: Store) -> None:
    row = ask(supply, {"kind": "Supplier", "limit": 1}).records[0]
    record = read_record(supply, DOMAIN, "Supplier", "S-1001")
    assert record is not None
    assert list(row.values) == list(supply.schema(DOMAIN).kinds["Supplier"].attributes)
    assert row.values == record.values


def test_values_the_caller_may_not_read_are_masked(supply: Store) -> None:
    document = {
        "kind": "Supplier",
        "where": {"attr": "supplier_code", "op": "eq", "value": "S-1001"},
    }
    masked = ask(supply, document, scope=NO_CLEARANCE).records[0].values
    assert (masked["vat_number"], masked["contact_email"], masked["legal_name"]) == (
        "***",
        "***",
        "Kavsen Alloys Sp. z o.o.",
    )
    selected = (
        ask(supply, {**document, "select": ["vat_number"]}, scope=NO_CLEARANCE).records[0].values
    )
    assert selected == {"vat_number": "***"}
    cleared = ask(supply, {**document, "select": ["vat_number"]}).records[0].values
    assert cleared == {"vat_number": "PL7792438105"}


# --- Trait queries ------------------------------------------------------------------------------


def test_a_trait_query_reads_every_implementing_kind(supply: Store) -> None:
    schema = supply.schema(DOMAIN)
    rows = {
        (kind, key): values
        for kind in ("Plant", "Supplier")
        for key, values in everything(supply, kind).items()
        if values["country"] in ("PL", "NL", "CZ")
    }
    document = {
        "trait": "Located",
        "where": {"attr": "country", "op": "in", "value": ["PL", "NL", "CZ"]},
        "order_by": [{"attr": "country", "dir": "desc"}],
    }
    result = ask(supply, document)
    assert refs(result) == _sorted(schema, rows, [("country", "desc", "Plant")])
    kinds = {row.kind for row in result.records}
    assert kinds == {"Plant", "Supplier"}
    for row in result.records:  # without select, each Record has its own Kind's Attributes
        assert list(row.values) == list(schema.kinds[row.kind].attributes)


def test_a_relation_predicate_of_a_trait_query_applies_to_its_source_kind(supply: Store) -> None:
    contracted = sorted({supplier for _, supplier in linked(supply, "with_supplier")})
    result = ask(supply, {"trait": "Located", "where": {"rel": "supplier_contracts"}, "select": []})
    assert refs(result) == [f"Supplier/{key}" for key in contracted]
    others = ask(
        supply, {"trait": "Located", "where": {"not": {"rel": "supplier_contracts"}}, "select": []}
    )
    assert {row.kind for row in others.records} == {"Plant", "Supplier"}
    assert len(others.records) + len(result.records) == 35


def test_a_trait_without_readable_kinds_is_unknown(supply: Store) -> None:
    for query in ({"trait": "Located"}, {"trait": "Located", "aggregate": {}}):
        with pytest.raises(TraitNotFound):
            ask(supply, query, scope=ReadScope(frozenset({"Part"})))


# --- aggregates ---------------------------------------------------------------------------------


def test_purchase_orders_per_status(supply: Store) -> None:
    orders = everything(supply, "PurchaseOrder")
    result = ask(
        supply,
        {
            "kind": "PurchaseOrder",
            "aggregate": {
                "group_by": "status",
                "metrics": {
                    "n": {"count": "*"},
                    "value": {"sum": "total"},
                    "avg_value": {"avg": "total"},
                    "smallest": {"min": "total"},
                    "largest": {"max": "total"},
                    "most": {"max": "quantity"},
                    "first": {"min": "order_date"},
                    "last_due": {"max": "due_date"},
                },
            },
        },
    )
    assert [(group.key, group.count) for group in result.groups or []] == [
        ("cancelled", 3),
        ("open", 15),
        ("received", 32),
    ]
    for group in result.groups or []:
        mine = [values for values in orders.values() if values["status"] == group.key]
        totals = [Decimal(str(values["total"])) for values in mine]
        assert group.metrics["n"] == len(mine)
        assert group.metrics["value"] == f"{sum(totals):.2f}"
        assert (
            group.metrics["avg_value"]
            == f"{(sum(totals) / len(totals)).quantize(Decimal('0.000001'))}"
        )
        assert group.metrics["smallest"] == f"{min(totals):.2f}"
        assert group.metrics["largest"] == f"{max(totals):.2f}"
        assert group.metrics["most"] == str(max(int(str(values["quantity"])) for values in mine))
        assert group.metrics["first"] == min(str(values["order_date"]) for values in mine)
        assert group.metrics["last_due"] == max(str(values["due_date"]) for values in mine)
    assert result.to_json()["groups"][2] == {
        "key": "received",
        "count": 32,
        "n": 32,
        "value": "138240.50",
        "avg_value": "4320.015625",
        "smallest": "500.00",
        "largest": "12005.00",
        "most": "10000",
        "first": "2026-03-02",
        "last_due": "2026-09-07",
    }


def test_risk_per_tier(supply: Store) -> None:
    result = ask(
        supply,
        {
            "kind": "Supplier",
            "aggregate": {
                "group_by": "tier",
                "metrics": {"avg_risk": {"avg": "risk_score"}, "total": {"sum": "risk_score"}},
            },
        },
    )
    suppliers = everything(supply, "Supplier").values()
    for group in result.groups or []:
        scores = [
            int(str(values["risk_score"])) for values in suppliers if values["tier"] == group.key
        ]
        assert group.metrics["total"] == str(sum(scores))
        assert group.metrics["avg_risk"] == f"{Decimal(sum(scores)) / len(scores):.4f}"
    assert [group.key for group in result.groups or []] == ["1", "2", "3"]
    assert (result.groups or [])[0].metrics["avg_risk"] == "68.1111"


def test_groups_of_missing_values_come_first_and_count_counts_values(gappy: Store) -> None:
    result = ask(
        gappy,
        {
            "kind": "Supplier",
            "aggregate": {
                "group_by": "tier",
                "metrics": {"scored": {"count": "risk_score"}, "low": {"min": "risk_score"}},
            },
        },
    )
    groups = result.groups or []
    assert [(group.key, group.count) for group in groups] == [
        (None, 1),
        ("1", 9),
        ("2", 11),
        ("3", 9),
    ]
    tier_of_s_1002 = everything(gappy, "Supplier")["S-1002"]["tier"]
    for group in groups:
        assert group.metrics["scored"] == group.count - (group.key == tier_of_s_1002)
    empty = ask(
        gappy,
        {
            "kind": "Supplier",
            "where": {"attr": "supplier_code", "op": "eq", "value": "S-1002"},
            "aggregate": {
                "metrics": {
                    "avg": {"avg": "risk_score"},
                    "s": {"sum": "risk_score"},
                    "m": {"max": "risk_score"},
                }
            },
        },
    )
    assert empty.to_json() == {
        "groups": [{"key": None, "count": 1, "avg": None, "s": None, "m": None}]
    }


@pytest.mark.parametrize(
    ("kind", "attr"),
    [
        pytest.param("Part", "unit_cost", id="decimal"),
        pytest.param("PurchaseOrder", "quantity", id="integer"),
        pytest.param("PurchaseOrder", "due_date", id="date"),
        pytest.param("RiskFlag", "raised_at", id="datetime"),
        pytest.param("Supplier", "city", id="string"),
        pytest.param("Supplier", "risk_band", id="derived"),
    ],
)
def test_group_keys_are_canonical_and_typed_in_order(gappy: Store, kind: str, attr: str) -> None:
    schema = gappy.schema(DOMAIN)
    value_type = schema.kinds[kind].attributes[attr].value_type
    counts: dict[CanonicalValue, int] = {}
    for values in everything(gappy, kind).values():
        counts[values.get(attr)] = counts.get(values.get(attr), 0) + 1
    known = sorted(
        (key for key in counts if key is not None),
        key=cmp_to_key(lambda a, b: compare(value_type, a, b)),
    )
    expected = [(key, counts[key]) for key in ([None] if None in counts else []) + known]
    result = ask(gappy, {"kind": kind, "aggregate": {"group_by": attr}, "limit": 1000})
    assert [(group.key, group.count) for group in result.groups or []] == expected


def test_groups_are_paged(supply: Store) -> None:
    categories = sorted({str(values["category"]) for values in everything(supply, "Part").values()})
    document: dict[str, Any] = {"kind": "Part", "aggregate": {"group_by": "category"}, "limit": 4}
    first = ask(supply, document)
    second = ask(supply, document, offset=first.next_offset or 0)
    whole = ask(supply, {**document, "limit": 100})
    assert [group.key for group in whole.groups or []] == categories
    assert (first.next_offset, second.next_offset) == (4, 8)
    assert [group.key for group in first.groups or []] == categories[:4]
    assert [group.key for group in second.groups or []] == categories[4:8]


def test_an_aggregate_of_a_trait_and_with_a_filter(supply: Store) -> None:
    result = ask(
        supply,
        {
            "trait": "Located",
            "where": {"attr": "country", "op": "in", "value": ["PL", "NL"]},
            "aggregate": {
                "group_by": "country",
                "metrics": {"cities": {"count": "city"}, "first": {"min": "city"}},
            },
        },
    )
    assert result.to_json() == {
        "groups": [
            {"key": "NL", "count": 2, "cities": 2, "first": "Eindhoven"},
            {"key": "PL", "count": 4, "cities": 4, "first": "Poznan"},
        ]
    }


def test_an_average_rounds_half_even() -> None:
    integer, money = ValueType("integer"), ValueType("decimal", 10, 2)
    assert average(integer, 1, 32) == "0.0312"  # 0.03125
    assert average(integer, 3, 32) == "0.0938"  # 0.09375
    assert average(integer, -1, 32) == "-0.0312"
    assert average(integer, 0, 3) == "0.0000"
    assert average(money, 2401, 2) == "12.005000"  # 24.01 / 2
    assert average(money, 1, 3) == "0.003333"  # 0.01 / 3
    assert average(integer, None, 0) is None


# --- where the query reads: older Revisions, branches, new values --------------------------------


def test_a_query_at_an_older_revision(supply: Store) -> None:
    first = supply.log(DOMAIN)[-1].id
    risky = {
        "kind": "Supplier",
        "where": {"attr": "risk_score", "op": "gte", "value": 80},
        "select": ["risk_score"],
    }
    assert "S-1001" in keys(ask(supply, risky))
    assert "S-1001" not in keys(ask(supply, risky, at=first))
    draft = {"kind": "Contract", "where": {"attr": "status", "op": "eq", "value": "draft"}}
    assert "C-3013" in keys(ask(supply, draft, at=first))
    assert "C-3013" not in keys(ask(supply, draft))
    question = {
        "kind": "Supplier",
        "where": {
            "and": [
                {"attr": "tier", "op": "eq", "value": 1},
                {"attr": "risk_score", "op": "gte", "value": 70},
                {
                    "rel": "supplier_orders",
                    "where": {"attr": "status", "op": "eq", "value": "open"},
                },
            ]
        },
    }
    assert keys(ask(supply, question, at=first)) == ["S-1001", "S-1012"]
    value = {"kind": "Contract", "aggregate": {"metrics": {"total": {"sum": "value"}}}}
    before = Decimal(str((ask(supply, value, at=first).groups or [])[0].metrics["total"]))
    after = Decimal(str((ask(supply, value).groups or [])[0].metrics["total"]))
    assert after - before == Decimal("60000.00")


@pytest.mark.parametrize("mode", MODES)
def test_a_query_on_a_branch_sees_its_changes_only(supply: Store, mode: BranchMode) -> None:
    supply.create_branch(DOMAIN, "draft", mode=mode, created_by="usr_tester")
    commit(
        supply,
        [
            UpsertRecord("Supplier", "S-1002", {"risk_score": 95}),
            DeleteRecord("Part", "P-10007"),
            UpsertLink(
                "supplied_by", "P-10019", "S-1001", {"is_primary": False, "lead_time_days": 30}
            ),
            DeleteLink("supplied_by", "P-10001", "S-1002"),
        ],
        branch="draft",
    )
    single = {"kind": "Part", "where": {"rel": "supplied_by", "count": {"op": "eq", "value": 1}}}
    assert keys(ask(supply, single)) == ["P-10007", "P-10019", "P-10033"]
    assert keys(ask(supply, single, branch="draft")) == ["P-10001", "P-10033"]
    risky = {"kind": "Supplier", "where": {"attr": "risk_score", "op": "gte", "value": 90}}
    assert keys(ask(supply, risky)) == ["S-1001"]
    assert keys(ask(supply, risky, branch="draft")) == ["S-1001", "S-1002"]
    by_s_1001 = {
        "kind": "Part",
        "where": {
            "rel": "supplied_by",
            "where": {"attr": "supplier_code", "op": "eq", "value": "S-1001"},
        },
        "select": [],
    }
    assert "P-10019" in keys(ask(supply, by_s_1001, branch="draft"))
    assert "P-10019" not in keys(ask(supply, by_s_1001))
    count = {"kind": "Part", "aggregate": {}}
    assert (ask(supply, count, branch="draft").groups or [])[0].count == 39
    assert (ask(supply, count).groups or [])[0].count == 40


def test_datetimes_compare_in_time_order_with_fractions(supply: Store) -> None:
    commit(
        supply,
        [
            UpsertRecord(
                "RiskFlag",
                "RF-S-1001-0002",
                {
                    "severity": "low",
                    "reason": "Late.",
                    "status": "open",
                    "raised_at": "2026-09-18T10:12:00.500000Z",
                },
            ),
            UpsertLink("flags", "RF-S-1001-0002", "S-1001"),
        ],
    )
    document: dict[str, Any] = {
        "kind": "RiskFlag",
        "where": {
            "rel": "flags",
            "where": {"attr": "supplier_code", "op": "eq", "value": "S-1001"},
        },
    }
    ordered = ask(supply, {**document, "order_by": [{"attr": "raised_at"}]})
    assert keys(ordered) == ["RF-S-1001-0001", "RF-S-1001-0002"]
    later = {
        "and": [
            document["where"],
            {"attr": "raised_at", "op": "gt", "value": "2026-09-18T10:12:00Z"},
        ]
    }
    assert keys(ask(supply, {"kind": "RiskFlag", "where": later})) == ["RF-S-1001-0002"]
    exact = {"attr": "raised_at", "op": "eq", "value": "2026-09-18T12:12:00.5+02:00"}
    assert keys(ask(supply, {"kind": "RiskFlag", "where": exact})) == ["RF-S-1001-0002"]
    span = ask(
        supply,
        {
            **document,
            "aggregate": {"metrics": {"first": {"min": "raised_at"}, "last": {"max": "raised_at"}}},
        },
    )
    assert span.to_json() == {
        "groups": [
            {
                "key": None,
                "count": 2,
                "first": "2026-09-18T10:12:00Z",
                "last": "2026-09-18T10:12:00.500000Z",
            }
        ]
    }


def test_like_wildcards_are_plain_characters(supply: Store) -> None:
    commit(
        supply, [UpsertRecord("Part", "P-10041", {"name": "Wiper ring 100%_x", "category": "seal"})]
    )
    for needle in ("0%_", "%", "_x"):
        assert keys(
            ask(
                supply,
                {"kind": "Part", "where": {"attr": "name", "op": "contains", "value": needle}},
            )
        ) == ["P-10041"]
    assert keys(
        ask(
            supply,
            {
                "kind": "Part",
                "where": {"attr": "name", "op": "starts_with", "value": "wiper RING 1"},
            },
        )
    ) == ["P-10041"]
    assert (
        keys(
            ask(
                supply,
                {"kind": "Part", "where": {"attr": "name", "op": "starts_with", "value": "%"}},
            )
        )
        == []
    )


# --- booleans, json and very large numbers (a small Domain of their own) ------------------------

LAB_SCHEMA = """
domain: {name: lab}
kinds:
  Gadget:
    key: [code]
    attributes:
      code: {type: string}
      active: {type: boolean}
      spec: {type: json}
      weight: {type: "decimal(6,3)"}
      serial: {type: integer}
"""


@pytest.fixture
def lab(store: Store) -> Store:
    gadgets = {
        "G-1": {"active": True, "spec": {"volts": 12}, "weight": "1.250", "serial": 10**20},
        "G-2": {"active": False, "spec": None, "weight": "-0.500", "serial": 5},
        "G-3": {"active": None, "spec": [1, 2], "weight": None, "serial": -(10**19)},
        "G-4": {"active": True, "spec": None, "weight": "0.125", "serial": None},
        "G-5": {"active": False, "spec": {}, "weight": "1.250", "serial": 7},
    }
    store.commit(
        change_request(
            "Make gadgets", domain="lab", schema=load_schema(LAB_SCHEMA), create_domain=True
        ),
        [UpsertRecord("Gadget", key, {"code": key, **values}) for key, values in gadgets.items()],
    )
    return store


def test_booleans_compare_order_and_group(lab: Store) -> None:
    def where(predicate: dict[str, Any]) -> list[str]:
        return keys(ask(lab, {"kind": "Gadget", "where": predicate}, domain="lab"))

    assert where({"attr": "active", "op": "eq", "value": True}) == ["G-1", "G-4"]
    assert where({"attr": "active", "op": "eq", "value": "false"}) == ["G-2", "G-5"]
    assert where({"attr": "active", "op": "ne", "value": True}) == ["G-2", "G-5"]
    assert where({"not": {"attr": "active", "op": "eq", "value": True}}) == ["G-2", "G-3", "G-5"]
    assert where({"attr": "active", "op": "is_null"}) == ["G-3"]
    ordered = ask(
        lab, {"kind": "Gadget", "order_by": [{"attr": "active", "dir": "desc"}]}, domain="lab"
    )
    assert keys(ordered) == ["G-1", "G-4", "G-2", "G-5", "G-3"]
    grouped = ask(
        lab,
        {
            "kind": "Gadget",
            "aggregate": {"group_by": "active", "metrics": {"w": {"sum": "weight"}}},
        },
        domain="lab",
    )
    assert grouped.to_json() == {
        "groups": [
            {"key": None, "count": 1, "w": None},
            {"key": False, "count": 2, "w": "0.750"},
            {"key": True, "count": 2, "w": "1.375"},
        ]
    }


def test_json_values_are_tested_for_presence_only(lab: Store) -> None:
    present = ask(
        lab,
        {
            "kind": "Gadget",
            "where": {"attr": "spec", "op": "is_null", "value": False},
            "select": ["spec"],
        },
        domain="lab",
    )
    assert [(row.key, row.values["spec"]) for row in present.records] == [
        ("G-1", {"volts": 12}),
        ("G-3", [1, 2]),
        ("G-5", {}),
    ]
    counted = ask(
        lab,
        {"kind": "Gadget", "aggregate": {"metrics": {"specs": {"count": "spec"}}}},
        domain="lab",
    )
    assert counted.to_json() == {"groups": [{"key": None, "count": 5, "specs": 3}]}


def test_negative_decimals_and_integers_past_64_bits(lab: Store) -> None:
    def where(predicate: dict[str, Any]) -> list[str]:
        return keys(ask(lab, {"kind": "Gadget", "where": predicate}, domain="lab"))

    assert where({"attr": "weight", "op": "lt", "value": 0}) == ["G-2"]
    assert where({"attr": "weight", "op": "eq", "value": 1.25}) == ["G-1", "G-5"]
    assert where({"attr": "serial", "op": "gt", "value": 10**19}) == ["G-1"]
    assert where({"attr": "serial", "op": "lt", "value": -(10**18)}) == ["G-3"]
    assert where({"attr": "serial", "op": "gt", "value": "9" * 400}) == []
    assert where({"attr": "serial", "op": "gt", "value": "-" + "9" * 400}) == [
        "G-1",
        "G-2",
        "G-3",
        "G-5",
    ]
    ordered = ask(
        lab,
        {"kind": "Gadget", "order_by": [{"attr": "weight"}, {"attr": "serial", "dir": "desc"}]},
        domain="lab",
    )
    assert keys(ordered) == ["G-3", "G-2", "G-4", "G-1", "G-5"]
    span = ask(
        lab,
        {
            "kind": "Gadget",
            "aggregate": {
                "metrics": {
                    "low": {"min": "weight"},
                    "high": {"max": "serial"},
                    "least": {"min": "serial"},
                    "avg": {"avg": "weight"},
                }
            },
        },
        domain="lab",
    )
    assert span.to_json() == {
        "groups": [
            {
                "key": None,
                "count": 5,
                "low": "-0.500",
                "high": str(10**20),
                "least": str(-(10**19)),
                "avg": "0.5312500",
            }
        ]
    }


# --- long in lists: one parameter joined against, the same answers as short ones ---------------

COLOURS = [f"colour_{index:02d}" for index in range(40)]
SHELF_SCHEMA = f"""
domain: {{name: shelf}}
kinds:
  Item:
    key: [code]
    attributes:
      code: {{type: string}}
      note: {{type: text}}
      level: {{type: integer}}
      price: {{type: "decimal(8,2)"}}
      day: {{type: date}}
      seen_at: {{type: datetime}}
      colour: {{type: enum, values: [{", ".join(COLOURS)}]}}
"""
NOTES = [
    "plain",
    "Zürich",
    "emoji \U0001f600",
    'quote " and \\ slash',
    "100%_off",
    "\u00e9t\u00e9",
    "x",
]


@pytest.fixture
def shelf(store: Store) -> Store:
    """Items whose every type an `in` applies to has values, some missing."""
    items = []
    for index in range(40):
        values: dict[str, Any] = {
            "code": f"I-{index:03d}",
            "note": NOTES[index % len(NOTES)],
            "level": index * 7 - 100,
            "price": f"{index * 3}.{index % 100:02d}",
            "day": f"2026-{index % 12 + 1:02d}-{index % 28 + 1:02d}",
            "seen_at": f"2026-03-01T{index % 24:02d}:00:00Z",
            "colour": COLOURS[index % len(COLOURS)],
        }
        if index % 9 == 0:
            values = {"code": values["code"]}  # missing values meet the list too
        items.append(UpsertRecord("Item", values["code"], values))
    store.commit(
        change_request(
            "Stock the shelf", domain="shelf", schema=load_schema(SHELF_SCHEMA), create_domain=True
        ),
        items,
    )
    return store


LONG_LISTS = [
    pytest.param("code", [f"I-{index:03d}" for index in range(0, 60, 3)], id="string"),
    pytest.param("note", [*NOTES[1:], *(f"absent {index}" for index in range(20))], id="text"),
    pytest.param("level", [-100, "-93", 12, "+19", 173, *range(1000, 1020)], id="integer"),
    pytest.param("price", ["3.01", 6.02, "9.03", "999", *(f"{n}.5" for n in range(20))], id="decimal"),
    pytest.param("day", ["2026-02-02", "2026-07-07", *(f"2027-01-{n:02d}" for n in range(1, 21))], id="date"),
    pytest.param("seen_at", ["2026-03-01T05:00:00Z", "2026-03-01T08:00:00+02:00", *(f"2025-01-01T00:00:{n:02d}Z" for n in range(20))], id="datetime"),
    pytest.param("colour", [*COLOURS[::2], "COLOUR_01"], id="enum"),
]  # fmt: skip


@pytest.mark.parametrize(("attr", "values"), LONG_LISTS)
def test_a_long_in_list_answers_like_short_ones(shelf: Store, attr: str, values: list[Any]) -> None:
    def where(predicate: dict[str, Any]) -> list[str]:
        return keys(ask(shelf, {"kind": "Item", "where": predicate}, domain="shelf"))

    assert len(values) > IN_LIST_PARAMETERS  # the list is one parameter, joined against
    whole = where({"attr": attr, "op": "in", "value": values})
    chunks = [values[start : start + 4] for start in range(0, len(values), 4)]
    short = {key for chunk in chunks for key in where({"attr": attr, "op": "in", "value": chunk})}
    assert whole == sorted(short)
    assert whole  # some values are there, some are not
    everyone = where({"attr": "code", "op": "is_null", "value": False})
    complement = where({"not": {"attr": attr, "op": "in", "value": values}})
    assert complement == sorted(set(everyone) - set(whole))  # missing values included


def test_a_long_in_list_across_a_relation(supply: Store) -> None:
    primaries = ["S-1001", "S-1007"]
    long_list = [*primaries, *(f"S-{9000 + index}" for index in range(IN_LIST_PARAMETERS))]

    def parts(values: list[str]) -> list[str]:
        where = {
            "rel": "supplied_by",
            "where": {"attr": "supplier_code", "op": "in", "value": values},
        }
        return keys(ask(supply, {"kind": "Part", "where": where}))

    assert parts(long_list) == parts(primaries)
    assert parts(long_list)


def test_an_in_list_at_the_bound_is_one_parameter(supply: Store) -> None:
    schema, view = supply.schema(DOMAIN), supply.view(DOMAIN)
    codes = [f"S-{index}" for index in range(1000, 2000)]  # read.query.max_in_values
    document = {"kind": "Supplier", "where": {"attr": "supplier_code", "op": "in", "value": codes}}
    query = parse_query(document, schema, EVERYTHING, **LIMITS)
    with read_transaction(supply.engine) as connection:
        sql, parameters = query_sql(connection, view, schema, query, EVERYTHING)
        raw = [row[1] for row in connection.exec_driver_sql(sql, parameters).all()]
        result = run_query(connection, view, schema, query, EVERYTHING)
    assert len(parameters) < 10  # the branch, the Kind, the list, the page: not 1,000 values
    assert ("json_each(" in sql) or ("unnest(" in sql)
    assert raw == keys(result) == sorted(everything(supply, "Supplier"))


def test_the_statement_cache_keeps_the_most_recent(supply: Store) -> None:
    cache = _StatementCache(2)
    schema, view = supply.schema(DOMAIN), supply.view(DOMAIN)
    queries = [
        parse_query({"kind": kind}, schema, EVERYTHING, **LIMITS)
        for kind in ("Part", "Plant", "Contract")
    ]
    first = cache.get(view, schema, queries[0], EVERYTHING)
    assert cache.get(view, schema, queries[0], EVERYTHING) is first
    cache.get(view, schema, queries[1], EVERYTHING)
    cache.get(view, schema, queries[2], EVERYTHING)
    assert len(cache.entries) == 2
    assert cache.get(view, schema, queries[0], EVERYTHING) is not first
    narrow = ReadScope(frozenset({"Plant"}))
    assert cache.get(view, schema, queries[0], narrow) is not cache.get(
        view, schema, queries[0], EVERYTHING
    )


# --- the statement ------------------------------------------------------------------------------


def test_the_raw_sql_answers_like_run_query(supply: Store) -> None:
    schema = supply.schema(DOMAIN)
    view = supply.view(DOMAIN)
    document = {
        "kind": "Supplier",
        "where": {
            "and": [
                {"attr": "tier", "op": "in", "value": [1, 2]},
                {"rel": "supplier_orders", "count": {"op": "gte", "value": 2}},
            ]
        },
        "order_by": [{"attr": "risk_score", "dir": "desc"}],
        "limit": 5,
    }
    query = parse_query(document, schema, EVERYTHING, **LIMITS)
    with read_transaction(supply.engine) as connection:
        sql, parameters = query_sql(connection, view, schema, query, EVERYTHING, offset=5)
        raw = [tuple(row[:2]) for row in connection.exec_driver_sql(sql, parameters).all()]
        result = run_query(connection, view, schema, query, EVERYTHING, offset=5)
        statement = build_query_statement(view, schema, query, EVERYTHING, 5)
        built = [tuple(row[:2]) for row in connection.execute(statement).all()]
    assert raw[:5] == [(row.kind, row.key) for row in result.records] == built[:5]
    assert len(raw) == len(built)
    # the page over the visible Records, and the count over the visible Links: nothing per row
    assert sql.count("SELECT") == 4


def test_run_query_results_are_the_same_on_repeat(supply: Store) -> None:
    document = {"kind": "Part", "where": {"attr": "category", "op": "eq", "value": "seal"}}
    assert ask(supply, document).to_json() == ask(supply, document).to_json()
    assert ask(supply, document, scope=NO_CLEARANCE).to_json() == ask(supply, document).to_json()


# --- the examples of docs/query.md --------------------------------------------------------------

_BLOCK = re.compile(
    r"<!-- (query|answer|problem): ([a-z0-9-]+)([^>]*) -->\n```json\n(.*?)\n```", re.S
)


def _doc_blocks() -> Iterator[tuple[str, str, str, Any]]:
    text = DOCS.read_text()
    for kind, name, options, body in _BLOCK.findall(text):
        yield kind, name, options.strip(), json.loads(body)


def test_every_json_block_of_the_docs_is_an_example() -> None:
    text = DOCS.read_text()
    assert text.count("```json") == len(list(_doc_blocks()))
    names = [(kind, name) for kind, name, _, _ in _doc_blocks()]
    queries = [name for kind, name in names if kind == "query"]
    assert len(queries) == len(set(queries)) >= 10
    for kind, name in names:
        assert kind == "query" or name in queries


def _scope(options: str) -> ReadScope:
    found = re.search(r"clearances=([a-z,]*)", options)
    if found is None:
        return EVERYTHING
    return ReadScope(None, frozenset(filter(None, found.group(1).split(","))))


def test_the_examples_of_the_docs_answer_as_documented(supply: Store) -> None:
    queries: dict[str, tuple[Any, ReadScope]] = {}
    checked = 0
    for kind, name, options, body in _doc_blocks():
        if kind == "query":
            queries[name] = (body, _scope(options))
            continue
        document, scope = queries[name]
        if kind == "problem":
            with pytest.raises(QueryInvalid) as caught:
                ask(supply, document, scope=scope)
            assert caught.value.to_problem() == body, name
        else:
            assert ask(supply, document, scope=scope).to_json() == body, name
        checked += 1
    assert checked == len(queries)
    for name, (document, scope) in queries.items():  # and each runs with the limits of the docs
        if name != "bad-query":
            ask(supply, document, scope=scope)
