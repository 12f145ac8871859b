"""Numbers, comparisons and counts in resolve: typed by the Attribute they stand next to."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lorebase_core.access import ReadScope
from lorebase_core.resolve import TextResolution, Vocabulary, resolve_text, vocabulary_entries
from lorebase_core.schema import Schema, load_schema

ROOT = Path(__file__).parents[3]
SUPPLY = ROOT / "examples" / "supply" / "schema.yaml"
LIBRARY = ROOT / "tests" / "data" / "library" / "schema.yaml"


@pytest.fixture(scope="module")
def supply_schema() -> Schema:
    return load_schema(SUPPLY.read_text())


@pytest.fixture(scope="module")
def library_schema() -> Schema:
    return load_schema(LIBRARY.read_text())


def run(schema: Schema, text: str) -> TextResolution:
    vocabulary = Vocabulary(vocabulary_entries(schema, ReadScope.everything(), {}))
    return resolve_text(text, vocabulary, min_similarity=0.4, max_candidates=20, schema=schema)


def numbers(resolution: TextResolution) -> list[dict[str, Any]]:
    return [
        {key: value for key, value in c.to_json().items() if key in ("kind", "predicate", "count")}
        for c in resolution.candidates
        if c.term.target in ("comparison", "count")
    ]


def _cmp(kind: str, attr: str, op: str, value: object) -> dict[str, Any]:
    return {"kind": kind, "predicate": {"attr": attr, "op": op, "value": value}}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("tier-1 suppliers", [_cmp("Supplier", "tier", "eq", 1)], id="joined"),
        pytest.param("tier 1 suppliers", [_cmp("Supplier", "tier", "eq", 1)], id="spaced"),
        pytest.param("tier one", [_cmp("Supplier", "tier", "eq", 1)], id="word"),
        pytest.param(
            "risk score of 70 or more", [_cmp("Supplier", "risk_score", "gte", 70)], id="or-more"
        ),
        pytest.param("risk over 50", [_cmp("Supplier", "risk_score", "gt", 50)], id="over"),
        pytest.param("risk at most 40", [_cmp("Supplier", "risk_score", "lte", 40)], id="at-most"),
        pytest.param(
            "unit cost under 2.5", [_cmp("Part", "unit_cost", "lt", "2.50")], id="decimal"
        ),
        pytest.param(
            "orders due before 2027",
            [_cmp("PurchaseOrder", "due_date", "lt", "2027-01-01")],
            id="before-year",
        ),
        pytest.param(
            "orders due after 2026",
            [_cmp("PurchaseOrder", "due_date", "gte", "2027-01-01")],
            id="after-year",
        ),
        pytest.param(
            "due until 2026-03-31",
            [_cmp("PurchaseOrder", "due_date", "lte", "2026-03-31")],
            id="until-date",
        ),
        pytest.param(
            "flags raised since 2026",
            [_cmp("RiskFlag", "raised_at", "gte", "2026-01-01T00:00:00Z")],
            id="datetime",
        ),
    ],
)
def test_supply_comparisons(supply_schema: Schema, text: str, expected: list[Any]) -> None:
    assert numbers(run(supply_schema, text)) == expected


def test_the_example_question_counts_its_number_words_as_matched(supply_schema: Schema) -> None:
    text = (
        "Which tier-1 suppliers at high risk (risk score of 70 or more) have open purchase orders?"
    )
    resolution = run(supply_schema, text)
    assert numbers(resolution) == [
        _cmp("Supplier", "risk_score", "gte", 70),
        _cmp("Supplier", "tier", "eq", 1),
    ]
    comparison = next(
        c
        for c in resolution.candidates
        if c.term.attribute == "risk_score" and c.term.target == "comparison"
    )
    assert comparison.to_json()["matched"] == "risk score of 70 or more"
    assert comparison.level == "number"
    assert comparison.to_json()["why"]
    assert not {"tier-1", "70", "or", "more", "of"} & set(resolution.unmatched)


def test_a_year_is_a_range(supply_schema: Schema) -> None:
    (found,) = numbers(run(supply_schema, "contracts ending in 2026"))
    assert found["predicate"] == {
        "and": [
            {"attr": "end_date", "op": "gte", "value": "2026-01-01"},
            {"attr": "end_date", "op": "lt", "value": "2027-01-01"},
        ]
    }


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("risk score of 170", id="above-max"),
        pytest.param("tier 1.5", id="decimal-on-integer"),
        pytest.param("tier 0", id="below-min"),
        pytest.param("over 50", id="no-attribute"),
        pytest.param("before 2027", id="no-date-attribute"),
        pytest.param("risk in 2026", id="year-on-a-number"),
    ],
)
def test_numbers_that_do_not_fit_are_not_offered(supply_schema: Schema, text: str) -> None:
    resolution = run(supply_schema, text)
    assert numbers(resolution) == []
    assert any(char.isdigit() for word in resolution.unmatched for char in word)


@pytest.mark.parametrize(
    ("text", "kind", "count"),
    [
        pytest.param(
            "parts with a single supplier", "Supplier", {"op": "eq", "value": 1}, id="single"
        ),
        pytest.param(
            "parts with only one supplier", "Supplier", {"op": "eq", "value": 1}, id="only-one"
        ),
        pytest.param("suppliers with no risk flags", "RiskFlag", {"op": "eq", "value": 0}, id="no"),
        pytest.param(
            "suppliers without open orders",
            "PurchaseOrder",
            {"op": "eq", "value": 0},
            id="without-qualified",
        ),
        pytest.param(
            "suppliers without orders", "PurchaseOrder", {"op": "eq", "value": 0}, id="without"
        ),
    ],
)
def test_supply_counts(supply_schema: Schema, text: str, kind: str | None, count: Any) -> None:
    found = numbers(run(supply_schema, text))
    assert found == ([{"kind": kind, "count": count}] if kind else [])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            "books of more than 400 pages", [_cmp("Book", "pages", "gt", 400)], id="pages"
        ),
        pytest.param(
            "novels published before 2000",
            [_cmp("Book", "published_on", "lt", "2000-01-01")],
            id="published",
        ),
        pytest.param("price under 20", [_cmp("Book", "price", "lt", "20.00")], id="price"),
        pytest.param(
            "books with more than 2 authors",
            [{"kind": "Author", "count": {"op": "gt", "value": 2}}],
            id="count",
        ),
        pytest.param(
            "members with at least 3 loans",
            [{"kind": "Loan", "count": {"op": "gte", "value": 3}}],
            id="at-least",
        ),
        pytest.param("pages 2.5", [], id="decimal-on-integer"),
        pytest.param("pages 0", [], id="below-min"),
    ],
)
def test_library_numbers(library_schema: Schema, text: str, expected: list[Any]) -> None:
    assert numbers(run(library_schema, text)) == expected


def test_library_published_in_a_year(library_schema: Schema) -> None:
    resolution = run(library_schema, "books published in 2026")
    (found,) = numbers(resolution)
    assert found["predicate"]["and"][0] == {
        "attr": "published_on",
        "op": "gte",
        "value": "2026-01-01",
    }
    assert resolution.unmatched == ()


def test_without_the_schema_no_number_is_read(library_schema: Schema) -> None:
    vocabulary = Vocabulary(vocabulary_entries(library_schema, ReadScope.everything(), {}))
    resolution = resolve_text("pages over 400", vocabulary, min_similarity=0.4, max_candidates=20)
    assert numbers(resolution) == []
