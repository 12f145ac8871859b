from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from packages.keeper.tests.conftest import client_of

from lorebase_keeper.app import create_app
from lorebase_keeper.testing import assert_problem
from lorebase_platform.settings import Settings
from lorebase_store import Store, create_store_engine


@pytest.fixture
async def client(store: Store) -> AsyncIterator[httpx.AsyncClient]:
    async with client_of(create_app(Settings(), store=store)) as http:
        yield http


@pytest.mark.anyio
async def test_healthz_answers_ok(client: httpx.AsyncClient) -> None:
    response = await client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


@pytest.mark.anyio
async def test_readyz_names_the_database_backend(client: httpx.AsyncClient, store: Store) -> None:
    response = await client.get("/readyz")
    assert response.status_code == 200
    assert response.json() == {"status": "ready", "database": store.backend}


@pytest.mark.anyio
async def test_readyz_answers_503_when_the_database_is_unreachable() -> None:
    unreachable = Store(create_store_engine("postgresql://nobody@127.0.0.1:1/none"))
    transport = httpx.ASGITransport(app=create_app(Settings(), store=unreachable))
    async with httpx.AsyncClient(transport=transport, base_url="http://keeper.test") as http:
        response = await http.get("/readyz")
    assert response.status_code == 503
    assert response.json() == {"status": "unavailable", "database": "postgresql"}


@pytest.mark.anyio
async def test_unknown_routes_are_problem_documents(client: httpx.AsyncClient) -> None:
    assert_problem(await client.get("/nowhere"), 404, "not-found")
    assert_problem(await client.post("/healthz"), 405, "method-not-allowed")


@pytest.mark.anyio
async def test_a_405_names_the_methods_the_route_takes(client: httpx.AsyncClient) -> None:
    response = await client.delete("/api/v1/domains/supply/schema")
    assert_problem(response, 405, "method-not-allowed")
    assert response.headers["Allow"] == "GET"


@pytest.mark.anyio
async def test_openapi_lists_the_routes_served(client: httpx.AsyncClient) -> None:
    document = (await client.get("/openapi.json")).json()
    assert {
        "/healthz",
        "/api/v1/auth/whoami",
        "/api/v1/domains/{domain}/schema",
        "/api/v1/domains/{domain}/kinds/{kind}/records/{key}",
        "/api/v1/domains/{domain}/kinds/{kind}/records/{key}/explain",
        "/api/v1/domains/{domain}/diff",
        "/api/v1/domains/{domain}/branches",
        "/api/v1/domains/{domain}/context",
        "/api/v1/domains/{domain}/search",
        "/api/v1/domains/{domain}/resolve",
        "/api/v1/domains/{domain}/health",
        "/api/v1/domains/{domain}/kinds/{kind}/health",
        "/api/v1/domains/{domain}/operations/{operation}/execute",
        "/api/v1/domains/{domain}/proposals",
        "/api/v1/domains/{domain}/proposals/{proposal}",
        "/api/v1/domains/{domain}/proposals/{proposal}/reviews",
        "/api/v1/domains/{domain}/proposals/{proposal}/merge",
        "/api/v1/domains/{domain}/proposals/{proposal}/close",
        "/api/v1/domains/{domain}/proposals/{proposal}/conflicts",
        "/api/v1/domains/{domain}/proposals/{proposal}/conflicts/{conflict}/resolve",
        "/api/v1/domains/{domain}/branches/{branch}/merge",
        "/api/v1/domains/{domain}/branches/{branch}/events",
        "/api/v1/domains/{domain}/branches/{branch}/changes",
    } <= set(document["paths"])
    document_paths = set(document["paths"])
    assert "/api/v1/domains/{domain}/webhooks" in document_paths
    for item in document["paths"].values():  # nothing is left planned: every route is served
        for operation in item.values():
            assert "501" not in operation.get("responses", {})
