"""The exploration loop against a real Keeper on loopback and the scripted model server.

Each test runs `explore` the way Guide's HTTP layer does: the caller's key forwarded, Keeper
over real HTTP, the model an OpenAI-compatible server answering from a script.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from lorebase_guide.exploration import Caller, Event, Exploration, explore
from lorebase_guide.tools import TOOLS, DomainNames
from lorebase_inference import ChatEndpoint, ChatModel
from lorebase_inference.testing import RecordedRequest, Reply, ScriptedModelServer
from lorebase_keeper.testing import DemoKeeper, demo_keeper, wait_for_session
from lorebase_platform.settings import Settings
from lorebase_platform.telemetry import Metrics

ROOT = Path(__file__).resolve().parents[3]
SUPPLY = ROOT / "examples" / "supply"
SINGLE_SOURCE = "Which parts have a single supplier?"
SINGLE_SOURCED = ["Part/P-10007", "Part/P-10019", "Part/P-10033"]

pytestmark = pytest.mark.anyio


LiveKeeper = DemoKeeper


@pytest.fixture(scope="module")
def keeper(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveKeeper]:
    with demo_keeper(
        SUPPLY,
        tmp_path_factory.mktemp("keeper"),
        {
            "auth": {"mode": "api_key"},
            "trace": {"enabled": True, "flush_interval_s": 0.05},
            "rate_limits": {"enabled": False},
        },
    ) as live:
        yield live


class Recording(httpx.AsyncBaseTransport):
    """The network transport, keeping each request Guide sent to Keeper (method, path, headers)."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.requests: list[httpx.Request] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


def step(action: str, args: dict[str, Any], thought: str = "Reading.") -> dict[str, Any]:
    return {"thought": thought, "action": action, "args": args}


def answer(text: str, citations: list[str], *, found: bool = True) -> dict[str, Any]:
    facts = [f"{ref} was read" for ref in citations]
    return step("answer", {"facts": facts, "answer": text, "citations": citations, "found": found})


def is_last_turn(request: RecordedRequest) -> bool:
    """Whether the step schema of this call allows only an answer."""
    schema = request.body["response_format"]["json_schema"]["schema"]
    return bool(schema["properties"]["action"]["enum"] == ["answer"])


def settings_for(keeper: LiveKeeper, **guide: Any) -> Settings:
    section: dict[str, Any] = {"keeper": {"base_url": keeper.url}}
    section.update(guide)
    return Settings(guide=section)


async def run(
    keeper: LiveKeeper,
    server: ScriptedModelServer,
    question: str = SINGLE_SOURCE,
    *,
    profile: str = "admin",
    max_steps: int = 6,
    budget: int = 20000,
    transport: httpx.AsyncBaseTransport | None = None,
    metrics: Metrics | None = None,
    **guide: Any,
) -> list[Event]:
    settings = settings_for(keeper, **guide)
    caller = Caller(profile, {"Authorization": f"Bearer {keeper.keys[profile]}"})
    async with ChatModel(ChatEndpoint(base_url=server.base_url, model="scripted")) as model:
        stream = explore(
            Exploration("supply", None, question, max_steps, budget),
            caller,
            settings=settings,
            model=model,
            embedder=None,
            keeper_transport=transport,
            metrics=metrics,
        )
        return [event async for event in stream]


def names(events: list[Event]) -> list[str]:
    return [name for name, _ in events]


def of(events: list[Event], name: str) -> list[dict[str, Any]]:
    return [data for event, data in events if event == name]


