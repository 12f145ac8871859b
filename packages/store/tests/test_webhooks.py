"""Webhook registration: validation, the secret shown once and sealed, audit, delete, rotation."""

from __future__ import annotations

import asyncio

import pytest
import sqlalchemy as sa
from packages.store.tests.webhook_helpers import (
    KEY,
    KEY_ENV,
    OLD_KEY,
    OLD_KEY_ENV,
    Receiver,
    settings,
    touch,
    verified,
)

from lorebase_core.errors import EncryptionKeyRequired, WebhookInvalid, WebhookNotFound
from lorebase_store import Store
from lorebase_store import tables as t
from lorebase_store.webhooks import (
    EncryptionKeyInvalid,
    create_webhook,
    delete_webhook,
    deliver_pending,
    get_webhook,
    list_deliveries,
    list_webhooks,
    update_webhook,
)

DOMAIN = "library"
URL = "http://127.0.0.1:9/hook"


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.setenv(OLD_KEY_ENV, OLD_KEY)


def stored_key(store: Store, webhook_id: str) -> str:
    with store.engine.connect() as connection:
        return str(
            connection.execute(
                sa.select(t.webhooks.c.signing_key).where(t.webhooks.c.id == webhook_id)
            ).scalar_one()
        )


def audit_rows(store: Store) -> list[tuple[str, str, str]]:
    with store.engine.connect() as connection:
        rows = connection.execute(
            sa.select(t.audit_log.c.action, t.audit_log.c.target, t.audit_log.c.details)
            .where(t.audit_log.c.action.like("webhook.%"))
            .order_by(t.audit_log.c.id)
        ).all()
    return [(row.action, row.target, str(row.details)) for row in rows]


def test_create_returns_the_secret_once_and_keeps_only_its_sealed_digest(library: Store) -> None:
    made = create_webhook(library, DOMAIN, url=URL, principal="usr_admin", settings=settings())
    webhook = made.webhook
    assert webhook.id.startswith("whk_")
    assert len(made.secret) >= 40
    assert webhook.events == ["revision.committed", "operation.*"]
    assert (webhook.branches, webhook.clearances, webhook.enabled) == ([], [], True)
    stored = stored_key(library, webhook.id)
    assert stored.startswith("sealed:v1:")
    assert made.secret not in stored
    assert "secret" not in webhook.to_json()
    assert get_webhook(library, DOMAIN, webhook.id) == webhook
    assert list_webhooks(library, DOMAIN) == [webhook]
    [(action, target, details)] = audit_rows(library)
    assert (action, target) == ("webhook.create", webhook.id)
    assert made.secret not in details
    assert stored not in details


def test_each_bad_member_is_an_issue_and_nothing_is_written(library: Store) -> None:
    with pytest.raises(WebhookInvalid) as caught:
        create_webhook(
            library,
            DOMAIN,
            url="ftp://user:pw@example.com/",
            events=["revision.committed", "operation.nothing_declared", "record.changed"],
            branches=["main", "no-such-branch"],
            clearances=["pii", "secret"],
            principal="usr_admin",
            settings=settings(allowed_schemes=["https"]),
        )
    paths = {issue.path: issue.message for issue in caught.value.issues}
    assert set(paths) == {"url", "events[1]", "events[2]", "branches[1]", "clearances[1]"}
    assert "webhooks.allowed_schemes" in paths["url"]
    assert "declared: none" in paths["events[1]"]
    assert list_webhooks(library, DOMAIN) == []
    assert audit_rows(library) == []


@pytest.mark.parametrize(
    "url",
    [
        "https://user@example.com/hook",
        "https://127.0.0.1/hook",
        "https://[::1]/hook",
        "https://[::ffff:10.0.0.1]/hook",
        "https://2130706433/hook",
        "https://0x7f.1/hook",
        "https://169.254.169.254/latest",
        "https://0.0.0.0/",
        "https:///no-host",
        "https://example.com:99999/",
    ],
)
def test_a_target_with_credentials_or_a_literal_internal_address_is_refused(
    library: Store, url: str
) -> None:
    with pytest.raises(WebhookInvalid) as caught:
        create_webhook(
            library,
            DOMAIN,
            url=url,
            principal="usr_admin",
            settings=settings(allow_private_targets=False),
        )
    assert [issue.path for issue in caught.value.issues] == ["url"]


def test_side_effects_of_the_domain_are_events(supply: Store) -> None:
    made = create_webhook(
        supply,
        "supply",
        url=URL,
        events=["operation.risk_flag_raised"],
        clearances=["pii"],
        principal="usr_admin",
        settings=settings(),
    )
    assert made.webhook.events == ["operation.risk_flag_raised"]


