"""Typed heads (commits.typed_heads): the default branch's head in typed columns.

The query DSL answers the same on the typed path as on the JSON path (`values_json`), the typed
tables equal a rebuild from the records after every kind of write, the reads they cannot answer
fall back, and a filter on an Attribute reads its index instead of scanning the Kind.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lorebase_core.access import ReadScope
from lorebase_core.changes import DeleteRecord, UpsertLink, UpsertRecord
from lorebase_core.errors import ValuesInvalid
from lorebase_core.query import parse_query
from lorebase_core.schema import Schema, load_schema
from lorebase_store.commits.typed_heads import PREFIX, build_typed_heads, typed_rows
from lorebase_store.engine import read_transaction
from lorebase_store.reads.query import query_sql, run_query
from lorebase_store.store import Store
from lorebase_store.testing import change_request
from lorebase_store.testing import commit_changes as commit

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

LAB_SCHEMA = """
domain: {name: lab}
traits:
  Weighed:
    attributes:
      weight: {type: "decimal(6,3)"}
kinds:
  Gadget:
    key: [code]
    traits: [Weighed]
    attributes:
      code: {type: string}
      label: {type: string, sensitivity: [pii]}
      active: {type: boolean}
      spec: {type: json}
      notes: {type: text}
      weight: {type: "decimal(6,3)"}
      serial: {type: integer}
      made_on: {type: date}
      seen_at: {type: datetime}
      grade: {type: enum, values: [low, mid, high]}
  Widget:
    key: [code]
    traits: [Weighed]
    attributes:
      code: {type: string}
      weight: {type: "decimal(6,3)"}
      size: {type: integer}
relations:
  fits:
    from: Widget
    to: Gadget
    inverse: fitted_by
