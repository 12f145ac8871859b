"""Search that forgives (docs/search.md): any term ranked, Kind words, keys, attr:value, notes."""

from __future__ import annotations

from typing import Any

import pytest

from lorebase_core.access import ReadScope
from lorebase_core.search_request import SearchInvalid, SearchRequest, parse_search
from lorebase_store.search import SearchResult
from lorebase_store.store import Store

EVERYTHING = ReadScope.everything()


def run(
    store: Store, document: dict[str, Any], *, domain: str, scope: ReadScope = EVERYTHING
) -> SearchResult:
    with store.reader(domain) as reader:
        request = parse_search(document, reader.schema, scope, default_limit=20, max_limit=100)
        return reader.search(request, scope, min_similarity=0.3)


def refs(result: SearchResult) -> list[str]:
    return [hit.ref for hit in result.hits]


def test_a_kind_word_restricts_instead_of_being_text(supply: Store) -> None:
    result = run(supply, {"q": "supplier S-1007"}, domain="supply")
    assert refs(result)[0] == "Supplier/S-1007"
    assert result.kinds == ("Supplier",)
    answer = result.to_json()
    assert answer["interpreted"] == {"kinds": ["Supplier"], "terms": ["s-1007"], "attributes": []}
    assert answer["hits"][0]["matched_terms"] == ["s-1007"]
    assert answer["notes"] == []
    # "contract" names the Kind: neither text nor corrected to "contact"
    contract = run(supply, {"q": "contract C-3013"}, domain="supply")
    assert refs(contract) == ["Contract/C-3013"]
    assert contract.corrected == []
    # plurals and aliases, as resolve compares them; with kinds, the two are intersected
    assert run(supply, {"q": "vendors S-1007"}, domain="supply").kinds == ("Supplier",)
    both = run(supply, {"q": "supplier Poznan", "kinds": ["Supplier", "Plant"]}, domain="supply")
    assert refs(both) == ["Supplier/S-1001"]
    apart = run(supply, {"q": "supplier Poznan", "kinds": ["Plant"]}, domain="supply")
    assert refs(apart) == ["Plant/PL-05"]
    assert (
        apart.notes[0]
        == "'supplier' named Supplier, not among the Kinds searched: searched as text"
    )


def test_kind_words_on_the_library(library: Store) -> None:
    result = run(library, {"q": "books Harbour"}, domain="library")
    assert result.kinds == ("Book",)
    assert refs(result) == ["Book/B-0001"]
    only_kinds = run(library, {"q": "authors"}, domain="library")  # every word a Kind: text
    assert only_kinds.to_json()["interpreted"]["kinds"] is None


def test_a_kind_word_names_only_readable_kinds(supply: Store) -> None:
    scope = ReadScope(frozenset({"Part"}))
    result = run(supply, {"q": "supplier bearing"}, domain="supply", scope=scope)
    assert result.kinds == ("Part",)
    assert result.to_json()["interpreted"]["kinds"] is None
    assert "Supplier" not in str(result.to_json())


def test_any_term_ranked_all_terms_first(supply: Store, library: Store) -> None:
    result = run(supply, {"q": "tapered bearing"}, domain="supply")
    assert refs(result)[0] == "Part/P-10012"
    assert result.hits[0].matched_terms == ["tapered", "bearing"]
    assert {hit.ref for hit in result.hits[1:]} == {"Part/P-10004", "Part/P-10023", "Part/P-10036"}
    books = run(library, {"q": "winter orchard"}, domain="library")
    assert set(refs(books)) == {"Book/B-0001", "Book/B-0004"}
    assert all(len(hit.matched_terms or []) == 1 for hit in books.hits)
    assert books.notes == []


def test_a_key_puts_its_record_first(supply: Store, library: Store) -> None:
    result = run(supply, {"q": "P-10036 bearing"}, domain="supply")
    assert refs(result)[0] == "Part/P-10036"
    assert sorted(refs(result)[1:]) == ["Part/P-10004", "Part/P-10012", "Part/P-10023"]
    lower = run(supply, {"q": "s-1007"}, domain="supply")
    assert refs(lower)[0] == "Supplier/S-1007"
    # any case; the key's Record before those holding the text
    pb = run(library, {"q": "pb-04 Verlag", "kinds": ["Publisher"]}, domain="library")
    assert refs(pb) == ["Publisher/PB-04", "Publisher/PB-02"]
    assert [hit.matched_terms for hit in pb.hits] == [["pb-04"], ["verlag"]]
    # a unique prefix of the keys searched; one that is not unique names nothing
    unique = run(supply, {"q": "P-1004 bearing"}, domain="supply")
    assert refs(unique)[0] == "Part/P-10040"
    shared = run(supply, {"q": "P-1003 bearing", "kinds": ["Part"]}, domain="supply")
    assert refs(shared)[0] == "Part/P-10036"  # the only Record holding both terms


