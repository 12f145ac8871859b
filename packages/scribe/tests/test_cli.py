"""`lorebase-scribe run` as a real process: `--once`, and a SIGTERM that lets the job finish."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from lorebase_store import Store
from lorebase_store import tables as t

SCRIPT = shutil.which("lorebase-scribe") or str(
    Path(__file__).parents[3] / ".venv/bin/lorebase-scribe"
)


def scribe_env(**extra: str) -> dict[str, str]:
    """The environment of a Scribe process: no settings file, the webhook and embedding jobs off."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("LOREBASE")}
    env.update(
        {
            "LOREBASE__SCRIBE__JOBS__WEBHOOK_DELIVERY__ENABLED": "false",
            "LOREBASE__SCRIBE__JOBS__WEBHOOK_PRUNE__ENABLED": "false",
            "LOREBASE__SCRIBE__JOBS__RECORD_EMBEDDINGS__ENABLED": "false",
            "LOREBASE__SCRIBE__IDLE_SLEEP_S": "0.2",
            "LOREBASE__SCRIBE__WORKER_ID": "scribe-under-test",
            **extra,
        }
    )
    return env


def run_once(
    *arguments: str, env: dict[str, str], cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SCRIPT, "run", "--once", *arguments],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=cwd,
    )


def make_behind(store: Store) -> None:
    with store.engine.begin() as connection:
        connection.execute(t.statistics.update().values(as_of="0" * 64))


def test_run_once_runs_the_due_jobs_and_exits(library: Store, database_url: str) -> None:
    make_behind(library)
    done = run_once("--database", database_url, env=scribe_env())
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("statistics_recount library done ")
    assert "job statistics_recount domain=library outcome=done" in done.stderr
    assert library.statistics_behind("library") is False
    [state] = library.jobs.states()
    assert state.last_run_at is not None
    assert state.lease_owner is None


def test_run_once_exits_1_when_a_job_failed(library: Store, database_url: str) -> None:
    env = scribe_env(
        LOREBASE__SCRIBE__JOBS__WEBHOOK_DELIVERY__ENABLED="true",
        LOREBASE__WEBHOOKS__ENCRYPTION_KEY="secret://env/LOREBASE_TEST_UNSET_KEY",
    )
    done = run_once("--database", database_url, env=env)
    assert done.returncode == 1
    assert "webhook_delivery - failed" in done.stdout
    assert "LOREBASE_TEST_UNSET_KEY" in done.stdout  # the error names what to set


def test_bad_settings_are_named_without_their_values(tmp_path: Path) -> None:
    done = run_once(env=scribe_env(LOREBASE__SCRIBE__LEASE_S="-5"), cwd=tmp_path)
    assert done.returncode == 1
    assert "scribe.lease_s" in done.stderr
    assert "-5" not in done.stderr


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_stops_a_running_scribe(
    library: Store, database_url: str, tmp_path: Path, signum: signal.Signals
) -> None:
    make_behind(library)
    log = tmp_path / "scribe.log"
    with log.open("w") as stderr:
        process = subprocess.Popen(
            [SCRIPT, "run", "--database", database_url],
            env=scribe_env(),
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    try:
        deadline = time.monotonic() + 60
        while "outcome=done" not in log.read_text():
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "Scribe ran no job within 60 s"
            time.sleep(0.05)
        process.send_signal(signum)
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert f"{signum.name}: stopping after the running job" in log.read_text()
    assert library.statistics_behind("library") is False
    assert all(state.lease_owner is None for state in library.jobs.states())