"""

GADGETS: dict[str, dict[str, Any]] = {
    "G-1": {
        "active": True,
        "label": "Alpha one",
        "spec": {"volts": 12},
        "notes": "heavy duty",
        "weight": "1.250",
        "serial": 10**20,
        "made_on": "2026-01-05",
        "seen_at": "2026-10-01T08:00:03Z",
        "grade": "high",
    },
    "G-2": {
        "active": False,
        "label": "beta",
        "weight": "-0.500",
        "serial": 5,
        "made_on": "2025-12-31",
        "seen_at": "2026-10-01T08:00:03.5Z",
        "grade": "low",
    },
    "G-3": {"active": None, "label": "Gamma_%", "serial": -(10**19), "grade": "mid"},
    "G-4": {
        "active": True,
        "label": "alpha two",
        "weight": "0.125",
        "made_on": "2026-01-05",
        "seen_at": "2026-10-01T08:00:02.999999Z",
        "grade": "high",
    },
    "G-5": {"active": False, "weight": "1.250", "serial": 7, "seen_at": "2026-10-01T08:00:03Z"},
    "G-6": {"label": "Zeta", "weight": "999.999", "serial": 2**62, "grade": "low"},
}
WIDGETS: dict[str, dict[str, Any]] = {
    "W-1": {"weight": "2.000", "size": 3},
    "W-2": {"weight": "0.125", "size": None},
    "W-3": {"size": 10},
}
FITS = [("W-1", "G-1"), ("W-1", "G-2"), ("W-2", "G-4"), ("W-3", "G-6"), ("W-3", "G-1")]


@pytest.fixture
def lab(store: Store) -> Store:
    store.commit(
        change_request(
            "Make them", domain="lab", schema=load_schema(LAB_SCHEMA), create_domain=True
        ),
        [
            *(
                UpsertRecord("Gadget", key, {"code": key, **values})
                for key, values in GADGETS.items()
            ),
            *(
                UpsertRecord("Widget", key, {"code": key, **values})
                for key, values in WIDGETS.items()
            ),
            *(UpsertLink("fits", a, b, {}) for a, b in FITS),
        ],
    )
    return store


def _comparisons() -> list[dict[str, Any]]:
    """A filter of every operator on every type of the lab schema."""
    found: list[dict[str, Any]] = []
    filters: dict[str, list[Any]] = {
        "code": ["G-3"],
        "label": ["alpha", "Alpha one"],
        "serial": [5, 10**20, -(10**19), 9223372036854775807],
        "weight": ["1.250", "-0.5", "0"],
        "made_on": ["2026-01-05"],
        "seen_at": ["2026-10-01T08:00:03Z", "2026-10-01T08:00:03.000001Z"],
        "grade": ["high", "low"],
    }
    for attr, values in filters.items():
        for value in values:
            for op in ("eq", "ne", "lt", "lte", "gt", "gte"):
                if attr in ("grade", "code", "label") and op not in ("eq", "ne"):
                    continue
                found.append({"attr": attr, "op": op, "value": value})
        found.append({"attr": attr, "op": "in", "value": values})
        found.append({"attr": attr, "op": "is_null"})
        found.append({"attr": attr, "op": "is_null", "value": False})
        found.append({"not": {"attr": attr, "op": "eq", "value": values[0]}})
    found += [
        {"attr": "active", "op": "eq", "value": True},
        {"attr": "active", "op": "ne", "value": False},
        {"not": {"attr": "active", "op": "eq", "value": True}},
        {"attr": "active", "op": "is_null"},
        {"attr": "label", "op": "contains", "value": "alpha"},
        {"attr": "label", "op": "contains", "value": "_%"},
        {"attr": "label", "op": "starts_with", "value": "ALPHA"},
        {"attr": "serial", "op": "in", "value": list(range(1, 30))},
        {"attr": "code", "op": "in", "value": [f"G-{n}" for n in range(0, 40)]},
        {
            "attr": "seen_at",
            "op": "in",
            "value": [f"2026-10-01T08:00:0{n}Z" for n in range(10)] * 2,
        },
        {"attr": "notes", "op": "contains", "value": "duty"},
        {
            "or": [
                {"attr": "serial", "op": "gt", "value": 6},
                {"attr": "grade", "op": "eq", "value": "low"},
            ]
        },
        {"rel": "fitted_by", "count": {"op": "gte", "value": 1}},
        {"rel": "fitted_by", "where": {"attr": "size", "op": "gte", "value": 5}},
        {
            "rel": "fitted_by",
            "where": {"attr": "weight", "op": "lt", "value": "1"},
            "count": {"op": "eq", "value": 1},
        },
    ]
    return found


def _queries() -> list[dict[str, Any]]:
    documents: list[dict[str, Any]] = [
        {"kind": "Gadget", "where": where, "order_by": [{"attr": "serial", "dir": "desc"}]}
        for where in _comparisons()
    ]
    for attr in ("serial", "weight", "made_on", "seen_at", "grade", "active", "label", "code"):
        for direction in ("asc", "desc"):
            documents.append({"kind": "Gadget", "order_by": [{"attr": attr, "dir": direction}]})
        documents.append(
            {
                "kind": "Gadget",
                "aggregate": {
                    "group_by": attr,
                    "metrics": {
                        "n": {"count": "*"},
                        "w": {"count": "weight"},
                        "s": {"sum": "weight"},
                        "a": {"avg": "weight"},
                        "lo": {"min": "seen_at"},
                        "hi": {"max": "serial"},
                        "si": {"sum": "serial"},
                        "ai": {"avg": "serial"},
                    },
                },
            }
        )
    documents += [
        {"kind": "Gadget", "order_by": [{"attr": "grade", "dir": "asc"}], "limit": 2},
        {
            "kind": "Gadget",
            "select": ["code", "label"],
            "order_by": [{"attr": "made_on", "dir": "desc"}],
        },
        {"trait": "Weighed", "order_by": [{"attr": "weight", "dir": "asc"}]},
        {"trait": "Weighed", "where": {"attr": "weight", "op": "gte", "value": "0.125"}},
        {
            "trait": "Weighed",
            "aggregate": {"group_by": "weight", "metrics": {"a": {"avg": "weight"}}},
        },
        {
            "kind": "Widget",
            "where": {"rel": "fits", "where": {"attr": "grade", "op": "eq", "value": "high"}},
        },
        {
            "kind": "Gadget",
            "where": {"attr": "serial", "op": "gte", "value": 0},
            "aggregate": {"group_by": None, "metrics": {"s": {"sum": "serial"}}},
        },
        {
            "kind": "Gadget",
            "where": {"attr": "notes", "op": "is_null"},
            "order_by": [{"attr": "weight", "dir": "asc"}],
        },
    ]
    return documents


def _both_paths(
    store: Store, domain: str, documents: list[dict[str, Any]], scope: ReadScope
) -> int:
    """Run every query on both paths and compare every page; the typed path's count."""
    schema, view = store.schema(domain), store.view(domain)
    typed = 0
    with read_transaction(store.engine) as connection:
        for document in documents:
            query = parse_query(document, schema, scope, **LIMITS)
            sql, _parameters = query_sql(connection, view, schema, query, scope)
            typed += PREFIX in sql
            offset: int | None = 0
            while offset is not None:
                on_typed = run_query(connection, view, schema, query, scope, offset=offset)
                on_json = run_query(
                    connection, view, schema, query, scope, offset=offset, typed_heads=False
                )
                assert on_typed == on_json, document
                offset = on_typed.next_offset
    return typed


