"""Herald over Streamable HTTP with a real HTTP client: the caller's credential, sessions,
DNS-rebinding protection and a Herald that insists on the caller's own credential."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from lorebase_herald import Herald, http_app
from lorebase_keeper.testing import serve_in_thread, wait_for_session
from lorebase_store import SessionVisibility

from .conftest import LiveKeeper, herald_settings, text_of

pytestmark = pytest.mark.anyio


@contextmanager
def herald_over_http(
    keeper: LiveKeeper, profile: str | None = "admin", **herald: Any
) -> Iterator[str]:
    """A Herald served by uvicorn on loopback; yields the MCP endpoint's URL."""
    made = Herald(herald_settings(keeper, profile, **herald))
    with serve_in_thread(http_app(made), name="herald") as url:
        yield f"{url}/mcp"


@asynccontextmanager
async def mcp_over_http(url: str, **headers: str) -> AsyncIterator[Client]:
    async with (
        httpx2.AsyncClient(headers=headers) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        yield client


async def test_the_callers_own_key_is_forwarded_and_never_widened(keeper: LiveKeeper) -> None:
    with herald_over_http(keeper, "admin") as url:
        async with mcp_over_http(url, Authorization=f"Bearer {keeper.keys['parts']}") as client:
            suppliers = await client.call_tool(
                "lorebase_query", {"domain": "supply", "kind": "Supplier"}
            )
            parts = await client.call_tool("lorebase_search", {"domain": "supply", "q": "bearing"})
            schema = await client.call_tool("lorebase_schema", {"domain": "supply"})
        async with mcp_over_http(url) as client:
            own = await client.call_tool("lorebase_query", {"domain": "supply", "kind": "Supplier"})
    assert suppliers.is_error
    assert "Supplier" in text_of(suppliers)
    assert not parts.is_error
    assert parts.structured_content is not None
    hits = parts.structured_content["result"]["hits"]
    assert hits
    assert {hit["kind"] for hit in hits} == {"Part"}
    assert schema.structured_content is not None
    assert [kind["name"] for kind in schema.structured_content["result"]["kinds"]] == ["Part"]
    assert not own.is_error, "without its own key the caller reads with Herald's"


async def test_without_forwarding_herald_reads_with_its_own_key(keeper: LiveKeeper) -> None:
    with herald_over_http(keeper, "admin", http={"forward_authorization": False}) as url:
        async with mcp_over_http(url, Authorization=f"Bearer {keeper.keys['parts']}") as client:
            result = await client.call_tool(
                "lorebase_query", {"domain": "supply", "kind": "Supplier", "limit": 1}
            )
    assert not result.is_error


async def test_a_herald_that_requires_the_callers_key_refuses_requests_without_one(
    keeper: LiveKeeper,
) -> None:
    with herald_over_http(keeper, None, http={"require_authorization": True}) as url:
        response = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
        async with mcp_over_http(url, Authorization=f"Bearer {keeper.keys['parts']}") as client:
            result = await client.call_tool("lorebase_schema", {"domain": "supply"})
    assert response.status_code == 401
    assert response.headers["content-type"] == "application/problem+json"
    assert "Authorization: Bearer" in response.json()["detail"]
    assert not result.is_error


async def test_a_foreign_host_or_origin_is_refused(keeper: LiveKeeper) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    headers = {"accept": "application/json, text/event-stream"}
    with herald_over_http(keeper) as url:
        host = httpx.post(url, json=body, headers={**headers, "host": "evil.example"})
        origin = httpx.post(url, json=body, headers={**headers, "origin": "http://evil.example"})
    assert host.status_code in (400, 421)
    assert origin.status_code == 403


async def test_the_session_header_of_the_mcp_client_names_keepers_session(
    keeper: LiveKeeper,
) -> None:
    with herald_over_http(keeper) as url:
        async with mcp_over_http(
            url, **{"X-Lorebase-Session": "http-client-7", "X-Lorebase-Trace": "on"}
        ) as client:
            result = await client.call_tool(
                "lorebase_record", {"domain": "supply", "kind": "Supplier", "key": "S-1002"}
            )
    assert not result.is_error
    session = wait_for_session(keeper.store, "usr_admin", "http-client-7", 1)
    assert [step.tool for step in session.steps] == ["lorebase_record"]


def _rpc(http: httpx.Client, url: str, message: dict[str, Any], **headers: str) -> httpx.Response:
    accept = {"accept": "application/json, text/event-stream", **headers}
    return http.post(url, json={"jsonrpc": "2.0", **message}, headers=accept)


async def test_stateful_http_traces_the_mcp_session(keeper: LiveKeeper) -> None:
    initialize = {
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw-http", "version": "1"},
        },
    }
    call = {
        "id": 2,
        "method": "tools/call",
        "params": {"name": "lorebase_health", "arguments": {"domain": "supply", "kind": "Plant"}},
    }
    with herald_over_http(keeper, trace={"opt_in": True}) as url, httpx.Client() as http:
        opened = _rpc(http, url, initialize)
        session = opened.headers["mcp-session-id"]
        version = {"mcp-session-id": session, "mcp-protocol-version": "2025-06-18"}
        _rpc(http, url, {"method": "notifications/initialized"}, **version)
        answered = _rpc(http, url, call, **version)
    assert answered.status_code == 200
    assert "lorebase_health" not in answered.text or "isError" in answered.text
    traced = wait_for_session(keeper.store, "usr_admin", session, 1)
    assert [step.tool for step in traced.steps] == ["lorebase_health"]


async def test_stateless_http_serves_every_request_alone_and_sends_no_session(
    keeper: LiveKeeper,
) -> None:
    call = {
        "id": 1,
        "method": "tools/call",
        "params": {"name": "lorebase_health", "arguments": {"domain": "supply", "kind": "Plant"}},
    }
    with (
        herald_over_http(keeper, http={"stateless": True}, trace={"opt_in": True}) as url,
        httpx.Client() as http,
    ):
        answered = _rpc(http, url, call, **{"mcp-protocol-version": "2025-06-18"})
    assert answered.status_code == 200, answered.text
    assert "mcp-session-id" not in answered.headers
    assert "isError" not in answered.text or '"isError":false' in answered.text
    assert "Plant" in answered.text
    deadline = time.monotonic() + 60
    while True:
        page = keeper.store.trace_sessions(
            visibility=SessionVisibility(
                own="usr_admin", others_in=frozenset(), others_outside=False
            ),
            limit=50,
        )
        inferred = [
            keeper.store.trace_session("usr_admin", summary.session_id)
            for summary in page.sessions
            if summary.inferred
        ]
        tools = {step.tool for found in inferred if found for step in found.steps}
        if "lorebase_health" in tools or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert "lorebase_health" in tools, "Keeper inferred the session of a call that named none"
