"""CORS for the origins Keeper names, and the security headers of every answer (browser_headers.py)."""

from __future__ import annotations

import base64
import hashlib
import re

import httpx
import pytest
from fastapi import FastAPI
from packages.keeper.tests.conftest import api_key_settings, client_of
from pydantic import ValidationError

from lorebase_keeper.app import create_app
from lorebase_keeper.middleware.browser_headers import API_CSP
from lorebase_keeper.server import server_config
from lorebase_keeper.testing import Keys, assert_problem
from lorebase_platform.settings import HttpSettings
from lorebase_store import Store

WHOAMI = "/api/v1/auth/whoami"
S_1001 = "/api/v1/domains/supply/kinds/Supplier/records/S-1001"
APP_ORIGIN = "https://lore.example.com"


def with_origins(supply: Store, *origins: str) -> FastAPI:
    return create_app(api_key_settings(http={"allowed_origins": list(origins)}), store=supply)


def assert_security_headers(response: httpx.Response) -> None:
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "no-referrer"
    assert response.headers["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]


# -- CORS ---------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_a_listed_origin_gets_a_preflight_with_credentials(supply: Store, keys: Keys) -> None:
    async with client_of(with_origins(supply, APP_ORIGIN)) as client:
        preflight = await client.options(
            S_1001,
            headers={
                "Origin": APP_ORIGIN,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "X-CSRF-Token, Content-Type, X-Lorebase-Client",
            },
        )
        assert preflight.status_code == 200
        assert preflight.headers["Access-Control-Allow-Origin"] == APP_ORIGIN
        assert preflight.headers["Access-Control-Allow-Credentials"] == "true"
        allowed = preflight.headers["Access-Control-Allow-Headers"].lower()
        for header in ("x-csrf-token", "content-type", "x-lorebase-client", "authorization"):
            assert header in allowed
        assert_security_headers(preflight)

        simple = await client.get(S_1001, headers={"Origin": APP_ORIGIN, **keys.header(keys.admin)})
        assert simple.status_code == 200
        assert simple.headers["Access-Control-Allow-Origin"] == APP_ORIGIN
        exposed = simple.headers["Access-Control-Expose-Headers"].lower()
        for header in ("etag", "retry-after", "lorebase-revision", "ratelimit-remaining"):
            assert header in exposed


@pytest.mark.anyio
async def test_an_unlisted_origin_gets_no_cors_headers(supply: Store, keys: Keys) -> None:
    async with client_of(with_origins(supply, APP_ORIGIN)) as client:
        preflight = await client.options(
            S_1001,
            headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "GET"},
        )
        assert "Access-Control-Allow-Origin" not in preflight.headers
        simple = await client.get(
            S_1001, headers={"Origin": "https://evil.example", **keys.header(keys.admin)}
        )
        assert simple.status_code == 200
        assert "Access-Control-Allow-Origin" not in simple.headers


@pytest.mark.anyio
async def test_no_origins_by_default_means_no_cors_headers_at_all(
    supply: Store, keys: Keys
) -> None:
    async with client_of(create_app(api_key_settings(), store=supply)) as client:
        preflight = await client.options(
            S_1001, headers={"Origin": APP_ORIGIN, "Access-Control-Request-Method": "GET"}
        )
        simple = await client.get(S_1001, headers={"Origin": APP_ORIGIN, **keys.header(keys.admin)})
    for response in (preflight, simple):
        assert not [name for name in response.headers if name.lower().startswith("access-control")]


@pytest.mark.parametrize(
    "origin",
    [
        pytest.param("*", id="star"),
        pytest.param("https://lore.example.com/", id="trailing-slash"),
        pytest.param("https://lore.example.com/app", id="path"),
        pytest.param("lore.example.com", id="no-scheme"),
        pytest.param("ftp://lore.example.com", id="scheme"),
        pytest.param("https://*.example.com", id="wildcard"),
    ],
)
def test_an_origin_not_of_the_form_scheme_host_port_is_refused(origin: str) -> None:
    with pytest.raises(ValidationError, match=r"scheme://host\[:port\]"):
        HttpSettings(allowed_origins=[origin])


def test_origins_of_the_form_are_taken() -> None:
    origins = ["https://lore.example.com", "http://127.0.0.1:5173", "http://[::1]:8080"]
    assert HttpSettings(allowed_origins=origins).allowed_origins == origins


# -- security headers ---------------------------------------------------------------------------


