"""POST /query answers without Records say why: coverage.notes and coverage.empty.

Written from the supply example's question 'Find the parts whose names contain "bering".'
(examples/supply/schema.yaml; four Part names hold "bearing", examples/supply/data/Part.csv) and
on the library test Domain (tests/data/library: "The Winter Harbour" is B-0001's title).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

import lorebase_keeper.routes.reads.queries
from lorebase_core.changes import DeleteRecord
from lorebase_keeper import create_app
from lorebase_keeper.testing import Keys, assert_problem
from lorebase_platform.settings import Settings
from lorebase_store import Store
from lorebase_store.testing import commit_changes

pytestmark = pytest.mark.anyio

BERING = {"kind": "Part", "where": {"attr": "name", "op": "contains", "value": "bering"}}
RISK_FLAGS = [f"RF-S-{supplier}-0001" for supplier in (1001, 1005, 1012, 1019, 1023, 1027, 1029)]


async def query(
    http: httpx.AsyncClient, body: dict[str, Any], domain: str = "supply", **headers: str
) -> dict[str, Any]:
    response = await http.post(f"/api/v1/domains/{domain}/query", json=body, headers=headers)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


@pytest.fixture
async def library_http(http: httpx.AsyncClient, library: Store) -> httpx.AsyncClient:
    """The admin's client, with a grant on the library Domain too."""
    library.add_grant("usr_admin", domain="library", role="admin")
    return http


async def test_bering_names_bearing_and_how_many_parts_hold_it(http: httpx.AsyncClient) -> None:
    answer = await query(http, BERING)
    assert answer["records"] == []
    coverage = answer["coverage"]
    assert coverage["notes"] == [
        "no Part has name containing 'bering'; 'bearing' is in the name of 4 Records"
    ]
    [check] = coverage["empty"]["filters"]
    assert check["path"] == "where"
    assert check["filter"] == BERING["where"]
    assert check["records"] == 0
    assert check["closest"][0] == {"term": "bearing", "records": 4}
    assert coverage["empty"]["combination"] is False
    assert coverage["empty"]["skipped"] == 0
    # the closest term, run as the query, answers the four bearings
    fixed = {"kind": "Part", "where": {"attr": "name", "op": "contains", "value": "bearing"}}
    assert len((await query(http, fixed))["records"]) == 4


@pytest.mark.parametrize(
    ("op", "value", "closest", "note"),
    [
        pytest.param(
            "contains",
            "harbor",
            "harbour",
            "no Book has title containing 'harbor'; 'harbour' is in the title of 1 Record",
            id="contains",
        ),
        pytest.param(
            "eq",
            "the winter harbor",
            "The Winter Harbour",
            "no Book has title = 'the winter harbor'; 'The Winter Harbour' is the title of "
            "1 Record",
            id="eq-a-whole-stored-value",
        ),
    ],
)
async def test_harbor_names_harbour_on_the_library_domain(
    library_http: httpx.AsyncClient, op: str, value: str, closest: str, note: str
) -> None:
    body = {"kind": "Book", "where": {"attr": "title", "op": op, "value": value}}
    answer = await query(library_http, body, domain="library")
    [check] = answer["coverage"]["empty"]["filters"]
    assert check["closest"][0] == {"term": closest, "records": 1}
    assert answer["coverage"]["notes"][0].startswith(note)


async def test_each_filter_alone_is_counted_and_an_empty_one_named(
    http: httpx.AsyncClient,
) -> None:
    body = {
        "kind": "Part",
        "where": {
            "and": [
                {"attr": "category", "op": "eq", "value": "bearing"},
                {"attr": "name", "op": "starts_with", "value": "tapred"},
            ]
        },
    }
    empty = (await query(http, body))["coverage"]["empty"]
    assert [(check["path"], check["records"]) for check in empty["filters"]] == [
        ("where.and[0]", 4),
        ("where.and[1]", 0),
    ]
    assert empty["filters"][1]["closest"][0] == {"term": "tapered", "records": 1}
    assert empty["combination"] is False


