"""CSRF: every unsafe route of the app refuses a session cookie without its X-CSRF-Token.

The routes are listed from the app itself, so a route added later is covered by this test
without anyone remembering to add it.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI
from fastapi.routing import APIRoute, iter_route_contexts
from packages.keeper.tests.conftest import client_of
from packages.keeper.tests.routes.auth.test_sessions import SIGN_IN, session_settings

from lorebase_core.sessions import CSRF_HEADER
from lorebase_keeper.app import create_app
from lorebase_keeper.auth.csrf import SAFE_METHODS
from lorebase_keeper.testing import Keys, assert_problem
from lorebase_store import Store
from lorebase_store.testing import every_row

pytestmark = pytest.mark.anyio

PARAMETER = re.compile(r"\{([a-z_]+)(?::path)?\}")
VALUES = {"domain": "supply", "branch": "main", "kind": "Supplier"}


def unsafe_routes(app: FastAPI) -> list[tuple[str, str]]:
    """(method, path with its parameters filled) of every unsafe route but signing in."""
    found = set()
    for context in iter_route_contexts(app.routes):
        route = context.original_route
        if not isinstance(route, APIRoute) or context.path is None:
            continue
        path = PARAMETER.sub(lambda match: VALUES.get(match.group(1), "x1"), context.path)
        for method in context.methods or ():
            if method not in SAFE_METHODS and (method, context.path) != SIGN_IN_ROUTE:
                found.add((method, path))
    return sorted(found)


SIGN_IN_ROUTE = ("POST", SIGN_IN)


@pytest.fixture
def app(supply: Store) -> FastAPI:
    return create_app(session_settings(), store=supply)


@pytest.fixture
async def signed_in(app: FastAPI, keys: Keys) -> AsyncIterator[tuple[httpx.AsyncClient, str]]:
    """An administrator's browser: its session cookie, and the CSRF token."""
    async with client_of(app) as client:
        answer = await client.post(SIGN_IN, json={"api_key": keys.admin})
        yield client, answer.json()["csrf_token"]


def test_the_list_holds_the_writes_we_know(store: Store) -> None:
    routes = unsafe_routes(create_app(session_settings(), store=store))
    assert len(routes) >= 15
    for expected in [
        ("POST", "/api/v1/domains/supply/branches"),
        ("POST", "/api/v1/domains/supply/operations/x1/execute"),
        ("DELETE", SIGN_IN),
    ]:
        assert expected in routes


async def test_every_unsafe_route_needs_the_token(
    app: FastAPI, signed_in: tuple[httpx.AsyncClient, str], supply: Store
) -> None:
    client, token = signed_in
    before = every_row(supply)
    for method, path in unsafe_routes(app):
        for headers in ({}, {CSRF_HEADER: token[:-2] + "xx"}, {CSRF_HEADER: ""}):
            response = await client.request(method, path, json={}, headers=headers)
            problem = assert_problem(response, 403, "csrf")
            assert token not in str(problem)
    assert every_row(supply) == before


async def test_with_the_token_a_write_works(
    signed_in: tuple[httpx.AsyncClient, str], supply: Store
) -> None:
    client, token = signed_in
    made = await client.post(
        "/api/v1/domains/supply/branches",
        json={"name": "feature-x", "from": "main"},
        headers={CSRF_HEADER: token},
    )
    assert made.status_code == 201, made.text
    assert "feature-x" in [branch.name for branch in supply.branches("supply")]


async def test_a_bearer_credential_wins_over_the_cookie(
    signed_in: tuple[httpx.AsyncClient, str], keys: Keys
) -> None:
    client, _ = signed_in
    # the viewer's key answers, not the admin's cookie: forbidden, and no CSRF token needed
    problem = assert_problem(
        await client.post(
            "/api/v1/domains/supply/branches",
            json={"name": "feature-y", "from": "main"},
            headers=Keys.header(keys.viewer),
        ),
        403,
        "forbidden",
    )
    assert problem["permission"] == "branch.create"
    made = await client.post(
        "/api/v1/domains/supply/branches",
        json={"name": "feature-z", "from": "main"},
        headers={"X-API-Key": keys.admin},
    )
    assert made.status_code == 201
    whoami = await client.get("/api/v1/auth/whoami", headers=Keys.header(keys.viewer))
    assert whoami.json()["authenticated_by"] == "api_key"


async def test_sign_out_needs_the_token(signed_in: tuple[httpx.AsyncClient, str]) -> None:
    client, token = signed_in
    assert_problem(await client.delete(SIGN_IN), 403, "csrf")
    assert (await client.get(SIGN_IN)).status_code == 200
    assert (await client.delete(SIGN_IN, headers={CSRF_HEADER: token})).status_code == 204
