"""The reading of a search text (lorebase_core.search_text): terms, Kind words, attr:value."""

from __future__ import annotations

from pathlib import Path

import pytest

from lorebase_core.access import ReadScope
from lorebase_core.schema import Schema, load_schema
from lorebase_core.search_text import AttributeTerm, interpret, text_terms

ROOT = Path(__file__).parents[3]
EVERYTHING = ReadScope.everything()


@pytest.fixture(scope="module")
def supply() -> Schema:
    return load_schema((ROOT / "examples" / "supply" / "schema.yaml").read_text())


@pytest.fixture(scope="module")
def library() -> Schema:
    return load_schema((ROOT / "tests" / "data" / "library" / "schema.yaml").read_text())


def test_terms_keep_the_punctuation_of_keys() -> None:
    assert text_terms("Supplier S-1007, roller-bearing 6204-2RS") == [
        "supplier",
        "s-1007",
        "roller",
        "bearing",
        "6204-2rs",
    ]


def test_kind_words_and_attribute_terms(supply: Schema, library: Schema) -> None:
    every = tuple(supply.kinds)
    reading, issues = interpret("purchase orders PO-2026-0001", supply, EVERYTHING, every)
    assert (reading.kinds, reading.named, reading.terms) == (
        ("PurchaseOrder",),
        ("PurchaseOrder",),
        ("po-2026-0001",),
    )
    assert issues == []
    reading, _ = interpret('name:"roller bearing" suppliers', supply, EVERYTHING, every)
    assert reading.kinds == ("Supplier",)  # Supplier has no name: searched as text, with a note
    assert reading.terms == ("name", "roller", "bearing")
    assert reading.notes[0].startswith("no Attribute 'name' in Supplier")
    reading, _ = interpret('name:"roller bearing"', supply, EVERYTHING, every)
    assert reading.kinds == ("Part", "Plant")
    assert reading.attribute_terms == (
        AttributeTerm("name", "roller"),
        AttributeTerm("name", "bearing"),
    )
    books, _ = interpret("novels by writers", library, EVERYTHING, tuple(library.kinds))
    assert books.named == ("Author",)
    assert books.terms == ("novels", "by")


def test_protected_names(supply: Schema) -> None:
    reading, _ = interpret("x", supply, EVERYTHING, tuple(supply.kinds))
    for word in ("contract", "supplier", "vendor", "stocked at", "stock", "legal name", "tier"):
        assert word in reading.protected
    narrowed = ReadScope(frozenset({"Supplier"}))
    hidden, _ = interpret("x", supply, narrowed, ("Supplier",))
    assert "contract" not in hidden.protected
    assert "stock" not in hidden.protected
