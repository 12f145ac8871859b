"""Webhooks and their deliveries (docs/feed.md): never the secret nor its digest, except
the secret in the answer that creates a webhook."""

from __future__ import annotations

from typing import Literal, TypedDict

from pydantic import Field

from lorebase_keeper.shapes.common import JsonObject, Shape


class Webhook(Shape):
    """A registered receiver of the Domain's events."""

    id: str = Field(description="whk_<random>.")
    domain: str
    url: str
    events: list[str] = Field(
        description="revision.committed, operation.* or operation.<side effect>."
    )
    branches: list[str] = Field(description="The branches it follows; empty: every branch.")
    clearances: list[str] = Field(
        description="Sensitivity tags whose values its operation events carry unmasked."
    )
    enabled: bool
    disabled_reason: str | None = Field(
        description="Why it was disabled (a 410 Gone answer), until it is enabled again."
    )
    created_by: str
    created_at: str
    updated_at: str


class WebhookCreated(Webhook):
    """The webhook just registered, with its secret: shown only this once."""

    secret: str = Field(description="Signs every delivery; shown only in this answer.")


class WebhookList(Shape):
    domain: str
    webhooks: list[Webhook]


class WebhookListJson(TypedDict):
    domain: str
    webhooks: list[JsonObject]  # `Webhook`s, as the store gives them


class WebhookDeleted(Shape):
    """A webhook removed, with how many of its deliveries (pending or finished) went with it."""

    id: str
    deleted: Literal[True]
    deliveries_dropped: int


class WebhookDeletedJson(TypedDict):
    id: str
    deleted: Literal[True]
    deliveries_dropped: int


class Delivery(Shape):
    """One event of a webhook and where its attempts stand."""

    id: str = Field(description="dlv_<random>: Lorebase-Delivery, the same on every attempt.")
    webhook_id: str
    sequence: int = Field(description="The event's sequence.")
    event_type: str
    idempotency_key: str = Field(description="evt_<sequence>: Idempotency-Key of every attempt.")
    status: Literal["pending", "delivered", "dead"]
    attempts: int
    next_attempt_at: str | None = Field(description="When a pending delivery is tried next.")
    last_status: int | None = Field(description="The HTTP status of the last answer.")
    last_error: str | None
    created_at: str
    finished_at: str | None


class DeliveryList(Shape):
    webhook_id: str
    deliveries: list[Delivery] = Field(description="Newest event first.")
    next_cursor: str | None


class DeliveryListJson(TypedDict):
    webhook_id: str
    deliveries: list[JsonObject]  # `Delivery`s, as the store gives them
    next_cursor: str | None
