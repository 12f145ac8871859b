"""Stop: a client that goes away cancels its exploration, and its slots come back."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import AsyncIterator
from urllib.parse import urlsplit

import anyio
import httpx
from packages.guide.tests.conftest import LiveKeeper, guide_settings, serve_guide

from lorebase_guide.exploration import Caller, Event, Exploration
from lorebase_inference.testing import ScriptedModelServer

QUESTION = {"domain": "supply", "question": "What if S-1007 stops?"}


class Slow:
    """A stand-in exploration that says it started, then waits until it is cancelled."""

    def __init__(self) -> None:
        self.started = 0
        self.cancelled = 0
        self.finished = 0

    async def __call__(
        self, exploration: Exploration, caller: Caller, **_: object
    ) -> AsyncIterator[Event]:
        self.started += 1
        try:
            yield "session", {"session_id": "guide-slow", "max_steps": exploration.max_steps}
            await anyio.sleep(30)
            yield "done", {}
        except BaseException:
            self.cancelled += 1
            raise
        finally:
            self.finished += 1


def _wait(condition: object, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError("the condition did not hold in time")
        time.sleep(0.02)


def test_dropping_the_connection_stops_the_exploration_and_frees_its_slot(
    keeper: LiveKeeper, scripted_model: ScriptedModelServer
) -> None:
    slow = Slow()
    settings = guide_settings(
        keeper.url,
        scripted_model,
        limits={"max_concurrent_per_caller": 1, "max_concurrent": 1},
    )
    with serve_guide(settings, explorer=slow) as url:  # type: ignore[arg-type]
        address = urlsplit(url)
        body = json.dumps(QUESTION).encode()
        raw = socket.create_connection((address.hostname, address.port))
        raw.sendall(
            b"POST /explore HTTP/1.1\r\nHost: guide\r\nContent-Type: application/json\r\n"
            + f"Authorization: Bearer {keeper.keys['admin']}\r\n".encode()
            + f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        received = b""
        while b"event: session" not in received:
            chunk = raw.recv(4096)
            assert chunk, received
            received += chunk
        assert b"200 OK" in received
        # the slot is taken: a second exploration of the same principal is refused
        busy = httpx.post(
            f"{url}/explore",
            json=QUESTION,
            headers={"Authorization": f"Bearer {keeper.keys['admin']}"},
        )
        assert busy.status_code == 429
        raw.close()
        _wait(lambda: slow.finished == 1)
        assert slow.cancelled == 1
        with httpx.stream(
            "POST",
            f"{url}/explore",
            json=QUESTION,
            headers={"Authorization": f"Bearer {keeper.keys['admin']}"},
        ) as again:
            assert again.status_code == 200
            for line in again.iter_lines():
                if line.startswith("event: session"):
                    break
        _wait(lambda: slow.finished == 2)
        assert slow.started == 2
        assert scripted_model.requests == []
