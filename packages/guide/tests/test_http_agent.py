"""POST /explore with the real exploration loop: Keeper read with the caller's credential over
HTTP, the scripted model answering, and logs that hold nothing of the question or the answer."""

from __future__ import annotations

import logging
from typing import Any

import httpx
import pytest
from packages.guide.tests.conftest import LiveKeeper, events_of, guide_settings, serve_guide

from lorebase_inference.testing import ScriptedModelServer

QUESTION = "Which parts have a single supplier, zanzibar quokka?"
SINGLE_SOURCED = ["Part/P-10007", "Part/P-10019", "Part/P-10033"]


def step(action: str, args: dict[str, Any], thought: str) -> dict[str, Any]:
    return {"thought": thought, "action": action, "args": args}


def test_an_exploration_over_http_reads_keeper_as_the_caller(
    keeper: LiveKeeper, scripted_model: ScriptedModelServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    scripted_model.add(
        step("query", {"suggestion": 1}, "Counting the suppliers of each quokka part."),
        step(
            "answer",
            {
                "facts": [f"{ref} was read" for ref in SINGLE_SOURCED],
                "answer": "Three quokka parts have one supplier: P-10007, P-10019, P-10033.",
                "citations": SINGLE_SOURCED,
                "found": True,
            },
            "Answering from the query.",
        ),
    )
    authorization = f"Bearer {keeper.keys['admin']}"
    mark = keeper.mark()
    with serve_guide(guide_settings(keeper.url, scripted_model), explorer=None) as url:
        response = httpx.post(
            f"{url}/explore",
            json={"domain": "supply", "branch": None, "question": QUESTION, "max_steps": 4},
            headers={"Authorization": authorization},
            timeout=60,
        )
    assert response.status_code == 200, response.text
    events = events_of(response.text)
    names = [name for name, _ in events]
    assert names[0] == "session"
    assert names[-2:] == ["answer", "done"]
    assert "tool_call" in names
    answer = dict(events)["answer"]
    assert answer["found"] is True
    assert [citation["ref"] for citation in answer["citations"]] == SINGLE_SOURCED
    reads = keeper.requests_since(mark)
    assert reads[0].path == "/api/v1/auth/whoami"
    assert len(reads) > 1
    assert all(read.headers.get("authorization") == authorization for read in reads)
    assert any(read.headers.get("x-lorebase-tool", "").startswith("guide.") for read in reads)
    guide_logs = "\n".join(
        f"{record.name} {record.getMessage()}"
        for record in caplog.records
        if not record.name.startswith(("lorebase_keeper", "lorebase_store"))
    ).lower()
    assert "lorebase_guide.access post /explore 200" in guide_logs
    for word in ("zanzibar", "quokka", keeper.keys["admin"].lower(), "p-10007"):
        assert word not in guide_logs
