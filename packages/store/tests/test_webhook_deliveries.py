"""The delivery pass: signed documents, backoff, dead, 410, Retry-After, pass timeout, leases."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from packages.store.tests.webhook_helpers import KEY, KEY_ENV, Receiver, settings, touch, verified

from lorebase_core.changes import Origin, UpsertLink, UpsertRecord
from lorebase_store import Store
from lorebase_store.commits.commit import CommitRequest
from lorebase_store.webhooks import (
    OutgoingDelivery,
    SendResult,
    create_webhook,
    deliver_pending,
    list_deliveries,
    prune_deliveries,
    retry_delivery,
)
from lorebase_store.writes.executions import ExecutionRecord, request_digest

DOMAIN = "library"
URL = "http://127.0.0.1:9/hook"
T0 = datetime(2030, 1, 1, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)


def register(store: Store, domain: str = DOMAIN, **options: Any) -> tuple[str, str]:
    made = create_webhook(
        store, domain, url=URL, principal="usr_admin", settings=settings(), **options
    )
    return made.webhook.id, made.secret


def run(store: Store, receiver: Receiver, now: datetime | None = None, **overrides: Any) -> Any:
    return asyncio.run(deliver_pending(store, receiver, settings(**overrides), now=now))


def statuses(store: Store, webhook_id: str, domain: str = DOMAIN) -> list[tuple[str, int]]:
    page = list_deliveries(store, domain, webhook_id, limit=100)
    return [(d.status, d.attempts) for d in reversed(page.items)]


def test_a_delivery_is_the_signed_event_document_with_the_spec_headers(library: Store) -> None:
    webhook_id, secret = register(library)
    before = touch(library, DOMAIN, "Book", "B-0001", {"pages": 413})
    receiver = Receiver()
    report = run(library, receiver, headers={"X-Team": "feeds", "Idempotency-Key": "mine"})
    assert (report.fanned_out, report.delivered) == (1, 1)
    [sent] = receiver.sent
    [event] = library.events(DOMAIN, after=before - 1)
    assert sent.body.decode().startswith('{"sequence":')
    assert json.loads(sent.body) == event
    assert verified(secret, sent.headers["Lorebase-Signature"], sent.body)
    assert not verified("another secret", sent.headers["Lorebase-Signature"], sent.body)
    assert not verified(secret, sent.headers["Lorebase-Signature"], sent.body + b" ")
    assert sent.headers["Content-Type"] == "application/json"
    assert sent.headers["Lorebase-Event"] == "revision.committed"
    assert sent.headers["Lorebase-Delivery"] == sent.id
    assert sent.headers["Idempotency-Key"] == f"evt_{before}"
    assert sent.headers["X-Team"] == "feeds"
    assert statuses(library, webhook_id) == [("delivered", 1)]
    # nothing is sent twice, and a new webhook receives only what comes after it
    assert run(library, Receiver()).attempted == 0
    late, _ = register(library)
    assert run(library, Receiver()).fanned_out == 0
    assert statuses(library, late) == []


def test_events_and_branches_filter_what_is_fanned_out(library: Store) -> None:
    library.create_branch(DOMAIN, "draft", from_branch="main", created_by="usr_admin")
    main_only, _ = register(library, branches=["main"])
    every, _ = register(library)
    operations, _ = register(library, events=["operation.*"])
    touch(library, DOMAIN, "Book", "B-0001", {"pages": 413})
    library.commit(
        CommitRequest(
            domain=DOMAIN,
            branch="draft",
            author="usr_editor",
            message="On the draft",
            origin=Origin("api", "test"),
        ),
        [UpsertRecord("Book", "B-0002", {"pages": 97}, must_exist=True)],
    )
    run(library, Receiver())
    assert len(statuses(library, main_only)) == 1
    assert len(statuses(library, every)) == 2
    assert statuses(library, operations) == []


def test_backoff_is_exponential_capped_and_dead_after_max_attempts(library: Store) -> None:
    webhook_id, _ = register(library)
    touch(library, DOMAIN, "Book", "B-0001", {"pages": 413})
    receiver = Receiver(default=503)
    options = {"backoff_initial_s": 10, "backoff_multiplier": 3, "backoff_max_s": 60}
    options["max_attempts"] = 5
    moment = T0
    waits = []
    for attempt in range(1, 5):
        run(library, receiver, moment, **options)
        [delivery] = list_deliveries(library, DOMAIN, webhook_id).items
        assert (delivery.status, delivery.attempts) == ("pending", attempt)
        assert delivery.next_attempt_at is not None
        due = datetime.fromisoformat(delivery.next_attempt_at)
        waits.append((due - moment).total_seconds())
        # not due a moment before its time
        assert run(library, receiver, due - timedelta(seconds=1), **options).attempted == 0
        moment = due
    assert waits == [10, 30, 60, 60]
    run(library, receiver, moment, **options)
    [delivery] = list_deliveries(library, DOMAIN, webhook_id, status="dead").items
    assert (delivery.attempts, delivery.last_status, delivery.last_error) == (5, 503, "HTTP 503")
    assert len(receiver.sent) == 5
    assert len({sent.headers["Idempotency-Key"] for sent in receiver.sent}) == 1
    assert len({sent.id for sent in receiver.sent}) == 1

    retried = retry_delivery(library, DOMAIN, webhook_id, delivery.id, principal="usr_admin")
    assert (retried.id, retried.status, retried.attempts) == (delivery.id, "pending", 0)
    again = Receiver()
    run(library, again)
    assert again.sent[0].headers["Idempotency-Key"] == receiver.sent[0].headers["Idempotency-Key"]
    assert statuses(library, webhook_id) == [("delivered", 1)]


def test_retry_after_is_honoured_at_most_backoff_max(library: Store) -> None:
    webhook_id, _ = register(library)
    touch(library, DOMAIN, "Book", "B-0001", {"pages": 413})
    touch(library, DOMAIN, "Book", "B-0002", {"pages": 97})
    receiver = Receiver([SendResult(429, retry_after_s=120), SendResult(503, retry_after_s=99999)])
    run(library, receiver, T0, backoff_max_s=600, concurrency=1)
    dues = sorted(
        datetime.fromisoformat(d.next_attempt_at or "") - T0
        for d in list_deliveries(library, DOMAIN, webhook_id).items
    )
    assert dues == [timedelta(seconds=120), timedelta(seconds=600)]


def test_410_gone_disables_the_webhook_and_its_deliveries_wait(library: Store) -> None:
    from lorebase_store.webhooks import get_webhook, update_webhook

    webhook_id, _ = register(library)
    touch(library, DOMAIN, "Book", "B-0001", {"pages": 413})
    report = run(library, Receiver([SendResult(410)]))
    assert (report.dead, report.disabled) == (1, [webhook_id])
    webhook = get_webhook(library, DOMAIN, webhook_id)
    assert webhook.enabled is False
    assert webhook.disabled_reason is not None
    assert "410" in webhook.disabled_reason
    touch(library, DOMAIN, "Book", "B-0002", {"pages": 97})
    waiting = Receiver()
    assert run(library, waiting).attempted == 0
    update_webhook(
        library, DOMAIN, webhook_id, {"enabled": True}, principal="usr_admin", settings=settings()
    )
    assert run(library, waiting).delivered == 1
    assert statuses(library, webhook_id) == [("dead", 1), ("delivered", 1)]


class Slow(Receiver):
    """Answers after a pause, so that a short pass_timeout_s leaves deliveries unreached."""

    async def send(self, delivery: OutgoingDelivery) -> SendResult:
        await asyncio.sleep(0.3)
        return await super().send(delivery)


def test_a_pass_starts_none_after_pass_timeout_and_counts_no_attempt(library: Store) -> None:
    webhook_id, _ = register(library)
    for pages in range(400, 404):
        touch(library, DOMAIN, "Book", "B-0001", {"pages": pages})
    receiver = Slow()
    report = run(library, receiver, concurrency=1, pass_timeout_s=0.1)
    assert (report.delivered, report.not_reached) == (1, 3)
    assert sorted(statuses(library, webhook_id)) == [("delivered", 1), *[("pending", 0)] * 3]
    assert run(library, receiver).delivered == 3


def test_an_expired_lease_is_taken_again_and_a_finished_delivery_pruned(library: Store) -> None:
    from lorebase_store.webhooks.passes import fan_out, take_due

    webhook_id, _ = register(library)
    touch(library, DOMAIN, "Book", "B-0001", {"pages": 413})
    run(library, Receiver(), T0 - timedelta(days=30), pass_timeout_s=1, timeout_s=1)
    assert statuses(library, webhook_id) == [("delivered", 1)]
    touch(library, DOMAIN, "Book", "B-0002", {"pages": 97})
    # a pass that took the delivery and died: nobody else sends it before its lease ends
    assert fan_out(library, now=T0) == 1
    assert len(take_due(library, settings(), T0, None)) == 1
    assert take_due(library, settings(), T0, None) == []
    later = T0 + timedelta(seconds=settings().pass_timeout_s + settings().timeout_s + 31)
    receiver = Receiver()
    assert run(library, receiver, later).delivered == 1
    assert prune_deliveries(library, settings(retention_days=14), now=T0) == 1
    assert statuses(library, webhook_id) == [("delivered", 1)]


def test_two_concurrent_passes_never_send_one_delivery_twice(library: Store) -> None:
    register(library)
    register(library)
    for pages in range(400, 420):
        touch(library, DOMAIN, "Book", "B-0001", {"pages": pages})
    receivers = [Slow(), Slow()]
    barrier = threading.Barrier(2)

    def one(receiver: Receiver) -> None:
        barrier.wait()
        run(library, receiver, concurrency=20)

    threads = [threading.Thread(target=one, args=(receiver,)) for receiver in receivers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    sent = [delivery.id for receiver in receivers for delivery in receiver.sent]
    assert len(sent) == 40
    assert len(set(sent)) == 40


# -- operation events --------------------------------------------------------------------------

FLAG_EDITS = [
    {"op": "upsert_record", "kind": "RiskFlag", "key": "RF-1", "values": {"severity": "high"}},
    {
        "op": "upsert_record",
        "kind": "Supplier",
        "key": "S-1002",
        "values": {"contact_email": "ops@example.com", "vat_number": "DE123456789"},
    },
]


def flag(store: Store, invocation_id: str, branch: str = "main", **options: Any) -> None:
    flag_key = f"RF-S-1002-{invocation_id}"
    parameters = {"supplier": "S-1002", "severity": "high"}
    store.writes.execute(
        CommitRequest(
            domain="supply",
            branch=branch,
            author="usr_agent",
            message="Flag a risk",
            origin=Origin("operation", invocation_id),
        ),
        [
            UpsertRecord(
                "RiskFlag",
                flag_key,
                {"severity": "high", "reason": "Port strike", "status": "open"},
            ),
            UpsertLink("flags", flag_key, "S-1002"),
        ],
        ExecutionRecord(
            invocation_id=invocation_id,
            operation="flag_supplier_risk",
            principal="usr_agent",
            idempotency_key=None,
            request_digest=request_digest(parameters),
            branch=branch,
            parameters=parameters,
            edits=FLAG_EDITS,
            side_effects=("risk_flag_raised",),
            **options,
        ),
    )


def edits_of(sent: Iterable[OutgoingDelivery]) -> list[Any]:
    return [json.loads(delivery.body)["edits"][1]["values"] for delivery in sent]


def test_operation_events_are_masked_by_the_webhooks_clearances(supply: Store) -> None:
    blind, _ = register(supply, "supply", events=["operation.risk_flag_raised"])
    cleared, _ = register(supply, "supply", events=["operation.*"], clearances=["pii"])
    flag(supply, "inv_one")
    receivers = {blind: Receiver(), cleared: Receiver()}

    class ByWebhook(Receiver):
        async def send(self, delivery: OutgoingDelivery) -> SendResult:
            return await receivers[delivery.webhook_id].send(delivery)

    run(supply, ByWebhook())
    assert edits_of(receivers[blind].sent) == [{"contact_email": "***", "vat_number": "***"}]
    assert edits_of(receivers[cleared].sent) == [
        {"contact_email": "ops@example.com", "vat_number": "***"}
    ]
    assert receivers[blind].sent[0].headers["Lorebase-Event"] == "operation.risk_flag_raised"


def test_task_branch_operation_events_arrive_only_after_the_merge(supply: Store) -> None:
    from lorebase_core.proposal_policy import MergePolicy

    webhook_id, _ = register(supply, "supply", events=["operation.*"], branches=["main"])
    task = "agent/svc/flag"
    supply.writes.task_branch(
        "supply",
        task,
        from_branch="main",
        mode="overlay",
        principal="usr_agent",
        owned_prefix="agent/svc/",
        max_open=3,
    )
    flag(supply, "inv_task", branch=task, target="main", events_now=False)
    assert run(supply, Receiver()).fanned_out == 0
    proposal = supply.writes.propose(
        "supply",
        source=task,
        target="main",
        principal="usr_agent",
        title="Flag S-1002",
        intent=None,
        task="flag",
        policy_review=False,
        execution={"invocation_id": "inv_task", "operation": "flag_supplier_risk", "summary": "-"},
        describe=lambda intent, executions: "",
    ).proposal
    assert run(supply, Receiver()).fanned_out == 0
    supply.writes.merge(
        "supply",
        proposal.id,
        actor="usr_reviewer",
        message="Merge",
        max_event_edits=50,
        delete_source=True,
        policy=MergePolicy(required_approvals=0),
    )
    receiver = Receiver()
    assert run(supply, receiver).delivered == 1
    document = json.loads(receiver.sent[0].body)
    assert (document["branch"], document["source_branch"]) == ("main", task)
    assert document["proposal"] == proposal.id
    assert statuses(supply, webhook_id, "supply") == [("delivered", 1)]
