"""Keeper over the supply example, with principals and API keys, driven through httpx.

`keeper` is an ASGI app on a store holding the supply example (both backends). `keys` holds an
API key per principal: `admin` (admin on supply), `viewer` (viewer, no clearances), `supplier`
(viewer narrowed to Supplier), `agent` (editor on agent/* only, viewer on main); the principals
come with the test's database (`lorebase_keeper.testing.make_keys` made them in its template).
"""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
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

EXAMPLE = Path(__file__).parents[3] / "examples" / "supply"


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


@pytest.fixture
async def http(keeper: FastAPI, keys: Keys) -> AsyncIterator[httpx.AsyncClient]:
    """An admin's client of Keeper (pass other headers to act as someone else)."""
    transport = httpx.ASGITransport(app=keeper)
    async with httpx.AsyncClient(
        transport=transport, base_url="http://keeper.test", headers=Keys.header(keys.admin)
    ) as client:
        yield client