def test_attribute_terms(supply: Store, library: Store) -> None:
    bering = run(supply, {"q": "name:bering"}, domain="supply")
    assert bering.kinds == ("Part", "Plant")
    assert sorted(refs(bering)) == [
        "Part/P-10004",
        "Part/P-10012",
        "Part/P-10023",
        "Part/P-10036",
    ]
    assert [c.to_json() for c in bering.corrected] == [{"from": "bering", "to": "bearing"}]
    assert bering.to_json()["interpreted"]["attributes"] == [
        {"attribute": "name", "term": "bearing"}
    ]
    polish = run(supply, {"q": "country:PL", "kinds": ["Supplier"]}, domain="supply")
    assert refs(polish)
    assert all(hit.values and hit.values["country"] == "PL" for hit in polish.hits)
    swedes = run(library, {"q": "country:SE authors"}, domain="library")
    assert sorted(refs(swedes)) == ["Author/A-001", "Author/A-002", "Author/A-008"]


@pytest.mark.parametrize(
    ("domain", "q", "words"),
    [
        pytest.param("supply", "tier:1", ["'tier'", "integer", "POST /query"], id="integer"),
        pytest.param("supply", "status:open", ["'status'", "enum", "POST /query"], id="enum"),
        pytest.param("library", "pages:412", ["'pages'", "integer", "POST /query"], id="pages"),
    ],
)
def test_an_attribute_that_is_not_text_is_refused(
    supply: Store, library: Store, domain: str, q: str, words: list[str]
) -> None:
    store = supply if domain == "supply" else library
    with pytest.raises(SearchInvalid) as refused:
        run(store, {"q": q}, domain=domain)
    issues = refused.value.issues
    assert [(issue.path, issue.code) for issue in issues] == [("q", "attribute-not-searchable")]
    assert all(word in issues[0].message for word in words)


def test_a_sensitive_attribute_is_refused(supply: Store) -> None:
    with pytest.raises(SearchInvalid) as refused:
        run(supply, {"q": "contact_email:example", "kinds": ["Supplier"]}, domain="supply")
    assert refused.value.issues[0].code == "attribute-not-searchable"
    assert "example.com" not in refused.value.issues[0].message


def test_an_unknown_attribute_is_text_with_a_note(library: Store) -> None:
    result = run(library, {"q": "colour:Harbour"}, domain="library")
    assert refs(result) == ["Book/B-0001"]
    assert result.notes[0].startswith("no Attribute 'colour' in ")
    assert "searched 'colour:Harbour' as text" in result.notes[0]


def test_corrections_never_rewrite_names_or_keys(supply: Store, library: Store) -> None:
    contract = run(supply, {"q": "contract", "kinds": ["Supplier"]}, domain="supply")
    assert contract.corrected == []
    relation = run(supply, {"q": "stocks"}, domain="supply")
    assert relation.corrected == []
    loans = run(library, {"q": "lending", "kinds": ["Author"]}, domain="library")
    assert loans.corrected == []


def test_an_empty_answer_says_what_to_try(supply: Store, library: Store) -> None:
    result = run(supply, {"q": "zzqxv", "kinds": ["Part"]}, domain="supply")
    assert result.hits == []
    assert result.notes == [
        "'zzqxv' matched nothing in Part",
        'nothing found: POST /resolve {"text": "zzqxv"} finds the Kinds, Attributes and stored '
        'values these words name; POST /query {"kind": "Part", "where": {"attr": "name", "op": '
        '"contains", "value": "zzqxv"}} filters Part by an Attribute',
    ]
    books = run(library, {"q": "book qqwxz"}, domain="library")
    assert books.hits == []
    assert books.notes[0] == "'qqwxz' matched nothing in Book"
    assert '"kind": "Book", "where": {"attr": "title"' in books.notes[1]


def test_both_backends_rank_alike(supply: Store, library: Store) -> None:
    """The figures come from the documents' own text: the same order and scores everywhere."""
    result = run(supply, {"q": "roller bearing steel"}, domain="supply")
    assert [(hit.ref, hit.score, hit.matched_terms) for hit in result.hits] == [
        ("Part/P-10012", 4.235557, ["roller", "bearing"]),
        ("Part/P-10023", 4.117766, ["roller", "bearing"]),
        ("Part/P-10004", 1.507499, ["bearing"]),
        ("Part/P-10036", 1.507499, ["bearing"]),
        ("Part/P-10006", 0.911976, ["steel"]),
        ("Part/P-10029", 0.911976, ["steel"]),
        ("Part/P-10039", 0.8873, ["steel"]),
        ("Part/P-10009", 0.863925, ["steel"]),
        ("Contract/C-3009", 0.836382, ["steel"]),
        ("RiskFlag/RF-S-1019-0001", 0.505807, ["steel"]),
    ]
    books = run(library, {"q": "the winter of glass"}, domain="library")
    assert [(hit.ref, hit.score, hit.matched_terms) for hit in books.hits] == [
        ("Book/B-0001", 3.025896, ["the", "winter"]),
        ("Book/B-0004", 3.025896, ["the", "glass"]),
        ("Book/B-0002", 2.054867, ["the", "of"]),
        ("Book/B-0003", 1.978983, ["the", "of"]),
        ("Book/B-0007", 0.11233, ["the"]),
        ("Book/B-0011", 0.108022, ["the"]),
        ("Book/B-0012", 0.108022, ["the"]),
    ]


def test_code_callers_get_the_reading_too(supply: Store) -> None:
    with supply.reader("supply") as reader:
        request = SearchRequest(q="supplier S-1007", kinds=tuple(reader.schema.kinds))
        result = reader.search(request, EVERYTHING, min_similarity=0.3)
    assert refs(result)[0] == "Supplier/S-1007"
    assert result.kinds == ("Supplier",)
