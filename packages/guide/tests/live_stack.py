"""What the cross-cutting tests of Guide watch a real stack with (no mocks of our components).

- `RecordingApp` wraps Keeper's ASGI app and records every request it serves (method, path,
  the headers Guide sent), so a test sees exactly what reached Keeper.
- `Canary` is an HTTP server on loopback that no request may ever reach: its URL sits in
  hostile data.
- `connections()` records every outgoing socket connection of the process (a `socket.connect`
  audit hook), so a test can check that nothing but Keeper and the model server was reached.
- `read_events` reads Guide's server-sent events the way a browser's stream reader does: bytes
  split at blank lines, `event:` and `data:` fields, JSON data.
- `domain_rows` is every row of every table a write would change (Records, Links, Revisions,
  branches, Proposals, invocations ...), to compare before and after.
"""

from __future__ import annotations

import json
import re
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lorebase_store import Store
from lorebase_store.testing import every_row

# -- what reached Keeper -------------------------------------------------------------------------


@dataclass(frozen=True)
class SeenRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: bytearray = field(default_factory=bytearray)
    """The request body, as Keeper read it."""


class RecordingApp:
    """An ASGI app that records each HTTP request (and its body), then lets `app` answer it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.seen: list[SeenRequest] = []
        self._lock = threading.Lock()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {
            name.decode("latin-1").lower(): value.decode("latin-1")
            for name, value in scope["headers"]
        }
        seen = SeenRequest(scope["method"], scope["path"], headers)
        with self._lock:
            self.seen.append(seen)

        async def recording_receive() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                seen.body.extend(message.get("body", b""))
            return message

        await self.app(scope, recording_receive, send)

    def since(self, mark: int) -> list[SeenRequest]:
        with self._lock:
            return self.seen[mark:]

    @property
    def mark(self) -> int:
        with self._lock:
            return len(self.seen)


_DOMAIN_READ_POSTS = ("context", "query", "traverse", "neighborhood", "resolve", "search")
READ_POST = re.compile(
    r"^/api/v1/domains/[^/]+/(?:" + "|".join(_DOMAIN_READ_POSTS) + r")$"
    r"|^/api/v1/trace/sessions/[^/]+/notes$"
)
"""The POST routes of Keeper that only read (and the trace notes route)."""


def writes_among(seen: list[SeenRequest]) -> list[str]:
    """The requests of `seen` that are not reads: any method but GET/HEAD, any POST but the
    read routes and the trace notes."""
    return [
        f"{request.method} {request.path}"
        for request in seen
        if request.method not in {"GET", "HEAD"}
        and not (request.method == "POST" and READ_POST.match(request.path))
    ]


# -- the loopback server nobody may call ---------------------------------------------------------


class Canary:
    """An HTTP server on 127.0.0.1 counting the requests it gets (there must be none)."""

    def __init__(self) -> None:
        self.hits: list[str] = []
        canary = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                canary.hits.append(self.path)
                self.send_response(200)
                self.end_headers()

            do_POST = do_GET

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    def __enter__(self) -> Canary:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()


# -- every connection the process opens ----------------------------------------------------------


@dataclass
class _ConnectionLog:
    active: bool = False
    addresses: list[tuple[str, int]] = field(default_factory=list)


_LOG = _ConnectionLog()
_HOOKED = False


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event == "socket.connect" and _LOG.active:
        address = args[1]
        if isinstance(address, tuple) and len(address) >= 2:
            _LOG.addresses.append((str(address[0]), int(address[1])))
        else:
            _LOG.addresses.append((str(address), 0))


@contextmanager
def connections() -> Iterator[list[tuple[str, int]]]:
    """The (host, port) of every socket connection the process opens meanwhile."""
    global _HOOKED
    if not _HOOKED:
        # An audit hook cannot be removed: it is added once and switched on and off.
        sys.addaudithook(_audit)
        _HOOKED = True
    _LOG.addresses = []
    _LOG.active = True
    try:
        yield _LOG.addresses
    finally:
        _LOG.active = False


# -- server-sent events as a browser reads them --------------------------------------------------


Event = tuple[str, dict[str, Any]]


def parse_events(body: bytes) -> list[Event]:
    """The events of a `text/event-stream` body: blocks split at blank lines, each with an
    `event:` name (default `message`) and `data:` lines joined by newlines, parsed as JSON."""
    events: list[Event] = []
    text = body.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    for block in text.split("\n\n"):
        name, data = "message", []
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            field_name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field_name == "event":
                name = value
            elif field_name == "data":
                data.append(value)
        if data:
            events.append((name, json.loads("\n".join(data))))
    return events


def read_events(
    guide_url: str,
    body: dict[str, Any],
    headers: dict[str, str],
    *,
    timeout_s: float = 60.0,
) -> tuple[httpx.Response, list[Event]]:
    """POST /explore and read the stream chunk by chunk to its end (as fetch + a reader do)."""
    chunks: list[bytes] = []
    with (
        httpx.Client(timeout=timeout_s) as client,
        client.stream("POST", f"{guide_url}/explore", json=body, headers=headers) as response,
    ):
        for chunk in response.iter_bytes():
            chunks.append(chunk)
    events = parse_events(b"".join(chunks)) if response.status_code == 200 else []
    return response, events


# -- what a write would change -------------------------------------------------------------------

READ_TOUCHED = frozenset(
    {
        "agent_trace_sessions",
        "agent_trace_steps",
        "agent_trace_session_domains",
        "read_audit",
        "audit_log",
        "rate_windows",
        "resolve_misses",
        "resolve_miss_quotas",
        "api_keys",
        "statistics",
    }
)
"""Tables a read may change: the trace, audits, rate windows, resolve misses, a key's last use."""


def domain_rows(store: Store) -> dict[str, list[str]]:
    """Every row of every table a write changes (Records, Links, Revisions, branches, events,
    Proposals, invocations, grants ...): equal before and after means nothing was written."""
    return {name: rows for name, rows in every_row(store).items() if name not in READ_TOUCHED}


def changed_tables(before: dict[str, list[str]], after: dict[str, list[str]]) -> list[str]:
    return sorted(
        name for name in before.keys() | after.keys() if before.get(name) != after.get(name)
    )
