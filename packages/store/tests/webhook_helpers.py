"""What the webhook tests share: a scripted receiver (the network), settings, a commit."""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Iterable
from typing import Any

from lorebase_core.changes import UpsertRecord
from lorebase_platform.settings import WebhookSettings
from lorebase_store import Store
from lorebase_store.testing import change_request
from lorebase_store.webhooks import OutgoingDelivery, SendResult

KEY_ENV = "LOREBASE_TEST_WEBHOOK_KEY"
OLD_KEY_ENV = "LOREBASE_TEST_WEBHOOK_OLD_KEY"
KEY = "k" * 40
OLD_KEY = "o" * 40


def verified(secret: str, header: str, body: bytes, tolerance_s: int = 300) -> bool:
    parts = dict(item.split("=", 1) for item in header.split(","))
    timestamp = int(parts["t"])
    if abs(time.time() - timestamp) > tolerance_s:
        return False
    key = hashlib.sha256(secret.encode()).digest()
    expected = hmac.new(key, f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, parts["v1"])


class Receiver:
    """A sender that records each attempt and answers as the test scripted (else 200)."""

    def __init__(self, answers: Iterable[SendResult] = (), default: int = 200) -> None:
        self.sent: list[OutgoingDelivery] = []
        self.answers = list(answers)
        self.default = default

    async def send(self, delivery: OutgoingDelivery) -> SendResult:
        self.sent.append(delivery)
        return self.answers.pop(0) if self.answers else SendResult(self.default)


def settings(**overrides: Any) -> WebhookSettings:
    """Settings of a test: a sealing key from the environment, loopback targets allowed."""
    options: dict[str, Any] = {
        "encryption_key": f"secret://env/{KEY_ENV}",
        "allow_private_targets": True,
        "allowed_schemes": ["http", "https"],
    }
    options.update(overrides)
    return WebhookSettings(**options)


def touch(store: Store, domain: str, kind: str, key: str, values: dict[str, Any]) -> int:
    """Commit one change on the default branch; the event sequence it wrote."""
    result = store.commit(
        change_request(f"Change {key}", domain=domain),
        [UpsertRecord(kind, key, values, must_exist=True)],
    )
    assert result.event_sequence is not None
    return int(result.event_sequence)
