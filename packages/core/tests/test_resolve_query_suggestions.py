"""Suggested queries composed from resolve's candidates: subject, paths, counts and validity."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lorebase_core.access import ReadScope
from lorebase_core.query import parse_query
from lorebase_core.resolve import (
    Suggestion,
    Vocabulary,
    resolve_text,
    shortest_path,
    suggest,
    vocabulary_entries,
)
from lorebase_core.schema import Schema, load_schema

ROOT = Path(__file__).parents[3]
INDEXED = {
    ("PurchaseOrder", "status"): {"open": 15, "received": 32},
    ("RiskFlag", "status"): {"open": 4},
    ("Supplier", "risk_band"): {"high": 6, "normal": 24},
    ("Supplier", "country"): {"AT": 1, "PL": 3, "FI": 1},
    ("Part", "category"): {"bearing": 4, "seal": 2},
    ("Book", "genre"): {"novel": 6},
    ("Loan", "status"): {"out": 4, "returned": 3, "overdue": 2},
}


@pytest.fixture(scope="module")
def supply_schema() -> Schema:
    return load_schema((ROOT / "examples" / "supply" / "schema.yaml").read_text())


@pytest.fixture(scope="module")
def library_schema() -> Schema:
    return load_schema((ROOT / "tests" / "data" / "library" / "schema.yaml").read_text())


def suggested(
    schema: Schema, text: str, scope: ReadScope | None = None, **limits: int
) -> list[Suggestion]:
    scope = scope or ReadScope.everything()
    vocabulary = Vocabulary(vocabulary_entries(schema, scope, INDEXED))
    resolution = resolve_text(
        text, vocabulary, min_similarity=0.4, max_candidates=20, schema=schema
    )
    found = suggest(
        resolution.candidates,
        schema,
        scope,
        max_hops=limits.get("max_hops", 4),
        max_suggestions=limits.get("max_suggestions", 3),
    )
    for suggestion in found:  # each one is a valid query
        parse_query(
            suggestion.query,
            schema,
            scope,
            default_limit=50,
            max_limit=500,
            max_predicates=64,
            max_hops=4,
            max_string_length=1000,
            max_in_values=1000,
            max_metrics=16,
        )
    return found


def test_a_single_supplier(supply_schema: Schema) -> None:
    first, second = suggested(supply_schema, "Which parts have a single supplier?")
    assert first.query == {
        "kind": "Part",
        "where": {"rel": "supplied_by", "count": {"op": "eq", "value": 1}},
        "select": ["name"],
    }
    assert first.uses == ("parts", "a single supplier")
    assert first.score == 1.0
    assert second.query["kind"] == "Supplier"


def test_the_high_risk_question(supply_schema: Schema) -> None:
    text = (
        "Which tier-1 suppliers at high risk (risk score of 70 or more) have open purchase orders?"
    )
    first = suggested(supply_schema, text)[0]
    where: dict[str, Any] = first.query["where"]
    assert first.query["kind"] == "Supplier"
    assert where["and"] == [
        {"attr": "tier", "op": "eq", "value": 1},
        {"attr": "risk_band", "op": "eq", "value": "high"},
        {"attr": "risk_score", "op": "gte", "value": 70},
        # "open" is the PurchaseOrder status: the Kind named next to it, not the RiskFlag one
        {"rel": "supplier_orders", "where": {"attr": "status", "op": "eq", "value": "open"}},
    ]
    # "at" is not the country AT: a two-letter word counts as a value only written as stored
    assert first.query["select"] == ["legal_name", "tier", "risk_score"]


def test_two_hops_and_a_value_of_an_unnamed_kind(library_schema: Schema) -> None:
    text = "Which members have late novels published before 2000?"
    first, second = suggested(library_schema, text)
    assert first.query["where"] == {
        "rel": "borrowings",
        "where": {
            "and": [
                {"attr": "status", "op": "eq", "value": "overdue"},
                {
                    "rel": "of_book",
                    "where": {
                        "and": [
                            {"attr": "genre", "op": "eq", "value": "novel"},
                            {"attr": "published_on", "op": "lt", "value": "2000-01-01"},
                        ]
                    },
                },
            ]
        },
    }
    # "late" is an alias of a value of Loan, a Kind the question does not name
    assert "without 'late'" in second.why
    assert "of_book" in str(second.query)
    assert "status" not in str(second.query)


def test_the_verb_of_a_relation_is_not_a_value(library_schema: Schema) -> None:
    text = "Which members borrowed novels published before 2000?"
    first, *_ = suggested(library_schema, text)
    assert first.query["where"] == {
        "rel": "borrowings",
        "where": {
            "rel": "of_book",
            "where": {
                "and": [
                    {"attr": "genre", "op": "eq", "value": "novel"},
                    {"attr": "published_on", "op": "lt", "value": "2000-01-01"},
                ]
            },
        },
    }


def test_counts_and_numbers_on_the_library(library_schema: Schema) -> None:
    (first, *_) = suggested(library_schema, "books with more than 2 authors")
    assert first.query["where"] == {"rel": "written_by", "count": {"op": "gt", "value": 2}}
    (pages,) = suggested(
        library_schema, "Which books of more than 400 pages does the library hold?"
    )
    assert pages.query == {
        "kind": "Book",
        "where": {"attr": "pages", "op": "gt", "value": 400},
        "select": ["title", "pages"],
    }


def test_max_hops_and_max_suggestions(library_schema: Schema) -> None:
    text = "Which members borrowed novels published before 2000?"
    (only,) = suggested(library_schema, text, max_suggestions=1)
    assert only.query["kind"] == "Member"
    # Book is two Relations from Member: with one hop its predicates cannot attach
    for suggestion in suggested(library_schema, text, max_hops=1):
        assert "of_book" not in str(suggestion.query)
    assert suggested(library_schema, text, max_suggestions=0) == []


def test_no_kind_a_caller_cannot_read(supply_schema: Schema) -> None:
    scope = ReadScope(kinds=frozenset({"Part"}))
    for suggestion in suggested(supply_schema, "Which parts have a single supplier?", scope):
        assert "Supplier" not in str(suggestion.query)
        assert "supplied_by" not in str(suggestion.query)


def test_shortest_path_is_deterministic(library_schema: Schema) -> None:
    from lorebase_core.resolve.query_suggestions import _edges

    edges = _edges(library_schema, ReadScope.everything(), set())
    assert shortest_path(edges, "Member", "Book", 4) == [
        ("borrowings", "Loan"),
        ("of_book", "Book"),
    ]
    assert shortest_path(edges, "Member", "Book", 1) is None
    assert shortest_path(edges, "Author", "Publisher", 4) == [
        ("wrote", "Book"),
        ("published_by", "Publisher"),
    ]


def test_nothing_named_nothing_suggested(supply_schema: Schema) -> None:
    assert suggested(supply_schema, "zorblat quimbly") == []


def test_a_close_spelling_counts_on_a_named_kind_only(supply_schema: Schema) -> None:
    (first,) = suggested(supply_schema, 'Find the parts whose names contain "bering".')
    assert first.query == {
        "kind": "Part",
        "where": {"attr": "category", "op": "eq", "value": "bearing"},
        "select": ["name"],
    }
    assert "Find" not in first.uses
