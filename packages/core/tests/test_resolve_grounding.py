"""Resolve grounds Relations (names, inverse names, aliases, word stems, descriptions), with less
noise and words saying why each candidate matched; on the supply example and the library Domain."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

from lorebase_core.access import ReadScope
from lorebase_core.resolve import (
    Candidate,
    TextResolution,
    Vocabulary,
    is_noise,
    resolve_text,
    stem,
    vocabulary_entries,
    words,
)
from lorebase_core.schema import Schema, load_schema

ROOT = Path(__file__).parents[3]
SUPPLY_QUESTION = "Which plants stock parts that Polish suppliers supply?"
TIER_QUESTION = (
    "Which tier-1 suppliers at high risk (risk score of 70 or more) have open purchase orders?"
)
LIBRARY_QUESTION = "Which books written by Swedish authors are on loan?"
Indexed = Mapping[tuple[str, str], Mapping[str, int]]
SUPPLY_INDEXED: Indexed = {
    ("Supplier", "country"): {"PL": 3, "DE": 4, "AT": 1, "SE": 2},
    ("Supplier", "risk_band"): {"high": 6, "normal": 24},
    ("PurchaseOrder", "status"): {"open": 15, "received": 32},
    ("Part", "category"): {"raw_material": 5, "fastener": 5},
}
LIBRARY_INDEXED: Indexed = {
    ("Author", "country"): {"SE": 3, "NO": 1, "DE": 1, "PL": 1, "FR": 1, "ES": 1},
    ("Loan", "status"): {"out": 4, "returned": 3, "overdue": 2},
}


@pytest.fixture(scope="module")
def supply_schema() -> Schema:
    return load_schema((ROOT / "examples" / "supply" / "schema.yaml").read_text())


@pytest.fixture(scope="module")
def library_schema() -> Schema:
    return load_schema((ROOT / "tests" / "data" / "library" / "schema.yaml").read_text())


def run(
    schema: Schema,
    text: str,
    indexed: Indexed,
    scope: ReadScope | None = None,
    max_per_phrase: int = 3,
) -> TextResolution:
    vocabulary = Vocabulary(vocabulary_entries(schema, scope or ReadScope.everything(), indexed))
    return resolve_text(
        text, vocabulary, min_similarity=0.4, max_candidates=30, max_per_phrase=max_per_phrase
    )


def relations(resolution: TextResolution) -> dict[tuple[str, str], Candidate]:
    """Relation candidates by (Kind read from, api name)."""
    return {
        (c.term.kind, str(c.term.relation)): c
        for c in resolution.candidates
        if c.term.target == "relation"
    }


# -- the stemmer and noise -----------------------------------------------------------------
@pytest.mark.parametrize(
    ("forms", "expected"),
    [
        pytest.param(("stock", "stocks", "stocked", "stocking"), "stock", id="stock"),
        pytest.param(("supply", "supplies", "supplied", "supplying"), "supply", id="supply"),
        pytest.param(("ship", "ships", "shipped", "shipping"), "ship", id="doubled-consonant"),
        pytest.param(("raise", "raises", "raised", "raising"), "rais", id="silent-e"),
        pytest.param(("agree", "agreed", "agreeing"), "agre", id="eed"),
        pytest.param(("borrow", "borrowed", "borrowing", "borrows"), "borrow", id="borrow"),
        pytest.param(("fill", "filled"), "fill", id="double-l-kept"),
    ],
)
def test_the_stemmer_brings_forms_of_a_verb_together(forms: tuple[str, ...], expected: str) -> None:
    assert {stem(form) for form in forms} == {expected}


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        pytest.param("supplier", "supplier", id="agent-noun-is-not-its-verb"),
        pytest.param("status", "status", id="us"),
        pytest.param("red", "red", id="short"),
        pytest.param("S-1001", "S-1001", id="code"),
    ],
)
def test_the_stemmer_leaves_other_words(word: str, expected: str) -> None:
    assert stem(word) == expected


@pytest.mark.parametrize(
    ("phrase", "noise"),
    [
        pytest.param("at", True, id="stop-word"),
        pytest.param("AT", True, id="two-letters"),
        pytest.param("of the", True, id="stop-words"),
        pytest.param("Polish", False, id="word"),
        pytest.param("the plant", False, id="stop-word-and-word"),
    ],
)
def test_noise_is_stop_words_and_two_letter_words(phrase: str, noise: bool) -> None:
    assert is_noise(words(phrase)) is noise


# -- Relations -----------------------------------------------------------------------------
def test_the_supply_question_grounds_both_relations_in_both_directions(
    supply_schema: Schema,
) -> None:
    resolution = run(supply_schema, SUPPLY_QUESTION, SUPPLY_INDEXED)
    found = relations(resolution)
    assert set(found) == {
        ("Part", "stocked_at"),
        ("Plant", "stocks"),
        ("Part", "supplied_by"),
        ("Supplier", "supplies"),
    }
    stocks = found[("Plant", "stocks")]
    assert stocks.to_json() == {
        "target": "relation",
        "kind": "Plant",
        "relation": "stocks",
        "direction": "inverse",
        "to_kind": "Part",
        "predicate": {"rel": "stocks"},
        "score": 1.0,
        "level": "exact",
        "matched": "stock",
        "why": "the inverse name of the Relation stocked_at (Part -> Plant)",
    }
    assert found[("Part", "stocked_at")].term.direction == "forward"
    assert found[("Part", "stocked_at")].term.to_kind == "Plant"
    # the span is where the phrase stands in words(text)
    assert words(SUPPLY_QUESTION)[slice(*stocks.span)] == ["stock"]
    assert words(SUPPLY_QUESTION)[slice(*found[("Supplier", "supplies")].span)] == ["supply"]
    # "stock" named a Relation: it is no longer a close spelling of a category value
    assert not any(c.term.attribute == "category" for c in resolution.candidates)


@pytest.mark.parametrize(
    ("text", "level", "why"),
    [
        pytest.param(
            "parts stocked at plants", "exact", "the name of the Relation stocked_at", id="name"
        ),
        pytest.param(
            "parts kept at plants", "synonym", "an alias of the Relation stocked_at", id="alias"
        ),
        pytest.param(
            "plants stocking parts", "stem", "by its word stem 'stock'", id="stem-of-inverse"
        ),
    ],
)
def test_relations_by_name_alias_and_stem(
    supply_schema: Schema, text: str, level: str, why: str
) -> None:
    found = relations(run(supply_schema, text, SUPPLY_INDEXED))
    assert set(found) == {("Part", "stocked_at"), ("Plant", "stocks")}
    for candidate in found.values():
        assert candidate.level == level
        assert why in candidate.why
    assert {c.score for c in found.values()} == {
        {"exact": 1.0, "synonym": 0.95, "stem": 0.85}[level]
    }


def test_a_word_of_the_description_names_the_relation_at_a_lower_score(
    supply_schema: Schema,
) -> None:
    # with_supplier: "The supplier the contract is signed with."
    found = relations(run(supply_schema, "contracts signed", SUPPLY_INDEXED))
    signed = found[("Contract", "with_supplier")]
    assert (signed.level, signed.score, signed.matched) == ("description", 0.6, "signed")
    assert signed.why.startswith("a word of the description of with_supplier")


def test_a_relation_needs_both_ends_readable(supply_schema: Schema) -> None:
    suppliers_only = ReadScope(frozenset({"Supplier"}), frozenset())
    assert relations(run(supply_schema, SUPPLY_QUESTION, SUPPLY_INDEXED, suppliers_only)) == {}
    parts_and_suppliers = ReadScope(frozenset({"Supplier", "Part"}), frozenset())
    found = relations(run(supply_schema, SUPPLY_QUESTION, SUPPLY_INDEXED, parts_and_suppliers))
    assert set(found) == {("Part", "supplied_by"), ("Supplier", "supplies")}


def test_the_library_question_grounds_written_by(library_schema: Schema) -> None:
    resolution = run(library_schema, LIBRARY_QUESTION, LIBRARY_INDEXED)
    found = relations(resolution)
    assert set(found) == {("Book", "written_by"), ("Author", "wrote")}
    assert found[("Author", "wrote")].matched == "written by"
    alias = relations(run(library_schema, "the author of Pippi", LIBRARY_INDEXED))
    assert alias[("Book", "written_by")].level == "synonym"
    # "borrowed" is a value alias of Loan.status (out); "borrow" is the Relation by its stem
    lent = relations(run(library_schema, "members who borrow novels", LIBRARY_INDEXED))
    assert {(c.level, c.matched) for c in lent.values()} == {("stem", "borrow")}
    assert set(lent) == {("Loan", "borrowed_by"), ("Member", "borrowings")}


# -- less noise ----------------------------------------------------------------------------
def test_stop_words_and_two_letter_words_match_values_only_as_stored(
    supply_schema: Schema,
) -> None:
    resolution = run(supply_schema, TIER_QUESTION, SUPPLY_INDEXED)
    assert not any(c.term.attribute == "country" for c in resolution.candidates)
    assert "at" in resolution.unmatched
    written = run(supply_schema, "suppliers in AT", SUPPLY_INDEXED)
    [country] = [c for c in written.candidates if c.term.attribute == "country"]
    assert (country.term.values, country.level, country.matched) == (("AT",), "exact", "AT")


def test_stop_words_match_no_value_of_the_library(library_schema: Schema) -> None:
    # "out" is a stored Loan status and a stop word: only "out" as stored matches it
    assert any(
        c.term.values == ("out",)
        for c in run(library_schema, "loans out", LIBRARY_INDEXED).candidates
    )
    assert run(library_schema, "OUT", LIBRARY_INDEXED).candidates == ()


def test_a_phrase_gives_at_most_max_per_phrase_candidates(supply_schema: Schema) -> None:
    both = run(supply_schema, "stock", SUPPLY_INDEXED)
    assert len(both.candidates) == 2
    [one] = run(supply_schema, "stock", SUPPLY_INDEXED, max_per_phrase=1).candidates
    assert one == both.candidates[0]


def test_every_candidate_says_why(supply_schema: Schema, library_schema: Schema) -> None:
    for schema, text, indexed in (
        (supply_schema, SUPPLY_QUESTION, SUPPLY_INDEXED),
        (supply_schema, TIER_QUESTION, SUPPLY_INDEXED),
        (supply_schema, "suplliers", SUPPLY_INDEXED),
        (library_schema, LIBRARY_QUESTION, LIBRARY_INDEXED),
    ):
        candidates = run(schema, text, indexed).candidates
        assert candidates
        assert all(candidate.why for candidate in candidates), candidates
