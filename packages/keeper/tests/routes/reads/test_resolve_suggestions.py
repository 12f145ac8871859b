"""POST /resolve's suggestions: each example question's suggested query, run with POST /query,
finds the example's answer (both backends, both Domains); numbers and counts through Keeper."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from lorebase_core.access import ReadScope
from lorebase_core.query import parse_query
from lorebase_keeper.testing import Keys, assert_problem
from lorebase_store import Store

pytestmark = pytest.mark.anyio

SINGLE_SUPPLIER = {
    "kind": "Part",
    "where": {"rel": "supplied_by", "count": {"op": "eq", "value": 1}},
    "select": ["name"],
}


@pytest.fixture
async def both(http: httpx.AsyncClient, keys: Keys, library: Store) -> httpx.AsyncClient:
    """The admin's client, granted the library Domain too."""
    library.add_grant("usr_admin", domain="library", role="admin")
    return http


async def suggestions(http: httpx.AsyncClient, domain: str, text: str) -> list[dict[str, Any]]:
    response = await http.post(f"/api/v1/domains/{domain}/resolve", json={"text": text})
    assert response.status_code == 200, response.text
    found: list[dict[str, Any]] = response.json()["suggestions"]
    return found


async def keys_of(http: httpx.AsyncClient, domain: str, query: dict[str, Any]) -> set[str]:
    response = await http.post(f"/api/v1/domains/{domain}/query", json=query)
    assert response.status_code == 200, response.text
    return {record["key"] for record in response.json()["records"]}


@pytest.mark.parametrize(
    ("domain", "question", "index", "expected"),
    [
        pytest.param(
            "supply",
            "Which parts have a single supplier?",
            0,
            {"P-10007", "P-10019", "P-10033"},
            id="single-supplier",
        ),
        pytest.param(
            "supply",
            "Which tier-1 suppliers at high risk (risk score of 70 or more) have open purchase"
            " orders?",
            0,
            {"S-1001", "S-1012"},
            id="high-risk-open-orders",
        ),
        pytest.param(
            "supply",
            'Find the parts whose names contain "bering".',
            0,
            {"P-10004", "P-10012", "P-10023", "P-10036"},
            id="bering-is-the-bearing-category",
        ),
        pytest.param(
            "supply",
            "Which parts are supplied by suppliers with an open high or critical risk flag?",
            0,
            {"P-10003", "P-10006", "P-10018", "P-10026", "P-10028", "P-10039"},
            id="high-or-critical-is-one-of-two",
        ),
        pytest.param(
            "library",
            "Which books written by Swedish authors are on loan?",
            0,
            {"B-0004", "B-0006", "B-0010"},
            id="swedish-on-loan",
        ),
        pytest.param(
            "library",
            "Which members borrowed novels published before 2000?",
            0,
            {"M-001", "M-003", "M-004"},
            id="members-old-novels",
        ),
        pytest.param(
            "library",
            "Which books of more than 400 pages does the library hold?",
            0,
            {"B-0001", "B-0003", "B-0007", "B-0011"},
            id="long-books",
        ),
    ],
)
async def test_the_suggestion_finds_the_answer(
    both: httpx.AsyncClient, domain: str, question: str, index: int, expected: set[str]
) -> None:
    found = await suggestions(both, domain, question)
    assert found[index]["uses"]
    assert found[index]["why"]
    assert await keys_of(both, domain, found[index]["query"]) == expected


async def test_relations_named_and_everyday_words_compose(both: httpx.AsyncClient) -> None:
    text = "Which books written by Swedish authors are on loan?"
    (first, second, *_) = await suggestions(both, "library", text)
    assert first["query"] == {
        "kind": "Book",
        "where": {
            "and": [
                {"rel": "written_by", "where": {"attr": "country", "op": "eq", "value": "SE"}},
                {"rel": "loans", "where": {"attr": "status", "op": "eq", "value": "out"}},
            ]
        },
        "select": ["title"],
    }
    assert "without 'on loan'" in second["why"]


async def test_two_values_of_one_attribute_are_either_not_both(both: httpx.AsyncClient) -> None:
    # One value cannot equal two: "Swedish or Norwegian" is an `in`, never an `and` of both.
    (first, *_) = await suggestions(both, "library", "Which authors are Swedish or Norwegian?")
    assert first["query"]["where"] == {"attr": "country", "op": "in", "value": ["SE", "NO"]}
    (first, *_) = await suggestions(both, "supply", "Which suppliers are in Poland or Germany?")
    assert first["query"]["where"] == {"attr": "country", "op": "in", "value": ["PL", "DE"]}
    assert await keys_of(both, "supply", first["query"]) == await keys_of(
        both,
        "supply",
        {"kind": "Supplier", "where": {"attr": "country", "op": "eq", "value": "PL"}},
    ) | await keys_of(
        both,
        "supply",
        {"kind": "Supplier", "where": {"attr": "country", "op": "eq", "value": "DE"}},
    )


