"""POST /explore over real HTTP: the stream, its budgets, and every refusal before it."""

from __future__ import annotations

import httpx
from packages.guide.tests.conftest import (
    LiveKeeper,
    events_of,
)

from lorebase_inference.testing import ScriptedModelServer

QUESTION = {"domain": "supply", "branch": None, "question": "Which suppliers are in Italy?"}


def bearer(keeper: LiveKeeper, profile: str = "admin") -> dict[str, str]:
    return {"Authorization": f"Bearer {keeper.keys[profile]}"}


def test_an_exploration_streams_its_events(
    keeper: LiveKeeper, scripted_model: ScriptedModelServer, guide: str
) -> None:
    scripted_model.add({"text": "looking"})
    response = httpx.post(
        f"{guide}/explore", json={**QUESTION, "max_steps": 3}, headers=bearer(keeper)
    )
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    assert response.headers["cache-control"] == "no-store"
    events = events_of(response.text)
    assert [name for name, _ in events] == ["session", "thought", "answer", "done"]
    session = events[0][1]
    assert session["max_steps"] == 3
    assert session["domain"] == "supply"
    assert events[1][1]["text"] == "looking"
    assert len(scripted_model.requests) == 1
