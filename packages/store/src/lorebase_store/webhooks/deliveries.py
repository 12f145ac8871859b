"""Deliveries of a webhook: listed, a dead one sent again, finished ones pruned.

Times of deliveries are kept with microseconds always (`stamp`), so that comparing the stored
text compares the moments.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal

import sqlalchemy as sa

from lorebase_core.errors import BadRequest, Conflict, DeliveryNotFound
from lorebase_platform.settings import WebhookSettings
from lorebase_store import tables as t
from lorebase_store.engine import read_transaction, write_transaction
from lorebase_store.rows import from_row
from lorebase_store.versioned.views import load_domain
from lorebase_store.webhooks.registry import webhook_row
from lorebase_store.writes.audit import audit

if TYPE_CHECKING:
    from lorebase_store.store import Store

Status = Literal["pending", "delivered", "dead"]
STATUSES: tuple[Status, ...] = ("pending", "delivered", "dead")


def stamp(moment: datetime) -> str:
    """A moment as stored for deliveries: UTC, always with microseconds, so text sorts by time."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass(frozen=True, kw_only=True)
class DeliveryInfo:
    """One delivery: an event of a webhook and where its attempts stand."""

    id: str
    webhook_id: str
    sequence: int
    event_type: str
    status: str
    attempts: int
    next_attempt_at: str | None
    last_status: int | None
    last_error: str | None
    created_at: str
    finished_at: str | None

    def to_json(self) -> dict[str, Any]:
        """The delivery's document."""
        return {
            "id": self.id,
            "webhook_id": self.webhook_id,
            "sequence": self.sequence,
            "event_type": self.event_type,
            "idempotency_key": f"evt_{self.sequence}",
            "status": self.status,
            "attempts": self.attempts,
            "next_attempt_at": self.next_attempt_at,
            "last_status": self.last_status,
            "last_error": self.last_error,
            "created_at": self.created_at,
            "finished_at": self.finished_at,
        }


@dataclass(frozen=True)
class DeliveryPage:
    """Deliveries newest first; `next_cursor` continues when the page was cut."""

    items: list[DeliveryInfo]
    next_cursor: str | None


def _info(row: Any) -> DeliveryInfo:
    return from_row(
        DeliveryInfo,
        row,
        sequence=int(row["sequence"]),
        attempts=int(row["attempts"]),
        next_attempt_at=row["next_attempt_at"] if row["status"] == "pending" else None,
    )


def list_deliveries(
    store: Store,
    domain: str,
    webhook_id: str,
    *,
    status: Status | None = None,
    limit: int = 50,
    cursor: str | None = None,
) -> DeliveryPage:
    """A webhook's deliveries, newest event first, optionally of one status."""
    d = t.webhook_deliveries
    query = sa.select(d).where(d.c.webhook_id == webhook_id)
    if status is not None:
        query = query.where(d.c.status == status)
    if cursor is not None:
        if not cursor.isdigit():
            raise BadRequest(f"cursor {cursor!r} is not one this list gave: use its next_cursor")
        query = query.where(d.c.sequence < int(cursor))
    with read_transaction(store.engine) as connection:
        webhook_row(connection, load_domain(connection, domain), webhook_id)
        rows = connection.execute(query.order_by(d.c.sequence.desc()).limit(limit + 1)).mappings()
        items = [_info(row) for row in rows]
    more = len(items) > limit
    items = items[:limit]
    return DeliveryPage(items, str(items[-1].sequence) if more else None)


def retry_delivery(
    store: Store,
    domain: str,
    webhook_id: str,
    delivery_id: str,
    *,
    principal: str,
    now: datetime | None = None,
) -> DeliveryInfo:
    """A dead delivery pending again: the same delivery id and Idempotency-Key, attempts anew."""
    d = t.webhook_deliveries
    with write_transaction(store.engine, announce=False) as connection:
        info = load_domain(connection, domain)
        webhook_row(connection, info, webhook_id)
        where = sa.and_(d.c.id == delivery_id, d.c.webhook_id == webhook_id)
        row = connection.execute(sa.select(d).where(where)).mappings().first()
        if row is None:
            raise DeliveryNotFound(
                f"Webhook {webhook_id!r} has no delivery {delivery_id!r}; "
                "GET .../deliveries lists them"
            )
        if row["status"] != "dead":
            raise Conflict(
                f"Delivery {delivery_id!r} is {row['status']}: only a dead delivery is retried"
            )
        connection.execute(
            d.update()
            .where(where)
            .values(
                status="pending",
                attempts=0,
                next_attempt_at=stamp(now or datetime.now(UTC)),
                lease_until=None,
                finished_at=None,
            )
        )
        audit(connection, info.id, principal, "webhook.retry", webhook_id, delivery=delivery_id)
        return _info(connection.execute(sa.select(d).where(where)).mappings().one())


def prune_deliveries(
    store: Store, settings: WebhookSettings, *, now: datetime | None = None
) -> int:
    """Delete delivered and dead deliveries finished more than webhooks.retention_days ago."""
    d = t.webhook_deliveries
    before = stamp((now or datetime.now(UTC)) - timedelta(days=settings.retention_days))
    with write_transaction(store.engine, announce=False) as connection:
        result = connection.execute(
            d.delete().where(d.c.status.in_(("delivered", "dead")), d.c.finished_at < before)
        )
        return int(result.rowcount)
