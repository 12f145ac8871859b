"""The agent trace across real Keeper processes (`lorebase serve`): a cap that holds across two
Keepers on one PostgreSQL, a Keeper killed mid-batch that loses at most its queue and corrupts
nothing, and drops counted by reason when the database refuses the writer.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio
import httpx
import sqlean
from packages.keeper.tests.conftest import ROOT, wait_until_ready

from lorebase_keeper.app import create_app
from lorebase_keeper.testing import free_port, grant_key
from lorebase_keeper.trace.recorder import DROPPED, RECORDED
from lorebase_platform.settings import Settings
from lorebase_store import Store, import_directory
from lorebase_store.testing import trace_consistency

SUPPLY = ROOT / "examples" / "supply"
LOREBASE = [sys.executable, "-m", "lorebase_client.cli"]
SCHEMA_URL = "/api/v1/domains/supply/schema"


@contextmanager
def keeper_process(
    database: str, tmp_path: Path, **trace: object
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`lorebase serve` on a free port with keeper.trace settings from the environment."""
    port = free_port()
    environment = {**os.environ, "LOREBASE__KEEPER__TRACE__ENABLED": "true"}
    for name, value in trace.items():
        environment[f"LOREBASE__KEEPER__TRACE__{name.upper()}"] = str(value).lower()
    log = (tmp_path / f"keeper-{port}.log").open("w")
    process = subprocess.Popen(
        [*LOREBASE, "serve", "--port", str(port), "--database", database],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=environment,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_ready(url, process, tmp_path / f"keeper-{port}.log")
        yield url, process
    finally:
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=20)
        log.close()


def _hammer(url: str, key: str, session: str, calls: int, threads: int = 4) -> None:
    def worker() -> None:
        with httpx.Client(
            base_url=url,
            headers={
                "Authorization": f"Bearer {key}",
                "X-Lorebase-Trace": "on",
                "X-Lorebase-Session": session,
            },
            timeout=30,
        ) as client:
            for _ in range(calls // threads):
                try:
                    client.get(SCHEMA_URL)
                except httpx.TransportError:
                    return  # the Keeper was killed

    workers = [threading.Thread(target=worker) for _ in range(threads)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join()


def test_the_session_cap_holds_across_two_keepers(database_url: str, tmp_path: Path) -> None:
    store = Store.open(database_url)
    try:
        import_directory(store, SUPPLY)
        key = grant_key(store, "usr_admin", domain="supply", role="admin")
        settings = {"max_steps_per_session": 40, "batch_size": 5, "flush_interval_s": 0.05}
        with (
            keeper_process(database_url, tmp_path, **settings) as (first, _),
            keeper_process(database_url, tmp_path, **settings) as (second, _),
        ):
            both = [
                threading.Thread(target=_hammer, args=(url, key, "shared", 60))
                for url in (first, second)
            ]
            for thread in both:
                thread.start()
            for thread in both:
                thread.join()
        # terminate flushed both queues (shutdown writes what is queued)
        assert trace_consistency(store) == {"shared": 40}
    finally:
        store.close()


def test_a_keeper_killed_mid_batch_corrupts_nothing(database_url: str, tmp_path: Path) -> None:
    store = Store.open(database_url)
    try:
        import_directory(store, SUPPLY)
        key = grant_key(store, "usr_admin", domain="supply", role="admin")
        with keeper_process(database_url, tmp_path, batch_size=20, flush_interval_s=0.05) as (
            url,
            process,
        ):
            hammering = threading.Thread(target=_hammer, args=(url, key, "killed", 4000, 4))
            hammering.start()
            deadline = time.monotonic() + 120  # a loaded machine is slow; a condition, not a nap
            while store.trace_session("usr_admin", "killed") is None:  # a batch is in
                assert hammering.is_alive(), "the calls ended before a batch was written"
                assert time.monotonic() < deadline, "no batch written within 120 s"
                time.sleep(0.05)
            process.send_signal(signal.SIGKILL)
            process.wait(timeout=20)
            hammering.join()
        counts = trace_consistency(store)
        assert counts.get("killed", 0) > 0, "the Keeper wrote batches before it was killed"
        # the database is usable afterwards: a new Keeper goes on with the same session
        with keeper_process(database_url, tmp_path) as (url, _):
            _hammer(url, key, "killed", 4, 1)
        assert trace_consistency(store)["killed"] == counts["killed"] + 4
    finally:
        store.close()


def test_a_refusing_database_drops_by_reason_and_loses_no_count(tmp_path: Path) -> None:
    path = tmp_path / "lorebase.sqlite"
    store = Store.open(f"sqlite:///{path}", busy_timeout_ms=20)
    try:
        key = grant_key(store, "usr_admin")
        settings = Settings(
            keeper={
                "auth": {"mode": "api_key"},
                "trace": {
                    "enabled": True,
                    "queue_size": 3,
                    "batch_size": 3,
                    "flush_interval_s": 0.02,
                    "write_timeout_s": 0.5,
                },
            }
        )
        app = create_app(settings, store=store)
        recorder = app.state.keeper.recorder
        metrics = app.state.metrics
        headers = {
            "Authorization": f"Bearer {key}",
            "X-Lorebase-Trace": "on",
            "X-Lorebase-Session": "s",
        }
        # another writer holds the write lock: through the store's own SQLite library, since
        # two SQLite libraries in one process do not see each other's file locks
        blocker = sqlean.connect(str(path), isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")

        async def calls(n: int) -> None:
            async with httpx.AsyncClient(
                transport=httpx.ASGITransport(app=app), base_url="http://k"
            ) as client:
                for _ in range(n):
                    assert (
                        await client.get("/api/v1/auth/whoami", headers=headers)
                    ).status_code == 200

        anyio.run(calls, 12)
        assert recorder.flush(10)
        dropped = {
            reason: metrics.value(DROPPED, {"reason": reason})
            for reason in ("queue_full", "write_failed", "session_full", "shutdown")
        }
        assert dropped["queue_full"] > 0, (dropped, metrics.value(RECORDED))
        assert dropped["write_failed"] > 0
        assert metrics.value(RECORDED) == 0
        assert sum(dropped.values()) == 12
        blocker.execute("ROLLBACK")
        anyio.run(calls, 2)
        assert recorder.flush(10)
        assert metrics.value(RECORDED) == 2
        # what is still queued when Keeper stops and cannot be written is dropped as shutdown
        blocker.execute("BEGIN IMMEDIATE")
        anyio.run(calls, 3)
        recorder.close()
        blocker.execute("ROLLBACK")
        blocker.close()
        total = sum(
            metrics.value(DROPPED, {"reason": reason})
            for reason in ("queue_full", "write_failed", "session_full", "shutdown")
        )
        assert total + metrics.value(RECORDED) == 17
        assert trace_consistency(store) == {"s": 2}
    finally:
        store.close()
