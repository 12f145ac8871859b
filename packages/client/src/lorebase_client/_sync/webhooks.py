# generated from _async/webhooks.py by scripts/unasync.py; do not edit
"""`client.webhooks`: a Domain's webhooks and their deliveries for `LorebaseClient`
(docs/feed.md); the requests are built in webhook_routes.py."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from lorebase_client.answers import Answer
from lorebase_client.routes import ApiRequest
from lorebase_client.webhook_routes import (
    DeliveryStatus,
    create_request,
    delete_request,
    deliveries_request,
    get_request,
    list_request,
    retry_request,
    update_request,
)


class WebhookCalls:
    """The webhooks of `LorebaseClient` (its `webhooks` attribute)."""

    def __init__(self, call: Callable[[ApiRequest], Answer]) -> None:
        self._call = call

    def create(
        self,
        domain: str,
        url: str,
        *,
        events: Sequence[str] | None = None,
        branches: Sequence[str] | None = None,
        clearances: Sequence[str] | None = None,
    ) -> Answer:
        """Register a webhook; the answer's `secret` is shown only this once: keep it."""
        return self._call(create_request(domain, url, events, branches, clearances))

    def list(self, domain: str) -> Answer:
        """The webhooks of a Domain (`webhooks`), never their secrets."""
        return self._call(list_request(domain))

    def get(self, domain: str, webhook_id: str) -> Answer:
        """One webhook."""
        return self._call(get_request(domain, webhook_id))

    def update(
        self,
        domain: str,
        webhook_id: str,
        *,
        url: str | None = None,
        events: Sequence[str] | None = None,
        branches: Sequence[str] | None = None,
        clearances: Sequence[str] | None = None,
        enabled: bool | None = None,
    ) -> Answer:
        """Change what is given (`clearances`: the new full set; `enabled=True` after a 410)."""
        changes = {
            "url": url,
            "events": None if events is None else list(events),
            "branches": None if branches is None else list(branches),
            "clearances": None if clearances is None else list(clearances),
            "enabled": enabled,
        }
        return self._call(update_request(domain, webhook_id, changes))

    def delete(self, domain: str, webhook_id: str) -> Answer:
        """Remove a webhook with its deliveries."""
        return self._call(delete_request(domain, webhook_id))

    def deliveries(
        self,
        domain: str,
        webhook_id: str,
        *,
        status: DeliveryStatus | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Answer:
        """One page of a webhook's deliveries, newest event first (`deliveries`, `next_cursor`)."""
        return self._call(deliveries_request(domain, webhook_id, status, limit, cursor))

    def retry(self, domain: str, webhook_id: str, delivery_id: str) -> Answer:
        """Send a dead delivery again, under the same delivery id and Idempotency-Key."""
        return self._call(retry_request(domain, webhook_id, delivery_id))
