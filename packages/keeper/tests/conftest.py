"""Keeper over the supply example, with principals and API keys, driven through httpx.

`keeper` is an ASGI app on a store holding the supply example (both backends). `keys` holds an
API key per principal: `admin` (admin on supply), `viewer` (viewer, no clearances), `supplier`
(viewer narrowed to Supplier), `agent` (editor on agent/* only, viewer on main); the principals
come with the test's database (`lorebase_keeper.testing.make_keys` made them in its template).
`http` is the admin's client of `keeper`; a module whose tests call as someone else overrides
`http_headers` (`{}`: no credential, each request names its own).

The tests mirror Keeper's modules: `auth/test_csrf.py` tests `lorebase_keeper/auth/csrf.py`,
`routes/feed/test_changes.py` the routes of `routes/feed/changes.py`. Helpers more than one
module uses are here (`client_of`, `wait_until_ready`, ...) or, when other packages' tests use
them too, in `lorebase_keeper.testing` (`assert_problem`, `grant_key`).
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi_offline import FastAPIOffline
from packages.keeper.tests.published_schema import AnswersMatchDocument
from starlette.types import ASGIApp

import lorebase_keeper.app
from lorebase_keeper.app import create_app
from lorebase_keeper.testing import Keys
from lorebase_platform.settings import Settings
from lorebase_store import Store, import_directory

ROOT = Path(__file__).resolve().parents[3]
"""The repository (tests in subfolders take paths from here, not from their own depth)."""
EXAMPLE = ROOT / "examples" / "supply"


def supply_with_operations(store: Store, directory: Path, operations: str) -> Store:
    """`store` holding the supply example with more Operations (YAML under `operations:`)."""
    copy = directory / "supply"
    shutil.copytree(EXAMPLE, copy)
    schema = copy / "schema.yaml"
    marker = "\noperations:\n"
    schema.write_text(schema.read_text().replace(marker, marker + operations + "\n", 1))
    import_directory(store, copy)
    return store


def api_key_settings(invisible_kinds: bool = True, **keeper: Any) -> Settings:
    """Keeper in auth mode api_key with grants read on every request (no cache to wait out)."""
    return Settings(
        keeper={
            "auth": {
                "mode": "api_key",
                "authz": {"grants_cache_ttl_s": 0, "invisible_kinds": invisible_kinds},
            },
            **keeper,
        }
    )


@pytest.fixture
def keys(supply: Store, principals: Keys) -> Keys:
    """The keys of `make_keys`, whose principals the test's database holds from its template
    (the root conftest.py: making them took longer than many tests)."""
    return principals


@pytest.fixture
def keeper_settings() -> Settings:
    return Settings(keeper={"auth": {"mode": "api_key", "authz": {"grants_cache_ttl_s": 0}}})


@pytest.fixture(autouse=True)
def answers_match_document(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every Keeper a test makes (`create_app`) checks each of its answers against its published
    OpenAPI document, outermost: the whole suite is the test that the document is accurate."""

    def checked(*args: Any, **kwargs: Any) -> FastAPI:
        app = FastAPIOffline(*args, **kwargs)
        build = app.build_middleware_stack

        def stack() -> ASGIApp:
            return AnswersMatchDocument(build(), app)

        app.build_middleware_stack = stack  # type: ignore[method-assign]
        return app

    monkeypatch.setattr(lorebase_keeper.app, "FastAPIOffline", checked)


@pytest.fixture
def keeper(supply: Store, keeper_settings: Settings) -> FastAPI:
    return create_app(keeper_settings, store=supply)


@asynccontextmanager
async def client_of(
    app: ASGIApp, headers: dict[str, str] | None = None
) -> AsyncIterator[httpx.AsyncClient]:
    """An httpx client of `app` in process (ASGI), sending `headers` with every request."""
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(
        transport=transport, base_url="http://keeper.test", headers=headers
    ) as client:
        yield client


@pytest.fixture
def http_headers(keys: Keys) -> dict[str, str]:
    """The headers of `http`'s requests: the admin's key."""
    return Keys.header(keys.admin)


@pytest.fixture
async def http(keeper: FastAPI, http_headers: dict[str, str]) -> AsyncIterator[httpx.AsyncClient]:
    """An admin's client of Keeper (pass other headers to act as someone else)."""
    async with client_of(keeper, http_headers) as client:
        yield client


def wait_until_ready(
    url: str, process: subprocess.Popen[bytes], log: Path, timeout_s: float = 60
) -> httpx.Response:
    """The first answer of GET /readyz of the Keeper process serving `url` (its log in the
    failure when it stops or does not answer within `timeout_s`)."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            return httpx.get(f"{url}/readyz", timeout=1)
        except httpx.TransportError:
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, f"Keeper did not start within {timeout_s:g} s"
            time.sleep(0.2)
