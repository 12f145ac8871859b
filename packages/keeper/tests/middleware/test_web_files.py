"""The web app's build served at / (web_files.py), on a small dist in tmp_path."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from packages.keeper.tests.conftest import api_key_settings, client_of

from lorebase_core.errors import UnsafeSettings
from lorebase_keeper.app import create_app
from lorebase_keeper.middleware.browser_headers import API_CSP, WEB_CSP
from lorebase_keeper.testing import Keys, assert_problem
from lorebase_store import Store

INDEX = b"<!doctype html><title>Lorebase</title><script src=/assets/app.js></script>"
SCRIPT = b"console.log('lorebase')"


@pytest.fixture
def dist(tmp_path: Path) -> Path:
    folder = tmp_path / "dist"
    (folder / "assets").mkdir(parents=True)
    (folder / "index.html").write_bytes(INDEX)
    (folder / "assets" / "app.js").write_bytes(SCRIPT)
    (tmp_path / "secret.txt").write_text("outside the build")
    return folder


@pytest.fixture
async def web(supply: Store, keys: Keys, dist: Path) -> AsyncIterator[httpx.AsyncClient]:
    app: FastAPI = create_app(api_key_settings(web={"dist": str(dist)}), store=supply)
    async with client_of(app) as client:
        yield client


@pytest.mark.anyio
async def test_index_and_assets_are_served_with_the_strict_policy(
    web: httpx.AsyncClient,
) -> None:
    index = await web.get("/")
    assert (index.status_code, index.content) == (200, INDEX)
    assert index.headers["content-type"].startswith("text/html")
    asset = await web.get("/assets/app.js")
    assert (asset.status_code, asset.content) == (200, SCRIPT)
    for response in (index, asset):
        assert response.headers["Content-Security-Policy"] == WEB_CSP
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert response.headers["X-Frame-Options"] == "DENY"
    again = await web.get("/assets/app.js", headers={"If-None-Match": asset.headers["ETag"]})
    assert again.status_code == 304
    assert again.headers["Content-Security-Policy"] == WEB_CSP


@pytest.mark.anyio
@pytest.mark.parametrize("route", ["/proposals/42", "/domains/supply/records", "/assets/gone.js"])
async def test_client_side_routes_answer_index_html(web: httpx.AsyncClient, route: str) -> None:
    response = await web.get(route)
    assert (response.status_code, response.content) == (200, INDEX)
    assert response.headers["Content-Security-Policy"] == WEB_CSP


@pytest.mark.anyio
@pytest.mark.parametrize("path", ["/api/v1/nothing-here", "/api", "/healthz/more", "/docs/more"])
async def test_api_docs_and_health_paths_stay_404_problems(
    web: httpx.AsyncClient, path: str
) -> None:
    response = await web.get(path)
    assert_problem(response, 404, "not-found")
    assert response.headers["Content-Security-Policy"] == API_CSP


@pytest.mark.anyio
async def test_routes_and_their_methods_are_unchanged(web: httpx.AsyncClient, keys: Keys) -> None:
    assert (await web.get("/healthz")).json()["status"] == "ok"
    assert (
        await web.get("/api/v1/auth/whoami", headers=keys.header(keys.admin))
    ).status_code == 200
    assert (await web.post("/healthz")).status_code == 405
    assert_problem(await web.post("/proposals/42"), 404, "not-found")


@pytest.mark.anyio
@pytest.mark.parametrize(
    "path",
    [
        pytest.param("/../secret.txt", id="dot-dot"),
        pytest.param("/assets/../../secret.txt", id="nested"),
        pytest.param("/%2e%2e/secret.txt", id="encoded-dots"),
        pytest.param("/assets/..%2f..%2fsecret.txt", id="encoded-slash"),
        pytest.param("/..%5csecret.txt", id="backslash"),
    ],
)
async def test_no_path_leaves_the_build(web: httpx.AsyncClient, path: str) -> None:
    response = await web.get(path)
    assert b"outside the build" not in response.content
    assert response.status_code in (200, 400, 404)


def test_keeper_refuses_to_start_without_a_build(supply: Store, tmp_path: Path) -> None:
    with pytest.raises(UnsafeSettings, match="is not a directory"):
        create_app(api_key_settings(web={"dist": str(tmp_path / "missing")}), store=supply)
    (tmp_path / "empty").mkdir()
    with pytest.raises(UnsafeSettings, match=r"has no index\.html"):
        create_app(api_key_settings(web={"dist": str(tmp_path / "empty")}), store=supply)


@pytest.mark.anyio
async def test_web_config_names_keeper_guide_and_the_sign_in(
    web: httpx.AsyncClient, supply: Store, dist: Path
) -> None:
    answer = await web.get("/web-config.json")
    assert answer.status_code == 200
    assert answer.json() == {
        "keeperUrl": "",
        "guideUrl": None,
        "authMode": "session",
        "apiKeys": True,
        "oidc": False,
        "mock": False,
    }
    settings = api_key_settings(
        web={"dist": str(dist), "guide_url": "http://127.0.0.1:8091", "sign_in": "token"}
    )
    app = create_app(settings, store=supply)
    async with client_of(app) as client:
        config = (await client.get("/web-config.json")).json()
        index = await client.get("/")
    assert (config["guideUrl"], config["authMode"]) == ("http://127.0.0.1:8091", "token")
    policy = index.headers["Content-Security-Policy"]
    assert "connect-src 'self' http://127.0.0.1:8091;" in policy
    assert policy.replace(" http://127.0.0.1:8091", "") == WEB_CSP


@pytest.mark.parametrize(
    "guide_url", ["javascript:alert(1)", "http://a b", "guide", "//evil.example"]
)
def test_a_guide_url_that_is_no_origin_or_path_is_refused(guide_url: str, dist: Path) -> None:
    with pytest.raises(ValueError, match="guide_url"):
        api_key_settings(web={"dist": str(dist), "guide_url": guide_url})
