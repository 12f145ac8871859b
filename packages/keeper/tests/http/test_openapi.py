"""The published OpenAPI document and the answers it promises (docs/security.md).

`make security` runs schemathesis against it; these are the rules it found broken, kept here:
the document declares how callers authenticate, answers without a valid key are 401 before
anything else, a 405 lists the path's methods in `Allow`, and Markdown answers are declared.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.routing import APIRoute
from packages.keeper.tests.conftest import client_of
from packages.keeper.tests.published_schema import AnswersMatchDocument

from lorebase_keeper.app import create_app
from lorebase_keeper.testing import Keys, assert_problem
from lorebase_platform.settings import Settings
from lorebase_store import Store

pytestmark = pytest.mark.anyio

API = "/api/v1/domains/supply"


@pytest.fixture
async def anonymous(keeper: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with client_of(keeper) as client:
        yield client


async def test_the_document_requires_an_api_key_except_on_the_probes(
    anonymous: httpx.AsyncClient,
) -> None:
    document = (await anonymous.get("/openapi.json")).json()
    schemes = document["components"]["securitySchemes"]
    assert schemes["bearer"] == {
        "type": "http",
        "scheme": "bearer",
        "description": schemes["bearer"]["description"],
    }
    assert (schemes["apiKey"]["in"], schemes["apiKey"]["name"]) == ("header", "X-API-Key")
    assert document["security"] == [{"bearer": []}, {"apiKey": []}, {"session": []}]
    assert (schemes["session"]["in"], schemes["session"]["name"]) == ("cookie", "lorebase_session")
    open_operations = sorted(
        f"{method.upper()} {path}"
        for path, methods in document["paths"].items()
        for method, operation in methods.items()
        if operation.get("security") == []
    )
    assert open_operations == [
        "DELETE /api/v1/auth/session",
        "GET /api/v1/auth/oidc",
        "GET /healthz",
        "GET /readyz",
        "POST /api/v1/auth/session",
    ]


async def test_with_auth_none_the_document_requires_nothing(supply: Store) -> None:
    app = create_app(Settings(keeper={"auth": {"mode": "none"}}), store=supply)
    async with client_of(app) as client:
        document = (await client.get("/openapi.json")).json()
    assert "security" not in document
    assert "securitySchemes" not in document.get("components", {})


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        pytest.param("POST", f"{API}/branches", {}, id="branches-without-name"),
        pytest.param("GET", f"{API}/diff", None, id="diff-without-from"),
        pytest.param("POST", f"{API}/proposals/prp_x/reviews", {}, id="review-without-verdict"),
        pytest.param("GET", f"{API}/kinds/Supplier/records?limit=x", None, id="bad-query"),
        pytest.param("POST", f"{API}/resolve", {}, id="resolve-without-text"),
        pytest.param("POST", f"{API}/query", {"kind": 1}, id="query-invalid"),
        pytest.param("GET", "/api/v1/domains/nope/schema", None, id="unknown-domain"),
    ],
)
@pytest.mark.parametrize(
    "credential", [pytest.param({}, id="none"), pytest.param(Keys.header("lbk_x"), id="unknown")]
)
async def test_an_invalid_request_without_a_valid_key_is_401_not_422(
    anonymous: httpx.AsyncClient,
    method: str,
    path: str,
    body: object,
    credential: dict[str, str],
) -> None:
    answer = await anonymous.request(method, path, json=body, headers=credential)
    assert_problem(answer, 401, "unauthorized")
    assert answer.headers["www-authenticate"].startswith("Bearer")


async def test_an_invalid_request_with_a_valid_key_lists_its_issues(
    http: httpx.AsyncClient,
) -> None:
    answer = await http.post(f"{API}/branches", json={})
    problem = assert_problem(answer, 422, "invalid-input")
    assert [issue["path"] for issue in problem["issues"]] == ["name"]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        pytest.param("DELETE", f"{API}/branches", "GET, POST", id="two-routes-one-path"),
        pytest.param("TRACE", "/healthz", "GET", id="probe"),
        pytest.param("PUT", f"{API}/query", "POST", id="post-only"),
        pytest.param("OPTIONS", f"{API}/branches/0/merge", "POST", id="documented-shape"),
        pytest.param("DELETE", f"{API}/branches/agent/x/y", "GET", id="slashes-in-a-name"),
    ],
)
async def test_a_405_lists_every_method_of_the_path_in_allow(
    http: httpx.AsyncClient, method: str, path: str, allowed: str
) -> None:
    answer = await http.request(method, path)
    assert_problem(answer, 405, "method-not-allowed")
    assert answer.headers["allow"] == allowed


@pytest.mark.parametrize(
    ("method", "path", "route", "body"),
    [
        pytest.param("GET", f"{API}/health", "/health", None, id="health"),
        pytest.param(
            "GET", f"{API}/kinds/Supplier/health", "/kinds/{kind}/health", None, id="kind"
        ),
        pytest.param(
            "GET",
            f"{API}/kinds/Supplier/records/S-1001/explain",
            "/kinds/{kind}/records/{key}/explain",
            None,
            id="explain",
        ),
        pytest.param(
            "POST",
            f"{API}/context",
            "/context",
            {"refs": ["Supplier/S-1001"], "format": "markdown"},
            id="context",
        ),
    ],
)
async def test_markdown_answers_are_declared_in_the_document(
    http: httpx.AsyncClient, method: str, path: str, route: str, body: object
) -> None:
    document = (await http.get("/openapi.json")).json()
    declared = document["paths"][f"{API.replace('supply', '{domain}')}{route}"][method.lower()]
    ok = declared["responses"]["200"]
    assert set(ok["content"]) == {"application/json", "text/markdown"}
    assert set(ok["headers"]) == {"Lorebase-Revision", "ETag"}
    params = None if body is not None else {"format": "markdown"}
    answer = await http.request(method, path, params=params, json=body)
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].split(";")[0] == "text/markdown"


PROBLEM = {"$ref": "#/components/schemas/Problem"}
DOCS_ROUTES = {"/docs", "/docs/oauth2-redirect", "/redoc", "/openapi.json"}
"""The routes that are not operations of the API: the document and its readers."""


def _operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method.upper(), path, operation)
        for path, methods in document["paths"].items()
        for method, operation in methods.items()
    ]


def _schema_of(response: dict[str, Any], media: str = "application/json") -> object:
    return response.get("content", {}).get(media, {}).get("schema", {})


async def test_every_route_is_in_the_document(keeper: FastAPI, http: httpx.AsyncClient) -> None:
    document = (await http.get("/openapi.json")).json()
    routes = {
        (method, route.path_format)
        for route in keeper.routes
        if isinstance(route, APIRoute) and route.path not in DOCS_ROUTES
        for method in route.methods
    }
    documented = {(method, path) for method, path, _ in _operations(document)}
    assert routes - documented == set(), "routes left out of the document"


async def test_every_answer_and_request_body_is_typed(http: httpx.AsyncClient) -> None:
    """A route whose 2xx (or JSON request body) is `{}` fails here: type it (docs/api.md)."""
    document = (await http.get("/openapi.json")).json()
    untyped = []
    for method, path, operation in _operations(document):
        responses = operation["responses"]
        successes = {status: r for status, r in responses.items() if status.startswith("2")}
        if not successes:
            untyped.append(f"{method} {path}: no success answer")
        for status, response in successes.items():
            if status == "204" and "content" not in response:
                continue  # No Content: there is no body to type
            # JSON, or the event stream's text/event-stream (its frames are text)
            typed = _schema_of(response) or _schema_of(response, "text/event-stream")
            if typed in ({}, None):
                untyped.append(f"{method} {path} {status}: untyped answer")
        for status, response in responses.items():
            problem = _schema_of(response, "application/problem+json")
            failure = status[0] in "45" or status == "default"
            if failure and problem != PROBLEM and _schema_of(response) in ({}, None):
                untyped.append(f"{method} {path} {status}: neither a problem nor typed")
        body = operation.get("requestBody")
        if body is not None and _schema_of(body) in ({}, None):
            untyped.append(f"{method} {path}: untyped request body")
    assert untyped == []


@pytest.mark.parametrize(
    ("path", "model"),
    [
        pytest.param("/query", "QueryRequest", id="query"),
        pytest.param("/traverse", "TraverseRequest", id="traverse"),
        pytest.param("/neighborhood", "NeighborhoodRequest", id="neighborhood"),
        pytest.param("/context", "ContextRequest", id="context"),
        pytest.param("/resolve", "ResolveTextRequest", id="resolve"),
        pytest.param("/search", "SearchRequest", id="search"),
    ],
)
async def test_bodies_parsed_by_the_dsl_parsers_are_declared(
    http: httpx.AsyncClient, path: str, model: str
) -> None:
    document = (await http.get("/openapi.json")).json()
    operation = document["paths"][f"/api/v1/domains/{{domain}}{path}"]["post"]
    assert _schema_of(operation["requestBody"])["$ref"] == f"#/components/schemas/{model}"
    assert model in document["components"]["schemas"]
    assert "$ref" in _schema_of(operation["responses"]["200"])


async def test_a_wrong_shape_fails_the_published_schema(
    keeper: FastAPI, http: httpx.AsyncClient
) -> None:
    """The check every test's answers go through refuses a missing, extra or mistyped member."""
    check = AnswersMatchDocument(keeper, keeper)
    record = (await http.get(f"{API}/kinds/Supplier/records/S-1001")).json()
    path = "/api/v1/domains/{domain}/kinds/{kind}/records/{key}"
    check.check("GET", path, 200, "application/json", json.dumps(record).encode())
    wrong = [
        {key: value for key, value in record.items() if key != "updated_revision"},
        {**record, "surprise": 1},
        {**record, "values": ["not", "an", "object"]},
    ]
    for body in wrong:
        with pytest.raises(AssertionError, match="breaks the published schema"):
            check.check("GET", path, 200, "application/json", json.dumps(body).encode())
    with pytest.raises(AssertionError, match="media type not declared"):
        check.check("GET", path, 200, "text/html", b"<p>")


async def test_docs_work_offline(anonymous: httpx.AsyncClient) -> None:
    page = await anonymous.get("/docs")
    assert page.status_code == 200
    html = page.text
    assert re.findall(r"https?://", html) == [], "the page loads something from elsewhere"
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert any(asset.endswith(".js") for asset in assets)
    assert any(asset.endswith(".css") for asset in assets)
    for asset in assets:
        answer = await anonymous.get(asset)
        assert answer.status_code == 200, asset
        assert answer.content
    assert (await anonymous.get("/redoc")).status_code == 200
