"""Search (docs/search.md): lexical with corrections, filters, overlays, index upkeep, vectors."""

from __future__ import annotations

from typing import Any

import pytest

from lorebase_core.access import ReadScope
from lorebase_core.changes import DeleteRecord, UpsertRecord
from lorebase_core.errors import KindNotFound, TraitNotFound
from lorebase_core.schema import load_schema
from lorebase_core.search_request import (
    LensUnknown,
    SearchInvalid,
    SemanticUnavailable,
    parse_search,
)
from lorebase_store.engine import write_transaction
from lorebase_store.search import SearchResult, put_vector, rebuild_index
from lorebase_store.store import Store
from lorebase_store.testing import change_request, read_record
from lorebase_store.testing import commit_changes as commit

BEARINGS = ["Part/P-10004", "Part/P-10012", "Part/P-10023", "Part/P-10036"]
EVERYTHING = ReadScope.everything()


def run(
    store: Store,
    document: dict[str, Any],
    *,
    scope: ReadScope = EVERYTHING,
    domain: str = "supply",
    branch: str | None = None,
) -> SearchResult:
    with store.reader(domain, branch=branch) as reader:
        request = parse_search(document, reader.schema, scope, default_limit=20, max_limit=100)
        return reader.search(request, scope, min_similarity=0.3)


def refs(result: SearchResult) -> list[str]:
    return [hit.ref for hit in result.hits]


def test_bearing_finds_the_four_bearings(supply: Store) -> None:
    result = run(supply, {"q": "bearing"})
    assert sorted(refs(result)) == BEARINGS
    assert result.corrected == []
    assert all(hit.matched == ["name"] for hit in result.hits)
    scores = [(-hit.score, hit.ref) for hit in result.hits]
    assert scores == sorted(scores)


def test_a_misspelled_word_is_corrected(supply: Store) -> None:
    result = run(supply, {"q": "bering"})
    assert sorted(refs(result)) == BEARINGS
    assert [c.to_json() for c in result.corrected] == [{"from": "bering", "to": "bearing"}]
    assert result.to_json()["corrected"] == [{"from": "bering", "to": "bearing"}]


def test_nothing_similar_corrects_nothing(supply: Store) -> None:
    result = run(supply, {"q": "zzqxv"})
    assert result.hits == []
    assert result.corrected == []


def test_substrings_and_several_words(supply: Store) -> None:
    # any term finds; the Records holding every term come first
    result = run(supply, {"q": "roller BEAR"})
    assert sorted(refs(result)[:2]) == ["Part/P-10012", "Part/P-10023"]
    assert sorted(refs(result)[2:]) == ["Part/P-10004", "Part/P-10036"]
    assert [hit.matched_terms for hit in result.hits[:2]] == [["roller", "bear"]] * 2
    assert [hit.matched_terms for hit in result.hits[2:]] == [["bear"]] * 2


def test_kinds_traits_and_lens(supply: Store) -> None:
    poznan = run(supply, {"q": "Poznan"})
    assert set(refs(poznan)) == {"Plant/PL-05", "Supplier/S-1001"}
    assert refs(run(supply, {"q": "Poznan", "kinds": ["Supplier"]})) == ["Supplier/S-1001"]
    located = run(supply, {"q": "Poznan", "traits": ["Located"]})
    assert set(refs(located)) == {"Plant/PL-05", "Supplier/S-1001"}
    assert set(located.kinds) == {"Supplier", "Plant"}
    lens = run(supply, {"q": "Poznan", "lens": "supplier_risk"})
    assert refs(lens) == ["Supplier/S-1001"]
    # a lens supplies the Kinds only when the request names none
    both = run(supply, {"q": "Poznan", "lens": "supplier_risk", "kinds": ["Plant"]})
    assert refs(both) == ["Plant/PL-05"]


def test_unknown_names(supply: Store) -> None:
    with pytest.raises(KindNotFound):
        run(supply, {"q": "x", "kinds": ["Nope"]})
    with pytest.raises(TraitNotFound):
        run(supply, {"q": "x", "traits": ["Nope"]})
    with pytest.raises(LensUnknown):
        run(supply, {"q": "x", "lens": "nope"})


def test_a_narrowed_scope_searches_its_kinds_only(supply: Store) -> None:
    scope = ReadScope(frozenset({"Supplier"}))
    assert refs(run(supply, {"q": "Poznan"}, scope=scope)) == ["Supplier/S-1001"]
    assert refs(run(supply, {"q": "bearing"}, scope=scope)) == []
    with pytest.raises(KindNotFound):
        run(supply, {"q": "bearing", "kinds": ["Part"]}, scope=scope)
    assert refs(run(supply, {"q": "Poznan", "lens": "supplier_risk"}, scope=scope)) == [
        "Supplier/S-1001"
    ]
    plants_only = ReadScope(frozenset({"Plant"}))
    with pytest.raises(LensUnknown):
        run(supply, {"q": "x", "lens": "supplier_risk"}, scope=plants_only)


