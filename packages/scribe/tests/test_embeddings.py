"""The record_embeddings job with the real bundled model: the demo finds what a person expects.

Each test imports the supply example into a fresh database (SQLite, and PostgreSQL when the DSN
is set), runs the job's work (`embed_domain`) or Scribe itself with the bundled all-MiniLM-L6-v2
(loaded once per process), and asks a real Keeper for semantic and hybrid search, with the
query's vector made by the same model in mode `query`, as Guide's POST /embed makes it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from lorebase_core.changes import DeleteRecord, UpsertRecord
from lorebase_inference import Embedder
from lorebase_keeper.app import create_app
from lorebase_keeper.testing import serve_in_thread
from lorebase_platform.settings import Settings
from lorebase_scribe import KINDS, LazyEmbedder, Scribe, embed_domain
from lorebase_store import Store
from lorebase_store import tables as t
from lorebase_store.testing import commit_changes

MODEL = "all-MiniLM-L6-v2"
RECORDS = (
    147  # the supply example: 30 Suppliers, 40 Parts, 50 orders, 15 contracts, 5 plants, 7 flags
)
QUESTION = "late deliveries from Polish suppliers"
SEARCH = "/api/v1/domains/supply/search"


@pytest.fixture(scope="module")
def embedder() -> Iterator[LazyEmbedder]:
    """The bundled model, shared by the module's tests (loading it takes about a second)."""
    lazy = LazyEmbedder(Settings())
    yield lazy
    lazy.close()


@pytest.fixture
def embedded(supply: Store, embedder: LazyEmbedder) -> Store:
    """The supply example with every Record's vector (a backfill run to its end)."""
    report = embed_domain(supply, embedder, Settings().inference.embeddings, "supply")
    assert (report.embedded, report.dropped, report.backfilled) == (RECORDS, 0, True)
    assert report.summary() == f"embedded {RECORDS}, dropped 0, backfill done"
    return supply


def vectors(store: Store) -> dict[str, tuple[str, list[float]]]:
    """Every stored vector of the model: Kind/key -> (updated_at, vector)."""
    columns = t.record_vectors.c
    with store.engine.connect() as connection:
        rows = connection.execute(t.record_vectors.select().where(columns.model == MODEL))
        return {f"{r.kind}/{r.record_key}": (r.updated_at, list(r.vector)) for r in rows}


def query_vector(embedder: LazyEmbedder, text: str) -> list[float]:
    [vector] = embedder().embed_sync([text], "query")
    return vector


async def search(http: httpx.AsyncClient, body: dict[str, Any]) -> list[str]:
    response = await http.post(SEARCH, json=body)
    assert response.status_code == 200, response.text
    return [hit["ref"] for hit in response.json()["hits"]]


def keeper(store: Store) -> httpx.AsyncClient:
    app = create_app(Settings(keeper={"auth": {"mode": "none"}}), store=store)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://k.test")


@pytest.mark.anyio
async def test_the_demo_question_finds_the_late_polish_supplier(
    embedded: Store, embedder: LazyEmbedder
) -> None:
    stored = vectors(embedded)
    assert len(stored) == RECORDS
    assert all(len(vector) == 384 for _, vector in stored.values())
    vector = query_vector(embedder, QUESTION)
    poland = query_vector(embedder, "suppliers in Poland")
    app = create_app(Settings(keeper={"auth": {"mode": "none"}}), store=embedded)
    with serve_in_thread(app) as url:
        async with httpx.AsyncClient(base_url=url) as http:
            response = await http.post(
                SEARCH, json={"q": QUESTION, "mode": "hybrid", "query_vector": vector}
            )
            assert response.status_code == 200, response.text
            answer = response.json()
            hybrid = [hit["ref"] for hit in answer["hits"]]
            semantic = await search(http, {"mode": "semantic", "query_vector": vector})
            in_poland = await search(
                http, {"q": "suppliers in Poland", "mode": "hybrid", "query_vector": poland}
            )
    # semantic, over every Kind: first the risk flag on Kavsen Alloys (Poznan, PL), "Repeated
    # late deliveries of forged flanges ...", then Wroclaw Elementy Zlaczne (Wroclaw, PL)
    assert semantic[0] == "RiskFlag/RF-S-1001-0001", semantic
    assert "Supplier/S-1013" in semantic[:4], semantic
    # hybrid reads "suppliers" as the Kind: Suppliers only, a Polish one first
    assert answer["interpreted"]["kinds"] == ["Supplier"]
    assert hybrid[0] == "Supplier/S-1013", hybrid
    assert "Supplier/S-1027" in hybrid[:5], hybrid  # Tarnowskie Odlewnie (Tarnow, PL)
    # the three Polish suppliers first: "PL" is embedded with its words (Poland, Polish)
    assert set(in_poland[:3]) == {"Supplier/S-1001", "Supplier/S-1013", "Supplier/S-1027"}
    # a question about something else ranks other Records first
    bearings = query_vector(embedder, "ball bearings")
    async with keeper(embedded) as http:
        found = await search(http, {"mode": "semantic", "query_vector": bearings, "limit": 4})
    assert sorted(found) == ["Part/P-10004", "Part/P-10012", "Part/P-10023", "Part/P-10036"]