@pytest.mark.parametrize(
    ("domain", "body", "counts"),
    [
        pytest.param(
            "supply",
            {
                "kind": "Part",
                "where": {
                    "and": [
                        {"attr": "name", "op": "contains", "value": "bearing"},
                        {"attr": "category", "op": "eq", "value": "seal"},
                    ]
                },
            },
            [4, 2],
            id="supply-bearing-seals",
        ),
        pytest.param(
            "library",
            {
                "kind": "Book",
                "where": {
                    "and": [
                        {"attr": "genre", "op": "eq", "value": "poetry"},
                        {"attr": "pages", "op": "gt", "value": 400},
                    ]
                },
            },
            None,
            id="library-long-poetry",
        ),
    ],
)
async def test_a_combination_that_matches_nothing_says_so(
    library_http: httpx.AsyncClient, domain: str, body: dict[str, Any], counts: list[int] | None
) -> None:
    answer = await query(library_http, body, domain=domain)
    assert answer["records"] == []
    empty = answer["coverage"]["empty"]
    assert empty["combination"] is True
    found = [check["records"] for check in empty["filters"]]
    assert all(found)
    if counts is not None:
        assert found == counts
    assert any(
        "it is their combination that matches nothing" in note
        for note in answer["coverage"]["notes"]
    )


async def test_a_relation_without_links_says_so(http: httpx.AsyncClient, supply: Store) -> None:
    commit_changes(
        supply, [DeleteRecord("RiskFlag", key) for key in RISK_FLAGS], message="Close every flag"
    )
    body = {
        "kind": "Supplier",
        "where": {"rel": "risk_flags", "where": {"attr": "severity", "op": "eq", "value": "high"}},
    }
    answer = await query(http, body)
    assert "no Link of Relation 'flags' exists at this Revision" in answer["coverage"]["notes"]
    filters = answer["coverage"]["empty"]["filters"]
    assert filters[-1] == {"path": "where", "filter": {"rel": "risk_flags"}, "records": 0}


async def test_a_relation_without_links_from_the_records_of_the_rest(
    http: httpx.AsyncClient,
) -> None:
    body = {
        "kind": "Supplier",
        "where": {
            "and": [
                {"attr": "tier", "op": "eq", "value": 3},
                {"rel": "risk_flags"},
            ]
        },
    }
    answer = await query(http, body)
    assert answer["records"] == []  # none of the nine tier-3 Suppliers has a risk flag
    assert answer["coverage"]["notes"] == [
        "each filter matches some Supplier Records on its own; "
        "it is their combination that matches nothing",
        "none of the 9 Supplier Records matching the other filters has a Link of risk_flags",
    ]


async def test_a_relation_without_links_on_the_library_domain(
    library_http: httpx.AsyncClient, library: Store
) -> None:
    loans = [f"L-{number:04d}" for number in range(1, 10)]
    commit_changes(
        library,
        [DeleteRecord("Loan", key) for key in loans],
        domain="library",
        message="The lending desk starts afresh",
    )
    body = {"kind": "Member", "where": {"rel": "borrowings"}}
    answer = await query(library_http, body, domain="library")
    assert answer["coverage"]["notes"][-1] == (
        "no Link of Relation 'borrowed_by' exists at this Revision"
    )
    assert answer["coverage"]["empty"]["filters"][0]["records"] == 0
    nothing = await query(library_http, {"kind": "Loan"}, domain="library")
    assert nothing["coverage"]["notes"] == ["no Loan Record exists at this Revision"]
    assert nothing["coverage"]["empty"] == {"filters": [], "combination": False, "skipped": 0}


async def test_the_supplier_viewer_gets_supplier_terms_only(
    http: httpx.AsyncClient, keys: Keys
) -> None:
    body = {
        "kind": "Supplier",
        "where": {"attr": "legal_name", "op": "contains", "value": "bering"},
    }
    answer = await query(http, body, **Keys.header(keys.supplier))
    text = repr(answer["coverage"])
    assert "bearing" not in text, "a Part name's word never reaches a Supplier-only caller"
    legal_names = " ".join(
        record["values"]["legal_name"].lower()
        for record in (await query(http, {"kind": "Supplier", "limit": 100}))["records"]
    )
    for check in answer["coverage"]["empty"]["filters"]:
        for item in check.get("closest", []):
            assert item["term"].lower() in legal_names