def test_without_a_key_creation_needs_allow_unsealed_keys(library: Store) -> None:
    with pytest.raises(EncryptionKeyRequired, match=r"webhooks\.encryption_key"):
        create_webhook(
            library, DOMAIN, url=URL, principal="usr_admin", settings=settings(encryption_key=None)
        )
    made = create_webhook(
        library,
        DOMAIN,
        url=URL,
        principal="usr_admin",
        settings=settings(encryption_key=None, allow_unsealed_keys=True),
    )
    assert stored_key(library, made.webhook.id).startswith("unsealed:")


def test_a_short_key_is_a_settings_error_naming_it(
    library: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, "too short")
    with pytest.raises(EncryptionKeyInvalid, match=r"webhooks\.encryption_key.*at least 32"):
        create_webhook(library, DOMAIN, url=URL, principal="usr_admin", settings=settings())


def test_update_changes_only_what_it_names_and_is_audited(library: Store) -> None:
    webhook = create_webhook(
        library, DOMAIN, url=URL, principal="usr_admin", settings=settings()
    ).webhook
    changed = update_webhook(
        library,
        DOMAIN,
        webhook.id,
        {"clearances": ["pii"], "enabled": False, "branches": ["main"]},
        principal="usr_admin",
        settings=settings(),
    )
    assert (changed.clearances, changed.enabled, changed.branches) == (["pii"], False, ["main"])
    assert (changed.url, changed.events) == (webhook.url, webhook.events)
    with pytest.raises(WebhookInvalid):
        update_webhook(
            library, DOMAIN, webhook.id, {"events": []}, principal="usr_admin", settings=settings()
        )
    assert [action for action, _, _ in audit_rows(library)] == ["webhook.create", "webhook.update"]


def test_delete_drops_the_webhook_and_its_pending_deliveries(library: Store) -> None:
    webhook = create_webhook(
        library, DOMAIN, url=URL, principal="usr_admin", settings=settings()
    ).webhook
    update_webhook(
        library, DOMAIN, webhook.id, {"enabled": False}, principal="usr_admin", settings=settings()
    )
    touch(library, DOMAIN, "Book", "B-0001", {"pages": 413})
    update_webhook(
        library, DOMAIN, webhook.id, {"enabled": True}, principal="usr_admin", settings=settings()
    )
    receiver = Receiver(default=500)
    asyncio.run(deliver_pending(library, receiver, settings()))
    assert [d.status for d in list_deliveries(library, DOMAIN, webhook.id).items] == ["pending"]
    delete_webhook(library, DOMAIN, webhook.id, principal="usr_admin")
    with pytest.raises(WebhookNotFound):
        get_webhook(library, DOMAIN, webhook.id)
    with library.engine.connect() as connection:
        assert (
            connection.execute(
                sa.select(sa.func.count()).select_from(t.webhook_deliveries)
            ).scalar()
            == 0
        )
    assert audit_rows(library)[-1][0] == "webhook.delete"


def test_rotation_keeps_signing_reseals_and_fails_naming_the_setting_once_dropped(
    library: Store,
) -> None:
    old = settings(encryption_key=f"secret://env/{OLD_KEY_ENV}")
    made = create_webhook(library, DOMAIN, url=URL, principal="usr_admin", settings=old)
    sealed_old = stored_key(library, made.webhook.id)
    dropped = settings()  # only the new key: the old value is no longer configured
    touch(library, DOMAIN, "Book", "B-0001", {"pages": 413})
    receiver = Receiver()
    report = asyncio.run(deliver_pending(library, receiver, dropped))
    assert (report.unsigned, receiver.sent) == (1, [])
    [delivery] = list_deliveries(library, DOMAIN, made.webhook.id).items
    assert (delivery.status, delivery.attempts) == ("pending", 0)
    assert delivery.last_error is not None
    assert "webhooks.encryption_key" in delivery.last_error
    assert "previous_encryption_keys" in delivery.last_error

    rotated = settings(previous_encryption_keys=[f"secret://env/{OLD_KEY_ENV}"])
    report = asyncio.run(deliver_pending(library, receiver, rotated, now=None))
    assert report.resealed == 1
    assert stored_key(library, made.webhook.id) != sealed_old
    assert stored_key(library, made.webhook.id).split(":")[2] != sealed_old.split(":")[2]
    # the key is now under the new value alone: signing needs no previous key any more
    touch(library, DOMAIN, "Book", "B-0001", {"pages": 414})
    receiver = Receiver()
    later = asyncio.run(deliver_pending(library, receiver, dropped))
    assert later.unsigned == 0
    for sent in receiver.sent:
        assert verified(made.secret, sent.headers["Lorebase-Signature"], sent.body)


def test_unsealed_keys_are_sealed_once_a_key_is_configured(library: Store) -> None:
    dev = settings(encryption_key=None, allow_unsealed_keys=True)
    made = create_webhook(library, DOMAIN, url=URL, principal="usr_admin", settings=dev)
    report = asyncio.run(deliver_pending(library, Receiver(), settings(batch=5)))
    assert report.resealed == 1
    assert stored_key(library, made.webhook.id).startswith("sealed:v1:")
