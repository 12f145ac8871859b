"""POST /search that forgives, over HTTP: the reading of q, keys, attr:value, notes, grants."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from lorebase_keeper.app import create_app
from lorebase_keeper.testing import Keys, assert_problem
from lorebase_platform.settings import Settings
from lorebase_store import Store

pytestmark = pytest.mark.anyio

SEARCH = "/api/v1/domains/supply/search"


def refs(answer: dict[str, object]) -> list[str]:
    hits = answer["hits"]
    assert isinstance(hits, list)
    return [hit["ref"] for hit in hits]


@pytest.fixture
async def library_http(library: Store) -> AsyncIterator[httpx.AsyncClient]:
    """A local administrator's client of Keeper over the library Domain."""
    app = create_app(Settings(keeper={"auth": {"mode": "none"}}), store=library)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://k.test") as client:
        yield client


async def test_the_questions_of_the_example(http: httpx.AsyncClient) -> None:
    supplier = (await http.post(SEARCH, json={"q": "supplier S-1007"})).json()
    assert refs(supplier)[0] == "Supplier/S-1007"
    assert supplier["kinds"] == ["Supplier"]
    assert supplier["interpreted"] == {
        "kinds": ["Supplier"],
        "terms": ["s-1007"],
        "attributes": [],
    }
    assert supplier["hits"][0]["matched_terms"] == ["s-1007"]
    contract = (await http.post(SEARCH, json={"q": "contract C-3013"})).json()
    assert refs(contract) == ["Contract/C-3013"]
    assert contract["corrected"] == []
    bering = (await http.post(SEARCH, json={"q": "name:bering"})).json()
    assert sorted(refs(bering)) == [
        "Part/P-10004",
        "Part/P-10012",
        "Part/P-10023",
        "Part/P-10036",
    ]
    assert bering["corrected"] == [{"from": "bering", "to": "bearing"}]
    assert bering["interpreted"]["attributes"] == [{"attribute": "name", "term": "bearing"}]


async def test_the_library(library_http: httpx.AsyncClient) -> None:
    path = "/api/v1/domains/library/search"
    books = (await library_http.post(path, json={"q": "book Orchard"})).json()
    assert refs(books) == ["Book/B-0004"]
    assert books["interpreted"]["kinds"] == ["Book"]
    key = (await library_http.post(path, json={"q": "loan L-0004"})).json()
    assert refs(key) == ["Loan/L-0004"]
    refused = await library_http.post(path, json={"q": "pages:412"})
    problem = assert_problem(refused, 422, "search-invalid")
    assert problem["issues"][0]["path"] == "q"
    assert problem["issues"][0]["code"] == "attribute-not-searchable"
    assert "POST /query" in problem["issues"][0]["message"]
    empty = (await library_http.post(path, json={"q": "member zzqxv"})).json()
    assert empty["hits"] == []
    assert empty["notes"][0] == "'zzqxv' matched nothing in Member"
    assert empty["notes"][1].startswith('nothing found: POST /resolve {"text": "member zzqxv"}')


async def test_an_attribute_that_is_not_text(http: httpx.AsyncClient) -> None:
    response = await http.post(SEARCH, json={"q": "tier:1 bearing"})
    problem = assert_problem(response, 422, "search-invalid")
    issues = problem["issues"]
    assert [(issue["path"], issue["code"]) for issue in issues] == [
        ("q", "attribute-not-searchable")
    ]
    assert (
        '{"kind": "Supplier", "where": {"attr": "tier", "op": "eq", "value": 1}}'
        in (issues[0]["message"])
    )


async def test_an_empty_answer_says_what_to_try(http: httpx.AsyncClient) -> None:
    answer = (await http.post(SEARCH, json={"q": "zzqxv", "kinds": ["Part"]})).json()
    assert answer["hits"] == []
    assert answer["notes"] == [
        "'zzqxv' matched nothing in Part",
        'nothing found: POST /resolve {"text": "zzqxv"} finds the Kinds, Attributes and stored '
        'values these words name; POST /query {"kind": "Part", "where": {"attr": "name", "op": '
        '"contains", "value": "zzqxv"}} filters Part by an Attribute',
    ]


async def test_grants_and_masks_hold(http: httpx.AsyncClient, keys: Keys) -> None:
    supplier = Keys.header(keys.supplier)
    # "part" names a Kind this caller cannot read: it stays text, and nothing names Part
    answer = (await http.post(SEARCH, json={"q": "part Poznan"}, headers=supplier)).json()
    assert refs(answer) == ["Supplier/S-1001"]
    assert answer["interpreted"]["kinds"] is None
    assert "Part" not in str({k: v for k, v in answer.items() if k != "q"})
    empty = (await http.post(SEARCH, json={"q": "part zzqxv"}, headers=supplier)).json()
    assert "Part" not in str(empty["notes"]).replace("'part'", "")
    # a sensitive Attribute is never searchable, whatever the clearances
    refused = await http.post(SEARCH, json={"q": "contact_email:example supplier"})
    problem = assert_problem(refused, 422, "search-invalid")
    assert problem["issues"][0]["code"] == "attribute-not-searchable"
    viewer = await http.post(
        SEARCH, json={"q": "supplier S-1001"}, headers=Keys.header(keys.viewer)
    )
    assert viewer.json()["hits"][0]["values"]["contact_email"] == "***"


async def test_same_request_same_bytes_and_304(http: httpx.AsyncClient) -> None:
    body = {"q": "roller bearing steel supplier"}
    first = await http.post(SEARCH, json=body)
    second = await http.post(SEARCH, json=body)
    assert first.content == second.content
    again = await http.post(SEARCH, json=body, headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304


async def test_context_packs_seeded_by_search_read_the_text_alike(http: httpx.AsyncClient) -> None:
    context = "/api/v1/domains/supply/context"
    response = await http.post(context, json={"search": "supplier S-1007", "depth": 0})
    assert response.status_code == 200, response.text
    assert [seed["ref"] for seed in response.json()["seeds"]] == ["Supplier/S-1007"]
    refused = await http.post(context, json={"search": "tier:1", "depth": 0})
    problem = assert_problem(refused, 422, "search-invalid")
    assert problem["issues"][0]["code"] == "attribute-not-searchable"
