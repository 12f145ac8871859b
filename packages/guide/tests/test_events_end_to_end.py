"""An exploration end to end over HTTP: the stream as a browser reads it, and its agent trace.

A scripted model reads a Supplier, follows its Parts and answers citing what it read (and one
Contract it never saw). The test reads Guide's response the way the web app does (fetch and a
stream reader: chunks as they come, events split at blank lines) and checks every event in
order with exactly the members docs/guide.md lists; the session id is then a trace session of
Keeper that the caller reads back with its own key, holding Guide's reads (guide.<tool>) and the
model's notes.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from packages.guide.tests.conftest import LiveKeeper, guide_settings, serve_guide
from packages.guide.tests.live_stack import Event, parse_events

from lorebase_inference.testing import RecordedRequest, ScriptedModelServer

QUESTION = "Which parts does supplier S-1001 supply, and under which contract?"
PART = re.compile(r"\bPart/P-\d{5}\b")

MEMBERS = {
    "session": {"session_id", "domain", "branch", "model", "max_steps"},
    "thought": {"step", "text"},
    "tool_call": {"step", "tool", "args"},
    "tool_result": {"step", "tool", "ok", "summary", "refs"},
    "error": {"code", "message"},
    "answer": {"text", "citations", "found"},
    "done": {"session_id", "steps", "outcome", "tokens", "elapsed_ms"},
}
"""The members of each event, as docs/guide.md's table lists them."""


def bearer(keeper: LiveKeeper, profile: str = "admin") -> dict[str, str]:
    return {"Authorization": f"Bearer {keeper.keys[profile]}"}


