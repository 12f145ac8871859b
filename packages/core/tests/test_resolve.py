"""Resolving words against a vocabulary: normalization, phrases, levels, scope and ordering."""

from __future__ import annotations

from pathlib import Path

import pytest

from lorebase_core.access import ReadScope
from lorebase_core.resolve import (
    TextResolution,
    Vocabulary,
    indexing,
    normalize,
    resolve_text,
    similarity,
    singular,
    vocabulary_entries,
    words,
)
from lorebase_core.schema import Schema, load_schema

SUPPLY = Path(__file__).parents[3] / "examples" / "supply" / "schema.yaml"


@pytest.fixture(scope="module")
def supply_schema() -> Schema:
    return load_schema(SUPPLY.read_text())


INDEXED = {
    ("PurchaseOrder", "status"): {"open": 15, "received": 32, "cancelled": 3},
    ("Supplier", "risk_band"): {"high": 6, "normal": 24},
    ("Supplier", "country"): {"PL": 3, "DE": 4},
    ("Part", "category"): {"fastener": 5, "seal": 2},
}


def run(
    schema: Schema, text: str, scope: ReadScope | None = None, **limits: float
) -> TextResolution:
    vocabulary = Vocabulary(vocabulary_entries(schema, scope or ReadScope.everything(), INDEXED))
    return resolve_text(
        text,
        vocabulary,
        min_similarity=float(limits.get("min_similarity", 0.4)),
        max_candidates=int(limits.get("max_candidates", 20)),
    )


def found(resolution: TextResolution) -> dict[tuple[str, str, str | None], tuple[str, str]]:
    return {
        (c.term.target, c.term.kind, c.term.attribute): (c.level, c.matched)
        for c in resolution.candidates
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("PurchaseOrder", "purchase order", id="camel"),
        pytest.param("risk_score", "risk score", id="underscore"),
        pytest.param("  Łódź  Café ", "łodz cafe", id="accents"),
        pytest.param("S-1001", "s-1001", id="code"),
    ],
)
def test_normalize(text: str, expected: str) -> None:
    assert normalize(text) == expected


def test_words_keep_codes_and_drop_punctuation() -> None:
    assert words("open orders of S-1001, (in PL)?") == [
        "open",
        "orders",
        "of",
        "S-1001",
        "in",
        "PL",
    ]


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("suppliers", "supplier"),
        ("purchase orders", "purchase order"),
        ("categories", "category"),
        ("boxes", "box"),
        ("status", "status"),
        ("address", "address"),
        ("bus", "bus"),
        ("pos", "po"),
    ],
)
def test_singular(word: str, expected: str) -> None:
    assert singular(word) == expected


def test_similarity_is_trigram_overlap() -> None:
    assert similarity("supplier", "supplier") == 1.0
    assert 0.5 < similarity("suplier", "supplier") < 1.0
    assert similarity("poland", "plant") < 0.4
    assert similarity("", "") == 0.0


def test_indexing_follows_type_sensitivity_and_resolvable(supply_schema: Schema) -> None:
    supplier = supply_schema.kinds["Supplier"].attributes
    assert indexing(supplier["status"]) == "always"
    assert indexing(supplier["city"]) == "few"
    assert indexing(supplier["country"]) == "always"  # vocabulary: iso3166
    assert indexing(supplier["risk_score"]) == "never"
    assert indexing(supplier["vat_number"]) == "never"
    assert indexing(supplier["contact_email"]) == "never"
    assert indexing(supply_schema.kinds["RiskFlag"].attributes["reason"]) == "never"
    forced = supplier["city"].model_copy(update={"resolvable": False})
    assert indexing(forced) == "never"
    text = supply_schema.kinds["RiskFlag"].attributes["reason"]
    assert indexing(text.model_copy(update={"resolvable": True})) == "always"


def test_the_example_question(supply_schema: Schema) -> None:
    resolution = run(supply_schema, "open purchase orders of high risk suppliers in PL")
    matches = found(resolution)
    assert matches[("kind", "PurchaseOrder", None)] == ("exact", "purchase orders")
    assert matches[("kind", "Supplier", None)] == ("exact", "suppliers")
    assert matches[("value", "PurchaseOrder", "status")] == ("exact", "open")
    assert matches[("value", "Supplier", "risk_band")] == ("exact", "high")
    assert matches[("value", "Supplier", "country")] == ("exact", "PL")
    assert matches[("attribute", "Supplier", "risk_score")] == ("synonym", "risk")
    assert resolution.unmatched == ("of", "in")
    assert resolution.unknown == ("of", "in")