def test_both_paths_answer_alike(lab: Store) -> None:
    documents = _queries()
    typed = _both_paths(lab, "lab", documents, EVERYTHING)
    assert typed >= len(documents) - 12  # the notes (text) queries, huge literals fall back
    readable = [document for document in documents if "label" not in json.dumps(document)]
    assert _both_paths(lab, "lab", readable, NO_CLEARANCE) > 0  # label masked, as on JSON


def test_both_paths_answer_alike_with_pages(lab: Store) -> None:
    documents = [{**document, "limit": 2} for document in _queries() if "aggregate" not in document]
    assert _both_paths(lab, "lab", documents, EVERYTHING) > 0


def test_the_supply_example_answers_alike(supply: Store) -> None:
    documents: list[dict[str, Any]] = [
        {"kind": "Supplier", "where": {"attr": "tier", "op": "in", "value": [1, 2]}},
        {
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
            "order_by": [{"attr": "risk_score", "dir": "desc"}],
        },
        {
            "kind": "PurchaseOrder",
            "where": {"attr": "order_date", "op": "gte", "value": "2026-01-01"},
            "aggregate": {
                "group_by": "status",
                "metrics": {"n": {"count": "total"}, "t": {"sum": "total"}, "a": {"avg": "total"}},
            },
        },
        {"kind": "Part", "where": {"rel": "supplied_by", "count": {"op": "eq", "value": 1}}},
        {"trait": "Located", "where": {"attr": "country", "op": "eq", "value": "PL"}},
        {
            "kind": "Part",
            "aggregate": {"group_by": "category", "metrics": {"m": {"max": "unit_cost"}}},
        },
    ]
    assert _both_paths(supply, "supply", documents, EVERYTHING) == len(documents)


# --- what falls back ----------------------------------------------------------------------------


def _sql(store: Store, document: dict[str, Any], **where: Any) -> str:
    schema = store.schema("supply", **where)
    view = store.view("supply", **where)
    query = parse_query(document, schema, EVERYTHING, **LIMITS)
    with read_transaction(store.engine) as connection:
        return query_sql(connection, view, schema, query, EVERYTHING)[0]


def test_reads_off_the_default_head_use_the_json_path(supply: Store) -> None:
    document = {"kind": "Supplier", "where": {"attr": "tier", "op": "eq", "value": 1}}
    first = supply.log("supply", limit=100)[-1].id
    assert PREFIX in _sql(supply, document)
    commit(supply, [UpsertRecord("Supplier", "S-1001", {"tier": 2})])
    assert PREFIX not in _sql(supply, document, at=first)
    supply.create_branch("supply", "work", mode="overlay", created_by="usr_tester")
    assert PREFIX not in _sql(supply, document, branch="work")


# --- the tables equal a rebuild -----------------------------------------------------------------


def _assert_rebuilt_equal(store: Store, domain: str) -> None:
    """The typed tables of every Kind equal what `build_typed_heads` makes from the records."""
    with store.engine.connect() as connection, connection.begin() as transaction:
        info = store.domain(domain)
        branch = store.branch(domain, info.default_branch)
        schema = store.schema(domain)
        kept = {kind: typed_rows(connection, info.id, kind) for kind in schema.kinds}
        assert all(rows is not None for rows in kept.values())
        build_typed_heads(connection, branch.id, schema)
        rebuilt = {kind: typed_rows(connection, info.id, kind) for kind in schema.kinds}
        transaction.rollback()
    assert kept == rebuilt


def _with_attribute(schema: Schema, extra: str) -> Schema:
    text = LAB_SCHEMA.replace(
        "      size: {type: integer}\n", f"      size: {{type: integer}}\n{extra}"
    )
    return load_schema(text)