class BrowserReader:
    """Reads a text/event-stream response like fetch + a stream reader: chunks as they arrive,
    an event as soon as its blank line has come. `seen` is set at each event."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.arrived: list[float] = []
        self.seen = threading.Event()

    def read(self, response: httpx.Response) -> None:
        buffer = b""
        for chunk in response.iter_raw():
            buffer += chunk
            while b"\n\n" in buffer:
                block, buffer = buffer.split(b"\n\n", 1)
                self.events += parse_events(block + b"\n\n")
                self.arrived.append(time.monotonic())
                self.seen.set()
        assert buffer.strip() == b"", "the stream ended inside an event"


@pytest.fixture
def model() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer() as server:
        yield server


def _last_content(request: RecordedRequest) -> str:
    messages = request.body.get("messages") or []
    return str(messages[-1].get("content") or "") if messages else ""


def _check_members(events: list[Event]) -> None:
    for name, data in events:
        assert name in MEMBERS, f"an event guide.md does not list: {name}"
        assert set(data) == MEMBERS[name], f"{name}: {sorted(data)}"


def _check_shapes(events: list[Event], *, max_steps: int) -> None:
    by_name: dict[str, list[dict[str, Any]]] = {}
    for name, data in events:
        by_name.setdefault(name, []).append(data)
    [session], [answer], [done] = by_name["session"], by_name["answer"], by_name["done"]
    assert re.fullmatch(r"guide-[0-9a-f]+", session["session_id"])
    assert session["domain"] == "supply"
    assert session["branch"] is None
    assert session["model"] == "scripted"
    assert session["max_steps"] == max_steps
    assert done["session_id"] == session["session_id"]
    assert isinstance(done["steps"], int)
    assert 0 <= done["steps"] <= max_steps
    assert isinstance(done["outcome"], str)
    assert done["outcome"]
    assert set(done["tokens"]) == {"input", "output"}
    assert all(isinstance(value, int) and value >= 0 for value in done["tokens"].values())
    assert isinstance(done["elapsed_ms"], int)
    assert done["elapsed_ms"] >= 0
    for thought in by_name.get("thought", []):
        assert isinstance(thought["step"], int)
        assert isinstance(thought["text"], str)
    for call in by_name.get("tool_call", []):
        assert isinstance(call["tool"], str)
        assert isinstance(call["args"], dict)
    for result in by_name.get("tool_result", []):
        assert isinstance(result["ok"], bool)
        assert isinstance(result["summary"], str)
        assert all(isinstance(ref, str) and "/" in ref for ref in result["refs"])
    assert isinstance(answer["text"], str)
    assert isinstance(answer["found"], bool)
    for citation in answer["citations"]:
        assert set(citation) == {"ref", "kind", "key"}
        assert citation["ref"] == f"{citation['kind']}/{citation['key']}"


def _check_order(events: list[Event]) -> None:
    """session first; each tool_call followed by its tool_result; an error only right before
    the answer; answer then done last."""
    names = [name for name, _ in events]
    assert names[0] == "session"
    assert names[-2:] == ["answer", "done"]
    assert names.count("session") == names.count("answer") == names.count("done") == 1
    for position, (name, data) in enumerate(events):
        if name == "tool_call":
            following, result = events[position + 1]
            assert following == "tool_result", names
            assert (result["step"], result["tool"]) == (data["step"], data["tool"])
        if name == "error":
            assert names[position + 1] == "answer", names
    steps = [data["step"] for name, data in events if name == "tool_call"]
    assert steps == sorted(steps), "tool steps out of order"


def test_an_exploration_streams_every_event_in_order_and_leaves_its_trace(
    keeper: LiveKeeper, model: ScriptedModelServer
) -> None:
    reader = BrowserReader()

    def read_supplier(request: RecordedRequest) -> dict[str, Any]:
        # The first event must reach the browser before the model has answered anything:
        # events are streamed as they happen, not buffered to the end.
        assert reader.seen.wait(10), "no event reached the reader before the first model call"
        return {
            "thought": "Read the supplier first.",
            "action": "get",
            "args": {"ref": "Supplier/S-1001"},
        }

    def follow_parts(request: RecordedRequest) -> dict[str, Any]:
        return {
            "thought": "Follow the parts it supplies.",
            "action": "links",
            "args": {"ref": "Supplier/S-1001", "relation": "supplies"},
        }

    def answer(request: RecordedRequest) -> dict[str, Any]:
        parts = sorted(set(PART.findall(_last_content(request))))
        assert parts, "the links result shows no Part"
        return {
            "thought": "Answer from the two reads.",
            "action": "answer",
            "args": {
                "facts": [f"{part} is supplied by Supplier/S-1001" for part in parts[:3]],
                "answer": f"S-1001 supplies {', '.join(parts[:3])}; contract C-9999.",
                "citations": ["Supplier/S-1001", parts[0], "Contract/C-9999"],
                "found": True,
            },
        }

    model.add(read_supplier, follow_parts, answer)
    settings = guide_settings(keeper.url, model)
    body = {"domain": "supply", "branch": None, "question": QUESTION, "max_steps": 4}
    with (
        serve_guide(settings, explorer=None) as guide,
        httpx.Client(timeout=30) as client,
        client.stream("POST", f"{guide}/explore", json=body, headers=bearer(keeper)) as response,
    ):
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        reader.read(response)
    events = reader.events
    _check_members(events)
    _check_order(events)
    _check_shapes(events, max_steps=4)

    # Every event, in order: resolve runs on the question before the first model call.
    assert [(name, data.get("step")) for name, data in events] == [
        ("session", None),
        ("tool_call", 1),
        ("tool_result", 1),
        ("thought", 2),
        ("tool_call", 2),
        ("tool_result", 2),
        ("thought", 3),
        ("tool_call", 3),
        ("tool_result", 3),
        ("thought", 4),
        ("answer", None),
        ("done", None),
    ]
    calls = [(data["tool"], data["args"]) for name, data in events if name == "tool_call"]
    assert calls == [
        ("resolve", {"text": QUESTION}),
        ("get", {"ref": "Supplier/S-1001"}),
        ("links", {"ref": "Supplier/S-1001", "relation": "supplies"}),
    ]
    results = {data["tool"]: data for name, data in events if name == "tool_result"}
    assert results["get"]["ok"] is True
    assert results["get"]["refs"] == ["Supplier/S-1001"]
    part_refs = {ref for ref in results["links"]["refs"] if ref.startswith("Part/")}
    assert part_refs
    thoughts = [data["text"] for name, data in events if name == "thought"]
    assert "Read the supplier first." in thoughts
    assert "Follow the parts it supplies." in thoughts

    answer_event = next(data for name, data in events if name == "answer")
    cited = [citation["ref"] for citation in answer_event["citations"]]
    assert cited[0] == "Supplier/S-1001"
    assert cited[1] in part_refs
    assert "Contract/C-9999" not in cited, "a citation of a Record no tool returned was kept"
    assert answer_event["found"] is True
    done = events[-1][1]
    assert done["steps"] == 3
    assert done["outcome"] == "answered"
    assert done["tokens"]["input"] > 0
    assert done["tokens"]["output"] > 0

    # The session is a trace session the caller reads with its own key.
    session_id = events[0][1]["session_id"]
    timeline = _trace_session(keeper, session_id, bearer(keeper), notes=2)
    assert timeline["session_id"] == session_id
    tools = [step["tool"] for step in timeline["steps"] if step["type"] == "call"]
    assert "guide.get" in tools
    assert "guide.links" in tools
    assert all(tool is None or tool.startswith("guide.") for tool in tools)
    notes = [step["note"] for step in timeline["steps"] if step["type"] == "note"]
    assert "Read the supplier first." in notes
    assert "Follow the parts it supplies." in notes
    # Another principal does not see it.
    hidden = httpx.get(
        f"{keeper.url}/api/v1/trace/sessions/{session_id}", headers=bearer(keeper, "suppliers")
    )
    assert hidden.status_code == 404


def _trace_session(
    keeper: LiveKeeper, session_id: str, headers: dict[str, str], *, notes: int
) -> dict[str, Any]:
    """The session's timeline once it holds the reads and `notes` notes (Keeper writes the
    trace off the request path)."""
    deadline = time.monotonic() + 60
    while True:
        response = httpx.get(f"{keeper.url}/api/v1/trace/sessions/{session_id}", headers=headers)
        if response.status_code == 200:
            timeline = dict(response.json())
            held = [step for step in timeline["steps"] if step["type"] == "note"]
            calls = [step for step in timeline["steps"] if step["type"] == "call"]
            if len(held) >= notes and len(calls) >= 2:
                return timeline
        if time.monotonic() > deadline:
            raise AssertionError(
                f"trace session {session_id}: {response.status_code} {response.text}"
            )
        time.sleep(0.05)


def test_a_model_error_streams_an_error_event_then_the_answer(
    keeper: LiveKeeper, model: ScriptedModelServer
) -> None:
    model.add("this is not JSON", "still not JSON")
    settings = guide_settings(keeper.url, model)
    body = {"domain": "supply", "branch": None, "question": QUESTION, "max_steps": 3}
    reader = BrowserReader()
    with (
        serve_guide(settings, explorer=None) as guide,
        httpx.Client(timeout=30) as client,
        client.stream("POST", f"{guide}/explore", json=body, headers=bearer(keeper)) as response,
    ):
        assert response.status_code == 200
        reader.read(response)
    events = reader.events
    _check_members(events)
    _check_order(events)
    _check_shapes(events, max_steps=3)
    names = [name for name, _ in events]
    assert names[-3:] == ["error", "answer", "done"]
    error = events[-3][1]
    assert error["code"] == "model"
    assert isinstance(error["message"], str)
    assert error["message"]
    assert events[-2][1] == {"text": "Not found in the graph.", "citations": [], "found": False}
    # The message says what went wrong, without quoting the question or the model's text.
    assert "S-1001" not in error["message"]
    assert "still not" not in error["message"]


def test_the_tokens_of_a_failed_model_call_are_counted(
    keeper: LiveKeeper, model: ScriptedModelServer
) -> None:
    model.add("this is not JSON", "still not JSON")
    settings = guide_settings(keeper.url, model)
    body = {"domain": "supply", "branch": None, "question": QUESTION, "max_steps": 3}
    reader = BrowserReader()
    with (
        serve_guide(settings, explorer=None) as guide,
        httpx.Client(timeout=30) as client,
        client.stream("POST", f"{guide}/explore", json=body, headers=bearer(keeper)) as response,
    ):
        reader.read(response)
    done = reader.events[-1][1]
    # Both calls were answered and counted by the endpoint (prompt and completion tokens).
    assert done["tokens"]["input"] > 0
    assert done["tokens"]["output"] > 0
