"""A `lorebase-scribe run` process killed with SIGKILL mid-pass loses nothing the receiver acked.

The first Scribe delivers to a real receiver on loopback (each answer a little slow, so a pass
is always mid-flight) and is killed with SIGKILL while requests are in flight. A second Scribe,
under another worker id, takes over once the job's lease (scribe.lease_s, short here) and the
delivery leases of the dead pass expire. Then every event has been acknowledged, every delivery
is recorded delivered, and the only repeats are deliveries the first Scribe had in flight at the
kill: at most webhooks.concurrency of them, each with its Idempotency-Key to drop it by.

The delivery leases of a pass last webhooks.pass_timeout_s + 2 * webhooks.timeout_s, so the
takeover of the in-flight deliveries waits that long.
"""

from __future__ import annotations

import signal
import subprocess
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from packages.scribe.tests.receivers import Answer, Received, Receiver
from packages.scribe.tests.test_cli import SCRIPT, scribe_env
from packages.store.tests.webhook_helpers import KEY, KEY_ENV, settings, touch

from lorebase_store import Store, create_webhook, list_deliveries

DOMAIN = "library"
EVENTS = 16
CONCURRENCY = 2


def _scribe(database_url: str, worker: str, log: Path) -> subprocess.Popen[bytes]:
    env = scribe_env(
        **{
            KEY_ENV: KEY,
            "LOREBASE__SCRIBE__WORKER_ID": worker,
            "LOREBASE__SCRIBE__LEASE_S": "1",
            "LOREBASE__SCRIBE__IDLE_SLEEP_S": "0.1",
            "LOREBASE__SCRIBE__JOBS__WEBHOOK_DELIVERY__ENABLED": "true",
            "LOREBASE__SCRIBE__JOBS__WEBHOOK_DELIVERY__INTERVAL_S": "0.1",
            "LOREBASE__SCRIBE__JOBS__STATISTICS_RECOUNT__ENABLED": "false",
            "LOREBASE__WEBHOOKS__ENCRYPTION_KEY": f"secret://env/{KEY_ENV}",
            "LOREBASE__WEBHOOKS__ALLOWED_SCHEMES": '["http"]',
            "LOREBASE__WEBHOOKS__ALLOW_PRIVATE_TARGETS": "true",
            "LOREBASE__WEBHOOKS__CONCURRENCY": str(CONCURRENCY),
            "LOREBASE__WEBHOOKS__BATCH": "4",
            "LOREBASE__WEBHOOKS__TIMEOUT_S": "1",
            "LOREBASE__WEBHOOKS__PASS_TIMEOUT_S": "1",
            "LOREBASE__WEBHOOKS__BACKOFF_INITIAL_S": "0.1",
        }
    )
    with log.open("w") as stderr:
        return subprocess.Popen(
            [SCRIPT, "run", "--database", database_url],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )


def _wait_for(condition: Callable[[], bool], seconds: float, what: str, log: Path) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"{what} within {seconds} s:\n{log.read_text()}"
        time.sleep(0.02)


def test_a_scribe_killed_mid_pass_loses_nothing_and_repeats_only_what_was_in_flight(
    library: Store, database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    with Receiver(lambda _: Answer(200, delay_s=0.15)) as receiver:
        webhook = create_webhook(
            library, DOMAIN, url=f"{receiver.url}/hook", principal="usr_admin", settings=settings()
        ).webhook
        expected = {
            f"evt_{touch(library, DOMAIN, 'Book', 'B-0001', {'pages': 200 + number})}"
            for number in range(EVENTS)
        }

        def acked() -> set[str]:
            return {key(request) for request, status, _ in list(receiver.answered) if status == 200}

        def in_flight() -> int:
            return len(receiver.requests) - len(receiver.answered)

        first_log = tmp_path / "first.log"
        first = _scribe(database_url, "scribe-killed", first_log)
        try:
            _wait_for(
                lambda: len(acked()) >= 4 and in_flight() > 0,
                60,
                "the first Scribe acknowledged nothing with a request in flight",
                first_log,
            )
            first.send_signal(signal.SIGKILL)
            first.wait(timeout=30)
        finally:
            if first.poll() is None:
                first.kill()
                first.wait()
        sent_before_kill = {key(request) for request in list(receiver.requests)}
        assert acked() != expected, "the first Scribe finished before the kill"

        second_log = tmp_path / "second.log"
        second = _scribe(database_url, "scribe-taking-over", second_log)
        try:
            _wait_for(
                lambda: acked() == expected,
                90,
                "the second Scribe did not deliver every event",
                second_log,
            )
            second.send_signal(signal.SIGTERM)
            assert second.wait(timeout=30) == 0, second_log.read_text()
        finally:
            if second.poll() is None:
                second.kill()
                second.wait()

    received = Counter(key(request) for request in receiver.requests)
    assert set(received) == expected
    repeated = {event for event, count in received.items() if count > 1}
    assert len(repeated) <= CONCURRENCY, received
    assert repeated <= sent_before_kill  # only what the killed Scribe had in flight
    page = list_deliveries(library, DOMAIN, webhook.id, limit=EVENTS + 1)
    assert [item.status for item in page.items] == ["delivered"] * EVENTS


def key(request: Received) -> str:
    """The Idempotency-Key a receiver drops repeats by."""
    return request.headers["idempotency-key"]
