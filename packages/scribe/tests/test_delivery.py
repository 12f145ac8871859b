"""End to end: deliver_pending with HttpxSender to a real receiver that fails about 30% of attempts.

The receiver answers 5xx, never answers, drops the connection or closes it midway on about 30%
of the requests; passes with small backoff settings run until every event of a series of commits
is acknowledged. Each event is acknowledged exactly once per Idempotency-Key, every attempt's
signature verifies with the documented `verified` function, and each body is its event.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections import Counter
from collections.abc import Iterator

import pytest
from packages.scribe.tests.receivers import DROP, HALF, HANG, Answer, Fault, Received, Receiver
from packages.store.tests.webhook_helpers import KEY, KEY_ENV, settings, touch, verified

from lorebase_scribe import HttpxSender
from lorebase_store import Store, create_webhook, deliver_pending, list_deliveries

pytestmark = pytest.mark.anyio

DOMAIN = "library"
COMMITS = 12
FAULTS: list[Answer | Fault] = [Answer(503), Answer(500), HANG, DROP, HALF]


class Flaky:
    """Fails about 30% of requests in every way; counts the 2xx answers per Idempotency-Key."""

    def __init__(self, seed: int, failure_rate: float = 0.3) -> None:
        self.random = random.Random(seed)
        self.failure_rate = failure_rate
        self.acknowledged: Counter[str] = Counter()
        self.failed = 0
        self.lock = threading.Lock()

    def __call__(self, received: Received) -> Answer | Fault:
        with self.lock:
            if self.random.random() < self.failure_rate:
                self.failed += 1
                return self.random.choice(FAULTS)
            self.acknowledged[received.headers["idempotency-key"]] += 1
            return Answer(200)


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)


@pytest.fixture
def flaky() -> Iterator[tuple[Flaky, Receiver]]:
    behaviour = Flaky(seed=13)
    with Receiver(behaviour) as running:
        yield behaviour, running


async def test_every_event_is_acknowledged_once_per_idempotency_key_after_retries(
    library: Store, flaky: tuple[Flaky, Receiver]
) -> None:
    behaviour, receiver = flaky
    options = settings(
        timeout_s=0.3,
        connect_timeout_s=0.2,
        backoff_initial_s=0.01,
        backoff_multiplier=1.0,
        max_attempts=40,
        concurrency=8,
    )
    made = create_webhook(
        library, DOMAIN, url=f"{receiver.url}/hook", principal="usr_admin", settings=options
    )
    sequences = [
        touch(library, DOMAIN, "Book", "B-0001", {"pages": 100 + number})
        for number in range(COMMITS)
    ]
    expected = {f"evt_{sequence}" for sequence in sequences}
    deadline = time.monotonic() + 60
    async with HttpxSender(options) as sender:
        while set(behaviour.acknowledged) != expected:
            assert time.monotonic() < deadline, "not every event was acknowledged within 60 s"
            report = await deliver_pending(library, sender, options, domain=DOMAIN)
            assert report.dead == 0
    assert behaviour.acknowledged == Counter(dict.fromkeys(expected, 1))
    assert behaviour.failed >= 3  # the faults really happened
    for request in receiver.requests:
        assert verified(made.secret, request.headers["lorebase-signature"], request.body)
        event = json.loads(request.body)
        assert request.headers["idempotency-key"] == f"evt_{event['sequence']}"
        assert event["type"] == request.headers["lorebase-event"] == "revision.committed"
    page = list_deliveries(library, DOMAIN, made.webhook.id)
    assert {item.status for item in page.items} == {"delivered"}
