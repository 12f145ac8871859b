"""One delivery pass: keys re-sealed, new events fanned out, due deliveries sent and recorded.

Deliveries are taken with a lease (`lease_until`), under `FOR UPDATE SKIP LOCKED` on PostgreSQL
and under the write lock on SQLite, so several passes in several processes never send one delivery
at once. Each outcome is recorded in its own transaction right after its attempt: a process killed
mid-pass loses nothing, and re-sends (after the lease) only what was in flight.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from lorebase_core.access import ReadScope
from lorebase_core.schema import Schema
from lorebase_platform.secrets import resolve_secret
from lorebase_platform.settings import WebhookSettings
from lorebase_store import tables as t
from lorebase_store.engine import is_sqlite, read_transaction, write_transaction
from lorebase_store.versioned.schemas import schema_at
from lorebase_store.versioned.views import load_domain
from lorebase_store.webhooks.deliveries import stamp
from lorebase_store.webhooks.sealing import Keyring
from lorebase_store.webhooks.validation import ANY_OPERATION

if TYPE_CHECKING:
    from lorebase_store.store import Store

# events one webhook turns into deliveries per pass (the rest wait for the next pass)
FAN_OUT_PAGE = 1000
SYSTEM = "lorebase"
_OWN_HEADERS = (
    "content-type",
    "lorebase-event",
    "lorebase-delivery",
    "idempotency-key",
    "lorebase-signature",
)


@dataclass(kw_only=True)
class DeliveryReport:
    """What one pass did.

    Attributes:
        resealed: signing keys sealed again under the current key.
        fanned_out: deliveries made from new events.
        attempted: deliveries sent (delivered + retried + dead).
        delivered: answered 2xx.
        retried: failed, to be tried again after their backoff.
        dead: failed for the last time (max_attempts, or 410 Gone).
        not_reached: taken but not started before pass_timeout_s (no attempt counted).
        unsigned: not sent because their key was sealed under a value no longer configured.
        disabled: webhooks disabled because their receiver answered 410 Gone.
    """

    resealed: int = 0
    fanned_out: int = 0
    attempted: int = 0
    delivered: int = 0
    retried: int = 0
    dead: int = 0
    not_reached: int = 0
    unsigned: int = 0
    disabled: list[str] = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class Taken:
    """A delivery taken under a lease, with what its attempt needs."""

    id: str
    webhook_id: str
    sequence: int
    event_type: str
    attempts: int
    url: str
    signing_key: str
    clearances: list[str]
    domain_id: int
    payload: dict[str, Any]


def _wants(webhook: Any, event_type: str, branch: object) -> bool:
    events = webhook["events"]
    wanted = event_type in events or (
        event_type.startswith("operation.") and ANY_OPERATION in events
    )
    return wanted and (not webhook["branches"] or branch in webhook["branches"])


def fan_out(store: Store, *, domain: str | None = None, now: datetime | None = None) -> int:
    """Turn the events after each enabled webhook's cursor into its pending deliveries.

    Only webhooks with events after their cursor take the write lock: an idle pass writes nothing.
    """
    w, e = t.webhooks, t.events
    made = 0
    behind = sa.exists().where(e.c.domain_id == w.c.domain_id, e.c.sequence > w.c.cursor)
    with read_transaction(store.engine) as connection:
        query = sa.select(w.c.id).where(w.c.enabled.is_(True), behind)
        if domain is not None:
            query = query.where(w.c.domain_id == load_domain(connection, domain).id)
        ids = list(connection.execute(query.order_by(w.c.id)).scalars())
    for webhook_id in ids:
        with write_transaction(store.engine, announce=False) as connection:
            query = sa.select(w).where(w.c.id == webhook_id, w.c.enabled.is_(True))
            if not is_sqlite(connection):
                query = query.with_for_update(skip_locked=True)
            webhook = connection.execute(query).mappings().first()
            if webhook is None:
                continue  # gone, disabled, or another pass is fanning it out
            events = connection.execute(
                sa.select(e.c.sequence, e.c.type, e.c.payload)
                .where(e.c.domain_id == webhook["domain_id"], e.c.sequence > webhook["cursor"])
                .order_by(e.c.sequence)
                .limit(FAN_OUT_PAGE)
            ).all()
            if not events:
                continue
            created = stamp(now or datetime.now(UTC))
            rows = [
                {
                    "id": "dlv_" + secrets.token_hex(12),
                    "webhook_id": webhook_id,
                    "sequence": event.sequence,
                    "event_type": event.type,
                    "status": "pending",
                    "attempts": 0,
                    "next_attempt_at": created,
                    "created_at": created,
                }
                for event in events
                if _wants(webhook, event.type, event.payload.get("branch"))
            ]
            if rows:
                connection.execute(t.webhook_deliveries.insert(), rows)
            connection.execute(
                w.update().where(w.c.id == webhook_id).values(cursor=events[-1].sequence)
            )
            made += len(rows)
    return made


def reseal(store: Store, keyring: Keyring, batch: int) -> int:
    """Seal again under the current key up to `batch` keys stored unsealed or under a previous one."""
    if keyring.current is None:
        return 0
    w = t.webhooks
    current = f"sealed:v1:{keyring.fingerprint}:%"
    # read first, so that a pass with nothing to seal takes no write lock; each update only
    # replaces the form it read (another pass may have sealed it since)
    with read_transaction(store.engine) as connection:
        rows = connection.execute(
            sa.select(w.c.id, w.c.signing_key).where(w.c.signing_key.not_like(current))
        ).all()
    chosen = [row for row in rows if keyring.needs_reseal(row.signing_key)][:batch]
    if not chosen:
        return 0
    sealed = 0
    with write_transaction(store.engine, announce=False) as connection:
        for row in chosen:
            again = keyring.seal(row.id, keyring.open(row.id, row.signing_key))
            sealed += connection.execute(
                w.update()
                .where(w.c.id == row.id, w.c.signing_key == row.signing_key)
                .values(signing_key=again)
            ).rowcount
    return sealed


def take_due(
    store: Store, settings: WebhookSettings, moment: datetime, domain: str | None
) -> list[Taken]:
    """Up to webhooks.batch due deliveries of enabled webhooks, leased to this pass."""
    d, w, e = t.webhook_deliveries, t.webhooks, t.events
    now = stamp(moment)
    query = (
        sa.select(
            d.c.id,
            d.c.webhook_id,
            d.c.sequence,
            d.c.event_type,
            d.c.attempts,
            w.c.url,
            w.c.signing_key,
            w.c.clearances,
            w.c.domain_id,
            e.c.payload,
        )
        .join(w, w.c.id == d.c.webhook_id)
        .join(e, e.c.sequence == d.c.sequence)
        .where(
            d.c.status == "pending",
            d.c.next_attempt_at <= now,
            sa.or_(d.c.lease_until.is_(None), d.c.lease_until < now),
            w.c.enabled.is_(True),
        )
        .order_by(d.c.next_attempt_at, d.c.sequence)
        .limit(settings.batch)
    )
    # the pass, its last attempt, and as long again to record it; after that another pass may
    # take the delivery (its pass died)
    lease = stamp(moment + timedelta(seconds=settings.pass_timeout_s + 2 * settings.timeout_s))
    with write_transaction(store.engine, announce=False) as connection:
        if domain is not None:
            query = query.where(w.c.domain_id == load_domain(connection, domain).id)
        if not is_sqlite(connection):
            query = query.with_for_update(skip_locked=True, of=d)
        rows = connection.execute(query).all()
        if rows:
            connection.execute(
                d.update().where(d.c.id.in_([row.id for row in rows])).values(lease_until=lease)
            )
    return [
        Taken(
            id=row.id,
            webhook_id=row.webhook_id,
            sequence=int(row.sequence),
            event_type=row.event_type,
            attempts=int(row.attempts),
            url=row.url,
            signing_key=row.signing_key,
            clearances=list(row.clearances),
            domain_id=int(row.domain_id),
            payload=dict(row.payload),
        )
        for row in rows
    ]


class Schemas:
    """The schema of each operation event's head, read once per pass."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.cache: dict[tuple[int, str | None], Schema] = {}

    def at(self, domain_id: int, head: str | None) -> Schema:
        """The schema of `head` (the Domain's first before any commit)."""
        if (domain_id, head) not in self.cache:
            with read_transaction(self.store.engine) as connection:
                name = connection.execute(
                    sa.select(t.domains.c.name).where(t.domains.c.id == domain_id)
                ).scalar_one()
                info = load_domain(connection, name)
                self.cache[(domain_id, head)] = schema_at(connection, info, head)
        return self.cache[(domain_id, head)]