def test_sensitive_values_are_neither_indexed_nor_shown(supply: Store) -> None:
    record = read_record(supply, "supply", "Supplier", "S-1001")
    assert record is not None
    email = str(record.values["contact_email"])
    local_part = email.split("@")[0]
    assert refs(run(supply, {"q": local_part, "kinds": ["Supplier"]})) == []
    viewer = ReadScope()
    hit = run(supply, {"q": "Poznan", "kinds": ["Supplier"]}, scope=viewer).hits[0]
    assert hit.values is not None
    assert hit.values["contact_email"] == "***"
    assert hit.values["vat_number"] == "***"
    without = run(supply, {"q": "Poznan", "kinds": ["Supplier"], "values": False}).hits[0]
    assert "values" not in without.to_json()


def test_the_index_follows_commits_and_deletes(supply: Store) -> None:
    commit(supply, [UpsertRecord("Part", "P-10004", {"name": "Deep groove ball race 6204"})])
    assert "Part/P-10004" not in refs(run(supply, {"q": "bearing"}))
    assert refs(run(supply, {"q": "race 6204"})) == ["Part/P-10004"]
    commit(supply, [DeleteRecord("Part", "P-10012")])
    assert sorted(refs(run(supply, {"q": "bearing"}))) == ["Part/P-10023", "Part/P-10036"]


def test_a_refused_commit_leaves_the_index_alone(supply: Store) -> None:
    changes = [
        UpsertRecord("Part", "P-10004", {"name": "Quartzwidget"}),
        UpsertRecord("Nope", "x", {}),
    ]
    with pytest.raises(Exception, match="refused"):
        supply.commit(change_request(), changes)
    assert "Part/P-10004" not in refs(run(supply, {"q": "quartzwidget"}))
    assert sorted(refs(run(supply, {"q": "bearing"}))) == BEARINGS


def test_an_overlay_branch_shadows_its_base(supply: Store) -> None:
    supply.create_branch("supply", "rename", created_by="usr_tester")
    commit(
        supply,
        [UpsertRecord("Part", "P-10004", {"name": "Deep groove ball race 6204"})],
        branch="rename",
    )
    on_branch = refs(run(supply, {"q": "bearing"}, branch="rename"))
    assert sorted(on_branch) == ["Part/P-10012", "Part/P-10023", "Part/P-10036"]
    renamed = run(supply, {"q": "ball race"}, branch="rename")
    assert [
        (hit.ref, hit.matched_terms)
        for hit in renamed.hits
        if hit.matched_terms
        == [
            "ball",
            "race",
        ]
    ] == [("Part/P-10004", ["ball", "race"])]
    assert sorted(refs(run(supply, {"q": "bearing"}))) == BEARINGS
    on_main = run(supply, {"q": "ball race"})
    assert {hit.ref: hit.matched_terms for hit in on_main.hits}["Part/P-10004"] == ["ball"]
    assert on_main.to_json()["notes"] == ["'race' matched nothing in " + ", ".join(on_main.kinds)]


def test_a_copy_branch_is_searched_too(supply: Store) -> None:
    supply.create_branch("supply", "copy", created_by="usr_tester", mode="copy")
    assert sorted(refs(run(supply, {"q": "bearing"}, branch="copy"))) == BEARINGS
    commit(supply, [DeleteRecord("Part", "P-10036")], branch="copy")
    assert len(refs(run(supply, {"q": "bearing"}, branch="copy"))) == 3


def test_rebuilding_gives_the_same_answers(supply: Store) -> None:
    before = run(supply, {"q": "bearing"}).to_json()
    with write_transaction(supply.engine) as connection:
        for table in ("search_documents", "search_terms"):
            connection.exec_driver_sql(f"DELETE FROM {table}")
        if supply.engine.dialect.name == "sqlite":
            connection.exec_driver_sql("DELETE FROM search_fts")
        rebuild_index(connection)
    assert run(supply, {"q": "bearing"}).to_json() == before