async def test_a_single_supplier_is_the_documented_query(http: httpx.AsyncClient) -> None:
    (first, *_) = await suggestions(http, "supply", "Which parts have a single supplier?")
    assert first["query"] == SINGLE_SUPPLIER
    assert first["uses"] == ["parts", "a single supplier"]
    assert await keys_of(http, "supply", first["query"]) == {"P-10007", "P-10019", "P-10033"}


async def test_the_example_question_has_its_numbers(http: httpx.AsyncClient) -> None:
    text = (
        "Which tier-1 suppliers at high risk (risk score of 70 or more) have open purchase orders?"
    )
    response = await http.post("/api/v1/domains/supply/resolve", json={"text": text})
    answer = response.json()
    comparisons = {
        c["attribute"]: c["predicate"] for c in answer["candidates"] if c["target"] == "comparison"
    }
    assert comparisons == {
        "tier": {"attr": "tier", "op": "eq", "value": 1},
        "risk_score": {"attr": "risk_score", "op": "gte", "value": 70},
    }
    assert not {"tier-1", "70", "or", "more"} & set(answer["unmatched"])
    first = answer["suggestions"][0]["query"]
    assert first["kind"] == "Supplier"
    assert {"attr": "tier", "op": "eq", "value": 1} in first["where"]["and"]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        pytest.param(
            "What depends on supplier S-1007, and what is affected if it stops delivering?",
            {"S-1007"},
            id="depends-names-the-record",
        ),
        pytest.param(
            "What changed in the history of contract C-3013?", {"C-3013"}, id="history-record"
        ),
    ],
)
async def test_questions_a_query_does_not_answer_name_the_record(
    http: httpx.AsyncClient, question: str, expected: set[str]
) -> None:
    """What depends on a Record (a traverse) and its history (GET .../history) are other reads:
    the suggestion finds the Record the question names, for the read that answers it."""
    (first, *_) = await suggestions(http, "supply", question)
    assert await keys_of(http, "supply", first["query"]) == expected


async def test_every_suggestion_parses_as_a_query(http: httpx.AsyncClient, supply: Store) -> None:
    with supply.reader("supply") as reader:
        schema = reader.schema
    for text in [
        "Which plants stock parts that Polish suppliers supply?",
        "suppliers without open orders",
        "parts with a single supplier and a unit cost under 5",
    ]:
        for suggestion in await suggestions(http, "supply", text):
            parse_query(
                suggestion["query"],
                schema,
                ReadScope.everything(),
                default_limit=50,
                max_limit=500,
                max_predicates=64,
                max_hops=4,
                max_string_length=1000,
                max_in_values=1000,
                max_metrics=16,
            )


async def test_suppliers_without_open_orders(http: httpx.AsyncClient) -> None:
    (first, *_) = await suggestions(http, "supply", "suppliers without open orders")
    assert first["query"]["where"] == {
        "rel": "supplier_orders",
        "where": {"attr": "status", "op": "eq", "value": "open"},
        "count": {"op": "eq", "value": 0},
    }


async def test_a_narrow_reader_gets_no_suggestion_across_kinds_it_cannot_read(
    http: httpx.AsyncClient, keys: Keys
) -> None:
    response = await http.post(
        "/api/v1/domains/supply/resolve",
        json={"text": "Which parts have a single supplier?"},
        headers=Keys.header(keys.supplier),
    )
    answer = response.json()
    kinds = {c["kind"] for c in answer["candidates"]}
    assert kinds <= {"Supplier"}
    for suggestion in answer["suggestions"]:
        assert suggestion["query"]["kind"] == "Supplier"
        assert "rel" not in str(suggestion["query"])


async def test_no_suggestions_when_the_setting_is_zero(store: Store, keys: Keys) -> None:
    from lorebase_keeper.app import create_app
    from lorebase_platform.settings import Settings

    settings = Settings(
        keeper={"auth": {"mode": "api_key", "authz": {"grants_cache_ttl_s": 0}}},
        read={"resolve": {"max_suggestions": 0}},
    )
    transport = httpx.ASGITransport(app=create_app(settings, store=store))
    async with httpx.AsyncClient(
        transport=transport, base_url="http://keeper.test", headers=Keys.header(keys.admin)
    ) as client:
        assert await suggestions(client, "supply", "Which parts have a single supplier?") == []


async def test_a_bad_request_writes_nothing(http: httpx.AsyncClient, supply: Store) -> None:
    response = await http.post("/api/v1/domains/supply/resolve", json={"text": 70, "suggest": True})
    assert_problem(response, 422, "invalid-input")
    assert {issue["path"] for issue in response.json()["issues"]} == {"text", "suggest"}
    with supply.reader("supply") as reader:
        assert reader.resolve_misses() == []


async def test_the_same_question_answers_the_same_bytes(http: httpx.AsyncClient) -> None:
    body = {"text": "Which tier-1 suppliers have a single supplier contract before 2027?"}
    first = await http.post("/api/v1/domains/supply/resolve", json=body)
    again = await http.post("/api/v1/domains/supply/resolve", json=body)
    assert first.content == again.content
    assert first.headers["ETag"] == again.headers["ETag"]
