"""A real Keeper on loopback for Guide's tests, the scripted model server, and Guides served
against them.

The session's Keeper (`keeper`) serves a fresh SQLite file with the supply example in auth mode
`api_key`, browser sessions on (cookie not Secure, for http://127.0.0.1), the agent trace on for
requests that opt in, and rate limits off (the session's tests share principals). Its principals
(API keys in `LiveKeeper.keys`):

- `admin`, `agent`, `reviewer`: the principals `make demo` sets up (usr_admin ...);
- `suppliers` (usr_suppliers): a viewer of supply narrowed to the Kind Supplier;
- `revoked`: a key of usr_suppliers that is revoked.

Keeper runs behind `Recording`, which keeps the method, path and headers of every request it
gets, so a test can see exactly what Guide forwarded (a layer in front of the real app, not a
mock of it).

`serve_guide(...)` serves Guide's app under uvicorn on loopback with settings for that Keeper and
a scripted model; `guide` is one with the defaults. Tests that need a stand-in for the
exploration loop pass `explorer=`.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from opentelemetry.sdk.trace.export import SpanExporter
from opentelemetry.trace import Tracer
from starlette.types import ASGIApp, Receive, Scope, Send

from lorebase_guide.app import create_app
from lorebase_guide.exploration import Caller, Event, Exploration
from lorebase_guide.service import Explorer
from lorebase_guide.tools import QueryEmbedder
from lorebase_inference import ChatModel
from lorebase_inference.testing import ScriptedModelServer
from lorebase_keeper.testing import demo_keeper, grant_key, serve_in_thread
from lorebase_platform.settings import Settings
from lorebase_platform.telemetry import Metrics
from lorebase_store import Store

ROOT = Path(__file__).resolve().parents[3]
SUPPLY = ROOT / "examples" / "supply"


@dataclass(frozen=True)
class KeeperRequest:
    method: str
    path: str
    headers: dict[str, str]
    """Names lower-cased."""


@dataclass
class Recording:
    """ASGI layer in front of Keeper's app: keeps every request's method, path and headers."""

    app: ASGIApp
    requests: list[KeeperRequest] = field(default_factory=list)
    whoami_delay_s: float = 0.0
    """Seconds GET /api/v1/auth/whoami waits before Keeper answers (a slow Keeper)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = {
                name.decode("latin-1").lower(): value.decode("latin-1")
                for name, value in scope["headers"]
            }
            self.requests.append(KeeperRequest(scope["method"], scope["path"], headers))
            if scope["path"] == "/api/v1/auth/whoami" and self.whoami_delay_s:
                await anyio.sleep(self.whoami_delay_s)
        await self.app(scope, receive, send)


@dataclass(frozen=True)
class LiveKeeper:
    url: str
    store: Store
    keys: dict[str, str]
    """API keys by profile: admin, agent, reviewer, suppliers, revoked."""
    recording: Recording

    def requests_since(self, mark: int) -> list[KeeperRequest]:
        return self.recording.requests[mark:]

    def mark(self) -> int:
        return len(self.recording.requests)


@pytest.fixture(scope="session")
def keeper(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveKeeper]:
    directory = tmp_path_factory.mktemp("guide-keeper")
    keeper = {
        "auth": {"mode": "api_key", "sessions": {"enabled": True}},
        "trace": {"enabled": True, "flush_interval_s": 0.05},
        "rate_limits": {"enabled": False},
    }
    with demo_keeper(SUPPLY, directory, keeper, wrap=Recording) as live:
        assert isinstance(live.app, Recording)
        store, keys = live.store, dict(live.keys)
        keys["suppliers"] = grant_key(
            store, "usr_suppliers", domain="supply", role="viewer", kinds=["Supplier"]
        )
        revoked = store.create_key("usr_suppliers")
        store.revoke_key(revoked.info.id)
        keys["revoked"] = revoked.secret
        yield LiveKeeper(live.url, store, keys, live.app)


@pytest.fixture
def scripted_model() -> Iterator[ScriptedModelServer]:
    """A scripted OpenAI-compatible server (chat, embeddings, models) on loopback."""
    with ScriptedModelServer() as server:
        yield server


def guide_settings(keeper_url: str, model: ScriptedModelServer, **guide: Any) -> Settings:
    """Settings of a Guide reading `keeper_url` with `model` for chat and embeddings; `guide`
    merges into the guide section (`http={"allow_anonymous": True}`)."""
    section: dict[str, Any] = {
        "keeper": {"base_url": keeper_url, "timeout_s": 5},
        "http": {"allowed_origins": ["http://app.example"]},
        "data_dir": str(Path(tempfile.gettempdir()) / "lorebase-guide-tests"),
    }
    for name, value in guide.items():
        if isinstance(value, dict) and isinstance(section.get(name), dict):
            section[name] = {**section[name], **value}
        else:
            section[name] = value
    return Settings(
        guide=section,
        inference={
            "llm": {"base_url": model.base_url, "model": "scripted"},
            "embeddings": {"provider": "endpoint", "base_url": model.base_url},
        },
    )


async def answering_explorer(
    exploration: Exploration,
    caller: Caller,
    *,
    settings: Settings,
    model: ChatModel,
    embedder: QueryEmbedder | None,
    keeper_transport: httpx.AsyncBaseTransport | None = None,
    metrics: Metrics | None = None,
    tracer: Tracer | None = None,
) -> AsyncIterator[Event]:
    """A stand-in of the exploration loop for the HTTP tests: one real model call, then the
    events of a run that found nothing."""
    yield (
        "session",
        {
            "session_id": "guide-0",
            "domain": exploration.domain,
            "branch": exploration.branch,
            "model": model.endpoint.model,
            "max_steps": exploration.max_steps,
        },
    )
    answer = await model.structured(
        [{"role": "user", "content": exploration.question}],
        {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        name="stand_in",
    )
    yield "thought", {"step": 1, "text": str(answer.value["text"])}
    yield "answer", {"text": "Not found in the graph.", "citations": [], "found": False}
    yield (
        "done",
        {
            "session_id": "guide-0",
            "steps": 0,
            "outcome": "not_found",
            "tokens": {"input": 1, "output": 1},
            "elapsed_ms": 1,
        },
    )


@contextmanager
def serve_guide(
    settings: Settings,
    *,
    explorer: Explorer | None = answering_explorer,
    span_exporters: Sequence[SpanExporter] = (),
) -> Iterator[str]:
    """Guide's app for `settings` under uvicorn on loopback; yields its URL."""
    app = create_app(settings, explorer=explorer, span_exporters=span_exporters)
    with serve_in_thread(app, name="guide") as url:
        yield url


@pytest.fixture
def guide(keeper: LiveKeeper, scripted_model: ScriptedModelServer) -> Iterator[str]:
    """A Guide with the default limits, reading `keeper`, its model `scripted_model`."""
    with serve_guide(guide_settings(keeper.url, scripted_model)) as url:
        yield url


def events_of(text: str) -> list[tuple[str, dict[str, Any]]]:
    """The (name, data) pairs of a text/event-stream body."""
    found: list[tuple[str, dict[str, Any]]] = []
    for block in text.split("\n\n"):
        if not block.strip():
            continue
        lines = dict(line.split(": ", 1) for line in block.splitlines())
        found.append((lines["event"], json.loads(lines["data"])))
    return found
