"""What Herald tells the agent trace: session id, tool name, traceparent, opt-in; nothing when
tracing is off."""

from __future__ import annotations

import uuid

import pytest
from mcp import Client
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from lorebase_herald import Herald
from lorebase_keeper.app import create_app
from lorebase_keeper.testing import grant_key, serve_in_thread, wait_for_session
from lorebase_platform.settings import Settings
from lorebase_store import SessionVisibility

from .conftest import LiveKeeper, herald_settings

pytestmark = pytest.mark.anyio

RECORD = {"domain": "supply", "kind": "Supplier", "key": "S-1001"}


def session() -> str:
    return f"herald-{uuid.uuid4().hex[:12]}"


async def test_each_call_names_its_session_and_tool_and_is_a_child_span(
    keeper: LiveKeeper, spans: InMemorySpanExporter
) -> None:
    name = session()
    settings = herald_settings(keeper, trace={"session_id": name, "opt_in": True})
    herald = Herald(settings, span_exporters=[spans])
    try:
        async with Client(herald.mcp) as client:
            await client.call_tool("lorebase_record", RECORD)
            await client.call_tool("lorebase_query", {"domain": "supply", "kind": "Plant"})
    finally:
        await herald.aclose()
    traced = wait_for_session(keeper.store, "usr_admin", name, 2)
    assert [step.tool for step in traced.steps] == ["lorebase_record", "lorebase_query"]
    finished = spans.get_finished_spans()
    tools = {span.name: span for span in finished if span.name.startswith("lorebase_")}
    requests = [span for span in finished if span.name.startswith("keeper ")]
    assert set(tools) == {"lorebase_record", "lorebase_query"}
    assert len(requests) == 2
    for request in requests:
        assert request.parent is not None
        parents = [
            tool for tool in tools.values() if tool.context.span_id == request.parent.span_id
        ]
        assert len(parents) == 1
    by_trace = {format(span.context.trace_id, "032x") for span in tools.values()}
    assert {step.trace_id for step in traced.steps} == by_trace


async def test_a_callers_trace_context_is_continued(
    keeper: LiveKeeper, spans: InMemorySpanExporter
) -> None:
    name = session()
    caller = uuid.uuid4().hex
    herald = Herald(
        herald_settings(keeper, trace={"session_id": name, "opt_in": True}), span_exporters=[spans]
    )
    try:
        async with Client(herald.mcp) as client:
            await client.call_tool(
                "lorebase_record", RECORD, meta={"traceparent": f"00-{caller}-{'1' * 16}-01"}
            )
    finally:
        await herald.aclose()
    traced = wait_for_session(keeper.store, "usr_admin", name, 1)
    assert traced.steps[0].trace_id == caller


async def test_without_opt_in_keeper_is_not_asked_to_trace(keeper: LiveKeeper) -> None:
    quiet, loud = session(), session()
    herald_quiet = Herald(herald_settings(keeper, trace={"session_id": quiet}))
    herald_loud = Herald(herald_settings(keeper, trace={"session_id": loud, "opt_in": True}))
    try:
        async with Client(herald_quiet.mcp) as client:
            await client.call_tool("lorebase_record", RECORD)
        async with Client(herald_loud.mcp) as client:
            await client.call_tool("lorebase_record", RECORD)
    finally:
        await herald_quiet.aclose()
        await herald_loud.aclose()
    wait_for_session(keeper.store, "usr_admin", loud, 1)
    assert keeper.store.trace_session("usr_admin", quiet) is None


async def test_with_tracing_off_no_trace_header_is_sent(keeper: LiveKeeper) -> None:
    """A Keeper tracing everything shows what arrived: no session, no tool, no traceparent."""
    settings = Settings(
        keeper={
            "auth": {"mode": "api_key"},
            "trace": {"enabled": True, "trace_all": True, "flush_interval_s": 0.05},
        }
    )
    app = create_app(settings, store=keeper.store)
    key = grant_key(keeper.store, "usr_quiet", domain="supply", role="viewer")
    path = keeper.key_files["admin"].with_name("quiet.key")
    path.write_text(key)
    with serve_in_thread(app) as url:
        herald = Herald(
            Settings(
                herald={
                    "keeper": {"base_url": url, "api_key": f"secret://file/{path}"},
                    "trace": {"enabled": False, "session_id": "never-sent", "opt_in": True},
                }
            )
        )
        try:
            async with Client(herald.mcp) as client:
                await client.call_tool("lorebase_record", RECORD)
        finally:
            await herald.aclose()
        app.state.keeper.recorder.flush()
    assert keeper.store.trace_session("usr_quiet", "never-sent") is None
    page = keeper.store.trace_sessions(
        visibility=SessionVisibility(own="usr_quiet", others_in=frozenset(), others_outside=False),
        limit=10,
    )
    assert len(page.sessions) == 1
    inferred = keeper.store.trace_session("usr_quiet", page.sessions[0].session_id)
    assert inferred is not None
    assert inferred.inferred
    assert [(step.tool, step.trace_id) for step in inferred.steps] == [(None, None)]
