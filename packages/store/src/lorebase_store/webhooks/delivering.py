"""`deliver_pending`: a pass of deliveries, and what each answer means for its delivery.

2xx: delivered. 410 Gone: the webhook is disabled (the reason kept) and the delivery is dead.
Anything else, or no answer: one more attempt counted, the next after an exponential backoff
(a receiver's Retry-After honoured, at most webhooks.backoff_max_s), dead after max_attempts.
A key that cannot be opened (sealed under a value no longer configured) counts no attempt: the
receiver did nothing wrong, and its deliveries go out once the value is configured again.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from lorebase_platform.settings import WebhookSettings
from lorebase_store import tables as t
from lorebase_store.engine import write_transaction
from lorebase_store.webhooks.deliveries import stamp
from lorebase_store.webhooks.passes import (
    SYSTEM,
    DeliveryReport,
    Schemas,
    Taken,
    body_of,
    delivery_headers,
    fan_out,
    reseal,
    signature,
    take_due,
)
from lorebase_store.webhooks.sealing import Keyring, KeyUnavailable
from lorebase_store.webhooks.sending import OutgoingDelivery, Sender, SendResult
from lorebase_store.writes.audit import audit

if TYPE_CHECKING:
    from lorebase_store.store import Store

MAX_ERROR = 1000


def backoff_s(settings: WebhookSettings, attempts: int, retry_after_s: float | None) -> float:
    """The wait after the `attempts`-th failed attempt (1 for the first)."""
    if retry_after_s is not None:
        return min(max(retry_after_s, 0.0), settings.backoff_max_s)
    wait = settings.backoff_initial_s * settings.backoff_multiplier ** (attempts - 1)
    return min(wait, settings.backoff_max_s)


def _update(connection: sa.Connection, taken: Taken, **values: Any) -> None:
    d = t.webhook_deliveries
    connection.execute(
        d.update()
        .where(d.c.id == taken.id, d.c.status == "pending")
        .values(lease_until=None, **values)
    )


def record(
    store: Store,
    settings: WebhookSettings,
    taken: Taken,
    result: SendResult,
    moment: datetime,
    report: DeliveryReport,
) -> None:
    """Write the outcome of one attempt in its own transaction."""
    attempts = taken.attempts + 1
    error = (result.error or (f"HTTP {result.status}" if result.status else "no answer"))[
        :MAX_ERROR
    ]
    report.attempted += 1
    with write_transaction(store.engine, announce=False) as connection:
        finished = result.acknowledged or result.status == 410 or attempts >= settings.max_attempts
        if finished:
            status = "delivered" if result.acknowledged else "dead"
            if result.acknowledged:
                report.delivered += 1
            else:
                report.dead += 1
            _update(
                connection,
                taken,
                status=status,
                attempts=attempts,
                last_status=result.status,
                last_error=None if result.acknowledged else error,
                finished_at=stamp(moment),
            )
            if result.status == 410:
                _disable(connection, taken, moment, report)
            return
        report.retried += 1
        wait = backoff_s(settings, attempts, result.retry_after_s)
        _update(
            connection,
            taken,
            attempts=attempts,
            last_status=result.status,
            last_error=error,
            next_attempt_at=stamp(moment + timedelta(seconds=wait)),
        )


def _disable(
    connection: sa.Connection, taken: Taken, moment: datetime, report: DeliveryReport
) -> None:
    w = t.webhooks
    reason = (
        f"the receiver answered 410 Gone to delivery {taken.id} at {stamp(moment)}; "
        "PATCH enabled: true to deliver again"
    )
    changed = connection.execute(
        w.update()
        .where(w.c.id == taken.webhook_id, w.c.enabled.is_(True))
        .values(enabled=False, disabled_reason=reason, updated_at=stamp(moment))
    ).rowcount
    if changed:
        report.disabled.append(taken.webhook_id)
        audit(
            connection,
            taken.domain_id,
            SYSTEM,
            "webhook.disable",
            taken.webhook_id,
            reason="410 Gone",
            delivery=taken.id,
        )


def _unsigned(
    store: Store, settings: WebhookSettings, taken: Taken, error: str, moment: datetime
) -> None:
    later = stamp(moment + timedelta(seconds=settings.backoff_initial_s))
    with write_transaction(store.engine, announce=False) as connection:
        _update(connection, taken, last_error=error[:MAX_ERROR], next_attempt_at=later)


def _release(store: Store, taken: Taken) -> None:
    with write_transaction(store.engine, announce=False) as connection:
        _update(connection, taken)


async def deliver_pending(
    store: Store,
    sender: Sender,
    settings: WebhookSettings,
    *,
    domain: str | None = None,
    now: datetime | None = None,
) -> DeliveryReport:
    """One pass over the webhooks (of `domain`, or of every Domain).

    Re-seals up to webhooks.batch keys, fans new events out into deliveries, takes up to
    webhooks.batch due deliveries and sends them webhooks.concurrency at a time, starting none
    after webhooks.pass_timeout_s. `now` fixes the pass's clock (tests).
    """
    clock: Callable[[], datetime] = (
        (lambda: now) if now is not None else (lambda: datetime.now(UTC))
    )
    keyring = Keyring.from_settings(settings)
    report = DeliveryReport()
    report.resealed = reseal(store, keyring, settings.batch)
    report.fanned_out = fan_out(store, domain=domain, now=clock())
    taken = take_due(store, settings, clock(), domain)
    schemas = Schemas(store)
    started = time.monotonic()
    gate = asyncio.Semaphore(settings.concurrency)

    async def attempt(item: Taken) -> None:
        async with gate:
            if time.monotonic() - started >= settings.pass_timeout_s:
                report.not_reached += 1
                _release(store, item)
                return
            try:
                digest = keyring.open(item.webhook_id, item.signing_key)
            except KeyUnavailable as exc:
                report.unsigned += 1
                _unsigned(store, settings, item, f"cannot sign: {exc}", clock())
                return
            body = body_of(item, schemas)
            signed = signature(digest, int(clock().timestamp()), body)
            outgoing = OutgoingDelivery(
                id=item.id,
                webhook_id=item.webhook_id,
                url=item.url,
                headers=delivery_headers(settings, item, signed),
                body=body,
            )
            result = await sender.send(outgoing)
            record(store, settings, item, result, clock(), report)

    await asyncio.gather(*(attempt(item) for item in taken))
    return report
