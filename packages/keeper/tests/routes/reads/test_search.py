"""POST /search and PUT .../vector over HTTP: answers, filters, grants, masks, ETags, errors."""

from __future__ import annotations

import httpx
import pytest

from lorebase_core.changes import UpsertRecord
from lorebase_core.schema import load_schema
from lorebase_keeper.app import create_app
from lorebase_keeper.testing import Keys, assert_problem
from lorebase_platform.settings import Settings
from lorebase_store import Store
from lorebase_store.testing import change_request

pytestmark = pytest.mark.anyio

SEARCH = "/api/v1/domains/supply/search"
BEARINGS = ["Part/P-10004", "Part/P-10012", "Part/P-10023", "Part/P-10036"]


def refs(answer: dict[str, object]) -> list[str]:
    hits = answer["hits"]
    assert isinstance(hits, list)
    return [hit["ref"] for hit in hits]


async def test_bearing_and_bering(http: httpx.AsyncClient, supply: Store) -> None:
    response = await http.post(SEARCH, json={"q": "bearing"})
    assert response.status_code == 200
    answer = response.json()
    assert sorted(refs(answer)) == BEARINGS
    assert answer["mode"] == "lexical"
    assert answer["corrected"] == []
    head = supply.branch("supply", "main").head_revision
    assert answer["revision"] == head == response.headers["Lorebase-Revision"]
    hit = answer["hits"][0]
    assert set(hit) == {
        "ref",
        "kind",
        "key",
        "title",
        "score",
        "matched",
        "matched_terms",
        "values",
    }
    corrected = (await http.post(SEARCH, json={"q": "bering"})).json()
    assert corrected["corrected"] == [{"from": "bering", "to": "bearing"}]
    assert sorted(refs(corrected)) == BEARINGS


async def test_filters(http: httpx.AsyncClient) -> None:
    async def found(body: dict[str, object]) -> set[str]:
        response = await http.post(SEARCH, json=body)
        assert response.status_code == 200, response.text
        return set(refs(response.json()))

    assert await found({"q": "Poznan"}) == {"Plant/PL-05", "Supplier/S-1001"}
    assert await found({"q": "Poznan", "kinds": ["Plant"]}) == {"Plant/PL-05"}
    assert await found({"q": "Poznan", "traits": ["Located"]}) == {"Plant/PL-05", "Supplier/S-1001"}
    assert await found({"q": "Poznan", "lens": "supplier_risk"}) == {"Supplier/S-1001"}


async def test_a_narrowed_grant(http: httpx.AsyncClient, keys: Keys) -> None:
    header = Keys.header(keys.supplier)
    response = await http.post(SEARCH, json={"q": "Poznan"}, headers=header)
    assert refs(response.json()) == ["Supplier/S-1001"]
    assert (await http.post(SEARCH, json={"q": "bearing"}, headers=header)).json()["hits"] == []
    hidden = await http.post(SEARCH, json={"q": "x", "kinds": ["Part"]}, headers=header)
    assert_problem(hidden, 404, "kind-not-found")


async def test_masked_values(http: httpx.AsyncClient, keys: Keys) -> None:
    response = await http.post(
        SEARCH, json={"q": "Poznan", "kinds": ["Supplier"]}, headers=Keys.header(keys.viewer)
    )
    values = response.json()["hits"][0]["values"]
    assert values["contact_email"] == "***"
    assert values["vat_number"] == "***"
    admin = await http.post(SEARCH, json={"q": "Poznan", "kinds": ["Supplier"]})
    assert admin.json()["hits"][0]["values"]["contact_email"] != "***"


async def test_an_overlay_branch(http: httpx.AsyncClient, supply: Store) -> None:
    supply.create_branch("supply", "rename", created_by="usr_tester")
    supply.commit(
        change_request(branch="rename"),
        [UpsertRecord("Part", "P-10004", {"name": "Deep groove ball race 6204"})],
    )
    on_branch = (await http.post(SEARCH, json={"q": "bearing", "branch": "rename"})).json()
    assert "Part/P-10004" not in refs(on_branch)
    assert on_branch["branch"] == "rename"
    on_main = (await http.post(SEARCH, json={"q": "bearing"})).json()
    assert sorted(refs(on_main)) == BEARINGS


async def test_etag(http: httpx.AsyncClient) -> None:
    first = await http.post(SEARCH, json={"q": "bearing"})
    again = await http.post(
        SEARCH, json={"q": "bearing"}, headers={"If-None-Match": first.headers["ETag"]}
    )
    assert again.status_code == 304


@pytest.mark.parametrize(
    ("body", "status", "code", "paths"),
    [
        pytest.param({"q": 3, "limit": 0}, 422, "search-invalid", ["limit", "q"], id="types"),
        pytest.param({"q": "x", "mode": "fuzzy"}, 422, "search-invalid", ["mode"], id="mode"),
        pytest.param({"q": "x", "at": "main"}, 422, "search-invalid", ["at"], id="at"),
        pytest.param({"q": "x", "nope": 1}, 422, "search-invalid", ["nope"], id="member"),
        pytest.param({"q": "x", "lens": "nope"}, 422, "lens_unknown", ["lens"], id="lens"),
        pytest.param(
            {"mode": "semantic", "query_vector": [1.0]},
            422,
            "search-invalid",
            ["query_vector"],
            id="vector-length",
        ),
        pytest.param({"q": "x", "kinds": ["Nope"]}, 404, "kind-not-found", None, id="kind"),
        pytest.param({"q": "x", "traits": ["Nope"]}, 404, "trait-not-found", None, id="trait"),
    ],
)
async def test_bad_requests(
    http: httpx.AsyncClient,
    body: dict[str, object],
    status: int,
    code: str,
    paths: list[str] | None,
) -> None:
    problem = assert_problem(await http.post(SEARCH, json=body), status, code)
    if paths is not None:
        issues = problem["issues"]
        assert isinstance(issues, list)
        assert sorted({issue["path"] for issue in issues}) == paths


