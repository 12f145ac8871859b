"""What a delivery pass hands to a sender, and what the sender answers.

The store decides what to send, when, and what an answer means (delivered, retried later, dead,
the webhook disabled); a `Sender` only makes one attempt. Scribe's sender
(`lorebase_scribe.webhooks.HttpxSender`) makes it over HTTP with every rule of a target: allowed
schemes, the host resolved once and every address checked, the connection made to those addresses
only, the whole attempt cut off after webhooks.timeout_s, redirects never followed, the response
body never read. Tests give the pass a sender of their own only to count or to fail on purpose.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class OutgoingDelivery:
    """One attempt to make: a POST of `body` to `url` with `headers`.

    Attributes:
        id: the delivery id (`Lorebase-Delivery`), the same on every attempt.
        webhook_id: the webhook it belongs to.
        url: the webhook's target.
        headers: every header to send (Content-Type, Lorebase-Event, Lorebase-Delivery,
            Idempotency-Key, Lorebase-Signature, and webhooks.headers).
        body: the event document, exactly the bytes that were signed.
    """

    id: str
    webhook_id: str
    url: str
    headers: Mapping[str, str]
    body: bytes


@dataclass(frozen=True)
class SendResult:
    """The outcome of one attempt.

    Attributes:
        status: the HTTP status of the answer, or None when none came (refused, timed out,
            dropped, a target the rules forbid).
        error: what went wrong, for the delivery's `last_error`: never a secret, never the body.
        retry_after_s: the receiver's `Retry-After`, in seconds, when it sent one.
    """

    status: int | None
    error: str | None = None
    retry_after_s: float | None = None

    @property
    def acknowledged(self) -> bool:
        """Whether the receiver answered 2xx: the delivery is done."""
        return self.status is not None and 200 <= self.status < 300


class Sender(Protocol):
    """Makes one attempt of a delivery; never raises for what the network or receiver does."""

    async def send(self, delivery: OutgoingDelivery) -> SendResult:
        """POST the delivery once and say what happened."""
        ...
