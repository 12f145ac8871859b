"""POST /query, /traverse and /neighborhood through Keeper: answers, coverage, paging, errors."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from lorebase_core.changes import UpsertRecord
from lorebase_keeper.testing import Keys, assert_problem
from lorebase_store import Store
from lorebase_store.testing import commit_changes

pytestmark = pytest.mark.anyio

TIER1_HIGH_RISK_OPEN_ORDERS = {
    "kind": "Supplier",
    "where": {
        "and": [
            {"attr": "tier", "op": "eq", "value": 1},
            {"attr": "risk_band", "op": "eq", "value": "high"},
            {"rel": "supplier_orders", "where": {"attr": "status", "op": "eq", "value": "open"}},
        ]
    },
    "select": ["legal_name"],
}


async def post(http: httpx.AsyncClient, route: str, body: Any, **kwargs: Any) -> httpx.Response:
    return await http.post(f"/api/v1/domains/supply/{route}", json=body, **kwargs)


def keys_of(answer: dict[str, Any]) -> list[str]:
    return [record["key"] for record in answer["records"]]


async def test_a_multi_hop_filter_answers_the_example_question(http: httpx.AsyncClient) -> None:
    response = await post(http, "query", TIER1_HIGH_RISK_OPEN_ORDERS)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert keys_of(answer) == ["S-1001", "S-1012"]
    assert answer["records"][0]["values"] == {"legal_name": "Kavsen Alloys Sp. z o.o."}
    assert answer["revision"] == response.headers["Lorebase-Revision"]
    assert response.headers["ETag"].startswith(f'"{answer["revision"]}.')


async def test_the_coverage_block_counts_from_the_statistics(http: httpx.AsyncClient) -> None:
    answer = (await post(http, "query", TIER1_HIGH_RISK_OPEN_ORDERS)).json()
    coverage = answer["coverage"]
    assert coverage["kinds"] == [
        {"kind": "Supplier", "records": 30, "as_of": answer["revision"], "approximate": False}
    ]
    used = {(entry["kind"], entry["attribute"]): entry for entry in coverage["attributes"]}
    assert used[("Supplier", "tier")]["used_in"] == ["where"]
    assert used[("PurchaseOrder", "status")]["used_in"] == ["where"]
    assert used[("Supplier", "legal_name")]["used_in"] == ["select"]
    assert all(entry["missing"] == 0.0 for entry in coverage["attributes"])
    assert coverage["notes"] == []
    assert coverage["sources"] == []


async def test_coverage_notes_what_a_filter_excludes(
    http: httpx.AsyncClient, supply: Store
) -> None:
    # a Part without a category: 1 of 41 Parts, a filter on category excludes it
    commit_changes(
        supply,
        [UpsertRecord("Part", None, {"part_number": "P-10041", "name": "Spare", "unit": "piece"})],
    )
    query = {"kind": "Part", "where": {"attr": "category", "op": "eq", "value": "bearing"}}
    coverage = (await post(http, "query", query)).json()["coverage"]
    entry = next(item for item in coverage["attributes"] if item["attribute"] == "category")
    assert entry["missing_records"] == 1
    assert entry["missing"] == round(1 / 41, 4)
    assert coverage["notes"] == [
        "category missing on 2% of Part: a filter on category excludes them"
    ]


async def test_coverage_false_leaves_the_block_out(http: httpx.AsyncClient) -> None:
    answer = (await post(http, "query", {"kind": "Part", "coverage": False})).json()
    assert "coverage" not in answer


async def test_coverage_is_omitted_off_the_default_branch_head(http: httpx.AsyncClient) -> None:
    first = (await http.get("/api/v1/domains/supply/kinds/Supplier/records/S-1001/history")).json()
    oldest = first["changes"][-1]["revision"]
    answer = (await post(http, "query", {"kind": "Part", "at": oldest})).json()
    assert answer["revision"] == oldest
    assert "default branch" in answer["coverage"]["omitted"]
    assert answer["coverage"]["kinds"] == []


async def test_masked_attributes_are_never_described(http: httpx.AsyncClient, keys: Keys) -> None:
    query = {"kind": "Supplier", "select": ["legal_name", "vat_number"]}
    answer = (await post(http, "query", query, headers=Keys.header(keys.viewer))).json()
    assert {entry["attribute"] for entry in answer["coverage"]["attributes"]} == {"legal_name"}
    assert answer["records"][0]["values"]["vat_number"] == "***"


async def test_a_filter_on_a_masked_attribute_is_forbidden(
    http: httpx.AsyncClient, keys: Keys
) -> None:
    query = {
        "kind": "Supplier",
        "where": {"attr": "vat_number", "op": "starts_with", "value": "PL"},
    }
    response = await post(http, "query", query, headers=Keys.header(keys.viewer))
    assert_problem(response, 403, "attribute-forbidden")


async def test_an_invisible_kind_answers_like_an_unknown_one(
    http: httpx.AsyncClient, keys: Keys
) -> None:
    narrowed = Keys.header(keys.supplier)
    invisible = await post(http, "query", {"kind": "Part"}, headers=narrowed)
    unknown = await post(http, "query", {"kind": "Nope"}, headers=narrowed)
    assert_problem(invisible, 404, "kind-not-found")
    assert_problem(unknown, 404, "kind-not-found")
    across = {"kind": "Supplier", "where": {"rel": "supplies"}}
    assert_problem(await post(http, "query", across, headers=narrowed), 404, "relation-not-found")


async def test_an_aggregate_groups_and_counts(http: httpx.AsyncClient) -> None:
    query = {
        "kind": "PurchaseOrder",
        "aggregate": {"group_by": "status", "metrics": {"n": {"count": "*"}}},
    }
    answer = (await post(http, "query", query)).json()
    assert [(group["key"], group["count"]) for group in answer["groups"]] == [
        ("cancelled", 3),
        ("open", 15),
        ("received", 32),
    ]
    assert all(group["n"] == group["count"] for group in answer["groups"])


async def test_pages_stay_at_the_revision_of_the_first_page(
    http: httpx.AsyncClient, supply: Store
) -> None:
    query: dict[str, Any] = {"kind": "Supplier", "select": ["risk_score"], "limit": 7}
    first = (await post(http, "query", query)).json()
    # the branch moves on between two pages: the next pages still read the first page's Revision
    commit_changes(
        supply, [UpsertRecord("Supplier", "S-1030", {"risk_score": "5"})], message="moved on"
    )
    seen = keys_of(first)
    cursor = first["next_cursor"]
    while cursor is not None:
        page = (await post(http, "query", {**query, "cursor": cursor})).json()
        assert page["revision"] == first["revision"]
        seen += keys_of(page)
        cursor = page["next_cursor"]
    assert seen == [f"S-{1001 + index}" for index in range(30)]
    latest = (
        await post(
            http,
            "query",
            {"kind": "Supplier", "where": {"attr": "supplier_code", "op": "eq", "value": "S-1030"}},
        )
    ).json()
    assert latest["revision"] != first["revision"]
    assert latest["records"][0]["values"]["risk_score"] == "5"


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        pytest.param({"kind": "Supplier", "cursor": "garbage"}, 400, "bad-cursor", id="cursor"),
        pytest.param({"kind": "Supplier", "limit": 0}, 422, "query-invalid", id="limit-0"),
        pytest.param({"kind": "Supplier", "limit": 100000}, 422, "query-invalid", id="limit-max"),
        pytest.param(
            {"kind": "Supplier", "where": {"attr": "nope", "op": "eq", "value": 1}},
            422,
            "query-invalid",
            id="unknown-attribute",
        ),
        pytest.param(
            {"kind": "Supplier", "where": {"attr": "tier", "op": "like"}},
            422,
            "query-invalid",
            id="bad-operator",
        ),
        pytest.param({"kind": "Supplier", "branch": 3}, 422, "invalid-input", id="branch-type"),
        pytest.param({"kind": "Supplier", "at": "ffffffff"}, 404, "revision-not-found", id="at"),
        pytest.param({"kind": "Supplier", "branch": "nope"}, 404, "branch-not-found", id="branch"),
        pytest.param({"trait": "Nope"}, 404, "trait-not-found", id="trait"),
        pytest.param([], 422, "invalid-input", id="not-an-object"),
    ],
)
async def test_bad_queries_are_precise_problems(
    http: httpx.AsyncClient, body: Any, status: int, code: str
) -> None:
    assert_problem(await post(http, "query", body), status, code)


def issues_of(response: httpx.Response) -> set[tuple[str, str]]:
    document = assert_problem(response, 422, "query-invalid")
    issues = document["issues"]
    assert isinstance(issues, list)
    return {(issue["path"], issue["code"]) for issue in issues}


@pytest.mark.parametrize(
    ("body", "path"),
    [
        pytest.param({"kind": "Supplier", "where": {"attr": "legal_name", "op": "contains", "value": "a" * 50_000}}, "where.value", id="contains"),
        pytest.param(
            {"kind": "Part", "where": {"and": [{"rel": "supplied_by", "where": {"attr": "legal_name", "op": "starts_with", "value": "a" * 50_000}}]}},
            "where.and[0].where.value",
            id="relation",
        ),
        pytest.param({"kind": "Supplier", "where": {"attr": "city", "op": "in", "value": ["Poznan", "a" * 50_000]}}, "where.value[1]", id="in-item"),
    ],
)  # fmt: skip
async def test_long_compared_strings_are_422_not_500(
    http: httpx.AsyncClient, body: dict[str, Any], path: str
) -> None:
    # SQLite refused the LIKE pattern of the first two ("LIKE or GLOB pattern too complex")
    assert issues_of(await post(http, "query", body)) == {(path, "too-long")}


async def test_an_in_list_past_the_bound_is_422(http: httpx.AsyncClient) -> None:
    # 100,000 values (0.9 MB) took 40 s to refuse value by value; now one issue at once
    def supplier_codes(codes: list[str]) -> dict[str, Any]:
        return {"kind": "Supplier", "where": {"attr": "supplier_code", "op": "in", "value": codes}}

    codes = [f"S-{index}" for index in range(100_000)]
    refused = await post(http, "query", supplier_codes(codes))
    assert issues_of(refused) == {("where.value", "too-many-values")}
    answer = (await post(http, "query", supplier_codes([*codes[:999], "S-1001"]))).json()
    assert keys_of(answer) == ["S-1001"]


async def test_a_wide_where_answers_a_bounded_problem(http: httpx.AsyncClient) -> None:
    wide = {"or": [{"attr": "nope", "op": "eq", "value": 1}] * 20_000}
    response = await post(http, "query", {"kind": "Supplier", "where": wide})
    issues = issues_of(response)
    assert ("where", "too-many-predicates") in issues
    assert len(response.json()["issues"]) <= 64 + 1  # read.query.max_predicates, then stop


async def test_deeply_nested_bodies_are_refused_cheaply(http: httpx.AsyncClient) -> None:
    leaf = '{"attr": "tier", "op": "eq", "value": 1}'
    for depth, expected in ((900, 422), (110_000, 400)):  # 110,000 nots: 0.9 MB
        content = '{"kind": "Supplier", "where": ' + '{"not": ' * depth + leaf + "}" * (depth + 1)
        response = await http.post(
            "/api/v1/domains/supply/query",
            content=content.encode(),
            headers={"Content-Type": "application/json"},
        )
        if expected == 422:
            assert {code for _path, code in issues_of(response)} == {"too-deep"}
        else:  # deeper than JSON decoding goes: a malformed body, never a 500
            problem = assert_problem(response, 400, "malformed-json")
            assert "nested too deeply" in str(problem["detail"])


async def test_too_many_metrics_are_422_not_500(http: httpx.AsyncClient) -> None:
    # SQLite answered "too many columns in result set" for 5,000 of them
    metrics = {f"m{index}": {"sum": "risk_score"} for index in range(5000)}
    body = {"kind": "Supplier", "aggregate": {"metrics": metrics}}
    assert issues_of(await post(http, "query", body)) == {("aggregate.metrics", "too-many-values")}


async def test_a_cursor_of_another_query_is_refused(http: httpx.AsyncClient) -> None:
    first = (await post(http, "query", {"kind": "Supplier", "limit": 5})).json()
    other = {"kind": "Part", "limit": 5, "cursor": first["next_cursor"]}
    assert_problem(await post(http, "query", other), 400, "bad-cursor")


async def test_malformed_json_is_a_400(http: httpx.AsyncClient) -> None:
    response = await http.post(
        "/api/v1/domains/supply/query",
        content=b'{"kind": ',
        headers={"Content-Type": "application/json"},
    )
    assert_problem(response, 400, "malformed-json")


async def test_the_same_query_returns_the_same_bytes_and_a_304(http: httpx.AsyncClient) -> None:
    first = await post(http, "query", TIER1_HIGH_RISK_OPEN_ORDERS)
    second = await post(http, "query", TIER1_HIGH_RISK_OPEN_ORDERS)
    assert first.content == second.content
    again = await post(
        http, "query", TIER1_HIGH_RISK_OPEN_ORDERS, headers={"If-None-Match": first.headers["ETag"]}
    )
    assert again.status_code == 304
    assert again.content == b""


async def test_a_two_hop_traversal(http: httpx.AsyncClient) -> None:
    body = {"start": ["Supplier/S-1007"], "path": ["supplies", "purchase_orders"]}
    response = await post(http, "traverse", body)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["revision"] == response.headers["Lorebase-Revision"]
    assert [hop["to_kind"] for hop in answer["hops"]] == ["Part", "PurchaseOrder"]
    assert all(record["kind"] == "PurchaseOrder" for record in answer["records"])
    assert answer["capped"] is False


async def test_a_traversal_with_a_path_that_does_not_connect(http: httpx.AsyncClient) -> None:
    body = {"start": ["Supplier/S-1007"], "path": ["supplies", "supplies"]}
    assert_problem(await post(http, "traverse", body), 422, "graph-request-invalid")


async def test_a_neighborhood_without_values(http: httpx.AsyncClient) -> None:
    body = {"refs": ["Supplier/S-1001"], "depth": 1, "values": False}
    answer = (await post(http, "neighborhood", body)).json()
    refs = {neighbor["ref"] for neighbor in answer["neighbors"]}
    assert {"Contract/C-3001", "Part/P-10028"} <= refs
    assert all("values" not in neighbor for neighbor in answer["neighbors"])


async def test_a_narrowed_neighborhood_stays_inside_its_kinds(
    http: httpx.AsyncClient, keys: Keys
) -> None:
    body = {"refs": ["Supplier/S-1001"], "depth": 2}
    answer = (await post(http, "neighborhood", body, headers=Keys.header(keys.supplier))).json()
    assert answer["neighbors"] == []
    assert answer["links"] == {}


async def test_a_neighborhood_deeper_than_the_cap(http: httpx.AsyncClient) -> None:
    body = {"refs": ["Supplier/S-1001"], "depth": 99}
    assert_problem(await post(http, "neighborhood", body), 422, "graph-request-invalid")
