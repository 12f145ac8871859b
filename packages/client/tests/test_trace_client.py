"""The agent trace in the client: its headers, `client.trace`, `client.audit`, and the CLI.

The headers are checked on the requests the client sends (httpx.MockTransport records them);
the routes against a Keeper on loopback over a store of its own, where `svc_agent`'s session
`agent-42` was written with `Store.write_trace` (the recorder's batch write) and a read with
`Store.write_read_audit`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner, Result
from packages.client.tests.conftest import SUPPLY, serve_in_thread

from lorebase_client import AsyncLorebaseClient, LorebaseClient
from lorebase_client.cli import main
from lorebase_core.errors import Forbidden, InvalidInput, TraceSessionNotFound
from lorebase_keeper.app import create_app
from lorebase_keeper.testing import grant_key
from lorebase_platform.settings import Settings
from lorebase_store import ReadAuditEntry, Store, TraceStep, import_directory

SESSION = "agent-42"
TRACE_HEADERS = ("X-Lorebase-Session", "X-Lorebase-Trace", "X-Lorebase-Tool")


@dataclass(frozen=True)
class TraceKeeper:
    url: str
    admin_key: str
    agent_key: str
    viewer_key: str


def _steps() -> list[TraceStep]:
    common = {"principal": "svc_agent", "session_id": SESSION, "client": "c" * 64}
    return [
        TraceStep(
            **common,  # type: ignore[arg-type]
            domain="supply",
            at="2026-12-01T10:00:00Z",
            tool="lorebase_search",
            method="POST",
            route="/api/v1/domains/{domain}/search",
            status=200,
            latency_ms=12.5,
            cache="miss",
            query={"body": {"q": "bearing"}, "params": {}},
            result={"counts": {"hits": 2}, "mode": "lexical"},
            refs=[
                {"kind": "Part", "key": "P-10028"},
                {"kind": "Supplier", "key": "S-1001"},
                {"relation": "supplied_by", "from": "Part/P-10028", "to": "Supplier/S-1001"},
            ],
        ),
        TraceStep(
            **common,  # type: ignore[arg-type]
            domain="supply",
            at="2026-12-01T10:00:01Z",
            type="note",
            note="checking suppliers next",
            note_step=1,
        ),
    ]


@pytest.fixture(scope="module")
def trace_keeper(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TraceKeeper]:
    directory: Path = tmp_path_factory.mktemp("trace-keeper")
    store = Store.open(f"sqlite:///{directory / 'lorebase.sqlite'}")
    try:
        import_directory(store, SUPPLY)
        keys = {
            name: grant_key(store, name, domain="supply", role=role)
            for name, role in (
                ("usr_admin", "admin"),
                ("svc_agent", "viewer"),
                ("usr_viewer", "viewer"),
            )
        }
        store.write_trace(_steps(), max_steps_per_session=2000, inferred_idle_s=300)
        store.write_read_audit(
            [
                ReadAuditEntry(
                    principal="svc_agent",
                    route="/api/v1/domains/{domain}/search",
                    domain="supply",
                    branch="main",
                    revision=None,
                    refs=[{"kind": "Supplier", "key": "S-1001"}],
                    status=200,
                    at="2026-12-01T10:00:00Z",
                )
            ]
        )
        app = create_app(Settings(keeper={"auth": {"mode": "api_key"}}), store=store)
        with serve_in_thread(app) as url:
            yield TraceKeeper(url, keys["usr_admin"], keys["svc_agent"], keys["usr_viewer"])
    finally:
        store.close()


# -- the headers ------------------------------------------------------------------------------


def _recording(seen: list[httpx.Request]) -> httpx.MockTransport:
    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"recorded": True, "domains": []})

    return httpx.MockTransport(handler)


def test_the_trace_headers_go_with_every_call() -> None:
    seen: list[httpx.Request] = []
    with LorebaseClient(
        "http://keeper.test",
        session_id=SESSION,
        trace="on",
        tool="my-agent",
        transport=_recording(seen),
    ) as client:
        client.domains()
        client.search("supply", "bearing")
        assert client.trace.add_note(SESSION, "checking suppliers next", domain_id="supply")
    assert len(seen) == 3
    for request in seen:
        assert [request.headers.get(name) for name in TRACE_HEADERS] == [
            SESSION,
            "on",
            "my-agent",
        ]
    note = seen[2]
    assert (note.method, note.url.path) == ("POST", f"/api/v1/trace/sessions/{SESSION}/notes")
    assert json.loads(note.content) == {"text": "checking suppliers next", "domain_id": "supply"}


@pytest.mark.anyio
async def test_the_async_client_sends_them_too_and_none_without_them() -> None:
    seen: list[httpx.Request] = []

    async def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"recorded": False})

    transport = httpx.MockTransport(handler)
    async with AsyncLorebaseClient(
        "http://keeper.test", session_id="s:1.a_b-c", trace="debug", transport=transport
    ) as client:
        assert await client.trace.add_note("s:1.a_b-c", "x", step=2) is False
    async with AsyncLorebaseClient("http://keeper.test", transport=transport) as client:
        await client.domains()
    traced, plain = seen
    assert traced.headers["X-Lorebase-Session"] == "s:1.a_b-c"
    assert traced.headers["X-Lorebase-Trace"] == "debug"
    assert "X-Lorebase-Tool" not in traced.headers
    assert json.loads(traced.content) == {"text": "x", "step": 2}
    assert not any(name in plain.headers for name in TRACE_HEADERS)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"session_id": ""}, "session_id"),
        ({"session_id": "a" * 129}, "session_id"),
        ({"session_id": "two words"}, "session_id"),
        ({"trace": "off"}, "trace"),
        ({"tool": "naïve\n"}, "tool"),
    ],
)
def test_a_session_id_keeper_would_not_take_is_refused(
    arguments: dict[str, str], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        LorebaseClient("http://keeper.test", **arguments)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=message):
        AsyncLorebaseClient("http://keeper.test", **arguments)  # type: ignore[arg-type]


# -- the routes -------------------------------------------------------------------------------


def test_sessions_timelines_and_notes(trace_keeper: TraceKeeper) -> None:
    with LorebaseClient(trace_keeper.url, api_key=trace_keeper.agent_key) as agent:
        page = agent.trace.sessions()
        assert [summary["session_id"] for summary in page["sessions"]] == [SESSION]
        assert page["next_cursor"] is None
        timeline = agent.trace.session(SESSION)
        assert [step["type"] for step in timeline["steps"]] == ["call", "note"]
        assert timeline["steps"][1]["note"] == "checking suppliers next"
        assert agent.trace.add_note(SESSION, "more", step=1, domain_id="supply") is False
        with pytest.raises(InvalidInput) as refused:
            agent.trace.add_note(SESSION, "x" * 4001)
        assert refused.value.issues[0].path == "text"
        with pytest.raises(TraceSessionNotFound):
            agent.trace.session("no-such-session")
    with LorebaseClient(trace_keeper.url, api_key=trace_keeper.admin_key) as admin:
        seen = admin.trace.session(SESSION, actor="svc_agent")
        assert seen["principal"] == "svc_agent"
        assert len(admin.trace.sessions(actor="svc_agent", domain_id="supply")["sessions"]) == 1
    with (
        LorebaseClient(trace_keeper.url, api_key=trace_keeper.viewer_key) as viewer,
        pytest.raises(TraceSessionNotFound),
    ):
        viewer.trace.session(SESSION, actor="svc_agent")


@pytest.mark.anyio
async def test_the_async_sub_api_and_the_audit(trace_keeper: TraceKeeper) -> None:
    async with AsyncLorebaseClient(trace_keeper.url, api_key=trace_keeper.admin_key) as admin:
        timeline = await admin.trace.session(SESSION, actor="svc_agent")
        assert len(timeline["steps"]) == 2
        assert (await admin.trace.sessions(limit=1))["sessions"][0]["session_id"] == SESSION
        audit = await admin.audit("supply", kind="read")
        assert [entry["principal"] for entry in audit["entries"]] == ["svc_agent"]
    with LorebaseClient(trace_keeper.url, api_key=trace_keeper.admin_key) as admin:
        assert admin.audit("supply", principal="svc_agent", since="2026-01-01T00:00:00Z")["entries"]
    with (
        LorebaseClient(trace_keeper.url, api_key=trace_keeper.viewer_key) as viewer,
        pytest.raises(Forbidden),
    ):
        viewer.audit("supply")


# -- the CLI ----------------------------------------------------------------------------------


def _run(trace_keeper: TraceKeeper, key: str, *args: str) -> Result:
    env = {"LOREBASE_URL": trace_keeper.url, "LOREBASE_API_KEY": key, "LOREBASE_DOMAIN": None}
    return CliRunner().invoke(main, list(args), env=env)


def test_lorebase_trace_list_and_show(trace_keeper: TraceKeeper) -> None:
    listed = _run(trace_keeper, trace_keeper.agent_key, "trace", "list")
    assert listed.exit_code == 0, listed.output
    header, row = listed.stdout.splitlines()[:2]
    assert header.split()[:3] == ["SESSION", "PRINCIPAL", "DOMAIN"]
    assert row.split()[:3] == [SESSION, "svc_agent", "supply"]
    shown = _run(trace_keeper, trace_keeper.agent_key, "trace", "show", SESSION)
    assert shown.exit_code == 0, shown.output
    lines = shown.stdout.splitlines()
    assert lines[0] == f"session {SESSION} of svc_agent"
    call = next(line for line in lines if line.startswith("#1 "))
    for part in (
        "2026-12-01T10:00:00Z",
        "[supply]",
        "lorebase_search",
        "POST /api/v1/domains/{domain}/search",
        "200",
        "12.5 ms",
        "miss",
        "hits=2",
        "refs 3",
    ):
        assert part in call, part
    assert "#2  2026-12-01T10:00:01Z  [supply]  note (about #1): checking suppliers next" in lines
    raw = _run(
        trace_keeper,
        trace_keeper.admin_key,
        "trace",
        "show",
        SESSION,
        "--actor",
        "svc_agent",
        "--json",
    )
    assert raw.exit_code == 0, raw.output
    assert json.loads(raw.stdout)["session_id"] == SESSION
    as_json = _run(trace_keeper, trace_keeper.agent_key, "trace", "list", "--json")
    assert json.loads(as_json.stdout)["sessions"][0]["session_id"] == SESSION


def test_lorebase_trace_show_of_an_unknown_session_and_an_empty_list(
    trace_keeper: TraceKeeper,
) -> None:
    missing = _run(trace_keeper, trace_keeper.viewer_key, "trace", "show", SESSION)
    assert missing.exit_code == 1
    assert "[trace-session-not-found]" in missing.stderr
    empty = _run(trace_keeper, trace_keeper.viewer_key, "trace", "list")
    assert empty.exit_code == 0, empty.output
    assert "(no sessions you may see)" in empty.stdout


def test_lorebase_audit(trace_keeper: TraceKeeper) -> None:
    result = _run(
        trace_keeper, trace_keeper.admin_key, "audit", "supply", "--kind", "read", "--limit", "5"
    )
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["domain"] == "supply"
    assert [entry["kind"] for entry in document["entries"]] == ["read"]
    refused = _run(trace_keeper, trace_keeper.viewer_key, "audit", "supply")
    assert refused.exit_code == 1
    assert "[forbidden]" in refused.stderr


# -- the spec's example, end to end -----------------------------------------------------------


@pytest.fixture(scope="module")
def recording_keeper(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TraceKeeper]:
    """A Keeper on loopback with the agent trace on (opt-in by header, the default)."""
    directory: Path = tmp_path_factory.mktemp("recording-keeper")
    store = Store.open(f"sqlite:///{directory / 'lorebase.sqlite'}")
    try:
        import_directory(store, SUPPLY)
        keys = {
            name: grant_key(store, name, domain="supply", role=role)
            for name, role in (("usr_admin", "admin"), ("svc_agent", "viewer"))
        }
        settings = Settings(
            keeper={
                "auth": {"mode": "api_key"},
                "trace": {"enabled": True, "flush_interval_s": 0.05},
            }
        )
        with serve_in_thread(create_app(settings, store=store)) as url:
            yield TraceKeeper(url, keys["usr_admin"], keys["svc_agent"], keys["usr_admin"])
    finally:
        store.close()


def _timeline(client: LorebaseClient, session: str, steps: int) -> dict[str, Any]:
    """The session once the background writer has written `steps` steps of it."""
    deadline = time.monotonic() + 60
    while True:
        try:
            timeline = client.trace.session(session)
            if len(timeline["steps"]) >= steps:
                return timeline
        except TraceSessionNotFound:
            pass
        assert time.monotonic() < deadline, f"{session}: {steps} steps not written within 60 s"
        time.sleep(0.05)


def test_the_spec_example_as_written(recording_keeper: TraceKeeper) -> None:
    base_url, key = recording_keeper.url, recording_keeper.agent_key
    client = LorebaseClient(
        base_url, api_key=key, session_id="agent-42", trace="on", tool="my-agent"
    )
    client.search("supply", q="bearing")  # traced under agent-42
    client.trace.add_note("agent-42", "checking suppliers next", domain_id="supply")
    timeline = _timeline(client, "agent-42", 2)
    client.close()
    search, note = timeline["steps"]
    assert (search["type"], search["tool"], search["method"]) == ("call", "my-agent", "POST")
    assert search["route"] == "/api/v1/domains/{domain}/search"
    assert search["query"]["body"]["q"] == "bearing"
    assert search["refs"], "the search touched Records"
    assert (note["type"], note["note"], note["domain_id"]) == (
        "note",
        "checking suppliers next",
        "supply",
    )
    assert timeline["principal"] == "svc_agent"
    assert timeline["inferred"] is False


@pytest.mark.anyio
async def test_the_async_client_traces_its_calls_too(recording_keeper: TraceKeeper) -> None:
    async with AsyncLorebaseClient(
        recording_keeper.url,
        api_key=recording_keeper.admin_key,
        session_id="s:1.a_b-c",
        trace="debug",
    ) as client:
        await client.query(
            "supply", {"kind": "Supplier", "where": {"attr": "tier", "op": "eq", "value": 1}}
        )
        assert await client.trace.add_note("s:1.a_b-c", "x", step=1)
    with LorebaseClient(recording_keeper.url, api_key=recording_keeper.admin_key) as reader:
        query, note = _timeline(reader, "s:1.a_b-c", 2)["steps"]
    assert query["tool"] is None
    assert query["query"]["body"]["where"]["value"] == 1
    assert query["explain"], "an admin holds trace.explain: debug records plans"
    assert (note["note"], note["note_step"]) == ("x", 1)
