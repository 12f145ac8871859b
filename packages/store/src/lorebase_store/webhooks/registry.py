"""Registered webhooks of a Domain: create, list, get, update, delete, each change audited.

The secret is made here and returned once; only its SHA-256 digest is kept, sealed (sealing.py).
A new webhook starts at the Domain's last event sequence: it receives what is committed after it.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from lorebase_core.errors import WebhookNotFound
from lorebase_platform.settings import WebhookSettings
from lorebase_store import tables as t
from lorebase_store.clock import now_stamp
from lorebase_store.engine import read_transaction, write_transaction
from lorebase_store.results import DomainInfo
from lorebase_store.rows import field_document, from_row
from lorebase_store.versioned.views import load_domain
from lorebase_store.webhooks.sealing import Keyring
from lorebase_store.webhooks.validation import (
    DEFAULT_EVENTS,
    audited_url,
    checked_webhook,
)
from lorebase_store.writes.audit import audit

if TYPE_CHECKING:
    from lorebase_store.store import Store


@dataclass(frozen=True, kw_only=True)
class WebhookInfo:
    """A registered webhook, as every answer shows it (never the secret nor its digest)."""

    id: str
    domain: str
    url: str
    events: list[str]
    branches: list[str]
    clearances: list[str]
    enabled: bool
    disabled_reason: str | None
    created_by: str
    created_at: str
    updated_at: str

    def to_json(self) -> dict[str, Any]:
        """The webhook's document."""
        return field_document(self)


@dataclass(frozen=True)
class NewWebhook:
    """A webhook just created and its secret, which is shown only this once."""

    webhook: WebhookInfo
    secret: str


def _info(domain: str, row: Any) -> WebhookInfo:
    return from_row(
        WebhookInfo,
        row,
        domain=domain,
        events=list(row["events"]),
        branches=list(row["branches"]),
        clearances=list(row["clearances"]),
        enabled=bool(row["enabled"]),
    )


def webhook_row(connection: sa.Connection, info: DomainInfo, webhook_id: str) -> Any:
    """The row of a webhook of the Domain; WebhookNotFound when it has none of that id."""
    row = (
        connection.execute(
            sa.select(t.webhooks).where(
                t.webhooks.c.id == webhook_id, t.webhooks.c.domain_id == info.id
            )
        )
        .mappings()
        .first()
    )
    if row is None:
        raise WebhookNotFound(
            f"Domain {info.name!r} has no webhook {webhook_id!r}; GET .../webhooks lists them"
        )
    return row


def create_webhook(
    store: Store,
    domain: str,
    *,
    url: str,
    events: Sequence[str] | None = None,
    branches: Sequence[str] = (),
    clearances: Sequence[str] = (),
    principal: str,
    settings: WebhookSettings,
) -> NewWebhook:
    """Register a webhook; WebhookInvalid (422) for a bad target, event, branch or clearance."""
    keyring = Keyring.from_settings(settings)
    webhook_id = "whk_" + secrets.token_hex(12)
    secret = "whsec_" + secrets.token_urlsafe(32)
    stored = keyring.seal(webhook_id, hashlib.sha256(secret.encode()).digest())
    with write_transaction(store.engine) as connection:
        info = load_domain(connection, domain)
        fields = checked_webhook(
            connection,
            info,
            settings,
            url=url,
            events=list(DEFAULT_EVENTS if events is None else events),
            branches=list(branches),
            clearances=list(clearances),
        )
        last = connection.execute(
            sa.select(sa.func.max(t.events.c.sequence)).where(t.events.c.domain_id == info.id)
        ).scalar()
        now = now_stamp()
        connection.execute(
            t.webhooks.insert(),
            {
                "id": webhook_id,
                "domain_id": info.id,
                **fields,
                "signing_key": stored,
                "enabled": True,
                "disabled_reason": None,
                "cursor": int(last or 0),
                "created_by": principal,
                "created_at": now,
                "updated_at": now,
            },
        )
        audit(
            connection,
            info.id,
            principal,
            "webhook.create",
            webhook_id,
            url=audited_url(fields["url"]),
            events=fields["events"],
            branches=fields["branches"],
            clearances=fields["clearances"],
        )
        return NewWebhook(_info(domain, webhook_row(connection, info, webhook_id)), secret)


def list_webhooks(store: Store, domain: str) -> list[WebhookInfo]:
    """The webhooks of a Domain, by id."""
    with read_transaction(store.engine) as connection:
        info = load_domain(connection, domain)
        rows = connection.execute(
            sa.select(t.webhooks).where(t.webhooks.c.domain_id == info.id).order_by(t.webhooks.c.id)
        ).mappings()
        return [_info(domain, row) for row in rows]


def get_webhook(store: Store, domain: str, webhook_id: str) -> WebhookInfo:
    """One webhook; WebhookNotFound when the Domain has none of that id."""
    with read_transaction(store.engine) as connection:
        return _info(domain, webhook_row(connection, load_domain(connection, domain), webhook_id))


def update_webhook(
    store: Store,
    domain: str,
    webhook_id: str,
    changes: dict[str, Any],
    *,
    principal: str,
    settings: WebhookSettings,
) -> WebhookInfo:
    """Change `url`, `events`, `branches`, `clearances` (the new full set) or `enabled`.

    Enabling a webhook clears the reason it was disabled for; its waiting deliveries go out.
    """
    with write_transaction(store.engine) as connection:
        info = load_domain(connection, domain)
        row = webhook_row(connection, info, webhook_id)
        fields = checked_webhook(
            connection,
            info,
            settings,
            url=changes.get("url", row["url"]),
            events=list(changes.get("events", row["events"])),
            branches=list(changes.get("branches", row["branches"])),
            clearances=list(changes.get("clearances", row["clearances"])),
        )
        values: dict[str, Any] = {name: fields[name] for name in fields if name in changes}
        if "enabled" in changes:
            values["enabled"] = bool(changes["enabled"])
            if values["enabled"]:
                values["disabled_reason"] = None
        values["updated_at"] = now_stamp()
        connection.execute(
            t.webhooks.update().where(t.webhooks.c.id == webhook_id).values(**values)
        )
        details = {name: value for name, value in values.items() if name != "updated_at"}
        if "url" in details:
            details["url"] = audited_url(details["url"])
        audit(connection, info.id, principal, "webhook.update", webhook_id, **details)
        return _info(domain, webhook_row(connection, info, webhook_id))


def delete_webhook(store: Store, domain: str, webhook_id: str, *, principal: str) -> int:
    """Remove a webhook with every delivery it has, pending or finished; how many those were."""
    with write_transaction(store.engine) as connection:
        info = load_domain(connection, domain)
        webhook_row(connection, info, webhook_id)
        deleted = connection.execute(
            t.webhook_deliveries.delete().where(t.webhook_deliveries.c.webhook_id == webhook_id)
        ).rowcount
        connection.execute(t.webhooks.delete().where(t.webhooks.c.id == webhook_id))
        audit(connection, info.id, principal, "webhook.delete", webhook_id, deliveries=int(deleted))
        return int(deleted)