async def test_unknown_domain_and_body(http: httpx.AsyncClient) -> None:
    assert_problem(
        await http.post("/api/v1/domains/nope/search", json={"q": "x"}), 404, "domain-not-found"
    )
    assert_problem(await http.post(SEARCH, json=[1]), 422, "invalid-input")


NOTES = """
domain: {name: supply}
search:
  embedding: {model: test-4d, dimensions: 4}
kinds:
  Note:
    key: [code]
    title: heading
    attributes:
      code: {type: string}
      heading: {type: string}
"""


@pytest.fixture
def notes_store(store: Store) -> Store:
    store.commit(
        change_request(schema=load_schema(NOTES), create_domain=True),
        [
            UpsertRecord("Note", None, {"code": "N-1", "heading": "Bearing lubrication"}),
            UpsertRecord("Note", None, {"code": "N-2", "heading": "Seal wear"}),
        ],
    )
    return store


@pytest.fixture
def notes_http(notes_store: Store) -> httpx.AsyncClient:
    """A client of Keeper in auth mode none (a local administrator) over the notes Domain."""
    app = create_app(Settings(keeper={"auth": {"mode": "none"}}), store=notes_store)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://k.test")


async def test_vectors_semantic_and_hybrid(notes_http: httpx.AsyncClient) -> None:
    async with notes_http as http:
        vector = "/api/v1/domains/supply/kinds/Note/records/{key}/vector"
        for key, numbers in (("N-1", [1, 0, 0, 0]), ("N-2", [0, 1, 0, 0])):
            stored = await http.put(
                vector.format(key=key), json={"model": "test-4d", "vector": numbers}
            )
            assert stored.status_code == 200, stored.text
            assert stored.json()["dimensions"] == 4
        first = await http.post(SEARCH, json={"mode": "semantic", "query_vector": [0, 1, 0, 0]})
        assert refs(first.json()) == ["Note/N-2", "Note/N-1"]
        # a new vector changes the answer at the same Revision: the ETag follows the vectors
        await http.put(vector.format(key="N-1"), json={"model": "test-4d", "vector": [0, 1, 0, 1]})
        second = await http.post(
            SEARCH,
            json={"mode": "semantic", "query_vector": [0, 1, 0, 0]},
            headers={"If-None-Match": first.headers["ETag"]},
        )
        assert second.status_code == 200
        hybrid = await http.post(
            SEARCH, json={"mode": "hybrid", "q": "bearing", "query_vector": [0, 0, 0, 1]}
        )
        assert refs(hybrid.json())[0] == "Note/N-1"
        assert hybrid.json()["mode"] == "hybrid"
        wrong = await http.put(
            vector.format(key="N-1"), json={"model": "test-4d", "vector": [1, 2]}
        )
        assert_problem(wrong, 422, "search-invalid")
        missing = await http.put(
            vector.format(key="N-9"), json={"model": "test-4d", "vector": [1, 2, 3, 4]}
        )
        assert_problem(missing, 404, "record-not-found")
        short = await http.post(SEARCH, json={"mode": "semantic", "query_vector": [1, 2, 3]})
        assert_problem(short, 422, "search-invalid")


@pytest.fixture
def library_http(library: Store) -> httpx.AsyncClient:
    """An administrator's client of a Keeper over the library Domain (no search.embedding)."""
    app = create_app(Settings(keeper={"auth": {"mode": "none"}}), store=library)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://k.test")


async def test_semantic_needs_an_embedding(library_http: httpx.AsyncClient) -> None:
    async with library_http as http:
        search = "/api/v1/domains/library/search"
        for mode in ("semantic", "hybrid"):
            body = {"q": "x", "mode": mode, "query_vector": [1.0]}
            problem = assert_problem(
                await http.post(search, json=body), 422, "semantic_unavailable"
            )
            issues = problem["issues"]
            assert isinstance(issues, list)
            assert [issue["path"] for issue in issues] == ["mode"]
        path = "/api/v1/domains/library/kinds/Book/records/B-0001/vector"
        stored = await http.put(path, json={"model": "m", "vector": [1.0]})
        assert_problem(stored, 422, "semantic_unavailable")


async def test_storing_a_vector_needs_the_model_and_a_grant(
    http: httpx.AsyncClient, keys: Keys
) -> None:
    path = "/api/v1/domains/supply/kinds/Part/records/P-10004/vector"
    body = {"model": "m", "vector": [1.0]}
    problem = assert_problem(await http.put(path, json=body), 422, "search-invalid")
    issues = problem["issues"]
    assert isinstance(issues, list)
    assert sorted(issue["path"] for issue in issues) == ["model", "vector"]
    viewer = await http.put(path, json=body, headers=Keys.header(keys.viewer))
    assert_problem(viewer, 403, "forbidden")
