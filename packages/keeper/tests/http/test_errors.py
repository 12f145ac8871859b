"""Problem documents stay small whatever the caller sends.

A name, key or member name of 100,000 characters is quoted shortened, and a body with 20,000 bad
items answers a capped list of issues: each answer is its usual 4xx, and its body stays under
16 KiB (both backends). Names in the path are 60,000 characters: httpx refuses longer URLs (and
uvicorn's limit on a request line is far below either).
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from lorebase_core.errors import MAX_ISSUES
from lorebase_keeper.testing import assert_problem

pytestmark = pytest.mark.anyio

API = "/api/v1/domains/supply"
LONG = "a" * 100_000
IN_PATH = "a" * 60_000
BOUND = 16 * 1024
MANY = 20_000


def case(
    name: str, method: str, path: str, body: Any, status: int, code: str
) -> Any:  # a pytest.param
    return pytest.param(method, path, body, status, code, id=name)


CASES = [
    case("kind", "POST", "/query", {"kind": LONG}, 404, "kind-not-found"),
    case("domain", "GET", f"/api/v1/domains/{IN_PATH}/schema", None, 404, "domain-not-found"),
    case("branch", "POST", "/query", {"kind": "Supplier", "branch": LONG}, 404, "branch-not-found"),
    case("revision", "POST", "/query", {"kind": "Supplier", "at": LONG}, 404, "revision-not-found"),
    case("tag", "GET", f"/tags/{IN_PATH}", None, 404, "tag-not-found"),
    case("key", "GET", f"/kinds/Supplier/records/{IN_PATH}", None, 404, "record-not-found"),
    case("ref-key", "POST", "/context", {"refs": [f"Supplier/{LONG}"]}, 404, "record-not-found"),
    case("operation", "POST", f"/operations/{IN_PATH}/execute", {}, 404, "operation-not-found"),
    case("lens", "POST", "/search", {"q": "seal", "lens": LONG}, 422, "lens_unknown"),
    case(
        "attribute",
        "POST",
        "/query",
        {"kind": "Supplier", "where": {"attr": LONG, "op": "eq", "value": 1}},
        422,
        "query-invalid",
    ),
    case("member", "POST", "/query", {"kind": "Supplier", LONG: 1}, 422, "query-invalid"),
    case(
        "parameter-values",
        "POST",
        "/operations/update_supplier/execute",
        {"parameters": {"key": LONG, "city": LONG, "status": LONG, LONG: 1}},
        422,
        "values-invalid",
    ),
    case(
        "in-list",
        "POST",
        "/query",
        {"kind": "Supplier", "where": {"attr": "supplier_code", "op": "in", "value": [1] * MANY}},
        422,
        "query-invalid",
    ),
    case(
        "members",
        "POST",
        "/query",
        {"kind": "Supplier", **{f"nope{index}": 1 for index in range(MANY)}},
        422,
        "query-invalid",
    ),
    case(
        "parameters",
        "POST",
        "/operations/update_supplier/execute",
        {"parameters": {f"nope{index}": 1 for index in range(MANY)}},
        422,
        "values-invalid",
    ),
    case(
        "refs",
        "POST",
        "/neighborhood",
        {"refs": [f"bad ref {index}" for index in range(MANY)]},
        422,
        "graph-request-invalid",
    ),
]


@pytest.mark.parametrize(("method", "path", "body", "status", "code"), CASES)
async def test_a_huge_input_answers_a_small_problem(
    http: httpx.AsyncClient, method: str, path: str, body: Any, status: int, code: str
) -> None:
    url = path if path.startswith("/api/") else f"{API}{path}"
    response = await http.request(method, url, json=body)
    problem = assert_problem(response, status, code)
    assert len(response.content) < BOUND
    assert len(problem.get("issues", [])) <= MAX_ISSUES + 1  # type: ignore[arg-type]


async def test_a_long_name_is_quoted_with_its_length(http: httpx.AsyncClient) -> None:
    problem = assert_problem(
        await http.post(f"{API}/query", json={"kind": LONG}), 404, "kind-not-found"
    )
    assert "…' (100000 characters)" in str(problem["detail"])


async def test_issues_past_the_cap_are_counted_in_a_last_issue(http: httpx.AsyncClient) -> None:
    body = {"kind": "Supplier", **{f"nope{index}": 1 for index in range(MANY)}}
    problem = assert_problem(await http.post(f"{API}/query", json=body), 422, "query-invalid")
    issues: list[dict[str, str]] = problem["issues"]  # type: ignore[assignment]
    assert len(issues) == MAX_ISSUES + 1
    assert issues[-1]["code"] == "more-issues"
    assert issues[-1]["message"].startswith(f"{MANY - MAX_ISSUES} more issue(s) left out")
    assert problem["detail"] == f"The query has {MANY} problems"


async def test_long_member_names_in_a_bad_text_path_are_shortened(
    http: httpx.AsyncClient,
) -> None:
    content = '{"kind": "Supplier", "' + LONG + '": "\\u0000"}'
    response = await http.post(
        f"{API}/query", content=content.encode(), headers={"Content-Type": "application/json"}
    )
    problem = assert_problem(response, 422, "invalid-text")
    assert len(response.content) < BOUND
    assert {issue["path"] for issue in problem["issues"]} == {  # type: ignore[attr-defined]
        f"{'a' * 80}…"
    }
