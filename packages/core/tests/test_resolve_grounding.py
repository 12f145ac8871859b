"""Resolve grounds Relations (names, inverse names, aliases, word stems, descriptions), with less
noise and words saying why each candidate matched; on the supply example and the library Domain."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
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
from lorebase_core.schema.model import AttributeDef

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
    # "borrow" is the Relation borrowed_by by its stem
    lent = relations(run(library_schema, "members who borrow novels", LIBRARY_INDEXED))
    assert {(c.level, c.matched) for c in lent.values()} == {("stem", "borrow")}
    assert set(lent) == {("Loan", "borrowed_by"), ("Member", "borrowings")}


# -- less noise ----------------------------------------------------------------------------
def test_a_value_next_to_a_kind_keeps_to_that_kind(
    supply_schema: Schema, library_schema: Schema
) -> None:
    def values(resolution: TextResolution, matched: str) -> set[str]:
        return {
            c.term.kind
            for c in resolution.candidates
            if c.term.target == "value" and c.matched == matched
        }

    indexed = {**SUPPLY_INDEXED, ("Plant", "country"): {"PL": 1, "DE": 2}}
    polish = run(supply_schema, "Which plants stock parts that Polish suppliers supply?", indexed)
    assert values(polish, "Polish") == {"Supplier"}
    # nothing next to it names a Kind: the values of every Kind stay
    assert values(run(supply_schema, "Polish and plants", indexed), "Polish") == {
        "Plant",
        "Supplier",
    }
    library = {**LIBRARY_INDEXED, ("Publisher", "country"): {"SE": 1, "DE": 1}}
    publishers = run(library_schema, "books of Swedish publishers", library)
    assert values(publishers, "Swedish") == {"Publisher"}
    assert values(run(library_schema, "books by Swedish authors", library), "Swedish") == {"Author"}


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


# -- everyday words for stored codes -------------------------------------------------------
def test_polish_is_pl_on_the_supply_example(supply_schema: Schema) -> None:
    resolution = run(supply_schema, SUPPLY_QUESTION, SUPPLY_INDEXED)
    [polish] = [c for c in resolution.candidates if c.term.attribute == "country"]
    assert polish.to_json() == {
        "target": "value",
        "kind": "Supplier",
        "attribute": "country",
        "type": "string",
        "values": ["PL"],
        "predicate": {"attr": "country", "op": "eq", "value": "PL"},
        "score": 0.95,
        "level": "synonym",
        "matched": "Polish",
        "why": "an ISO 3166-1 country code: 'Polish' is the demonym of Poland (PL)",
        "records": 3,
    }
    assert resolution.unmatched == ("Which", "that")


@pytest.mark.parametrize(
    ("text", "attribute", "codes"),
    [
        pytest.param("Swedish authors", "country", ("SE",), id="demonym"),
        pytest.param("authors from Norway", "country", ("NO",), id="name"),
        pytest.param("books in Swedish kronor", "currency", ("SEK",), id="currency-plural"),
        pytest.param("books priced in zloty", "currency", ("PLN",), id="currency-last-word"),
        pytest.param("books in euros", "currency", ("EUR",), id="euro"),
    ],
)
def test_everyday_words_for_library_codes(
    library_schema: Schema, text: str, attribute: str, codes: tuple[str, ...]
) -> None:
    indexed = {**LIBRARY_INDEXED, ("Book", "currency"): {"SEK": 3, "EUR": 5, "PLN": 2}}
    resolution = run(library_schema, text, indexed)
    [candidate] = [c for c in resolution.candidates if c.term.attribute == attribute]
    assert (candidate.term.values, candidate.level) == (codes, "synonym")
    assert candidate.why.startswith(
        "an ISO 3166-1 country code" if attribute == "country" else "an ISO 4217 currency code"
    )


def test_only_stored_codes_become_candidates(library_schema: Schema) -> None:
    resolution = run(library_schema, "Italian authors", LIBRARY_INDEXED)  # no IT stored
    assert not any(c.term.attribute == "country" for c in resolution.candidates)
    assert "Italian" in resolution.unmatched


def test_a_word_naming_several_stored_codes_names_them_together(supply_schema: Schema) -> None:
    indexed = {("Contract", "currency"): {"USD": 2, "CAD": 1, "EUR": 4}}
    [dollar] = run(supply_schema, "contracts in dollars", indexed).candidates[1:]
    assert dollar.term.values == ("CAD", "USD")
    assert dollar.to_json()["predicate"] == {
        "attr": "currency",
        "op": "in",
        "value": ["CAD", "USD"],
    }
    assert dollar.term.records == 3


def test_codes_are_detected_from_the_stored_values(library_schema: Schema) -> None:
    # Member.city holds no codes: no vocabulary; an undeclared Attribute of codes is detected
    hinted = library_schema.kinds["Author"].attributes["country"]
    plain = hinted.model_copy(update={"vocabulary": None})
    schema = _with_attribute(library_schema, "Author", "country", plain)
    few = {("Author", "country"): {"SE": 3, "NO": 1}}
    assert run(schema, "Swedish authors", few).candidates[1:] == ()
    enough = {("Author", "country"): {"SE": 3, "NO": 1, "DE": 1}}
    [swedish] = run(schema, "Swedish authors", enough).candidates[1:]
    assert swedish.term.values == ("SE",)
    mixed = {("Author", "country"): {"SE": 3, "NO": 1, "DE": 1, "Sweden": 1}}
    assert [c.matched for c in run(schema, "Swedish authors", mixed).candidates] == ["authors"]
    # a declared vocabulary needs no minimum
    assert run(library_schema, "Swedish authors", few).candidates[1].term.values == ("SE",)


def _with_attribute(schema: Schema, kind: str, name: str, rules: AttributeDef) -> Schema:
    """`schema` with one Attribute replaced (the loader's checks are not run again)."""
    definition = schema.kinds[kind]
    attributes = {**definition.attributes, name: rules}
    kinds = {**schema.kinds, kind: definition.model_copy(update={"attributes": attributes})}
    return replace(schema, kinds=kinds)


def test_a_kind_is_not_also_the_relation_named_after_it(
    supply_schema: Schema, library_schema: Schema
) -> None:
    tier = run(supply_schema, TIER_QUESTION, SUPPLY_INDEXED)
    assert relations(tier) == {}
    assert ("kind", "PurchaseOrder") in {(c.term.target, c.term.kind) for c in tier.candidates}
    loans = run(library_schema, "loans of members", LIBRARY_INDEXED)
    assert [(c.term.target, c.term.kind) for c in loans.candidates] == [
        ("kind", "Loan"),
        ("kind", "Member"),
    ]
