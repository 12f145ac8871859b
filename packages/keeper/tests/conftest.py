"""Keeper over the supply example, with principals and API keys, driven through httpx.

`keeper` is an ASGI app on a store holding the supply example (both backends). `keys` holds an
API key per principal: `admin` (admin on supply), `viewer` (viewer, no clearances), `supplier`
(viewer narrowed to Supplier), `agent` (editor on agent/* only, viewer on main).
"""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass
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
from lorebase_platform.settings import Settings
from lorebase_store import Store, import_directory


@dataclass(frozen=True)
class Keys:
    admin: str
    viewer: str
    supplier: str
    agent: str

    @staticmethod
    def header(key: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {key}"}


def make_keys(store: Store) -> Keys:
    def principal(name: str, kind: str = "user") -> str:
        store.ensure_principal(name, principal_type="service" if kind == "service" else "user")
        return store.create_key(name).secret

    keys = Keys(
        principal("usr_admin"),
        principal("usr_viewer"),
        principal("usr_supplier"),
        principal("svc_agent", "service"),
    )
    store.add_grant("usr_admin", domain="supply", role="admin")
    store.add_grant("usr_viewer", domain="supply", role="viewer")
    store.add_grant("usr_supplier", domain="supply", role="viewer", kinds=["Supplier"])
    store.add_grant("svc_agent", domain="supply", role="viewer", branch="main")
    store.add_grant("svc_agent", domain="supply", role="editor", branch="agent/*")
    return keys


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
def keys(supply: Store) -> Keys:
    return make_keys(supply)


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
