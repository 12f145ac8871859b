"""The agent trace's routes: who sees what of a session, the sessions list, notes, bad input.

`svc_agent`'s session `agent-42` is written with `Store.write_trace` (the recorder's batch
write): a search in supply with a correction, refs of Supplier and Part and a Link between them,
and a query plan; a note about it in supply; a call outside a Domain and a note without one.
Then readers open it: its owner, a supply administrator, a viewer, a reader of the trace without
clearances, a reader of the trace narrowed to Supplier, and an installation administrator.

The last two need roles the built-in ones do not make (trace.read without data.read or without
clearances): they are added to `ROLES` as an installation's custom roles would be.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from packages.keeper.tests.conftest import client_of

from lorebase_keeper.app import create_app
from lorebase_keeper.auth import authz
from lorebase_keeper.testing import Keys, assert_problem, grant_key
from lorebase_platform.settings import Settings
from lorebase_store import Store, TraceStep

pytestmark = pytest.mark.anyio

SESSIONS = "/api/v1/trace/sessions"
AGENT = "svc_agent"
SESSION = "agent-42"
CLIENT = "c" * 64

SEARCH_REFS = [
    {"kind": "Supplier", "key": "S-1001"},
    {"kind": "Part", "key": "P-10028"},
    {"relation": "supplied_by", "from": "Part/P-10028", "to": "Supplier/S-1001"},
]


def seeded_steps(principal: str = AGENT, session_id: str = SESSION) -> list[TraceStep]:
    common: dict[str, Any] = {"principal": principal, "session_id": session_id, "client": CLIENT}
    return [
        TraceStep(
            **common,
            domain="supply",
            at="2026-12-01T10:00:00Z",
            tool="lorebase_search",
            method="POST",
            route="/api/v1/domains/{domain}/search",
            status=200,
            latency_ms=12.5,
            cache="miss",
            query={"body": {"q": "baring"}, "params": {}},
            result={"counts": {"hits": 2}, "mode": "lexical", "corrections": ["bearing"]},
            refs=SEARCH_REFS,
            explain=[{"node": "SCAN", "table": "records"}],
            trace_id="a" * 32,
        ),
        TraceStep(
            **common,
            domain="supply",
            at="2026-12-01T10:00:01Z",
            type="note",
            note="the supplier of P-10028 next",
            note_step=1,
        ),
        TraceStep(
            **common,
            domain=None,
            at="2026-12-01T10:00:02Z",
            tool="lorebase_domains",
            method="GET",
            route="/api/v1/domains",
            status=200,
            latency_ms=1.0,
            cache="bypass",
            query={"body": None, "params": {}},
            result={"counts": {"domains": 1}},
            refs=[],
        ),
        TraceStep(
            **common, domain=None, at="2026-12-01T10:00:03Z", type="note", note="done for now"
        ),
    ]


def write_steps(store: Store, steps: list[TraceStep]) -> None:
    store.write_trace(steps, max_steps_per_session=2000, inferred_idle_s=300)


@pytest.fixture
def custom_roles() -> Iterator[None]:
    """Two custom roles: the trace without clearances, and the trace alone."""
    added = {
        "tracer": frozenset({"data.read", "trace.read"}),
        "trace_only": frozenset({"trace.read"}),
    }
    authz.ROLES.update(added)
    yield
    for name in added:
        del authz.ROLES[name]


@pytest.fixture
def readers(supply: Store, keys: Keys, custom_roles: None) -> dict[str, str]:
    """API keys of the readers besides `keys`: a tracer without clearances, a tracer narrowed
    to Supplier, an installation administrator and a principal without any grant."""

    found = {
        "tracer": grant_key(supply, "usr_tracer", domain="supply", role="tracer"),
        "narrow": grant_key(
            supply, "usr_narrow", domain="supply", role="viewer", kinds=["Supplier"]
        ),
        "root": grant_key(supply, "usr_root", domain="*", role="admin"),
        "nobody": grant_key(supply, "usr_nobody"),
    }
    supply.add_grant("usr_narrow", domain="supply", role="trace_only")
    write_steps(supply, seeded_steps())
    return found


@pytest.fixture
async def api(keeper: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with client_of(keeper) as client:
        yield client


async def timeline(api: httpx.AsyncClient, key: str, *, actor: str | None = AGENT) -> Any:
    params = {"actor": actor} if actor else {}
    return await api.get(f"{SESSIONS}/{SESSION}", params=params, headers=Keys.header(key))


def by_step(document: dict[str, Any]) -> dict[int, dict[str, Any]]:
    return {step["step"]: step for step in document["steps"]}


# -- who sees what ----------------------------------------------------------------------------


async def test_the_owner_sees_its_session_in_full(
    api: httpx.AsyncClient, keys: Keys, readers: dict[str, str]
) -> None:
    response = await timeline(api, keys.agent, actor=None)
    assert response.status_code == 200
    document = response.json()
    assert (document["session_id"], document["principal"]) == (SESSION, AGENT)
    assert document["inferred"] is False
    assert (document["first_at"], document["last_at"]) == (
        "2026-12-01T10:00:00Z",
        "2026-12-01T10:00:03Z",
    )
    steps = by_step(document)
    assert sorted(steps) == [1, 2, 3, 4]
    search = steps[1]
    assert search["query"] == {"body": {"q": "baring"}, "params": {}}
    assert search["result"]["corrections"] == ["bearing"]
    assert search["refs"] == SEARCH_REFS
    assert search["explain"] == [{"node": "SCAN", "table": "records"}]
    assert search["withheld"] is False
    assert (steps[2]["note"], steps[2]["note_step"]) == ("the supplier of P-10028 next", 1)
    assert steps[4]["note"] == "done for now"
    assert {summary["domain_id"] for summary in document["domains"]} == {"supply", None}
    # actor naming the caller itself is the same read
    assert (await timeline(api, keys.agent)).json() == document


async def test_a_domain_administrator_sees_the_domain_steps_only(
    api: httpx.AsyncClient, keys: Keys, readers: dict[str, str]
) -> None:
    document = (await timeline(api, keys.admin)).json()
    steps = by_step(document)
    assert sorted(steps) == [1, 2], "steps outside a Domain are for installation admins"
    assert steps[1]["query"] == {"body": {"q": "baring"}, "params": {}}
    assert steps[1]["result"]["corrections"] == ["bearing"]
    assert steps[1]["explain"] == [{"node": "SCAN", "table": "records"}]
    assert steps[1]["refs"] == SEARCH_REFS
    assert steps[2]["note"] == "the supplier of P-10028 next"
    assert all(step["withheld"] is False for step in steps.values())
    assert [summary["domain_id"] for summary in document["domains"]] == ["supply"]
    assert (document["first_at"], document["last_at"]) == (
        "2026-12-01T10:00:00Z",
        "2026-12-01T10:00:01Z",
    )


@pytest.mark.parametrize("reader", ["viewer", "supplier", "nobody"])
async def test_readers_without_trace_read_get_the_404_of_a_session_that_does_not_exist(
    api: httpx.AsyncClient, keys: Keys, readers: dict[str, str], reader: str
) -> None:
    key = readers.get(reader) or getattr(keys, reader)
    hidden = await timeline(api, key)
    missing = await api.get(
        f"{SESSIONS}/no-such-session", params={"actor": AGENT}, headers=Keys.header(key)
    )
    assert_problem(hidden, 404, "trace-session-not-found")
    assert_problem(missing, 404, "trace-session-not-found")
    assert hidden.json()["title"] == missing.json()["title"]
    # their own session of the same id is another one: empty, so unknown
    assert_problem(await timeline(api, key, actor=None), 404, "trace-session-not-found")


async def test_a_reader_without_clearances_gets_counts_and_refs_and_withheld(
    api: httpx.AsyncClient, keys: Keys, readers: dict[str, str]
) -> None:
    steps = by_step((await timeline(api, readers["tracer"])).json())
    assert sorted(steps) == [1, 2]
    search, note = steps[1], steps[2]
    assert search["withheld"] is True
    assert search["query"] is None
    assert search["result"] == {"counts": {"hits": 2}, "mode": "lexical"}
    assert search["refs"] == SEARCH_REFS
    assert search["explain"] is None, "the tracer holds no trace.explain"
    assert (search["tool"], search["status"], search["cache"]) == ("lorebase_search", 200, "miss")
    assert note["withheld"] is True
    assert note["note"] is None
    assert note["note_step"] == 1


async def test_a_reader_narrowed_to_kinds_gets_the_refs_of_those_kinds(
    api: httpx.AsyncClient, keys: Keys, readers: dict[str, str]
) -> None:
    steps = by_step((await timeline(api, readers["narrow"])).json())
    assert sorted(steps) == [1, 2]
    assert steps[1]["refs"] == [{"kind": "Supplier", "key": "S-1001"}]
    assert steps[1]["withheld"] is True, "no Domain-wide data.read"
    assert steps[1]["query"] is None


async def test_an_installation_administrator_sees_everything(
    api: httpx.AsyncClient, keys: Keys, readers: dict[str, str]
) -> None:
    document = (await timeline(api, readers["root"])).json()
    steps = by_step(document)
    assert sorted(steps) == [1, 2, 3, 4]
    assert steps[3]["route"] == "/api/v1/domains"
    assert steps[4]["note"] == "done for now"
    assert steps[1]["query"] is not None
    assert all(step["withheld"] is False for step in steps.values())
    assert {summary["domain_id"] for summary in document["domains"]} == {"supply", None}


async def test_another_principal_reusing_the_id_has_a_session_of_its_own(
    api: httpx.AsyncClient, keys: Keys, readers: dict[str, str], supply: Store
) -> None:
    supply.ensure_principal("usr_viewer", principal_type="user")
    write_steps(supply, seeded_steps("usr_viewer")[:1])
    own = (await timeline(api, keys.viewer, actor=None)).json()
    assert own["principal"] == "usr_viewer"
    assert sorted(by_step(own)) == [1]
    agents = (await timeline(api, keys.agent, actor=None)).json()
    assert sorted(by_step(agents)) == [1, 2, 3, 4], "nothing slipped into svc_agent's session"


async def test_the_owner_sees_its_calls_in_a_domain_only_while_it_holds_a_grant_there(
    api: httpx.AsyncClient, readers: dict[str, str], supply: Store
) -> None:
    write_steps(supply, seeded_steps("usr_nobody"))
    document = (await timeline(api, readers["nobody"], actor=None)).json()
    steps = by_step(document)
    assert sorted(steps) == [2, 3, 4], "its notes and its calls outside a Domain stay"
    assert steps[2]["note"] == "the supplier of P-10028 next"
    assert [summary["domain_id"] for summary in document["domains"]] == [None]


# -- the sessions list ------------------------------------------------------------------------


async def sessions(api: httpx.AsyncClient, key: str, **params: Any) -> Any:
    response = await api.get(SESSIONS, params=params, headers=Keys.header(key))
    assert response.status_code == 200, response.text
    return response.json()


def listed(page: dict[str, Any]) -> set[tuple[str, str | None]]:
    return {(summary["principal"], summary["domain_id"]) for summary in page["sessions"]}


async def test_the_sessions_list_keeps_to_the_same_rules(
    api: httpx.AsyncClient, keys: Keys, readers: dict[str, str]
) -> None:
    assert listed(await sessions(api, keys.agent)) == {(AGENT, "supply"), (AGENT, None)}
    assert listed(await sessions(api, keys.admin)) == {(AGENT, "supply")}
    assert listed(await sessions(api, readers["tracer"])) == {(AGENT, "supply")}
    assert listed(await sessions(api, keys.viewer)) == set()
    assert listed(await sessions(api, readers["root"])) == {(AGENT, "supply"), (AGENT, None)}
    page = await sessions(api, keys.agent)
    summary = next(item for item in page["sessions"] if item["domain_id"] == "supply")
    assert summary["session_id"] == SESSION
    assert (summary["calls"], summary["notes"]) == (1, 1)
    assert summary["tools"] == ["lorebase_search"]
    assert page["next_cursor"] is None


async def test_the_sessions_list_filters_and_pages(
    api: httpx.AsyncClient, keys: Keys, readers: dict[str, str], supply: Store
) -> None:
    write_steps(supply, seeded_steps(session_id="agent-43")[:1])
    root = readers["root"]
    assert listed(await sessions(api, root, domain_id="supply")) == {(AGENT, "supply")}
    assert listed(await sessions(api, root, actor="usr_admin")) == set()
    first = await sessions(api, root, limit=1)
    assert len(first["sessions"]) == 1
    assert first["next_cursor"]
    seen = [first["sessions"][0]]
    cursor = first["next_cursor"]
    while cursor:
        page = await sessions(api, root, limit=1, cursor=cursor)
        seen.extend(page["sessions"])
        cursor = page["next_cursor"]
    assert len(seen) == 3, "agent-43 in supply, agent-42 in supply and outside"
    assert [item["last_at"] for item in seen] == [
        "2026-12-01T10:00:03Z",
        "2026-12-01T10:00:01Z",
        "2026-12-01T10:00:00Z",
    ], "newest first"
    assert seen[2]["session_id"] == "agent-43"


async def test_the_sessions_list_refuses_bad_input(
    api: httpx.AsyncClient, keys: Keys, readers: dict[str, str]
) -> None:
    headers = Keys.header(keys.admin)
    for limit in (0, 501):
        response = await api.get(SESSIONS, params={"limit": limit}, headers=headers)
        assert_problem(response, 422, "invalid-input")
    unknown = await api.get(SESSIONS, params={"domain_id": "nowhere"}, headers=headers)
    assert_problem(unknown, 404, "domain-not-found")
    bad = await api.get(SESSIONS, params={"cursor": "not-a-cursor"}, headers=headers)
    assert_problem(bad, 400, "bad-cursor")
    assert_problem(await api.get(SESSIONS), 401, "unauthorized")


# -- notes ------------------------------------------------------------------------------------


def note_url(session_id: str = SESSION) -> str:
    return f"{SESSIONS}/{session_id}/notes"


async def test_a_note_is_not_recorded_while_tracing_is_off(
    api: httpx.AsyncClient, keys: Keys
) -> None:
    response = await api.post(
        note_url(), json={"text": "thinking", "step": 1}, headers=Keys.header(keys.agent)
    )
    assert response.status_code == 202
    assert response.json() == {"recorded": False}


async def test_notes_refuse_bad_input(api: httpx.AsyncClient, keys: Keys) -> None:
    headers = Keys.header(keys.agent)
    for session_id in ("a" * 129, "bad%20id", "semi;colon"):
        response = await api.post(note_url(session_id), json={"text": "x"}, headers=headers)
        document = assert_problem(response, 422, "invalid-input")
        assert document["issues"][0]["path"] == "session_id"
    too_long = await api.post(note_url(), json={"text": "x" * 4001}, headers=headers)
    document = assert_problem(too_long, 422, "invalid-input")
    assert document["issues"] == [
        {"path": "text", "message": "4001 characters, more than 4000", "code": "too-long"}
    ]
    for body, path in (({"text": ""}, "text"), ({"text": "x", "step": 0}, "step"), ({}, "text")):
        response = await api.post(note_url(), json=body, headers=headers)
        document = assert_problem(response, 422, "invalid-input")
        assert document["issues"][0]["path"] == path
    unknown = await api.post(
        note_url(), json={"text": "x", "domain_id": "nowhere"}, headers=headers
    )
    assert_problem(unknown, 404, "domain-not-found")
    assert_problem(await api.post(note_url(), json={"text": "x"}), 401, "unauthorized")


async def test_a_note_in_a_domain_needs_a_grant_there(
    supply: Store, keys: Keys, api: httpx.AsyncClient
) -> None:
    key = grant_key(supply, "usr_elsewhere")
    response = await api.post(
        note_url(), json={"text": "x", "domain_id": "supply"}, headers=Keys.header(key)
    )
    assert_problem(response, 404, "domain-not-found")


@pytest.fixture
async def tracing(supply: Store, keys: Keys) -> AsyncIterator[tuple[FastAPI, httpx.AsyncClient]]:
    """A Keeper recording traces, notes at most 40 characters long."""
    settings = Settings(
        keeper={
            "auth": {"mode": "api_key", "authz": {"grants_cache_ttl_s": 0}},
            "trace": {"enabled": True, "flush_interval_s": 0.05, "max_note_chars": 40},
        }
    )
    app = create_app(settings, store=supply)
    async with client_of(app) as client:
        yield app, client
    app.state.keeper.recorder.close()


async def test_notes_are_recorded_between_the_calls_they_are_about(
    tracing: tuple[FastAPI, httpx.AsyncClient], keys: Keys
) -> None:
    app, client = tracing
    session = "agent-7"
    headers = {**Keys.header(keys.agent), "X-Lorebase-Session": session}
    search = await client.post(
        "/api/v1/domains/supply/search",
        json={"q": "bearing"},
        headers={**headers, "X-Lorebase-Trace": "on", "X-Lorebase-Tool": "lorebase_search"},
    )
    assert search.status_code == 200, search.text
    noted = await client.post(
        note_url(session),
        json={"text": "bearings next", "step": 1, "domain_id": "supply"},
        headers=headers,
    )
    assert (noted.status_code, noted.json()) == (202, {"recorded": True})
    aside = await client.post(note_url(session), json={"text": "an aside"}, headers=headers)
    assert aside.json() == {"recorded": True}
    assert app.state.keeper.recorder.flush(10)

    own = (await client.get(f"{SESSIONS}/{session}", headers=headers)).json()
    assert [(step["step"], step["type"]) for step in own["steps"]] == [
        (1, "call"),
        (2, "note"),
        (3, "note"),
    ]
    call, note, other = own["steps"]
    assert call["tool"] == "lorebase_search"
    assert (note["note"], note["note_step"], note["domain_id"]) == ("bearings next", 1, "supply")
    assert (other["note"], other["note_step"], other["domain_id"]) == ("an aside", None, None)

    admin = await client.get(
        f"{SESSIONS}/{session}", params={"actor": AGENT}, headers=Keys.header(keys.admin)
    )
    assert [step["step"] for step in admin.json()["steps"]] == [1, 2]
    assert admin.json()["steps"][1]["note"] == "bearings next"


async def test_max_note_chars_is_a_setting(
    tracing: tuple[FastAPI, httpx.AsyncClient], keys: Keys
) -> None:
    _, client = tracing
    headers = Keys.header(keys.agent)
    response = await client.post(note_url(), json={"text": "x" * 41}, headers=headers)
    document = assert_problem(response, 422, "invalid-input")
    assert document["issues"][0]["message"] == "41 characters, more than 40"
    response = await client.post(note_url(), json={"text": "x" * 40}, headers=headers)
    assert (response.status_code, response.json()) == (202, {"recorded": True})
