"""The agent trace's recording (docs/trace.md): which requests become steps, and what a step holds.

Every case drives a real Keeper (ASGI over httpx, both backends) and reads back what the
background writer wrote, through the store: the contract table of the spec, the field table,
the decision rules of its "Settings", inferred sessions, the cap, and the drop counters.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from packages.keeper.tests.conftest import client_of

from lorebase_core.values import format_datetime
from lorebase_keeper.app import create_app
from lorebase_keeper.testing import Keys
from lorebase_keeper.trace.recorder import DROPPED, RECORDED
from lorebase_platform.settings import Settings
from lorebase_store import Store, StoredStep, TraceStep

pytestmark = pytest.mark.anyio

API = "/api/v1/domains/supply"
TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def settings_with(**trace: Any) -> Settings:
    return Settings(
        keeper={
            "auth": {"mode": "api_key", "authz": {"grants_cache_ttl_s": 0}},
            "trace": {"enabled": True, "flush_interval_s": 0.05, **trace},
        }
    )


class Traced:
    """A Keeper with the given keeper.trace settings, and the steps its writer wrote."""

    def __init__(self, app: FastAPI, store: Store, keys: Keys) -> None:
        self.app = app
        self.store = store
        self.keys = keys
        self.http = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://keeper.test"
        )

    def headers(self, key: str | None = None, **extra: str) -> dict[str, str]:
        return {**Keys.header(key or self.keys.admin), **extra}

    def flush(self) -> None:
        assert self.app.state.keeper.recorder.flush(10)

    def steps(self, session_id: str, principal: str = "usr_admin") -> list[StoredStep]:
        self.flush()
        session = self.store.trace_session(principal, session_id)
        return session.steps if session is not None else []

    def sessions(self, principal: str) -> list[Any]:
        self.flush()
        return self.store.trace_sessions(
            visibility=_everything(principal), actor=principal, limit=100
        ).sessions

    def metric(self, name: str, **attributes: str) -> int:
        return int(self.app.state.metrics.value(name, attributes or None))


def _everything(principal: str) -> Any:
    from lorebase_store import SessionVisibility

    return SessionVisibility(own=principal, others_in=None, others_outside=True)


@pytest.fixture
async def traced(supply: Store, keys: Keys) -> AsyncIterator[Callable[..., Traced]]:
    made: list[Traced] = []

    def make(**trace: Any) -> Traced:
        found = Traced(create_app(settings_with(**trace), store=supply), supply, keys)
        made.append(found)
        return found

    yield make
    for found in made:
        await found.http.aclose()
        found.app.state.keeper.recorder.close()


def opt_in(session: str | None = "agent-42", value: str = "on", **extra: str) -> dict[str, str]:
    headers = {"X-Lorebase-Trace": value, **extra}
    if session is not None:
        headers["X-Lorebase-Session"] = session
    return headers


# -- the contract table ------------------------------------------------------------------------


async def test_an_opted_in_call_is_a_step_with_every_field(traced: Callable[..., Traced]) -> None:
    keeper = traced()
    headers = keeper.headers(
        **opt_in(), **{"X-Lorebase-Tool": "lorebase_search", "traceparent": TRACEPARENT}
    )
    response = await keeper.http.post(f"{API}/search", json={"q": "bearing"}, headers=headers)
    assert response.status_code == 200
    [step] = keeper.steps("agent-42")
    assert step.step == 1
    assert step.type == "call"
    assert step.tool == "lorebase_search"
    assert step.method == "POST"
    assert step.route == "/api/v1/domains/{domain}/search"
    assert step.status == 200
    assert step.latency_ms is not None
    assert step.latency_ms > 0
    assert step.cache == "miss"
    assert step.trace_id == "4bf92f3577b34da6a3ce929d0e0e4736"
    assert step.domain == "supply"
    assert step.query is not None
    assert step.query["body"]["q"] == "bearing"
    assert step.result is not None
    assert step.refs
    assert all(set(ref) == {"kind", "key"} for ref in step.refs)
    assert keeper.metric(RECORDED) == 1


async def test_the_same_read_again_is_a_cache_hit_and_a_304_not_modified(
    traced: Callable[..., Traced],
) -> None:
    keeper = traced()
    url = f"{API}/kinds/Supplier/records/S-1001"
    first = await keeper.http.get(url, headers=keeper.headers(**opt_in()))
    await keeper.http.get(url, headers=keeper.headers(**opt_in()))
    await keeper.http.get(
        url, headers=keeper.headers(**opt_in(), **{"If-None-Match": first.headers["etag"]})
    )
    steps = keeper.steps("agent-42")
    assert [step.cache for step in steps] == ["miss", "hit", "not_modified"]
    assert [step.status for step in steps] == [200, 200, 304]
    assert [step.step for step in steps] == [1, 2, 3]
    assert steps[0].refs == [{"kind": "Supplier", "key": "S-1001"}]
    assert steps[0].route == "/api/v1/domains/{domain}/kinds/{kind}/records/{key}"


async def test_without_the_header_nothing_is_traced(traced: Callable[..., Traced]) -> None:
    keeper = traced()
    await keeper.http.get(f"{API}/schema", headers=keeper.headers(**{"X-Lorebase-Session": "s-1"}))
    assert keeper.steps("s-1") == []
    assert keeper.sessions("usr_admin") == []


async def test_tracing_off_records_nothing_even_when_asked(supply: Store, keys: Keys) -> None:
    app = create_app(Settings(keeper={"auth": {"mode": "api_key"}}), store=supply)
    async with client_of(app) as http:
        response = await http.get(f"{API}/schema", headers={**Keys.header(keys.admin), **opt_in()})
    assert response.status_code == 200
    assert app.state.keeper.recorder.pending() == 0
    assert supply.trace_session("usr_admin", "agent-42") is None


@pytest.mark.parametrize(
    "session", ["", "x" * 129, "has space", "semi;colon", "ünïcode", "slash/not"]
)
async def test_a_malformed_session_id_is_not_traced(
    traced: Callable[..., Traced], session: str
) -> None:
    keeper = traced()
    sent = keeper.headers(**{"X-Lorebase-Trace": "on"})
    headers = {name.encode(): value.encode() for name, value in sent.items()}
    headers[b"X-Lorebase-Session"] = session.encode()
    response = await keeper.http.get(f"{API}/schema", headers=headers)
    assert response.status_code == 200
    assert keeper.sessions("usr_admin") == []


async def test_a_session_id_of_128_allowed_characters_is_traced(
    traced: Callable[..., Traced],
) -> None:
    keeper = traced()
    session = ("Az09._:-" * 16)[:128]
    await keeper.http.get(f"{API}/schema", headers=keeper.headers(**opt_in(session)))
    assert len(keeper.steps(session)) == 1


async def test_unauthenticated_requests_are_not_traced(traced: Callable[..., Traced]) -> None:
    keeper = traced()
    response = await keeper.http.get(f"{API}/schema", headers=opt_in())
    assert response.status_code == 401
    keeper.flush()
    assert keeper.metric(RECORDED) == 0


async def test_a_rejected_read_keeps_no_query(traced: Callable[..., Traced]) -> None:
    keeper = traced()
    response = await keeper.http.post(
        f"{API}/query",
        json={"kind": "Supplier", "where": {"attr": "name", "op": "nonsense", "value": "x"}},
        headers=keeper.headers(**opt_in()),
    )
    assert response.status_code == 422
    [step] = keeper.steps("agent-42")
    assert step.query == {"rejected": True}
    assert step.status == 422
    assert step.result is None
    assert step.refs is None


async def test_a_write_names_its_proposal_and_keeps_no_body(
    traced: Callable[..., Traced], keys: Keys, supply: Store
) -> None:
    supply.add_grant("svc_agent", domain="supply", role="editor", branch="main")
    keeper = traced()
    response = await keeper.http.post(
        f"{API}/operations/flag_supplier_risk/execute",
        json={
            "parameters": {"supplier": "S-1001", "severity": "high", "reason": "Two late ones"},
            "task": "q4-audit",
            "intent": "Flag S-1001 after the Q4 delivery audit",
        },
        headers=keeper.headers(keys.agent, **opt_in("agent-7")),
    )
    assert response.status_code == 202, response.text
    [step] = keeper.steps("agent-7", "svc_agent")
    assert step.proposal_id == response.json()["proposal"]["id"]
    assert step.query is None
    assert step.result is None
    assert step.refs is None
    stored = json.dumps(step.to_json())
    assert "Two late ones" not in stored
    assert "Q4 delivery audit" not in stored


async def test_values_titles_and_snippets_are_never_stored(
    traced: Callable[..., Traced],
) -> None:
    keeper = traced()
    headers = keeper.headers(**opt_in())
    await keeper.http.get(f"{API}/kinds/Supplier/records/S-1001", headers=headers)
    await keeper.http.post(f"{API}/search", json={"q": "Kavsen"}, headers=headers)
    await keeper.http.post(
        f"{API}/context", json={"refs": ["Supplier/S-1001"], "depth": 1}, headers=headers
    )
    steps = keeper.steps("agent-42")
    assert len(steps) == 3
    stored = json.dumps([step.to_json() for step in steps])
    for value in ("Kavsen Alloys", "Poznan", "Sp. z o.o."):
        assert value not in stored
    # the search text is what the agent asked: it is kept
    assert steps[1].query is not None
    assert steps[1].query["body"]["q"] == "Kavsen"


async def test_capture_search_text_false_keeps_its_length_only(
    traced: Callable[..., Traced],
) -> None:
    keeper = traced(capture_search_text=False)
    await keeper.http.post(
        f"{API}/search", json={"q": "bering"}, headers=keeper.headers(**opt_in())
    )
    [step] = keeper.steps("agent-42")
    assert "bering" not in json.dumps(step.to_json())
    assert step.result is not None
    assert "corrections" not in step.result


# -- who is traced ---------------------------------------------------------------------------


async def test_principals_and_api_keys_trace_without_the_header(
    traced: Callable[..., Traced], keys: Keys, supply: Store
) -> None:
    viewer_key_id = keys.viewer.split("_")[1]
    keeper = traced(principals=["usr_admin"], api_keys=[viewer_key_id])
    session = {"X-Lorebase-Session": "watched"}
    await keeper.http.get(f"{API}/schema", headers=keeper.headers(**session))
    await keeper.http.get(f"{API}/schema", headers=keeper.headers(keys.viewer, **session))
    await keeper.http.get(f"{API}/schema", headers=keeper.headers(keys.supplier, **session))
    assert len(keeper.steps("watched")) == 1
    assert len(keeper.steps("watched", "usr_viewer")) == 1
    assert keeper.steps("watched", "usr_supplier") == []


async def test_trace_all_leaves_out_the_web_app_unless_include_web(
    traced: Callable[..., Traced],
) -> None:
    keeper = traced(trace_all=True)
    web = {"X-Lorebase-Client": "web", "X-Lorebase-Session": "browse"}
    await keeper.http.get(f"{API}/schema", headers=keeper.headers(**web))
    await keeper.http.get(f"{API}/schema", headers=keeper.headers(**{"X-Lorebase-Session": "all"}))
    assert keeper.steps("browse") == []
    assert len(keeper.steps("all")) == 1
    # opting in with the header traces the web app too
    await keeper.http.get(f"{API}/schema", headers=keeper.headers(**{**web, **opt_in("browse")}))
    assert len(keeper.steps("browse")) == 1

    including = traced(trace_all=True, include_web=True)
    await including.http.get(f"{API}/schema", headers=including.headers(**web))
    assert len(including.steps("browse")) == 2


async def test_header_opt_in_can_be_turned_off(traced: Callable[..., Traced]) -> None:
    keeper = traced(allow_header_opt_in=False)
    await keeper.http.get(f"{API}/schema", headers=keeper.headers(**opt_in()))
    assert keeper.steps("agent-42") == []


async def test_header_names_are_settings(traced: Callable[..., Traced]) -> None:
    keeper = traced(session_header="X-Agent-Session", opt_in_header="X-Agent-Trace")
    headers = keeper.headers(**{"X-Agent-Trace": "on", "X-Agent-Session": "renamed"})
    await keeper.http.get(f"{API}/schema", headers=headers)
    assert len(keeper.steps("renamed")) == 1


# -- inferred sessions -----------------------------------------------------------------------


async def test_calls_without_a_session_id_share_an_inferred_session(
    traced: Callable[..., Traced], keys: Keys
) -> None:
    keeper = traced()
    urls = [f"{API}/kinds/Supplier/records/S-100{n}" for n in range(1, 6)]
    # concurrent calls of one client finish out of order and still share one session
    await asyncio.gather(
        *(keeper.http.get(url, headers=keeper.headers(**opt_in(None))) for url in urls)
    )
    [session] = keeper.sessions("usr_admin")
    assert session.inferred is True
    assert session.session_id.startswith("inferred-")
    assert len(session.session_id) == len("inferred-") + 16
    assert session.calls == 5
    # another User-Agent is another client; another principal never joins
    await keeper.http.get(
        urls[0], headers=keeper.headers(**opt_in(None), **{"User-Agent": "other-agent/1"})
    )
    await keeper.http.get(urls[0], headers=keeper.headers(keys.viewer, **opt_in(None)))
    assert len(keeper.sessions("usr_admin")) == 2
    assert len(keeper.sessions("usr_viewer")) == 1


async def test_an_explicit_session_id_always_wins(traced: Callable[..., Traced]) -> None:
    keeper = traced()
    await keeper.http.get(f"{API}/schema", headers=keeper.headers(**opt_in(None)))
    await keeper.http.get(f"{API}/schema", headers=keeper.headers(**opt_in("explicit")))
    sessions = {session.session_id: session for session in keeper.sessions("usr_admin")}
    assert sessions["explicit"].inferred is False
    assert len(sessions) == 2


# -- bounds, drops, metrics ------------------------------------------------------------------


async def test_the_session_cap_drops_later_steps_as_session_full(
    traced: Callable[..., Traced],
) -> None:
    keeper = traced(max_steps_per_session=3)
    for _ in range(5):
        await keeper.http.get(f"{API}/schema", headers=keeper.headers(**opt_in()))
    assert [step.step for step in keeper.steps("agent-42")] == [1, 2, 3]
    assert keeper.metric(RECORDED) == 3
    assert keeper.metric(DROPPED, reason="session_full") == 2


async def test_refs_are_bounded_by_max_refs(traced: Callable[..., Traced]) -> None:
    keeper = traced(max_refs=3)
    await keeper.http.get(f"{API}/kinds/Part/records", headers=keeper.headers(**opt_in()))
    [step] = keeper.steps("agent-42")
    assert step.refs is not None
    assert len(step.refs) == 3


async def test_an_answer_past_max_response_bytes_keeps_no_counts_or_refs(
    traced: Callable[..., Traced],
) -> None:
    keeper = traced(max_response_bytes=1024)
    await keeper.http.get(f"{API}/kinds/Part/records", headers=keeper.headers(**opt_in()))
    [step] = keeper.steps("agent-42")
    assert step.status == 200
    assert step.result is None
    assert step.refs is None


async def test_query_plans_need_debug_and_trace_explain(
    traced: Callable[..., Traced], keys: Keys
) -> None:
    keeper = traced()
    body = {"kind": "Supplier", "where": {"attr": "country", "op": "eq", "value": "PL"}}
    await keeper.http.post(
        f"{API}/query", json=body, headers=keeper.headers(**opt_in("d", "debug"))
    )
    await keeper.http.post(f"{API}/query", json=body, headers=keeper.headers(**opt_in("o", "on")))
    await keeper.http.post(
        f"{API}/query", json=body, headers=keeper.headers(keys.viewer, **opt_in("v", "debug"))
    )
    [debug] = keeper.steps("d")
    assert debug.explain, "an admin holds trace.explain: debug records plans"
    assert all("nodes" in plan or "error" in plan for plan in debug.explain)
    assert keeper.steps("o")[0].explain is None
    assert keeper.steps("v", "usr_viewer")[0].explain is None


async def test_the_read_audit_records_reads_without_the_trace(supply: Store, keys: Keys) -> None:
    settings = Settings(
        keeper={
            "auth": {"mode": "api_key", "audit": {"reads": True}},
            "trace": {"flush_interval_s": 0.05},
        }
    )
    app = create_app(settings, store=supply)
    async with client_of(app) as http:
        headers = Keys.header(keys.viewer)
        assert (
            await http.get(f"{API}/kinds/Supplier/records/S-1001", headers=headers)
        ).status_code == 200
        assert (
            await http.post(f"{API}/search", json={"q": "bearing"}, headers=headers)
        ).status_code == 200
        assert (await http.get("/api/v1/auth/whoami", headers=headers)).status_code == 200
    assert app.state.keeper.recorder.flush(10)
    app.state.keeper.recorder.close()
    page = supply.audit_log("supply", kind="read", limit=10)
    routes = [entry.to_json()["route"] for entry in page.entries]
    assert routes == [
        "/api/v1/domains/{domain}/search",
        "/api/v1/domains/{domain}/kinds/{kind}/records/{key}",
    ]
    record = page.entries[1].to_json()
    assert record["principal"] == "usr_viewer"
    assert record["refs"] == [{"kind": "Supplier", "key": "S-1001"}]
    assert record["branch"] == "main"
    assert record["status"] == 200
    main = supply.find_branch("supply", "main")
    assert main is not None
    assert record["revision"] == main.head_revision
    # nothing of the trace was written
    assert (
        supply.trace_sessions(
            visibility=_everything("usr_viewer"), actor="usr_viewer", limit=10
        ).sessions
        == []
    )


async def test_the_writer_prunes_steps_past_retention(
    traced: Callable[..., Traced], supply: Store
) -> None:
    old = format_datetime(datetime.now(UTC) - timedelta(days=8))
    supply.write_trace(
        [TraceStep(principal="usr_admin", session_id="old", client="c", domain="supply", at=old)],
        max_steps_per_session=10,
        inferred_idle_s=300,
    )
    assert supply.trace_session("usr_admin", "old") is not None
    keeper = traced(prune_interval_s=0.05)
    await keeper.http.get(f"{API}/schema", headers=keeper.headers(**opt_in("new")))
    deadline = time.monotonic() + 60
    while supply.trace_session("usr_admin", "old") is not None:
        assert time.monotonic() < deadline, "the writer did not prune within 60 s"
        await asyncio.sleep(0.05)
    assert len(keeper.steps("new")) == 1
