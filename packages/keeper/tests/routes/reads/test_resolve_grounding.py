"""POST /resolve grounds Relations and everyday words for stored codes, with less noise and a
`why` on every candidate: the questions of the supply example and of the library Domain (both
backends), scoped by the caller's grants."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from lorebase_keeper.app import create_app
from lorebase_keeper.testing import Keys, assert_problem
from lorebase_platform.settings import Settings
from lorebase_store import Store

pytestmark = pytest.mark.anyio

SUPPLY_QUESTION = "Which plants stock parts that Polish suppliers supply?"
TIER_QUESTION = (
    "Which tier-1 suppliers at high risk (risk score of 70 or more) have open purchase orders?"
)
LIBRARY_QUESTION = "Which books written by Swedish authors are on loan?"


async def resolve(
    http: httpx.AsyncClient, text: str, domain: str = "supply", **kwargs: Any
) -> dict[str, Any]:
    response = await http.post(f"/api/v1/domains/{domain}/resolve", json={"text": text}, **kwargs)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def relations(answer: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {
        (candidate["kind"], candidate["relation"]): candidate
        for candidate in answer["candidates"]
        if candidate["target"] == "relation"
    }


def values(answer: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {
        (candidate["kind"], candidate["attribute"]): candidate
        for candidate in answer["candidates"]
        if candidate["target"] == "value"
    }


@pytest.fixture
async def library_http(
    keeper: FastAPI, keys: Keys, library: Store
) -> AsyncIterator[httpx.AsyncClient]:
    """An admin's client of a Keeper whose store also holds the library Domain."""
    library.add_grant("usr_admin", domain="library", role="admin")
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=keeper),
        base_url="http://keeper.test",
        headers=Keys.header(keys.admin),
    ) as client:
        yield client