async def test_every_event_in_order_with_every_member(keeper: LiveKeeper) -> None:
    metrics = Metrics(Settings().telemetry, "lorebase-guide")
    script = [
        step("get", {"ref": "Part/P-10007"}, "Read the first of the parts the query found."),
        answer("Three parts have a single supplier: P-10007, P-10019, P-10033.", SINGLE_SOURCED),
    ]
    with ScriptedModelServer(script) as server:
        events = await run(keeper, server, metrics=metrics)
    assert names(events) == [
        "session",
        "tool_call",
        "tool_result",
        "thought",
        "tool_call",
        "tool_result",
        "thought",
        "answer",
        "done",
    ]
    [session] = of(events, "session")
    assert set(session) == {"session_id", "domain", "branch", "model", "max_steps"}
    assert session["session_id"].startswith("guide-")
    assert (session["domain"], session["branch"], session["model"], session["max_steps"]) == (
        "supply",
        None,
        "scripted",
        6,
    )
    calls = of(events, "tool_call")
    assert [(c["step"], c["tool"]) for c in calls] == [(1, "resolve"), (2, "get")]
    assert calls[0]["args"] == {"text": SINGLE_SOURCE}
    assert calls[1]["args"] == {"ref": "Part/P-10007"}
    results = of(events, "tool_result")
    assert all(set(r) == {"step", "tool", "ok", "summary", "refs"} for r in results)
    assert [r["ok"] for r in results] == [True, True]
    # resolve's step ran its first ready query: the Records it found are cited refs already.
    assert results[0]["refs"] == SINGLE_SOURCED
    assert results[0]["summary"].endswith("the first run: 3 Part Records")
    assert results[1]["refs"] == ["Part/P-10007"]
    thoughts = of(events, "thought")
    assert [t["step"] for t in thoughts] == [2, 3]
    assert thoughts[0]["text"] == "Read the first of the parts the query found."
    [final] = of(events, "answer")
    assert final["found"] is True
    assert final["text"].startswith("Three parts")
    assert final["citations"] == [
        {"ref": ref, "kind": "Part", "key": ref.split("/")[1]} for ref in SINGLE_SOURCED
    ]
    [done] = of(events, "done")
    assert set(done) == {"session_id", "steps", "outcome", "tokens", "elapsed_ms"}
    assert done["session_id"] == session["session_id"]
    assert (done["steps"], done["outcome"]) == (2, "answered")
    assert done["tokens"]["input"] > 0
    assert done["tokens"]["output"] > 0
    assert isinstance(done["elapsed_ms"], int)
    # The model saw resolve's answer before its first call, fenced by the marker.
    first = server.requests[0].body["messages"]
    system, question, resolved, shown = (m["content"] for m in first)
    marker = system.split("between a line <<", 1)[1].split(">>", 1)[0]
    assert marker.startswith("DATA")
    assert len(marker) == 20
    assert question == f"Question: {SINGLE_SOURCE}"
    assert json.loads(resolved)["action"] == "resolve"
    assert shown.startswith(f"<<{marker}>> result of step 1 (resolve)")
    assert f"<</{marker}>>" in shown
    assert '"rel": "supplied_by", "count": {"op": "eq", "value": 1}' in shown
    assert "Ready query 1 was run for you; its answer:" in shown
    assert all(ref in shown for ref in SINGLE_SOURCED)
    assert metrics.value("lorebase.guide.explorations", {"outcome": "answered"}) == 1
    assert metrics.value("lorebase.guide.steps", {"tool": "get", "success": "true"}) == 1
    assert metrics.value("lorebase.guide.tokens", {"direction": "input"}) == done["tokens"]["input"]


async def test_the_first_ready_query_ran_in_step_1_is_not_run_again(keeper: LiveKeeper) -> None:
    transport = Recording()
    script = [
        step("query", {"suggestion": 1}),
        answer("Three parts have a single supplier.", SINGLE_SOURCED),
    ]
    with ScriptedModelServer(script) as server:
        events = await run(keeper, server, transport=transport)
        repair = server.requests[1].body["messages"][-1]["content"]
    # Its number is outside the step schema's: the model is asked again, nothing is sent.
    assert "/args" in repair
    assert [c["tool"] for c in of(events, "tool_call")] == ["resolve"]
    assert [r.url.path for r in transport.requests].count("/api/v1/domains/supply/query") == 1
    assert of(events, "answer")[0]["found"] is True