def test_value_aliases_and_kind_aliases_are_synonyms(supply_schema: Schema) -> None:
    resolution = run(supply_schema, "outstanding POs for bolts from vendors")
    matches = found(resolution)
    assert matches[("value", "PurchaseOrder", "status")] == ("synonym", "outstanding")
    assert matches[("kind", "PurchaseOrder", None)] == ("synonym", "POs")
    assert matches[("kind", "Supplier", None)] == ("synonym", "vendors")
    fastener = next(c for c in resolution.candidates if c.term.attribute == "category")
    assert fastener.to_json()["predicate"] == {"attr": "category", "op": "eq", "value": "fastener"}
    assert fastener.score == 0.95
    assert fastener.term.records == 5


def test_stored_aliases_group_with_their_value(supply_schema: Schema) -> None:
    rules = supply_schema.kinds["Part"].attributes["category"]
    schema_with_colour = supply_schema
    indexed = {("Part", "category"): {"seal": 2, "gasket": 3}}
    vocabulary = Vocabulary(vocabulary_entries(schema_with_colour, ReadScope.everything(), indexed))
    resolution = resolve_text("gasket", vocabulary, min_similarity=0.4, max_candidates=5)
    [candidate] = resolution.candidates
    assert candidate.level == "exact"
    assert candidate.term.values == ("seal", "gasket")
    assert candidate.term.records == 5
    assert candidate.to_json()["predicate"] == {
        "attr": "category",
        "op": "in",
        "value": ["seal", "gasket"],
    }
    assert "gasket" in rules.value_aliases["seal"]


def test_a_misspelling_is_matched_by_spelling_only_when_nothing_else(
    supply_schema: Schema,
) -> None:
    resolution = run(supply_schema, "supplers")
    [best, *_] = resolution.candidates
    assert (best.term.target, best.term.kind, best.level) == ("kind", "Supplier", "similar")
    assert 0 < best.score < 0.9
    assert resolution.unmatched == ()
    assert run(supply_schema, "supplers", min_similarity=0.99).unmatched == ("supplers",)


def test_short_words_are_not_matched_by_spelling(supply_schema: Schema) -> None:
    assert run(supply_schema, "of an").candidates == ()


def test_longer_phrases_win_over_their_words(supply_schema: Schema) -> None:
    resolution = run(supply_schema, "risk flag")
    # the Kind, not also the Relation risk_flags (the inverse of flags) named after it
    assert [(c.term.target, c.term.kind) for c in resolution.candidates] == [("kind", "RiskFlag")]
    assert {c.matched for c in resolution.candidates} == {"risk flag"}


def test_a_scope_hides_kinds_and_unreadable_attributes(supply_schema: Schema) -> None:
    narrowed = ReadScope(frozenset({"Supplier"}), frozenset())
    resolution = run(supply_schema, "open purchase orders vat number", narrowed)
    assert {c.term.kind for c in resolution.candidates} <= {"Supplier"}
    assert ("attribute", "Supplier", "vat_number") not in found(resolution)
    cleared = run(supply_schema, "vat number")
    assert found(cleared)[("attribute", "Supplier", "vat_number")] == ("exact", "vat number")


def test_ordering_is_deterministic_and_truncated(supply_schema: Schema) -> None:
    text = "open high status suppliers parts"
    first = run(supply_schema, text)
    assert first == run(supply_schema, text)
    keys = [(-c.score, c.term.order) for c in first.candidates]
    assert keys == sorted(keys)
    cut = run(supply_schema, text, max_candidates=2)
    assert cut.candidates == first.candidates[:2]
    assert cut.truncated is True
    assert first.truncated is False


def test_unknown_phrases_are_runs_of_unmatched_words(supply_schema: Schema) -> None:
    resolution = run(supply_schema, "average total of the suppliers of Atlantis and of")
    assert resolution.unmatched == ("average", "of", "the", "Atlantis", "and")
    assert resolution.unknown == ("average", "of the", "of atlantis and of")


@pytest.mark.parametrize(
    ("text", "recordable"),
    [
        pytest.param("mail jan.kowalski@example.com now", ("mail", "now"), id="e-mail"),
        pytest.param("tax PL5260250995 please", ("tax", "please"), id="vat-number"),
        pytest.param("iban PL61 1090 1014 0000 0712 1981 2874", ("iban",), id="iban-like"),
        pytest.param("sums 2023 over 12.5 and -3", ("sums", "over", "and"), id="numbers"),
        pytest.param("ref 123e4567-e89b-12d3-a456-426614174000", ("ref",), id="uuid"),
        pytest.param("see https://x.example/a?b=c now", ("see", "now"), id="url"),
        pytest.param("token " + "q" * 33, ("token",), id="long-word"),
        pytest.param("frobnicated widgetry", ("frobnicated widgetry",), id="plain-words"),
    ],
)
def test_identifying_words_are_never_recordable(
    supply_schema: Schema, text: str, recordable: tuple[str, ...]
) -> None:
    resolution = run(supply_schema, text)
    assert resolution.recordable == recordable
    # the answer still names every unmatched word: only what a store may keep is narrower
    assert len(resolution.unmatched) >= len(" ".join(recordable).split())
