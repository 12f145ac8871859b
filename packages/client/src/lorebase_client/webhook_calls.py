"""`client.webhooks`: a Domain's webhooks and their deliveries, for the sync and the async client
(docs/feed.md). Managing them takes domain.settings on the whole Domain."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal

from lorebase_client.answers import Answer
from lorebase_client.paths import domain_path, segment
from lorebase_client.routes import ApiRequest, query_params

DeliveryStatus = Literal["pending", "delivered", "dead"]


def _path(domain: str, *parts: str) -> str:
    return domain_path(domain, "webhooks", *parts)


def _one(domain: str, webhook_id: str, *parts: str) -> str:
    return _path(domain, segment(webhook_id, "webhook"), *parts)


def create_request(
    domain: str,
    url: str,
    events: Sequence[str] | None,
    branches: Sequence[str] | None,
    clearances: Sequence[str] | None,
) -> ApiRequest:
    """POST .../webhooks; members left None are not sent (Keeper's defaults apply)."""
    body: dict[str, Any] = {"url": url}
    for name, value in (("events", events), ("branches", branches), ("clearances", clearances)):
        if value is not None:
            body[name] = list(value)
    return ApiRequest("POST", _path(domain), body=body)


def update_request(domain: str, webhook_id: str, changes: dict[str, Any]) -> ApiRequest:
    """PATCH .../webhooks/{id} with the members given."""
    body = {name: value for name, value in changes.items() if value is not None}
    return ApiRequest("PATCH", _one(domain, webhook_id), body=body)


def deliveries_request(
    domain: str,
    webhook_id: str,
    status: DeliveryStatus | None,
    limit: int | None,
    cursor: str | None,
) -> ApiRequest:
    """GET .../webhooks/{id}/deliveries."""
    params = query_params(status=status, limit=limit, cursor=cursor)
    return ApiRequest("GET", _one(domain, webhook_id, "deliveries"), params)


def retry_request(domain: str, webhook_id: str, delivery_id: str) -> ApiRequest:
    """POST .../webhooks/{id}/deliveries/{delivery}/retry."""
    route = _one(domain, webhook_id, "deliveries", segment(delivery_id, "delivery"), "retry")
    return ApiRequest("POST", route, body={})


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
        return self._call(ApiRequest("GET", _path(domain)))

    def get(self, domain: str, webhook_id: str) -> Answer:
        """One webhook."""
        return self._call(ApiRequest("GET", _one(domain, webhook_id)))

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
        return self._call(ApiRequest("DELETE", _one(domain, webhook_id)))

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


class AsyncWebhookCalls:
    """The webhooks of `AsyncLorebaseClient` (its `webhooks` attribute): `WebhookCalls`, awaited."""

    def __init__(self, call: Callable[[ApiRequest], Awaitable[Answer]]) -> None:
        self._call = call

    async def create(
        self,
        domain: str,
        url: str,
        *,
        events: Sequence[str] | None = None,
        branches: Sequence[str] | None = None,
        clearances: Sequence[str] | None = None,
    ) -> Answer:
        """Register a webhook; the answer's `secret` is shown only this once."""
        return await self._call(create_request(domain, url, events, branches, clearances))

    async def list(self, domain: str) -> Answer:
        """The webhooks of a Domain."""
        return await self._call(ApiRequest("GET", _path(domain)))

    async def get(self, domain: str, webhook_id: str) -> Answer:
        """One webhook."""
        return await self._call(ApiRequest("GET", _one(domain, webhook_id)))

    async def update(self, domain: str, webhook_id: str, **changes: Any) -> Answer:
        """Change `url`, `events`, `branches`, `clearances` or `enabled`."""
        listed = {
            name: list(value) if isinstance(value, (list, tuple)) else value
            for name, value in changes.items()
        }
        return await self._call(update_request(domain, webhook_id, listed))

    async def delete(self, domain: str, webhook_id: str) -> Answer:
        """Remove a webhook with its deliveries."""
        return await self._call(ApiRequest("DELETE", _one(domain, webhook_id)))

    async def deliveries(
        self,
        domain: str,
        webhook_id: str,
        *,
        status: DeliveryStatus | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Answer:
        """One page of a webhook's deliveries."""
        return await self._call(deliveries_request(domain, webhook_id, status, limit, cursor))

    async def retry(self, domain: str, webhook_id: str, delivery_id: str) -> Answer:
        """Send a dead delivery again."""
        return await self._call(retry_request(domain, webhook_id, delivery_id))