async def test_a_question_without_a_ready_query_is_resolved_alone(keeper: LiveKeeper) -> None:
    transport = Recording()
    script = [answer("Not in the graph.", [], found=False)]
    with ScriptedModelServer(script) as server:
        events = await run(keeper, server, "zzqx wibble", transport=transport)
    [result] = of(events, "tool_result")
    assert (result["ok"], result["refs"]) == (True, [])
    assert "first run" not in result["summary"]
    assert not [r for r in transport.requests if r.url.path.endswith("/query")]


async def test_a_citation_of_an_unseen_record_is_removed(keeper: LiveKeeper) -> None:
    script = [
        step("query", {"suggestion": 1}),
        answer("P-10007 and S-1099.", ["Part/P-10007", "Supplier/S-1099", "Part/P-10028"]),
    ]
    with ScriptedModelServer(script) as server:
        events = await run(keeper, server)
    [final] = of(events, "answer")
    assert final["found"] is True
    assert [c["ref"] for c in final["citations"]] == ["Part/P-10007"]


async def test_an_answer_citing_nothing_it_was_shown_is_not_found(keeper: LiveKeeper) -> None:
    with ScriptedModelServer(
        [answer("Supplier S-1001 is the one.", ["Supplier/S-1001"])]
    ) as server:
        events = await run(keeper, server)
    [final] = of(events, "answer")
    assert final == {"text": "Not found in the graph.", "citations": [], "found": False}
    assert of(events, "done")[0]["outcome"] == "not_found"


async def test_a_model_saying_not_in_the_graph_answers_not_found(keeper: LiveKeeper) -> None:
    script = [
        step("get", {"ref": "Supplier/S-1001"}),
        answer("The graph has no delivery dates.", ["Supplier/S-1001"], found=False),
    ]
    with ScriptedModelServer(script) as server:
        events = await run(keeper, server, "When will S-1001 deliver?")
    assert of(events, "answer")[0] == {
        "text": "Not found in the graph.",
        "citations": [],
        "found": False,
    }


async def test_an_identical_call_is_not_repeated(keeper: LiveKeeper) -> None:
    transport = Recording()
    get = step("get", {"ref": "Supplier/S-1001"})
    with ScriptedModelServer([get, get, answer("Kavsen.", ["Supplier/S-1001"])]) as server:
        events = await run(keeper, server, transport=transport)
        told = server.requests[2].body["messages"][-1]["content"]
    results = of(events, "tool_result")
    assert [(r["tool"], r["ok"]) for r in results] == [
        ("resolve", True),
        ("get", True),
        ("get", False),
    ]
    assert results[2]["summary"] == "repeated call of step 2: not sent"
    assert results[2]["refs"] == []
    assert "You already made exactly this call at step 2" in told
    reads = [r.url.path for r in transport.requests if r.url.path.endswith("/records/S-1001")]
    assert len(reads) == 1
    assert of(events, "done")[0]["steps"] == 3


async def test_an_unknown_tool_is_an_error_to_the_model_and_does_nothing(
    keeper: LiveKeeper,
) -> None:
    transport = Recording()
    script = [
        step("delete_records", {"kind": "Supplier"}),
        step("get", {"ref": "Part/P-10007"}),
        answer("A pump.", ["Part/P-10007"]),
    ]
    with ScriptedModelServer(script) as server:
        events = await run(keeper, server, transport=transport)
        repair = server.requests[1].body["messages"][-1]["content"]
    assert [c["tool"] for c in of(events, "tool_call")] == ["resolve", "get"]
    assert "does not match the JSON schema" in repair
    assert "delete_records" in repair
    assert all(
        r.method == "GET" or r.url.path.endswith(("/resolve", "/query", "/notes"))
        for r in transport.requests
    )
    assert of(events, "answer")[0]["found"] is True


