"""A reader narrowed to one Kind sees through Guide exactly what it sees without it.

`suppliers` (usr_suppliers) is a viewer of supply narrowed to the Kind Supplier. A scripted model
asks Guide, with that key, for Parts and Suppliers, a query on Part and one on Supplier, a
neighborhood and the lineage of a Supplier, searches and a context pack; the test makes the same
reads directly with the Python client and the same key. Each read answers the same Records
through Guide as directly, and a read Keeper refuses directly (the Kind Part does not exist for
this reader) is refused through Guide too: the step schema offers only the Kinds the reader's
schema holds, or the tool answers an error, with no Records. Nothing of the hidden Kinds (refs,
titles, names, values) appears in any event, or in anything the model was shown.

The same script with the admin's key reads Parts through Guide, so the narrowed run's refusals
come from the grant and not from the script.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from packages.guide.tests.conftest import LiveKeeper, guide_settings, serve_guide
from packages.guide.tests.live_stack import Event, read_events

from lorebase_client import LorebaseClient
from lorebase_core.errors import LorebaseError
from lorebase_inference.testing import RecordedRequest, ScriptedModelServer

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "examples" / "supply" / "data"
QUESTION = "Which parts does Kavsen Alloys supply, and what do we know about the supplier?"
MAX_ITEMS = 20
HIDDEN_KINDS = ("Part", "PurchaseOrder", "Contract", "Plant", "RiskFlag")
KINDS = ("Supplier", *HIDDEN_KINDS)
REPAIR = "Your answer does not match the JSON schema"

Direct = Callable[[LorebaseClient], dict[str, Any]]


@dataclass(frozen=True)
class Read:
    """One read: the step the model asks Guide for, and the same read made directly."""

    action: str
    args: dict[str, Any]
    direct: Direct
    compare_refs: bool = True


READS = (
    Read(
        "get", {"ref": "Part/P-10001"}, lambda c: c.record("supply", "Part", "P-10001", links=True)
    ),
    Read(
        "get",
        {"ref": "Supplier/S-1001"},
        lambda c: c.record("supply", "Supplier", "S-1001", links=True),
    ),
    Read(
        "query", {"kind": "Part"}, lambda c: c.query("supply", {"kind": "Part", "limit": MAX_ITEMS})
    ),
    Read(
        "query",
        {"kind": "Supplier", "where": {"attr": "country", "op": "eq", "value": "PL"}},
        lambda c: c.query(
            "supply",
            {
                "kind": "Supplier",
                "where": {"attr": "country", "op": "eq", "value": "PL"},
                "limit": MAX_ITEMS,
            },
        ),
    ),
    Read("history", {"ref": "Part/P-10001"}, lambda c: c.history("supply", "Part", "P-10001")),
    Read(
        "neighborhood",
        {"refs": ["Supplier/S-1001"], "depth": 1},
        lambda c: c.neighborhood("supply", ["Supplier/S-1001"], depth=1),
    ),
    Read(
        "links",
        {"ref": "Supplier/S-1001", "relation": "supplies"},
        lambda c: c.links("supply", "Supplier", "S-1001", "supplies", limit=MAX_ITEMS),
    ),
    Read("search", {"text": "bearing"}, lambda c: c.search("supply", "bearing", limit=MAX_ITEMS)),
    Read(
        "lineage", {"ref": "Supplier/S-1001"}, lambda c: c.lineage("supply", "Supplier", "S-1001")
    ),
    Read("search", {"text": "Kavsen"}, lambda c: c.search("supply", "Kavsen", limit=MAX_ITEMS)),
    Read(
        "context",
        {"refs": ["Supplier/S-1001"], "lens": "supplier_risk"},
        lambda c: {
            "markdown": str(
                c.context_markdown("supply", refs=["Supplier/S-1001"], lens="supplier_risk")
            )
        },
        compare_refs=False,
    ),
)
"""Refused reads (for the narrowed viewer) never follow each other: a step refused by the
schema gets one repair call, which the script answers with the next read."""

CITED = ["Part/P-10001", "Supplier/S-1001", "Contract/C-3001", "PurchaseOrder/PO-200001"]


def _refs_of(answer: Any) -> set[str]:
    """The Records a JSON answer names: `ref`, a Link's `from` and `to`, and `kind` + `key`
    pairs (of the Domain's Kinds: an origin's `ref` names a path or an Operation)."""
    found: set[str] = set()
    if isinstance(answer, dict):
        for member in ("ref", "from", "to"):
            ref = answer.get(member)
            if isinstance(ref, str) and ref.partition("/")[0] in KINDS:
                found.add(ref)
        if answer.get("kind") in KINDS and isinstance(answer.get("key"), str):
            found.add(f"{answer['kind']}/{answer['key']}")
        for value in answer.values():
            found |= _refs_of(value)
    elif isinstance(answer, list):
        for item in answer:
            found |= _refs_of(item)
    return found


def _hidden_values() -> set[str]:
    """Keys, titles and text values of the Records of the hidden Kinds in the example's data
    (long enough to be unambiguous), but the one key the model itself names."""
    values: set[str] = set()
    for kind in HIDDEN_KINDS:
        with (DATA / f"{kind}.csv").open(newline="") as rows:
            for row in csv.DictReader(rows):
                for name, value in row.items():
                    numeric = re.fullmatch(r"[\d.\-:TZ]+", value or "")
                    if value and len(value) >= 7 and not numeric and name != "status":
                        values.add(value)
    return values - {"P-10001"}


@dataclass
class ScriptedReader:
    """The model: asks for each read in order, then answers citing hidden and visible Records.
    A refused step (a repair call) is answered with the next read."""

    asked: list[tuple[int, bool]] = field(default_factory=list)
    """(read index, whether it was refused by the step schema)."""
    position: int = 0

    def __call__(self, request: RecordedRequest) -> dict[str, Any]:
        messages = request.body.get("messages") or []
        last = str(messages[-1].get("content") or "") if messages else ""
        repair = last.startswith(REPAIR)
        if repair and self.asked and self.position <= len(READS):
            index, _ = self.asked[-1]
            self.asked[-1] = (index, True)
        if self.position < len(READS):
            read = READS[self.position]
            self.asked.append((self.position, False))
            self.position += 1
            return {"thought": f"Read {self.position}.", "action": read.action, "args": read.args}
        self.position = len(READS) + 1
        # Refused (citations of Kinds the reader's schema lacks), it cites what the schema
        # admits: the Supplier it read and one it never saw, for Guide's check to drop.
        cited = [*CITED[1:2], "Supplier/S-1099"] if repair else CITED
        return {
            "thought": "Answer.",
            "action": "answer",
            "args": {
                "facts": ["Supplier/S-1001 is Kavsen Alloys in Poznan"],
                "answer": "Kavsen Alloys (S-1001) is in Poznan.",
                "citations": cited,
                "found": True,
            },
        }


@dataclass(frozen=True)
class Exploration:
    events: list[Event]
    requests: list[RecordedRequest]
    script: ScriptedReader


@pytest.fixture
def model() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer() as server:
        yield server


def explore_as(keeper: LiveKeeper, model: ScriptedModelServer, profile: str) -> Exploration:
    script = ScriptedReader()
    model.add(*([script] * (2 * len(READS) + 2)))
    settings = guide_settings(keeper.url, model, agent={"max_steps": len(READS) + 2})
    body = {"domain": "supply", "branch": None, "question": QUESTION, "max_steps": len(READS) + 2}
    headers = {"Authorization": f"Bearer {keeper.keys[profile]}"}
    with serve_guide(settings, explorer=None) as guide:
        response, events = read_events(guide, body, headers)
    assert response.status_code == 200, response.text
    assert events[-1][0] == "done"
    return Exploration(events, list(model.requests), script)


def _through_guide(run: Exploration, read: Read) -> dict[str, Any] | None:
    """The tool_result of `read` in the stream; None when no tool ran it."""
    for position, (name, data) in enumerate(run.events):
        if name == "tool_call" and data["tool"] == read.action and data["args"] == read.args:
            result_name, result = run.events[position + 1]
            assert result_name == "tool_result"
            return result
    return None


def _direct(client: LorebaseClient, read: Read) -> dict[str, Any] | LorebaseError:
    try:
        return read.direct(client)
    except LorebaseError as error:
        return error


def _compare(keeper: LiveKeeper, run: Exploration, profile: str) -> dict[str, str]:
    """Each read through Guide against the same read made directly; the outcome of each."""
    outcomes: dict[str, str] = {}
    refused = {index for index, was_refused in run.script.asked if was_refused}
    with LorebaseClient(keeper.url, api_key=keeper.keys[profile]) as client:
        for index, read in enumerate(READS):
            direct = _direct(client, read)
            through = _through_guide(run, read)
            label = f"{read.action} {read.args}"
            if isinstance(direct, LorebaseError):
                # Refused directly: refused through Guide, before a request or by Keeper.
                if through is None:
                    assert index in refused, f"{label}: neither run nor refused"
                    outcomes[label] = "refused by the step schema"
                else:
                    assert through["ok"] is False, f"{label}: {through}"
                    assert through["refs"] == [], label
                    outcomes[label] = "refused by the tool"
                continue
            assert through is not None, f"{label}: read directly, but not through Guide"
            assert through["ok"] is True, f"{label}: {through}"
            if read.compare_refs:
                assert set(through["refs"]) == _refs_of(direct), label
            outcomes[label] = "same Records"
    return outcomes


def _shown_to_model(run: Exploration) -> str:
    return "\n".join(
        str(message.get("content") or "")
        for request in run.requests
        if request.path.endswith("/chat/completions")
        for message in request.body.get("messages") or []
        if message.get("role") != "assistant"
        and not str(message.get("content") or "").startswith(REPAIR)
    )


def test_a_viewer_narrowed_to_suppliers_sees_the_same_through_guide(
    keeper: LiveKeeper, model: ScriptedModelServer
) -> None:
    run = explore_as(keeper, model, "suppliers")
    outcomes = _compare(keeper, run, "suppliers")
    assert outcomes["get {'ref': 'Part/P-10001'}"].startswith("refused")
    assert outcomes["query {'kind': 'Part'}"].startswith("refused")
    assert outcomes["get {'ref': 'Supplier/S-1001'}"] == "same Records"

    # Nothing of the hidden Kinds in any event: no ref, title or value (the tool_call events
    # and thoughts repeat the model's own words, which name Part/P-10001; nothing else does).
    hidden_ref = re.compile(r"\b(?:" + "|".join(HIDDEN_KINDS) + r")/[\w.:-]+")
    hidden_values = _hidden_values()
    for name, data in run.events:
        if name in ("tool_call", "thought"):
            continue
        text = repr(data)
        assert not hidden_ref.search(text), f"{name} names a hidden Record: {text[:300]}"
        leaked = sorted(value for value in hidden_values if value in text)
        assert leaked == [], f"{name} holds hidden values: {leaked[:5]}"
    answer = next(data for name, data in run.events if name == "answer")
    assert [citation["ref"] for citation in answer["citations"]] == ["Supplier/S-1001"]

    # Nor in what the model was shown (the instructions, the question and the tool results).
    shown = _shown_to_model(run)
    leaked = sorted(value for value in hidden_values if value in shown)
    assert leaked == [], f"the model was shown hidden values: {leaked[:5]}"
    for kind in ("PurchaseOrder", "RiskFlag", "Plant"):
        assert kind not in shown, f"the model was shown the hidden Kind {kind}"


def test_the_admin_reads_the_same_parts_through_guide(
    keeper: LiveKeeper, model: ScriptedModelServer
) -> None:
    run = explore_as(keeper, model, "admin")
    outcomes = _compare(keeper, run, "admin")
    assert set(outcomes.values()) == {"same Records"}, outcomes
    part = _through_guide(run, READS[0])
    assert part is not None
    assert part["refs"] == ["Part/P-10001"]
    answer = next(data for name, data in run.events if name == "answer")
    cited = [citation["ref"] for citation in answer["citations"]]
    assert "Part/P-10001" in cited
    assert "Supplier/S-1001" in cited
    assert "Contract/C-3001" not in cited or any(
        "Contract/C-3001" in data["refs"] for name, data in run.events if name == "tool_result"
    )
