"""A real Keeper on loopback for Herald's tests, and Heralds made against it.

The session's Keeper serves a fresh SQLite file with the supply example, in auth mode
`api_key`, with the agent trace on for requests that opt in (trace_all off), and these
principals (keys in `LiveKeeper.keys`):

- `admin` (usr_admin), `agent` (svc_agent, a service: tasks open Proposals), `reviewer`: the
  principals `make demo` sets up;
- `parts` (usr_parts): a viewer of supply narrowed to the Kind Part.

Herald reaches it over HTTP exactly as in production; its key is a `secret://file` reference.
Tests that write do so through agent tasks (branches of their own) or on branches they create.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import CallToolResult, TextContent
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from lorebase_herald import Herald
from lorebase_keeper.testing import demo_keeper, grant_key
from lorebase_platform.settings import Settings
from lorebase_store import Store

ROOT = Path(__file__).resolve().parents[3]
SUPPLY = ROOT / "examples" / "supply"


@dataclass(frozen=True)
class LiveKeeper:
    url: str
    store: Store
    keys: dict[str, str]
    """API keys by profile: admin, agent, reviewer, parts."""
    key_files: dict[str, Path]
    """The same keys in files, for `secret://file//...` references."""
    head: str
    """The head of supply/main when the session started."""

    def key_ref(self, profile: str) -> str:
        return f"secret://file/{self.key_files[profile]}"


@pytest.fixture(scope="session")
def keeper(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveKeeper]:
    directory = tmp_path_factory.mktemp("keeper")
    keeper = {
        "auth": {"mode": "api_key"},
        "trace": {"enabled": True, "flush_interval_s": 0.05},
        # The session's tests share principals and write faster than the default write burst
        # allows; Keeper's own tests check the limits.
        "rate_limits": {"enabled": False},
    }
    with demo_keeper(SUPPLY, directory, keeper) as live:
        store, keys = live.store, dict(live.keys)
        keys["parts"] = grant_key(
            store, "usr_parts", domain="supply", role="viewer", kinds=["Part"]
        )
        files = {}
        for profile, key in keys.items():
            path = directory / f"{profile}.key"
            path.write_text(key + "\n")
            files[profile] = path
        head = store.log("supply", limit=1)[0].id
        yield LiveKeeper(live.url, store, keys, files, head)


def herald_settings(keeper: LiveKeeper, profile: str | None = "admin", **herald: Any) -> Settings:
    """Settings of a Herald reading `keeper` with the key of `profile` (None: no key)."""
    section: dict[str, Any] = {"keeper": {"base_url": keeper.url}}
    if profile is not None:
        section["keeper"]["api_key"] = keeper.key_ref(profile)
    for name, value in herald.items():
        if isinstance(value, dict) and isinstance(section.get(name), dict):
            section[name].update(value)
        else:
            section[name] = value
    return Settings(herald=section)


@pytest.fixture
async def herald(keeper: LiveKeeper) -> AsyncIterator[Herald]:
    """A Herald with the admin's key."""
    made = Herald(herald_settings(keeper))
    try:
        yield made
    finally:
        await made.aclose()


@pytest.fixture
async def mcp(herald: Herald) -> AsyncIterator[Client]:
    """The SDK's in-memory client of `herald`."""
    async with Client(herald.mcp) as client:
        yield client


@pytest.fixture
def spans() -> InMemorySpanExporter:
    return InMemorySpanExporter()


def text_of(result: CallToolResult) -> str:
    """The Markdown text of a tool result."""
    [content] = result.content
    assert isinstance(content, TextContent)
    return content.text