def body_of(taken: Taken, schemas: Schemas) -> bytes:
    """The event document as the feed gives it, edits masked per the webhook's clearances."""
    document = {"sequence": taken.sequence, **taken.payload}
    if taken.event_type.startswith("operation.") and isinstance(document.get("edits"), list):
        scope = ReadScope(None, frozenset(taken.clearances))
        schema = schemas.at(taken.domain_id, document.get("head"))
        document["edits"] = scope.mask_edits(schema, document["edits"])
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()


def signature(digest: bytes, timestamp: int, body: bytes) -> str:
    """`Lorebase-Signature`: HMAC-SHA256 over "<t>." + body keyed with the secret's digest."""
    mac = hmac.new(digest, f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={mac}"


def delivery_headers(settings: WebhookSettings, taken: Taken, signed: str) -> dict[str, str]:
    """webhooks.headers (secret:// values resolved), then the Lorebase headers over them."""
    headers = {
        name: resolve_secret(value)
        for name, value in settings.headers.items()
        if name.lower() not in _OWN_HEADERS
    }
    headers.update(
        {
            "Content-Type": "application/json",
            "Lorebase-Event": taken.event_type,
            "Lorebase-Delivery": taken.id,
            "Idempotency-Key": f"evt_{taken.sequence}",
            "Lorebase-Signature": signed,
        }
    )
    return headers