def _index_contents(store: Store) -> dict[str, Any]:
    """Every document, vocabulary entry and (on SQLite) FTS5 row, by what it holds, not its id."""
    with store.engine.connect() as connection:
        documents = sorted(
            tuple(row)
            for row in connection.exec_driver_sql(
                "SELECT branch_id, kind, record_key, deleted, title, body FROM search_documents"
            )
        )
        vocabulary = sorted(
            tuple(row)
            for row in connection.exec_driver_sql(
                "SELECT branch_id, term, documents FROM search_terms"
            )
        )
        fts: list[tuple[Any, ...]] = []
        if store.engine.dialect.name == "sqlite":
            fts = sorted(
                tuple(row)
                for row in connection.exec_driver_sql(
                    "SELECT d.record_key, f.title, f.body FROM search_fts AS f "
                    "JOIN search_documents AS d ON d.id = f.rowid"
                )
            )
            live = [row for row in documents if not row[3]]
            assert len(fts) == len(live)
    return {"documents": documents, "vocabulary": vocabulary, "fts": fts}


def test_the_index_kept_commit_by_commit_equals_a_rebuilt_one(supply: Store) -> None:
    supply.create_branch("supply", "rename", created_by="usr_tester")
    commit(supply, [UpsertRecord("Part", "P-10004", {"name": "Deep groove ball race 6204"})])
    commit(supply, [UpsertRecord("Part", "P-10004", {"unit_cost": "3.10"})])  # same text
    commit(supply, [DeleteRecord("Part", "P-10012")])
    commit(supply, [UpsertRecord("Part", "P-10023", {"name": "Tapered bearing"})], branch="rename")
    commit(supply, [DeleteRecord("Part", "P-10036")], branch="rename")
    kept = _index_contents(supply)
    with write_transaction(supply.engine) as connection:
        for table in ("search_documents", "search_terms"):
            connection.exec_driver_sql(f"DELETE FROM {table}")
        if supply.engine.dialect.name == "sqlite":
            connection.exec_driver_sql("DELETE FROM search_fts")
        rebuild_index(connection)
    assert _index_contents(supply) == kept
    assert kept["documents"]


# -- semantic and hybrid -------------------------------------------------------------------------

NOTES = """
domain: {name: notes}
search:
  embedding: {model: test-3d, dimensions: 3}
kinds:
  Note:
    key: [code]
    title: heading
    attributes:
      code: {type: string}
      heading: {type: string}
"""


@pytest.fixture
def notes(store: Store) -> Store:
    schema = load_schema(NOTES)
    notes = [
        ("N-1", "Bearing lubrication", [1.0, 0.0, 0.0]),
        ("N-2", "Seal wear", [0.0, 1.0, 0.0]),
        ("N-3", "Bearing noise", [0.7, 0.7, 0.0]),
    ]
    store.commit(
        change_request(domain="notes", schema=schema, create_domain=True),
        [
            UpsertRecord("Note", None, {"code": code, "heading": heading})
            for code, heading, _ in notes
        ],
    )
    domain_id = store.domain("notes").id
    with write_transaction(store.engine) as connection:
        for code, _, vector in notes:
            put_vector(connection, domain_id, "Note", code, "test-3d", vector, "usr_tester")
    return store


def test_semantic_ranks_by_cosine(notes: Store) -> None:
    result = run(notes, {"mode": "semantic", "query_vector": [0.0, 1.0, 0.1]}, domain="notes")
    assert refs(result) == ["Note/N-2", "Note/N-3", "Note/N-1"]
    assert result.hits[0].score > result.hits[1].score > result.hits[2].score
    assert result.to_json()["capped"] is False


def test_hybrid_fuses_both_ranks(notes: Store) -> None:
    result = run(
        notes,
        {"mode": "hybrid", "q": "bearing", "query_vector": [0.6, 0.8, 0.0]},
        domain="notes",
    )
    # N-3 is found lexically and first by vector; N-2 only by vector
    assert refs(result)[0] == "Note/N-3"
    assert set(refs(result)) == {"Note/N-1", "Note/N-2", "Note/N-3"}


def test_deleted_records_are_not_semantic_hits(notes: Store) -> None:
    commit(notes, [DeleteRecord("Note", "N-2")], domain="notes")
    result = run(notes, {"mode": "semantic", "query_vector": [0.0, 1.0, 0.0]}, domain="notes")
    assert "Note/N-2" not in refs(result)


def test_semantic_needs_an_embedding_and_the_right_length(library: Store, notes: Store) -> None:
    with pytest.raises(SemanticUnavailable):
        run(library, {"mode": "semantic", "query_vector": [1.0]}, domain="library")
    with pytest.raises(SearchInvalid) as raised:
        run(notes, {"mode": "semantic", "query_vector": [1.0, 2.0]}, domain="notes")
    assert [issue.path for issue in raised.value.issues] == ["query_vector"]