async def test_the_supply_question_grounds_its_relations(http: httpx.AsyncClient) -> None:
    answer = await resolve(http, SUPPLY_QUESTION)
    found = relations(answer)
    assert set(found) == {
        ("Part", "stocked_at"),
        ("Plant", "stocks"),
        ("Part", "supplied_by"),
        ("Supplier", "supplies"),
    }
    assert found[("Plant", "stocks")] == {
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
    assert all(candidate["why"] for candidate in answer["candidates"])
    # the predicate skeleton is a valid where of POST /query
    query = {"kind": "Plant", "where": found[("Plant", "stocks")]["predicate"], "limit": 100}
    response = await http.post("/api/v1/domains/supply/query", json=query)
    assert response.status_code == 200, response.text
    assert response.json()["records"]


async def test_the_same_request_answers_the_same_bytes(http: httpx.AsyncClient) -> None:
    body = {"text": SUPPLY_QUESTION, "record_misses": False}
    first = await http.post("/api/v1/domains/supply/resolve", json=body)
    second = await http.post("/api/v1/domains/supply/resolve", json=body)
    assert first.content == second.content
    assert first.headers["ETag"] == second.headers["ETag"]
    again = await http.post(
        "/api/v1/domains/supply/resolve",
        json=body,
        headers={"If-None-Match": first.headers["ETag"]},
    )
    assert again.status_code == 304


async def test_a_grant_narrowed_to_supplier_gets_no_relation(
    http: httpx.AsyncClient, keys: Keys
) -> None:
    answer = await resolve(http, SUPPLY_QUESTION, headers=Keys.header(keys.supplier))
    assert relations(answer) == {}
    assert {candidate["kind"] for candidate in answer["candidates"]} == {"Supplier"}
    assert all("Part" not in candidate["why"] for candidate in answer["candidates"])


async def test_at_is_not_a_country_any_more(http: httpx.AsyncClient) -> None:
    answer = await resolve(http, TIER_QUESTION)
    assert ("Supplier", "country") not in values(answer)
    assert "at" in answer["unmatched"]
    assert values(answer)[("Supplier", "risk_band")]["values"] == ["high"]


async def test_the_library_question_grounds_written_by(library_http: httpx.AsyncClient) -> None:
    answer = await resolve(library_http, LIBRARY_QUESTION, domain="library")
    found = relations(answer)
    assert set(found) == {("Book", "written_by"), ("Author", "wrote")}
    assert found[("Author", "wrote")]["matched"] == "written by"
    assert values(answer)[("Loan", "status")]["predicate"] == {
        "attr": "status",
        "op": "eq",
        "value": "out",
    }
    swedish = values(answer)[("Author", "country")]
    assert swedish["predicate"] == {"attr": "country", "op": "eq", "value": "SE"}
    assert swedish["records"] == 3
    assert swedish["why"] == "an ISO 3166-1 country code: 'Swedish' is the demonym of Sweden (SE)"
    assert answer["unmatched"] == ["Which", "are"]
    # the grounded predicates answer the question: Swedish authors' books that are out
    books = {
        "kind": "Book",
        "where": {
            "and": [
                {"rel": "written_by", "where": swedish["predicate"]},
                {"rel": "loans", "where": values(answer)[("Loan", "status")]["predicate"]},
            ]
        },
    }
    response = await library_http.post("/api/v1/domains/library/query", json=books)
    assert response.status_code == 200, response.text
    assert sorted(r["key"] for r in response.json()["records"]) == ["B-0004", "B-0006", "B-0010"]


async def test_polish_suppliers_are_pl(http: httpx.AsyncClient) -> None:
    answer = await resolve(http, SUPPLY_QUESTION)
    polish = values(answer)[("Supplier", "country")]
    assert polish["predicate"] == {"attr": "country", "op": "eq", "value": "PL"}
    assert polish["why"] == "an ISO 3166-1 country code: 'Polish' is the demonym of Poland (PL)"
    query = {"kind": "Supplier", "where": polish["predicate"], "limit": 100}
    records = (await http.post("/api/v1/domains/supply/query", json=query)).json()["records"]
    assert len(records) == polish["records"] > 0
    assert answer["unmatched"] == ["Which", "that"]


async def test_currency_words_of_the_library(library_http: httpx.AsyncClient) -> None:
    answer = await resolve(library_http, "books priced in Swedish kronor", domain="library")
    kronor = values(answer)[("Book", "currency")]
    assert (kronor["values"], kronor["matched"]) == (["SEK"], "Swedish kronor")
    assert kronor["why"].startswith("an ISO 4217 currency code: 'Swedish kronor' is a name of")


async def test_the_schema_shows_relation_aliases_and_vocabularies(
    library_http: httpx.AsyncClient,
) -> None:
    response = await library_http.get("/api/v1/domains/library/schema")
    assert response.status_code == 200, response.text
    written_by = next(r for r in response.json()["relations"] if r["name"] == "written_by")
    assert written_by["aliases"] == ["author of", "authored by"]
    author = next(k for k in response.json()["kinds"] if k["name"] == "Author")
    country = next(a for a in author["attributes"] if a["name"] == "country")
    assert country["vocabulary"] == "iso3166"


async def test_max_candidates_per_phrase_is_a_setting(supply: Store, keys: Keys) -> None:
    settings = Settings(
        keeper={"auth": {"mode": "api_key", "authz": {"grants_cache_ttl_s": 0}}},
        read={"resolve": {"max_candidates_per_phrase": 1}},
    )
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=create_app(settings, store=supply)),
        base_url="http://keeper.test",
        headers=Keys.header(keys.admin),
    ) as client:
        answer = await resolve(client, "plants that stock parts")
    # "stock" names stocked_at from both ends; one of them is kept, the best in order
    assert list(relations(answer)) == [("Part", "stocked_at")]


async def test_a_bad_resolve_request_is_refused_whole(http: httpx.AsyncClient) -> None:
    response = await http.post(
        "/api/v1/domains/supply/resolve",
        json={"text": "  ", "max_candidates_per_phrase": 1, "vocabulary": "iso3166"},
    )
    issues = assert_problem(response, 422, "invalid-input")["issues"]
    assert isinstance(issues, list)
    assert {issue["path"] for issue in issues} == {
        "text",
        "max_candidates_per_phrase",
        "vocabulary",
    }