async def test_a_miss_shows_the_valid_names(keeper: LiveKeeper) -> None:
    script = [
        step("query", {"kind": "Supplier", "where": {"attr": "rating", "op": "eq", "value": 1}}),
        step("links", {"ref": "Supplier/S-1001", "relation": "stocked_at"}),
        step("get", {"ref": "Supplier/S-9999"}),
        answer("Nothing.", [], found=False),
    ]
    with ScriptedModelServer(script) as server:
        events = await run(keeper, server, "Suppliers rated 1?")
        shown = [server.requests[i].body["messages"][-1]["content"] for i in (1, 2, 3)]
    results = of(events, "tool_result")
    assert [r["ok"] for r in results] == [True, False, False, False]
    assert "Attributes of Supplier: supplier_code, legal_name" in shown[0]
    assert "risk_score" in shown[0]
    assert "supplier_orders (to PurchaseOrder)" in shown[0]
    assert "Relations from Supplier:" in shown[1]
    assert "supplies (to Part)" in shown[1]
    assert "does not exist" in shown[2]


async def test_an_empty_query_is_not_read_as_absence(keeper: LiveKeeper) -> None:
    script = [
        step(
            "query", {"kind": "Supplier", "where": {"attr": "country", "op": "eq", "value": "XX"}}
        ),
        answer("None.", [], found=False),
    ]
    with ScriptedModelServer(script) as server:
        await run(keeper, server, "Suppliers in XX?")
        shown = server.requests[1].body["messages"][-1]["content"]
    assert "0 Supplier Records match" in shown
    assert "before saying something does not exist" in shown


def wants_more(request: RecordedRequest) -> dict[str, Any]:
    """A model that always wants another read, and answers only when it must."""
    if is_last_turn(request):
        return answer("P-10007 is single-sourced.", ["Part/P-10007"])
    number = len(request.body["messages"])
    return step("search", {"text": f"pump {number}"})


async def test_a_model_that_always_wants_more_never_exceeds_max_steps(keeper: LiveKeeper) -> None:
    with ScriptedModelServer([wants_more] * 10) as server:
        events = await run(keeper, server, max_steps=3)
    assert len(of(events, "tool_call")) == 3
    [done] = of(events, "done")
    assert (done["steps"], done["outcome"]) == (3, "answered")
    assert of(events, "answer")[0]["found"] is True
    last = server.requests[-1].body["messages"][-1]["content"]
    assert "No more tool calls" in last
    assert "Part/P-10007" in last


async def test_fruitless_steps_in_a_row_make_the_next_turn_the_last(keeper: LiveKeeper) -> None:
    script = [
        step("get", {"ref": "Part/P-10007"}),  # nothing new (the first step found it), but
        step("get", {"ref": "Part/P-10019"}),  # another tool: only from here is it a walk
        step("get", {"ref": "Part/P-10033"}),
        answer("Three parts.", SINGLE_SOURCED),
    ]
    with ScriptedModelServer(script) as server:
        events = await run(keeper, server)
        requests = list(server.requests)
    assert [c["tool"] for c in of(events, "tool_call")] == ["resolve", "get", "get", "get"]
    assert [is_last_turn(r) for r in requests] == [False, False, False, True]  # only an answer
    shown = [r.body["messages"][-1]["content"] for r in requests[1:3]]
    assert "found no Record" not in shown[0]  # one tool once is not a walk
    assert "This step found no Record you did not already have" in shown[1]
    assert of(events, "answer")[0]["found"] is True


async def test_a_repeated_call_is_fruitless_and_max_stale_steps_0_lets_it_go_on(
    keeper: LiveKeeper,
) -> None:
    again = [step("get", {"ref": "Part/P-10007"})] * 3 + [answer("Three parts.", SINGLE_SOURCED)]
    with ScriptedModelServer(again) as server:
        events = await run(keeper, server)
        last = [is_last_turn(request) for request in server.requests]
    # resolve, the get, two repeats of it: the fourth model call may only answer
    assert [c["tool"] for c in of(events, "tool_call")] == ["resolve", "get", "get", "get"]
    assert last == [False, False, False, True]
    assert of(events, "answer")[0]["found"] is True
    with ScriptedModelServer(again) as server:
        events = await run(keeper, server, agent={"max_stale_steps": 0})
        last = [is_last_turn(request) for request in server.requests]
    assert last == [False, False, False, False]