@pytest.mark.anyio
async def test_a_commit_re_embeds_only_the_records_it_changed(
    embedded: Store, embedder: LazyEmbedder
) -> None:
    before = vectors(embedded)
    commit_changes(
        embedded,
        [
            UpsertRecord(
                "RiskFlag",
                "RF-S-1005-0001",
                {"reason": "Shipments from Gothenburg arrive weeks late since the port strike."},
            )
        ],
    )
    report = embed_domain(embedded, embedder, Settings().inference.embeddings, "supply")
    assert report.summary() == "embedded 1, dropped 0"
    after = vectors(embedded)
    changed = {ref for ref in after if after[ref] != before[ref]}
    assert changed == {"RiskFlag/RF-S-1005-0001"}
    late = query_vector(embedder, "shipments arriving late because of a strike")
    async with keeper(embedded) as http:
        found = await search(http, {"mode": "semantic", "query_vector": late, "limit": 1})
    assert found == ["RiskFlag/RF-S-1005-0001"]
    again = embed_domain(embedded, embedder, Settings().inference.embeddings, "supply")
    assert again.summary() == "nothing due"


@pytest.mark.anyio
async def test_a_delete_removes_its_vector(embedded: Store, embedder: LazyEmbedder) -> None:
    commit_changes(embedded, [DeleteRecord("RiskFlag", "RF-S-1001-0001")])
    report = embed_domain(embedded, embedder, Settings().inference.embeddings, "supply")
    assert (report.embedded, report.dropped) == (0, 1)
    assert "RiskFlag/RF-S-1001-0001" not in vectors(embedded)
    assert len(vectors(embedded)) == RECORDS - 1
    vector = query_vector(embedder, QUESTION)
    async with keeper(embedded) as http:
        found = await search(http, {"mode": "semantic", "query_vector": vector})
    assert "RiskFlag/RF-S-1001-0001" not in found


def test_a_domain_of_another_model_or_none_is_skipped(supply: Store, library: Store) -> None:
    def no_model() -> Embedder:
        raise AssertionError("a skipped Domain must not load the model")

    other = Settings(inference={"embeddings": {"model": "multilingual-e5-small"}})
    report = embed_domain(supply, no_model, other.inference.embeddings, "supply")
    assert report.summary() == (
        "skipped: the schema's search.embedding is 'all-MiniLM-L6-v2' (384 dimensions), "
        "inference.embeddings is 'multilingual-e5-small' (384)"
    )
    assert vectors(supply) == {}
    assert supply.embedding_cursor("supply") is None
    none = embed_domain(library, no_model, other.inference.embeddings, "library")
    assert none.summary() == "skipped: the schema names no search.embedding"


def test_a_backfill_is_resumed_run_after_run(supply: Store, embedder: LazyEmbedder) -> None:
    settings = Settings(inference={"embeddings": {"batch_size": 60}}).inference.embeddings
    first = embed_domain(supply, embedder, settings, "supply", budget_s=0)
    assert first.summary() == f"embedded 60, dropped 0, backfill: {RECORDS - 60} to go"
    assert not first.done
    assert len(vectors(supply)) == 60
    second = embed_domain(supply, embedder, settings, "supply", budget_s=0)
    assert second.summary() == f"embedded 60, dropped 0, backfill: {RECORDS - 120} to go"
    third = embed_domain(supply, embedder, settings, "supply", budget_s=0)
    assert third.summary() == f"embedded {RECORDS - 120}, dropped 0, backfill done"
    assert third.done
    assert len(vectors(supply)) == RECORDS


def test_scribe_runs_the_job_and_a_commit_brings_it_due(supply: Store) -> None:
    settings = Settings()
    for name in KINDS:
        getattr(settings.scribe.jobs, name).enabled = name == "record_embeddings"
    scribe = Scribe(supply, settings)
    try:
        [outcome] = scribe.run_once()
        assert (outcome.kind, outcome.domain, outcome.outcome) == (
            "record_embeddings",
            "supply",
            "done",
        )
        assert outcome.summary == f"embedded {RECORDS}, dropped 0, backfill done"
        assert scribe.run_once() == []  # due again after its interval
        commit_changes(supply, [UpsertRecord("Supplier", "S-1001", {"city": "Gniezno"})])
        scribe._commit_noticed()  # what the commit watch calls when it hears of the commit
        [again] = scribe.run_once()
        assert again.summary == "embedded 1, dropped 0"
    finally:
        scribe.close()
    [state] = supply.jobs.states()
    assert (state.kind, state.last_error, state.lease_owner) == ("record_embeddings", None, None)
