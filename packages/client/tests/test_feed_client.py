"""`client.events`, `client.changes` and `lorebase events|changes` against a real Keeper whose
streams close every half second, so following a branch means reconnecting with Last-Event-ID."""

from __future__ import annotations

import asyncio
import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from lorebase_client import AsyncLorebaseClient, LorebaseClient
from lorebase_client.cli import main
from lorebase_core.changes import UpsertRecord
from lorebase_core.errors import HistoryForbidden, ResyncRequired, Unauthorized
from lorebase_keeper.app import create_app
from lorebase_keeper.testing import grant_key, serve_in_thread
from lorebase_platform.settings import Settings
from lorebase_store import Store, import_directory
from lorebase_store.testing import commit_changes

ROOT = Path(__file__).resolve().parents[3]


@dataclass(frozen=True)
class Followed:
    url: str
    key: str
    narrowed_key: str
    store: Store

    def commit(self, value: int) -> int:
        commit_changes(self.store, [UpsertRecord("Supplier", "S-1001", {"risk_score": value})])
        return int(self.store.events("supply", limit=10_000)[-1]["sequence"])


@pytest.fixture(scope="module")
def followed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Followed]:
    path = tmp_path_factory.mktemp("feed") / "feed.sqlite"
    store = Store.open(f"sqlite:///{path}")
    import_directory(store, ROOT / "examples" / "supply")
    key = grant_key(store, "usr_follower", domain="supply", role="viewer")
    narrowed = grant_key(store, "usr_narrowed", domain="supply", role="viewer", kinds=["Supplier"])
    settings = Settings(
        keeper={"auth": {"mode": "api_key", "authz": {"grants_cache_ttl_s": 0}}},
        agents={"feed": {"poll_interval_s": 0.05, "max_connection_s": 0.5, "retry_ms": 50}},
    )
    with serve_in_thread(create_app(settings, store=store)) as url:
        yield Followed(url, key, narrowed, store)
    store.close()


def _collect(followed: Followed, start: int, count: int, found: queue.Queue[Any]) -> None:
    with LorebaseClient(followed.url, api_key=followed.key) as client:
        for event in client.events("supply", "main", last_event_id=str(start)):
            found.put(event)
            if event["sequence"] >= start + count:
                return


def test_events_reconnect_across_closes_without_gaps_or_repeats(followed: Followed) -> None:
    start = followed.commit(1)
    found: queue.Queue[Any] = queue.Queue()
    reader = threading.Thread(target=_collect, args=(followed, start, 4, found), daemon=True)
    reader.start()
    made = []
    for value in range(4):
        made.append(followed.commit(10 + value))
        time.sleep(0.3)  # spread over several connections of 0.5 s
    reader.join(timeout=20)
    assert not reader.is_alive()
    events = [found.get_nowait() for _ in range(found.qsize())]
    assert [event["sequence"] for event in events] == made
    assert {event["type"] for event in events} == {"revision.committed"}


@pytest.mark.anyio
async def test_the_async_client_follows_too(followed: Followed) -> None:
    start = await asyncio.to_thread(followed.commit, 2)
    seen: list[int] = []

    async def follow() -> None:
        async with AsyncLorebaseClient(followed.url, api_key=followed.key) as client:
            async for event in client.events("supply", "main", last_event_id=str(start)):
                seen.append(event["sequence"])
                if len(seen) == 2:
                    return

    task = asyncio.create_task(follow())
    made = [await asyncio.to_thread(followed.commit, value) for value in (21, 22)]
    await asyncio.wait_for(task, 20)
    assert seen == made


def test_events_raise_the_problem_of_a_refused_stream(followed: Followed) -> None:
    with (
        LorebaseClient(followed.url, api_key=followed.narrowed_key) as client,
        pytest.raises(HistoryForbidden),
    ):
        next(iter(client.events("supply", "main")))
    with (
        LorebaseClient(followed.url, api_key="lbk_nothing_here") as client,
        pytest.raises(Unauthorized),
    ):
        next(iter(client.events("supply", "main")))


def test_changes_page_and_resync(followed: Followed) -> None:
    with LorebaseClient(followed.url, api_key=followed.key) as client:
        head = client.changes("supply", "main", limit=1)
        since = head["next_since"]
        followed.commit(31)
        followed.commit(32)
        page = client.changes("supply", "main", since=since, kinds=["Supplier"], limit=1)
        assert len(page["events"]) == 1
        assert page["more"] is True
        followed.store.create_branch("supply", "side", created_by="usr_tester")
        other = commit_changes(
            followed.store, [UpsertRecord("Part", "P-10001", {"unit_cost": "9.90"})], branch="side"
        )
        with pytest.raises(ResyncRequired):
            client.changes("supply", "main", since=other.id)


def test_the_changes_command(followed: Followed) -> None:
    env = {"LOREBASE_URL": followed.url, "LOREBASE_API_KEY": followed.key}
    first = CliRunner().invoke(
        main, ["changes", "main", "--domain", "supply", "--limit", "1"], env=env
    )
    assert first.exit_code == 0, first.output
    since = json.loads(first.stdout)["next_since"]
    made = followed.commit(41)
    result = CliRunner().invoke(
        main, ["changes", "main", "--domain", "supply", "--since", since], env=env
    )
    assert result.exit_code == 0, result.output
    assert [event["sequence"] for event in json.loads(result.stdout)["events"]] == [made]


def test_the_events_command_prints_one_json_per_line_as_they_come(followed: Followed) -> None:
    program = shutil.which("lorebase", path=str(Path(sys.executable).parent))
    assert program is not None
    start = followed.commit(50)
    env = {**os.environ, "LOREBASE_URL": followed.url, "LOREBASE_API_KEY": followed.key}
    process = subprocess.Popen(
        [program, "events", "main", "--domain", "supply", "--last-event-id", str(start - 1)],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        first = json.loads(process.stdout.readline())
        made = followed.commit(51)
        second = json.loads(process.stdout.readline())
        assert [first["sequence"], second["sequence"]] == [start, made]
    finally:
        process.terminate()
        process.wait(timeout=10)
        if process.stdout is not None:
            process.stdout.close()