async def test_the_model_may_ask_only_for_the_ready_queries_there_are(keeper: LiveKeeper) -> None:
    def suggestion_numbers(request: RecordedRequest) -> tuple[int, int] | None:
        schema = request.body["response_format"]["json_schema"]["schema"]
        for shape in schema["properties"]["args"]["anyOf"]:
            for option in shape.get("anyOf", [shape]):
                number = option.get("properties", {}).get("suggestion")
                if number is not None:
                    return int(number["minimum"]), int(number["maximum"])
        return None

    with ScriptedModelServer([answer("Three parts.", SINGLE_SOURCED)]) as server:
        await run(keeper, server)
        [asked] = server.requests
    ready = await keeper_suggestions(keeper, SINGLE_SOURCE)
    assert ready >= 2
    # Ready query 1 ran in the first step: the model may ask for the others only.
    assert suggestion_numbers(asked) == (2, ready)
    # A first ready query that finds nothing was still sent: it is not offered again either.
    finnish = "Which Finnish suppliers have critical risk flags?"
    ready = await keeper_suggestions(keeper, finnish)
    assert ready >= 2
    with ScriptedModelServer([answer("Nothing.", [], found=False)]) as server:
        events = await run(keeper, server, finnish)
        [asked] = server.requests
    assert of(events, "tool_result")[0]["summary"].endswith("the first run: 0 Supplier Records")
    assert suggestion_numbers(asked) == (2, ready)
    with ScriptedModelServer([answer("Nothing.", [], found=False)]) as server:
        await run(keeper, server, "zzqx wibble")
        [asked] = server.requests
    assert suggestion_numbers(asked) is None


async def test_a_question_naming_one_record_reads_its_changes_and_links_first(
    keeper: LiveKeeper,
) -> None:
    transport = Recording()
    with ScriptedModelServer([answer("Nothing.", [], found=False)]) as server:
        events = await run(
            keeper, server, "What changed in the history of contract C-3013?", transport=transport
        )
        shown = server.requests[0].body["messages"][-1]["content"]
    [first] = of(events, "tool_result")
    # The ready query found Contract/C-3013, which the question names by its key: its history
    # and its depth-1 neighborhood are part of the first step, their refs citable.
    assert first["refs"] == ["Contract/C-3013", "Supplier/S-1021"]
    assert "The latest changes of Contract/C-3013 (already read):" in shown
    assert "status: draft -> active" in shown
    assert "The Records linked to Contract/C-3013 (already read):" in shown
    paths = [request.url.path for request in transport.requests]
    assert "/api/v1/domains/supply/kinds/Contract/records/C-3013/history" in paths
    assert "/api/v1/domains/supply/neighborhood" in paths
    # Three Records found, none named by its key: no reads beyond the query.
    transport = Recording()
    with ScriptedModelServer([answer("Nothing.", [], found=False)]) as server:
        await run(keeper, server, transport=transport)
        shown = server.requests[0].body["messages"][-1]["content"]
    assert "already read" not in shown
    assert not [r for r in transport.requests if r.url.path.endswith(("/history", "/neighborhood"))]


async def keeper_suggestions(keeper: LiveKeeper, text: str) -> int:
    async with httpx.AsyncClient(base_url=keeper.url) as client:
        response = await client.post(
            "/api/v1/domains/supply/resolve",
            json={"text": text},
            headers={"Authorization": f"Bearer {keeper.keys['admin']}"},
        )
    return len(response.json()["suggestions"])


@pytest.mark.parametrize("budget", [6000, 9000, 14000])
async def test_a_model_that_always_wants_more_never_exceeds_the_token_budget(
    keeper: LiveKeeper, budget: int
) -> None:
    with ScriptedModelServer([wants_more] * 30) as server:
        events = await run(
            keeper, server, max_steps=30, budget=budget, agent={"max_tokens_per_call": 256}
        )
    [done] = of(events, "done")
    assert done["tokens"]["input"] + done["tokens"]["output"] <= budget
    assert done["outcome"] == "answered"
    assert 1 < done["steps"] < 30
    assert "error" not in names(events)


