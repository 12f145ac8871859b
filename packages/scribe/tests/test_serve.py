"""`lorebase serve --scribe`: Scribe's jobs run in Keeper's process and stop with it (real HTTP)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import httpx

from lorebase_store import Store
from lorebase_store import tables as t

LOREBASE = shutil.which("lorebase") or str(Path(__file__).parents[3] / ".venv/bin/lorebase")
LISTENING = re.compile(r"Uvicorn running on (http://127\.0\.0\.1:\d+)")


def keeper_env() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("LOREBASE")}
    env.update(
        {"LOREBASE__SCRIBE__IDLE_SLEEP_S": "0.2", "LOREBASE__SCRIBE__WORKER_ID": "in-keeper"}
    )
    return env


def wait_for(
    log: Path, pattern: re.Pattern[str], process: subprocess.Popen[bytes]
) -> re.Match[str]:
    deadline = time.monotonic() + 120
    while (found := pattern.search(log.read_text())) is None:
        assert process.poll() is None, log.read_text()
        assert time.monotonic() < deadline, (
            f"no {pattern.pattern!r} within 120 s: {log.read_text()}"
        )
        time.sleep(0.05)
    return found


def start_keeper(log: Path, *arguments: str) -> subprocess.Popen[bytes]:
    with log.open("w") as output:
        return subprocess.Popen(
            [LOREBASE, "serve", *arguments, "--auth", "none", "--port", "0"],
            env=keeper_env(),
            stdout=output,
            stderr=subprocess.STDOUT,
        )


def make_behind(store: Store) -> None:
    """Statistics of no head: coverage reads `approximate` until they are counted again."""
    with store.engine.begin() as connection:
        connection.execute(t.statistics.update().values(as_of="0" * 64))


def coverage_of_authors(url: str) -> dict[str, object]:
    response = httpx.post(
        f"{url}/api/v1/domains/library/query", json={"kind": "Author", "limit": 1}, timeout=10
    )
    assert response.status_code == 200, response.text
    [kind] = response.json()["coverage"]["kinds"]
    assert isinstance(kind, dict)
    return kind


def test_serve_with_scribe_makes_coverage_exact_and_stops_with_keeper(
    library: Store, database_url: str, tmp_path: Path
) -> None:
    make_behind(library)
    assert library.statistics_behind("library") is True
    log = tmp_path / "keeper.log"
    process = start_keeper(log, "--scribe", "--database", database_url)
    try:
        url = wait_for(log, LISTENING, process).group(1)
        deadline = time.monotonic() + 120  # generous: a loaded machine recounts late
        while (kind := coverage_of_authors(url))["approximate"]:
            assert time.monotonic() < deadline, "Scribe in Keeper did not recount within 120 s"
            time.sleep(0.05)
        assert kind["as_of"] == library.branch("library", "main").head_revision
        assert "Scribe runs in this process as 'in-keeper'" in log.read_text()
        # the job's line is written after its commit, which coverage may see first
        wait_for(log, re.compile(r"job statistics_recount domain=library outcome=done"), process)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0, log.read_text()
        assert "Scribe stopped" in log.read_text()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert all(state.lease_owner is None for state in library.jobs.states())  # none abandoned