def test_the_tables_follow_every_write(lab: Store) -> None:
    _assert_rebuilt_equal(lab, "lab")
    commit(lab, [UpsertRecord("Gadget", "G-7", {"code": "G-7", "serial": 70})], domain="lab")
    commit(lab, [UpsertRecord("Gadget", "G-2", {"serial": 6, "weight": None})], domain="lab")
    commit(lab, [DeleteRecord("Gadget", "G-3")], domain="lab")
    _assert_rebuilt_equal(lab, "lab")
    with pytest.raises(ValuesInvalid):  # refused: nothing of it stays
        commit(
            lab,
            [
                UpsertRecord("Gadget", "G-8", {"code": "G-8", "serial": 80}),
                UpsertRecord("Gadget", "G-9", {"code": "G-9", "grade": "nope"}),
            ],
            domain="lab",
        )
    _assert_rebuilt_equal(lab, "lab")
    # a merge into the default branch
    lab.create_branch("lab", "work", mode="overlay", created_by="usr_tester")
    commit(
        lab,
        [UpsertRecord("Widget", "W-4", {"code": "W-4", "size": 4})],
        domain="lab",
        branch="work",
    )
    commit(lab, [DeleteRecord("Widget", "W-2")], domain="lab", branch="work")
    _assert_rebuilt_equal(lab, "lab")
    lab.writes.merge_branch(
        "lab", "work", into="main", author="usr_m", message="Merge", resolutions={}
    )
    _assert_rebuilt_equal(lab, "lab")
    assert [row[0] for row in _rows(lab, "Widget")] == ["W-1", "W-3", "W-4"]
    # a schema change: a new Attribute (a new layout, built anew), then its values
    schema = _with_attribute(lab.schema("lab"), "      colour: {type: enum, values: [red, blue]}\n")
    commit(
        lab,
        [UpsertRecord("Widget", "W-1", {"colour": "red"})],
        domain="lab",
        schema=schema,
    )
    _assert_rebuilt_equal(lab, "lab")
    assert _rows(lab, "Widget")[0] == ("W-1", "W-1", 2000, 3, "red")  # weight scaled
    document = {"kind": "Widget", "where": {"attr": "colour", "op": "eq", "value": "red"}}
    assert PREFIX in _lab_sql(lab, document)
    assert _both_paths(lab, "lab", [document], EVERYTHING) == 1


def _dec(value: int) -> Any:
    from decimal import Decimal

    return Decimal(value)


def _rows(store: Store, kind: str) -> list[tuple[Any, ...]]:
    with store.engine.connect() as connection:
        rows = typed_rows(connection, store.domain("lab").id, kind)
    assert rows is not None
    return [tuple(row) for row in rows]


def _lab_sql(store: Store, document: dict[str, Any]) -> str:
    schema, view = store.schema("lab"), store.view("lab")
    query = parse_query(document, schema, EVERYTHING, **LIMITS)
    with read_transaction(store.engine) as connection:
        return query_sql(connection, view, schema, query, EVERYTHING)[0]


# --- indexes ------------------------------------------------------------------------------------


def _plan(store: Store, document: dict[str, Any]) -> str:
    schema, view = store.schema("supply"), store.view("supply")
    query = parse_query(document, schema, EVERYTHING, **LIMITS)
    with read_transaction(store.engine) as connection:
        sql, parameters = query_sql(connection, view, schema, query, EVERYTHING)
        if store.backend == "sqlite":
            rows = connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}", parameters).all()
            return "\n".join(str(row[-1]) for row in rows)
        connection.exec_driver_sql("SET LOCAL enable_seqscan = off")
        rows = connection.exec_driver_sql(f"EXPLAIN {sql}", parameters).all()
        return "\n".join(str(row[0]) for row in rows)


@pytest.mark.parametrize(
    "where",
    [
        {"attr": "risk_score", "op": "gte", "value": 85},
        {"attr": "status", "op": "eq", "value": "blocked"},
        {"attr": "supplier_code", "op": "in", "value": ["S-1001", "S-1002"]},
    ],
)
def test_a_filter_on_an_attribute_reads_its_index(supply: Store, where: dict[str, Any]) -> None:
    for document in (
        {"kind": "Supplier", "where": where},
        {"kind": "Supplier", "where": where, "aggregate": {"group_by": "tier", "metrics": {}}},
    ):
        plan = _plan(supply, document)
        assert PREFIX in plan
        if supply.backend == "sqlite":
            assert "USING INDEX" in plan, plan
            assert f"SCAN {PREFIX}" not in plan, plan
        else:
            assert "Index" in plan, plan
            assert "Seq Scan on th_" not in plan, plan
        assert "values_json" not in plan