async def test_a_budget_that_covers_no_answer_ends_with_error_budget(keeper: LiveKeeper) -> None:
    with ScriptedModelServer([wants_more]) as server:
        events = await run(keeper, server, budget=300)
    assert names(events)[-3:] == ["error", "answer", "done"]
    assert of(events, "error")[0]["code"] == "budget"
    assert of(events, "answer")[0]["text"] == "Not found in the graph."
    assert of(events, "done")[0]["outcome"] == "budget"
    assert server.requests == []


async def test_the_wall_clock_ends_with_error_timeout(keeper: LiveKeeper) -> None:
    def slow(request: RecordedRequest) -> dict[str, Any]:
        time.sleep(1.5)
        return step("get", {"ref": "Part/P-10007"})

    with ScriptedModelServer([slow]) as server:
        started = time.monotonic()
        events = await run(keeper, server, agent={"timeout_s": 0.8})
        elapsed = time.monotonic() - started
    assert names(events)[-3:] == ["error", "answer", "done"]
    assert of(events, "error")[0]["code"] == "timeout"
    assert of(events, "done")[0]["outcome"] == "timeout"
    assert elapsed < 1.5


async def test_a_failing_model_ends_with_error_model(keeper: LiveKeeper) -> None:
    with ScriptedModelServer([Reply(503, "overloaded")]) as server:
        events = await run(keeper, server)
    assert names(events)[-3:] == ["error", "answer", "done"]
    assert of(events, "error")[0]["code"] == "model"
    assert of(events, "answer")[0]["found"] is False


