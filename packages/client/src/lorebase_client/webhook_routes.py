"""The requests of the webhook routes (docs/feed.md), for `client.webhooks` of both clients:
a Domain's webhooks and their deliveries. Managing them takes domain.settings on the whole
Domain."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

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


def list_request(domain: str) -> ApiRequest:
    """GET .../webhooks."""
    return ApiRequest("GET", _path(domain))


def get_request(domain: str, webhook_id: str) -> ApiRequest:
    """GET .../webhooks/{id}."""
    return ApiRequest("GET", _one(domain, webhook_id))


def delete_request(domain: str, webhook_id: str) -> ApiRequest:
    """DELETE .../webhooks/{id}."""
    return ApiRequest("DELETE", _one(domain, webhook_id))


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