@pytest.mark.anyio
async def test_every_kind_of_answer_has_the_security_headers(
    http: httpx.AsyncClient, keys: Keys
) -> None:
    record = await http.get(S_1001)
    assert record.status_code == 200
    problem = await http.get("/api/v1/domains/nowhere/kinds/Supplier/records/S-1")
    assert_problem(problem, 404, "domain-not-found")
    unauthorized = await http.get(WHOAMI, headers={"Authorization": "Bearer lbk_wrong"})
    assert unauthorized.status_code == 401
    not_modified = await http.get(S_1001, headers={"If-None-Match": record.headers["ETag"]})
    assert (not_modified.status_code, not_modified.content) == (304, b"")
    assert not_modified.headers["ETag"] == record.headers["ETag"]
    health = await http.get("/healthz", headers={"Authorization": ""})
    for response in (record, problem, unauthorized, not_modified, health):
        assert_security_headers(response)
        assert response.headers["Content-Security-Policy"] == API_CSP


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
@pytest.mark.anyio
async def test_docs_pages_may_run_their_own_inline_script_and_nothing_else(
    http: httpx.AsyncClient, page: str
) -> None:
    response = await http.get(page)
    assert response.status_code == 200
    assert_security_headers(response)
    policy = response.headers["Content-Security-Policy"]
    assert "default-src 'none'" in policy
    assert "'unsafe-inline'" not in policy.split("script-src", 1)[1].split(";", 1)[0]
    for script in re.findall(rb"<script>(.*?)</script>", response.content, re.DOTALL):
        digest = base64.b64encode(hashlib.sha256(script).digest()).decode()
        assert f"'sha256-{digest}'" in policy
    # its assets come from Keeper itself, which the policy allows ('self')
    for asset in re.findall(rb'(?:src|href)="(/static-offline-docs/[^"]+)"', response.content):
        assert (await http.get(asset.decode())).status_code == 200
    assert ("'unsafe-eval'" in policy) is (page == "/redoc")


@pytest.mark.anyio
async def test_authenticated_answers_are_private_unless_the_route_says_more(
    http: httpx.AsyncClient, keys: Keys
) -> None:
    # a problem answer sets no Cache-Control of its own: it gets private
    by_bearer = await http.get("/api/v1/domains/nowhere/branches")
    by_key_header = await http.get(
        "/api/v1/domains/nowhere/branches", headers={"Authorization": "", "X-API-Key": keys.admin}
    )
    by_cookie = await http.get(
        "/api/v1/domains", headers={"Authorization": "", "Cookie": "lorebase_session=whatever"}
    )
    for response in (by_bearer, by_key_header, by_cookie):
        assert response.status_code in (401, 404)
        assert response.headers["Cache-Control"] == "private"
    # what a route says stays: no-store, or the reads' private, no-cache
    assert (await http.get(WHOAMI)).headers["Cache-Control"] == "no-store"
    assert (await http.get(S_1001)).headers["Cache-Control"] == "private, no-cache"
    anonymous = await http.get("/healthz", headers={"Authorization": ""})
    assert anonymous.status_code == 200
    assert "private" not in anonymous.headers.get("Cache-Control", "")
    other_cookie = await http.get(
        "/healthz", headers={"Authorization": "", "Cookie": "xlorebase_session=1"}
    )
    assert "private" not in other_cookie.headers.get("Cache-Control", "")


@pytest.mark.anyio
async def test_the_500_of_last_resort_has_the_headers_too(
    supply: Store, keys: Keys, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = create_app(api_key_settings(), store=supply)

    def broken(*_: object, **__: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(supply, "domains", broken)
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://keeper.test") as client:
        response = await client.get("/api/v1/domains", headers=keys.header(keys.admin))
    assert_problem(response, 500, "internal")
    assert_security_headers(response)
    assert response.headers["Cache-Control"] == "private"


def test_lorebase_serve_trusts_forwarded_headers_from_the_named_proxies_only(
    supply: Store,
) -> None:
    settings = api_key_settings(http={"forwarded_allow_ips": ["10.0.0.7"]})
    config = server_config(create_app(settings, store=supply), settings, port=0)
    assert config.proxy_headers is True
    assert config.forwarded_allow_ips == ["10.0.0.7"]
    default = api_key_settings()
    assert server_config(create_app(default, store=supply), default).forwarded_allow_ips == [
        "127.0.0.1"
    ]