async def test_a_sensitive_attribute_never_gets_closest_values(http: httpx.AsyncClient) -> None:
    body = {
        "kind": "Supplier",
        "where": {"attr": "contact_email", "op": "contains", "value": "kavsen.pll"},
    }
    answer = await query(http, body)  # the admin may read contact_email
    [check] = answer["coverage"]["empty"]["filters"]
    assert "closest" not in check
    assert answer["coverage"]["notes"] == ["no Supplier has contact_email containing 'kavsen.pll'"]


async def test_answers_with_records_run_no_check(
    http: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refused(*_args: Any) -> None:
        raise AssertionError("an answer with Records explained itself")

    monkeypatch.setattr(lorebase_keeper.routes.reads.queries, "explain_empty", refused)
    found = {"kind": "Part", "where": {"attr": "name", "op": "contains", "value": "bearing"}}
    answer = await query(http, {**found, "limit": 2})
    assert "empty" not in answer["coverage"]
    # nor does a later page, nor an aggregate, nor a query without coverage
    cursor = answer["next_cursor"]
    await query(http, {**found, "limit": 2, "cursor": cursor})
    await query(http, {**BERING, "coverage": False})
    await query(http, {**BERING, "aggregate": {"group_by": "category"}})


async def test_the_same_empty_answer_is_the_same_bytes(http: httpx.AsyncClient) -> None:
    first = await http.post("/api/v1/domains/supply/query", json=BERING)
    second = await http.post("/api/v1/domains/supply/query", json=BERING)
    assert first.content == second.content
    again = await http.post(
        "/api/v1/domains/supply/query",
        json=BERING,
        headers={"If-None-Match": first.headers["ETag"]},
    )
    assert again.status_code == 304


@pytest.fixture
async def bounded_http(supply: Store, keys: Keys) -> AsyncIterator[httpx.AsyncClient]:
    settings = Settings(
        keeper={"auth": {"mode": "api_key", "authz": {"grants_cache_ttl_s": 0}}},
        read={"query": {"explain_empty_max_checks": 1}},
    )
    transport = httpx.ASGITransport(app=create_app(settings, store=supply))
    async with httpx.AsyncClient(
        transport=transport, base_url="http://keeper.test", headers=Keys.header(keys.admin)
    ) as client:
        yield client


async def test_checks_past_the_bound_are_skipped_and_said(bounded_http: httpx.AsyncClient) -> None:
    body = {
        "kind": "Part",
        "where": {
            "and": [
                {"attr": "category", "op": "eq", "value": "bearing"},
                {"attr": "name", "op": "contains", "value": "bering"},
                {"attr": "unit_cost", "op": "gt", "value": 1000},
            ]
        },
    }
    answer = await query(bounded_http, body)
    empty = answer["coverage"]["empty"]
    assert [check["path"] for check in empty["filters"]] == ["where.and[0]"]
    assert empty["skipped"] == 2
    assert empty["combination"] is False
    assert answer["coverage"]["notes"][-1] == (
        "2 more check(s) skipped past read.query.explain_empty_max_checks (1)"
    )


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(
            {"kind": "Part", "where": {"attr": "nam", "op": "contains", "value": "x"}},
            id="unknown-attribute",
        ),
        pytest.param(
            {"kind": "Part", "where": {"attr": "name", "op": "contains", "value": 3}},
            id="bad-value",
        ),
    ],
)
async def test_bad_queries_stay_422(http: httpx.AsyncClient, body: dict[str, Any]) -> None:
    response = await http.post("/api/v1/domains/supply/query", json=body)
    problem = assert_problem(response, 422, "query-invalid")
    assert problem["issues"]
