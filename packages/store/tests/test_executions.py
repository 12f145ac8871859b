"""Operation executions: one commit with its invocation row and operation events, idempotent."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import pytest

from lorebase_core.changes import Change, Origin, UpsertLink, UpsertRecord
from lorebase_core.errors import IdempotencyKeyReused, StaleHead, ValuesInvalid
from lorebase_store.commits.commit import CommitRequest
from lorebase_store.store import Store
from lorebase_store.testing import read_record, read_records
from lorebase_store.writes.executions import (
    Executed,
    ExecutionRecord,
    operation_id,
    request_digest,
)

DOMAIN = "supply"
AGENT = "usr_agent"
THREADS = 8
T = TypeVar("T")
EVENT_MEMBERS = {
    "sequence",
    "type",
    "side_effect",
    "domain",
    "branch",
    "operation",
    "operation_id",
    "invocation_id",
    "principal",
    "revisions",
    "head",
    "parameters",
    "edit_count",
    "edits",
    "edits_truncated",
}


def execution(
    invocation_id: str,
    *,
    key: str | None = "key-1",
    digest: str | None = None,
    operation: str = "update_supplier",
    parameters: dict[str, Any] | None = None,
    edits: Sequence[dict[str, Any]] | None = None,
    principal: str = AGENT,
    branch: str = "main",
    **options: Any,
) -> ExecutionRecord:
    parameters = parameters if parameters is not None else {"key": "S-1002", "risk_score": 60}
    return ExecutionRecord(
        invocation_id=invocation_id,
        operation=operation,
        principal=principal,
        idempotency_key=key,
        request_digest=digest or request_digest({"operation": operation, **parameters}),
        branch=branch,
        parameters=parameters,
        edits=list(
            edits
            if edits is not None
            else [{"op": "update_record", "kind": "Supplier", "key": "S-1002"}]
        ),
        **options,
    )


def request(invocation_id: str, *, branch: str = "main", author: str = AGENT) -> CommitRequest:
    return CommitRequest(
        domain=DOMAIN,
        branch=branch,
        author=author,
        message="Run an Operation",
        origin=Origin("operation", invocation_id),
    )


def update_supplier(key: str = "S-1002", risk_score: int = 60) -> list[Change]:
    return [UpsertRecord("Supplier", key, {"risk_score": risk_score}, must_exist=True)]


def run(
    store: Store,
    invocation_id: str,
    changes: Sequence[Change] | None = None,
    **options: Any,
) -> Executed:
    return store.writes.execute(
        request(invocation_id, branch=options.get("branch", "main")),
        changes if changes is not None else update_supplier(),
        execution(invocation_id, **options),
    )


def head(store: Store, branch: str = "main") -> str | None:
    return store.branch(DOMAIN, branch).head_revision


def risk_score(store: Store, key: str = "S-1002") -> Any:
    record = read_record(store, DOMAIN, "Supplier", key)
    return None if record is None else record.values.get("risk_score")


def operation_events(store: Store) -> list[dict[str, Any]]:
    return [e for e in store.events(DOMAIN, limit=1000) if e["type"].startswith("operation.")]


def run_in_threads(count: int, work: Callable[[int, threading.Barrier], T]) -> list[T]:
    """Run `work(index, barrier)` in `count` threads that start together; re-raise any error."""
    barrier = threading.Barrier(count)
    with ThreadPoolExecutor(max_workers=count) as pool:
        futures = [pool.submit(work, index, barrier) for index in range(count)]
        return [future.result(timeout=300) for future in futures]


# -- one execution -------------------------------------------------------------------------------


def test_an_execution_commits_once_and_records_its_invocation(supply: Store) -> None:
    before = head(supply)
    revisions = len(supply.log(DOMAIN, limit=100))

    executed = run(supply, "inv_first")

    assert executed.replayed is False
    invocation = executed.invocation
    revision = supply.log(DOMAIN, limit=1)[0]
    assert revision.parents == [before]
    assert (revision.origin_type, revision.origin_ref, revision.author) == (
        "operation",
        "inv_first",
        AGENT,
    )
    assert len(supply.log(DOMAIN, limit=100)) == revisions + 1
    assert risk_score(supply) == "60"
    assert (invocation.id, invocation.operation, invocation.principal) == (
        "inv_first",
        "update_supplier",
        AGENT,
    )
    assert (invocation.idempotency_key, invocation.branch, invocation.target) == (
        "key-1",
        "main",
        None,
    )
    assert invocation.request_digest == request_digest(
        {"operation": "update_supplier", "key": "S-1002", "risk_score": 60}
    )
    assert (invocation.revision, invocation.proposal_id) == (revision.id, None)
    assert invocation.parameters == {"key": "S-1002", "risk_score": 60}
    assert invocation.edits == [{"op": "update_record", "kind": "Supplier", "key": "S-1002"}]
    assert invocation.events_pending is False
    assert invocation.result == {
        "revision": revision.id,
        "revisions": [revision.id],
        "edit_count": 1,
    }
    assert supply.writes.invocation(DOMAIN, AGENT, "key-1") == invocation
    assert supply.writes.invocation_by_id("inv_first") == invocation
    [audited] = supply.writes.audit(DOMAIN)
    assert (audited.principal, audited.action, audited.target) == (
        AGENT,
        "operation.invoke",
        "inv_first",
    )
    assert audited.details == {
        "operation": "update_supplier",
        "branch": "main",
        "revision": revision.id,
    }
    # no side effect declared: only the commit's own event
    assert operation_events(supply) == []
    assert supply.events(DOMAIN, limit=1000)[-1]["revision"] == revision.id


def test_a_retry_with_the_same_key_and_request_replays(supply: Store) -> None:
    first = run(supply, "inv_first")
    after_first = head(supply)
    revisions = len(supply.log(DOMAIN, limit=100))
    events = len(supply.events(DOMAIN, limit=1000))

    again = run(supply, "inv_retry")

    assert again.replayed is True
    assert again.invocation == first.invocation
    assert again.invocation.id == "inv_first"
    assert head(supply) == after_first
    assert len(supply.log(DOMAIN, limit=100)) == revisions
    assert len(supply.events(DOMAIN, limit=1000)) == events
    assert supply.writes.invocation_by_id("inv_retry") is None
    assert [e.target for e in supply.writes.audit(DOMAIN)] == ["inv_first"]


def test_a_replay_answers_the_recorded_result_even_after_the_branch_moved(supply: Store) -> None:
    first = run(supply, "inv_first")
    run(supply, "inv_other", update_supplier("S-1002", 70), key="key-2", digest="other")
    assert risk_score(supply) == "70"

    again = run(supply, "inv_retry")

    assert (again.replayed, again.invocation) == (True, first.invocation)
    assert risk_score(supply) == "70"


def test_the_same_key_for_another_request_is_refused(supply: Store) -> None:
    first = run(supply, "inv_first")
    after_first = head(supply)

    with pytest.raises(IdempotencyKeyReused) as raised:
        run(supply, "inv_second", update_supplier("S-1002", 75), digest="another-request")

    assert (raised.value.status, raised.value.code) == (409, "idempotency-key-reused")
    assert raised.value.extra == {"invocation_id": first.invocation.id}
    assert head(supply) == after_first
    assert risk_score(supply) == "60"
    assert supply.writes.invocation_by_id("inv_second") is None


def test_an_idempotency_key_belongs_to_its_principal(supply: Store) -> None:
    run(supply, "inv_first")
    other = run(
        supply,
        "inv_other_principal",
        update_supplier("S-1002", 75),
        principal="usr_other",
        digest="another-request",
    )
    assert other.replayed is False
    assert other.invocation.id == "inv_other_principal"
    assert risk_score(supply) == "75"


def test_executions_without_a_key_are_never_replayed(supply: Store) -> None:
    one = run(supply, "inv_one", key=None)
    two = run(supply, "inv_two", update_supplier("S-1002", 61), key=None)
    assert (one.replayed, two.replayed) == (False, False)
    assert one.invocation.revision != two.invocation.revision
    assert risk_score(supply) == "61"


# -- operation events ----------------------------------------------------------------------------

FLAG_EDITS = [
    {"op": "upsert_record", "kind": "RiskFlag", "key": "RF-S-1002-inv_flag"},
    {"op": "upsert_link", "relation": "flags", "from": "RF-S-1002-inv_flag", "to": "S-1002"},
    {"op": "upsert_record", "kind": "Supplier", "key": "S-1002"},
]
FLAG_PARAMETERS = {"supplier": "S-1002", "severity": "high", "reason": "Port strike"}


def flag_changes(invocation_id: str = "inv_flag") -> list[Change]:
    flag = f"RF-S-1002-{invocation_id}"
    return [
        UpsertRecord(
            "RiskFlag", flag, {"severity": "high", "reason": "Port strike", "status": "open"}
        ),
        UpsertLink("flags", flag, "S-1002"),
        UpsertRecord("Supplier", "S-1002", {"risk_score": 80}, must_exist=True),
    ]


def flag(store: Store, invocation_id: str = "inv_flag", **options: Any) -> Executed:
    options.setdefault("operation", "flag_supplier_risk")
    options.setdefault("parameters", FLAG_PARAMETERS)
    options.setdefault("edits", FLAG_EDITS)
    options.setdefault("side_effects", ("risk_flag_raised",))
    return run(store, invocation_id, flag_changes(invocation_id), **options)


def test_a_side_effect_writes_one_operation_event_with_the_commit(supply: Store) -> None:
    executed = flag(supply, max_event_edits=2)

    revision = executed.invocation.revision
    assert revision is not None
    assert revision == head(supply)
    committed, event = supply.events(DOMAIN, limit=1000)[-2:]
    assert (committed["type"], committed["revision"]) == ("revision.committed", revision)
    assert event["sequence"] > committed["sequence"]
    assert set(event) == EVENT_MEMBERS
    assert {name: event[name] for name in EVENT_MEMBERS - {"sequence"}} == {
        "type": "operation.risk_flag_raised",
        "side_effect": "risk_flag_raised",
        "domain": "supply",
        "branch": "main",
        "operation": "flag_supplier_risk",
        "operation_id": operation_id("supply", "flag_supplier_risk"),
        "invocation_id": "inv_flag",
        "principal": AGENT,
        "revisions": [revision],
        "head": revision,
        "parameters": FLAG_PARAMETERS,
        "edit_count": 3,
        "edits": FLAG_EDITS[:2],
        "edits_truncated": True,
    }
    assert event["operation_id"].startswith("opr_")
    assert len(event["operation_id"]) == 24
    assert operation_id("supply", "flag_supplier_risk") != operation_id("supply", "update_supplier")
    assert executed.invocation.events_pending is False
    assert executed.invocation.result["edit_count"] == 3


def test_operation_events_keep_every_edit_within_the_limit(supply: Store) -> None:
    flag(supply)
    [event] = operation_events(supply)
    assert (event["edit_count"], event["edits"], event["edits_truncated"]) == (
        3,
        FLAG_EDITS,
        False,
    )


def test_each_side_effect_is_one_event(supply: Store) -> None:
    flag(supply, side_effects=("risk_flag_raised", "supplier_reviewed"))
    assert [e["type"] for e in operation_events(supply)] == [
        "operation.risk_flag_raised",
        "operation.supplier_reviewed",
    ]


def test_a_replay_writes_no_operation_event(supply: Store) -> None:
    flag(supply)
    again = flag(supply, invocation_id="inv_flag")
    assert again.replayed is True
    assert len(operation_events(supply)) == 1


def test_events_held_for_later_are_not_written_and_are_marked_pending(supply: Store) -> None:
    executed = flag(supply, events_now=False, target="main", branch="main")

    assert executed.invocation.events_pending is True
    assert executed.invocation.target == "main"
    assert operation_events(supply) == []
    assert supply.events(DOMAIN, limit=1000)[-1]["type"] == "revision.committed"
    stored = supply.writes.invocation_by_id("inv_flag")
    assert stored is not None
    assert stored.events_pending is True


def test_an_execution_that_changes_nothing_records_its_invocation_only(supply: Store) -> None:
    before = head(supply)
    revisions = len(supply.log(DOMAIN, limit=100))
    events = len(supply.events(DOMAIN, limit=1000))

    executed = run(
        supply,
        "inv_noop",
        update_supplier("S-1001", 90),  # S-1001's risk score is 90 already
        side_effects=("risk_flag_raised",),
        events_now=False,
    )

    assert executed.replayed is False
    invocation = executed.invocation
    assert invocation.revision is None
    assert invocation.result == {"revision": None, "revisions": [], "edit_count": 0}
    assert invocation.events_pending is False
    assert head(supply) == before
    assert len(supply.log(DOMAIN, limit=100)) == revisions
    assert len(supply.events(DOMAIN, limit=1000)) == events
    assert supply.writes.invocation_by_id("inv_noop") == invocation
    # and it replays like any other
    again = run(supply, "inv_noop_retry", update_supplier("S-1001", 90))
    assert (again.replayed, again.invocation) == (True, invocation)


def test_refused_changes_write_no_invocation(supply: Store) -> None:
    before = head(supply)
    events = len(supply.events(DOMAIN, limit=1000))

    with pytest.raises(ValuesInvalid) as raised:
        run(
            supply, "inv_missing", update_supplier("S-1999", 10), side_effects=("risk_flag_raised",)
        )

    assert [issue.code for issue in raised.value.issues] == ["record.missing"]
    assert read_record(supply, DOMAIN, "Supplier", "S-1999") is None
    assert head(supply) == before
    assert len(supply.events(DOMAIN, limit=1000)) == events
    assert supply.writes.invocation_by_id("inv_missing") is None
    assert supply.writes.invocation(DOMAIN, AGENT, "key-1") is None
    assert supply.writes.audit(DOMAIN) == []
    # the key was not used up: a corrected request under it goes through
    assert run(supply, "inv_fixed", digest="corrected").replayed is False


def test_an_execution_expecting_another_head_writes_nothing(supply: Store) -> None:
    stale = head(supply)
    run(supply, "inv_before", update_supplier("S-1003", 11), key="key-0", digest="before")
    moved = head(supply)

    with pytest.raises(StaleHead):
        supply.writes.execute(
            CommitRequest(
                domain=DOMAIN,
                branch="main",
                author=AGENT,
                message="Run",
                origin=Origin("operation", "inv_stale"),
                expected_head=stale,
            ),
            update_supplier(),
            execution("inv_stale"),
        )

    assert head(supply) == moved
    assert risk_score(supply) == "34"
    assert supply.writes.invocation_by_id("inv_stale") is None
    assert [e.target for e in supply.writes.audit(DOMAIN)] == ["inv_before"]


# -- dry runs ------------------------------------------------------------------------------------


def test_a_dry_run_counts_the_changes_and_writes_nothing(supply: Store) -> None:
    before = head(supply)
    revisions = len(supply.log(DOMAIN, limit=100))
    events = len(supply.events(DOMAIN, limit=1000))

    result = supply.writes.dry_run(request("inv_dry"), flag_changes("inv_dry"))

    assert (result.head, result.changes, result.violations) == (before, 3, [])
    assert head(supply) == before
    assert len(supply.log(DOMAIN, limit=100)) == revisions
    assert len(supply.events(DOMAIN, limit=1000)) == events
    assert read_record(supply, DOMAIN, "RiskFlag", "RF-S-1002-inv_dry") is None
    assert risk_score(supply) == "34"
    assert supply.writes.invocation_by_id("inv_dry") is None


def test_a_dry_run_lists_the_violations(supply: Store) -> None:
    before = head(supply)

    result = supply.writes.dry_run(
        request("inv_dry"),
        [*update_supplier("S-1999", 10), UpsertRecord("Supplier", "S-1002", {"risk_score": 101})],
    )

    assert (result.head, result.changes) == (before, 0)
    assert sorted(issue.code for issue in result.violations) == ["record.missing", "value.invalid"]
    assert head(supply) == before
    assert risk_score(supply) == "34"


def test_a_dry_run_of_nothing_new_counts_no_change(supply: Store) -> None:
    result = supply.writes.dry_run(request("inv_dry"), update_supplier("S-1001", 90))
    assert (result.head, result.changes, result.violations) == (head(supply), 0, [])


# -- concurrency ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "shared", [pytest.param(False, id="a-store-per-thread"), pytest.param(True, id="one-shared")]
)
def test_concurrent_retries_under_one_key_commit_once(
    supply: Store, database_url: str, shared: bool
) -> None:
    before = head(supply)
    revisions = len(supply.log(DOMAIN, limit=100))

    def work(thread: int, barrier: threading.Barrier) -> Executed:
        store = supply if shared else Store.open(database_url)
        try:
            barrier.wait(timeout=60)
            return flag(store, invocation_id=f"inv_thread_{thread}", key="shared-key")
        finally:
            if not shared:
                store.close()

    results = run_in_threads(THREADS, work)

    assert len(supply.log(DOMAIN, limit=100)) == revisions + 1
    [winner] = [result for result in results if not result.replayed]
    assert {result.invocation.id for result in results} == {winner.invocation.id}
    assert {result.invocation.revision for result in results} == {head(supply)}
    assert supply.log(DOMAIN, limit=1)[0].parents == [before]
    assert len(operation_events(supply)) == 1
    flags = [
        record.key
        for record in read_records(supply, DOMAIN, "RiskFlag", limit=1000)
        if record.key.startswith("RF-S-1002-inv_thread_")
    ]
    assert flags == [f"RF-S-1002-{winner.invocation.id}"]


def test_concurrent_executions_under_different_keys_all_commit(
    supply: Store, database_url: str
) -> None:
    revisions = len(supply.log(DOMAIN, limit=100))

    def work(thread: int, barrier: threading.Barrier) -> Executed:
        store = Store.open(database_url)
        try:
            barrier.wait(timeout=60)
            return run(
                store,
                f"inv_thread_{thread}",
                [UpsertRecord("Part", f"P-{10011 + thread}", {"unit_cost": f"{thread + 1}.25"})],
                key=f"key-{thread}",
                digest=f"digest-{thread}",
            )
        finally:
            store.close()

    results = run_in_threads(THREADS, work)

    assert [result.replayed for result in results] == [False] * THREADS
    assert [result.invocation.id for result in results] == [
        f"inv_thread_{thread}" for thread in range(THREADS)
    ]
    chain = list(reversed(supply.log(DOMAIN, limit=100)))
    assert len(chain) == revisions + THREADS
    assert {result.invocation.revision for result in results} == {
        revision.id for revision in chain[revisions:]
    }
    for parent, child in itertools.pairwise(chain):
        assert child.parents == [parent.id]
    for thread in range(THREADS):
        part = read_record(supply, DOMAIN, "Part", f"P-{10011 + thread}")
        assert part is not None
        assert part.values["unit_cost"] == f"{thread + 1}.25"