async def test_a_fault_in_a_tool_fails_its_step_and_the_exploration_goes_on(
    keeper: LiveKeeper, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # Fault injection: a bug in a tool's code (the kind the neighborhood tool once had, slicing
    # a mapping) must not end the stream without its answer.
    async def broken(context: Any, args: dict[str, Any]) -> Any:
        raise TypeError("unhashable type: 'slice' (secret-value-31)")

    monkeypatch.setitem(TOOLS, "get", broken)
    script = [step("get", {"ref": "Part/P-10007"}), answer("Nothing read.", [], found=False)]
    with ScriptedModelServer(script) as server:
        events = await run(keeper, server)
        assert len(server.requests) == 2
    results = of(events, "tool_result")
    assert (results[-1]["tool"], results[-1]["ok"], results[-1]["summary"]) == (
        "get",
        False,
        "tool failed",
    )
    assert names(events)[-2:] == ["answer", "done"]
    assert "TypeError" in caplog.text
    assert "secret-value-31" not in caplog.text


async def test_a_fault_outside_the_tools_still_ends_the_stream_with_answer_and_done(
    keeper: LiveKeeper, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(schema: Any) -> Any:
        raise KeyError("kinds")

    monkeypatch.setattr(DomainNames, "of", staticmethod(broken))
    with ScriptedModelServer([]) as server:
        events = await run(keeper, server)
        assert server.requests == []
    assert names(events) == ["session", "answer", "done"]
    assert of(events, "answer")[0] == {
        "text": "Not found in the graph.",
        "citations": [],
        "found": False,
    }
    assert of(events, "done")[0]["outcome"] == "failed"


async def test_trace_headers_and_notes_reach_keeper(keeper: LiveKeeper) -> None:
    transport = Recording()
    script = [
        step("get", {"ref": "Part/P-10007"}, "Read the pump."),
        answer("A pump.", ["Part/P-10007"]),
    ]
    with ScriptedModelServer(script) as server:
        events = await run(keeper, server, transport=transport)
    session_id = of(events, "session")[0]["session_id"]
    for request in transport.requests:
        assert request.headers["X-Lorebase-Session"] == session_id
        assert request.headers["X-Lorebase-Trace"] == "on"
        assert request.headers["Authorization"] == f"Bearer {keeper.keys['admin']}"
    tools = [r.headers.get("X-Lorebase-Tool") for r in transport.requests]
    # The first ready query runs inside resolve's step, under its tool name.
    assert tools == [None, "guide.resolve", "guide.resolve", None, "guide.get", None]
    found = wait_for_session(keeper.store, "usr_admin", session_id, 6)
    notes = [(s.note, s.note_step) for s in found.steps if s.type == "note"]
    assert notes == [("Read the pump.", 2), ("Reading.", 3)]
    assert [s.tool for s in found.steps if s.type == "call" and s.tool] == [
        "guide.resolve",
        "guide.resolve",
        "guide.get",
    ]


async def test_notes_false_keeps_the_headers_and_posts_no_note(keeper: LiveKeeper) -> None:
    transport = Recording()
    script = [step("get", {"ref": "Part/P-10007"}), answer("A pump.", ["Part/P-10007"])]
    with ScriptedModelServer(script) as server:
        events = await run(keeper, server, transport=transport, trace={"notes": False})
    session_id = of(events, "session")[0]["session_id"]
    assert not [r for r in transport.requests if r.url.path.endswith("/notes")]
    assert all(r.headers["X-Lorebase-Session"] == session_id for r in transport.requests)
    found = wait_for_session(keeper.store, "usr_admin", session_id, 3)
    assert [s.type for s in found.steps] == ["call", "call", "call", "call"]


async def test_notes_go_to_the_configured_notes_path(keeper: LiveKeeper) -> None:
    """guide.trace.notes_path names the route; a route Keeper refuses stops the notes only."""
    transport = Recording()
    script = [
        step("get", {"ref": "Part/P-10007"}, "Read the pump."),
        answer("A pump.", ["Part/P-10007"]),
    ]
    moved = "/api/v1/trace/sessions/{session}/remarks"
    with ScriptedModelServer(script) as server:
        events = await run(keeper, server, transport=transport, trace={"notes_path": moved})
    session_id = of(events, "session")[0]["session_id"]
    posted = [r for r in transport.requests if r.method == "POST" and "/trace/" in r.url.path]
    assert [r.url.path for r in posted] == [f"/api/v1/trace/sessions/{session_id}/remarks"]
    assert of(events, "answer")[0]["found"] is True
    found = wait_for_session(keeper.store, "usr_admin", session_id, 3)
    assert not [s for s in found.steps if s.type == "note"]


async def test_trace_disabled_sends_no_header_and_no_note(keeper: LiveKeeper) -> None:
    transport = Recording()
    script = [step("get", {"ref": "Part/P-10007"}), answer("A pump.", ["Part/P-10007"])]
    with ScriptedModelServer(script) as server:
        await run(keeper, server, transport=transport, trace={"enabled": False})
    assert len(transport.requests) == 4
    for request in transport.requests:
        assert not {"x-lorebase-session", "x-lorebase-trace", "x-lorebase-tool"} & set(
            request.headers.keys()
        )
        assert not request.url.path.endswith("/notes")


async def test_only_the_callers_credential_is_sent(
    keeper: LiveKeeper, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOREBASE_API_KEY", keeper.keys["admin"])
    transport = Recording()
    script = [step("get", {"ref": "Part/P-10007"}), answer("A pump.", ["Part/P-10007"])]
    with ScriptedModelServer(script) as server:
        await run(keeper, server, profile="reviewer", transport=transport)
    sent = {r.headers.get("Authorization") for r in transport.requests}
    assert sent == {f"Bearer {keeper.keys['reviewer']}"}


async def test_closing_the_stream_stops_the_exploration(keeper: LiveKeeper) -> None:
    metrics = Metrics(Settings().telemetry, "lorebase-guide")
    with ScriptedModelServer([wants_more] * 10) as server:
        settings = settings_for(keeper)
        caller = Caller("admin", {"Authorization": f"Bearer {keeper.keys['admin']}"})
        async with ChatModel(ChatEndpoint(base_url=server.base_url, model="scripted")) as model:
            stream = explore(
                Exploration("supply", None, SINGLE_SOURCE, 6, 20000),
                caller,
                settings=settings,
                model=model,
                embedder=None,
                metrics=metrics,
            )
            seen = []
            async for name, _ in stream:
                seen.append(name)
                if name == "thought":
                    break
            await stream.aclose()
        asked = len(server.requests)
    assert seen[-1] == "thought"
    assert asked == 1
    assert metrics.value("lorebase.guide.explorations", {"outcome": "stopped"}) == 1
