"""Task branches and Proposals: propose, review, attempt, resolve, merge, close, and the audit log."""

from __future__ import annotations

from typing import Any

import pytest

from lorebase_core.changes import Change, Origin, UpsertLink, UpsertRecord
from lorebase_core.errors import AgentBranchLimit, AlreadyExists, ConflictNotFound, ProposalNotOpen
from lorebase_store.commits.commit import CommitRequest
from lorebase_store.store import Store
from lorebase_store.testing import commit_changes as commit
from lorebase_store.testing import read_lineage, read_record
from lorebase_store.writes.executions import Executed, ExecutionRecord, operation_id
from lorebase_store.writes.proposals import ProposalInfo
from lorebase_store.writes.writes import Merged, Proposed, TaskBranch

DOMAIN = "supply"
AGENT = "svc_agent"
REVIEWER = "usr_reviewer"
TASK = "agent/svc/t1"
PREFIX = "agent/svc/"


def describe(intent: str | None, executions: list[dict[str, Any]]) -> str:
    """The description callback: the intent, then the invocations in order."""
    return f"{intent or '-'} [{', '.join(e['invocation_id'] for e in executions)}]"


def task_branch(
    store: Store, name: str = TASK, *, principal: str = AGENT, max_open: int = 3
) -> TaskBranch:
    return store.writes.task_branch(
        DOMAIN,
        name,
        from_branch="main",
        mode="overlay",
        principal=principal,
        owned_prefix=PREFIX,
        max_open=max_open,
    )


def flag_changes(invocation_id: str, supplier: str = "S-1002", score: int = 80) -> list[Change]:
    flag = f"RF-{supplier}-{invocation_id}"
    return [
        UpsertRecord(
            "RiskFlag", flag, {"severity": "high", "reason": "Port strike", "status": "open"}
        ),
        UpsertLink("flags", flag, supplier),
        UpsertRecord("Supplier", supplier, {"risk_score": score}, must_exist=True),
    ]


def execute(
    store: Store,
    invocation_id: str,
    *,
    branch: str = TASK,
    score: int = 80,
    events_now: bool = False,
) -> Executed:
    """flag_supplier_risk on S-1002 (raises its risk score), its events held for the merge."""
    return store.writes.execute(
        CommitRequest(
            domain=DOMAIN,
            branch=branch,
            author=AGENT,
            message="Flag S-1002",
            origin=Origin("operation", invocation_id),
        ),
        flag_changes(invocation_id, score=score),
        ExecutionRecord(
            invocation_id=invocation_id,
            operation="flag_supplier_risk",
            principal=AGENT,
            idempotency_key=f"key-{invocation_id}",
            request_digest=f"digest-{invocation_id}",
            branch=branch,
            parameters={"supplier": "S-1002", "severity": "high", "reason": "Port strike"},
            edits=[{"op": "upsert_record", "kind": "RiskFlag"}, {"op": "upsert_link"}],
            side_effects=("risk_flag_raised",),
            target="main",
            events_now=events_now,
        ),
    )


def entry(invocation_id: str) -> dict[str, Any]:
    return {"invocation_id": invocation_id, "operation": "flag_supplier_risk"}


def propose(
    store: Store,
    invocation_id: str | None = None,
    *,
    intent: str | None = None,
    principal: str = AGENT,
    source: str = TASK,
    target: str = "main",
    policy_review: bool = False,
) -> Proposed:
    return store.writes.propose(
        DOMAIN,
        source=source,
        target=target,
        principal=principal,
        title="Flag S-1002",
        intent=intent,
        task="t1",
        policy_review=policy_review,
        execution=entry(invocation_id) if invocation_id else None,
        describe=describe,
    )


def merge(store: Store, proposal: ProposalInfo, *, delete_source: bool = False) -> Merged:
    return store.writes.merge(
        DOMAIN,
        proposal.id,
        actor=REVIEWER,
        message=f"Merge {proposal.id}",
        max_event_edits=50,
        delete_source=delete_source,
    )


def head(store: Store, branch: str = "main") -> str | None:
    return store.branch(DOMAIN, branch).head_revision


def branch_names(store: Store) -> list[str]:
    return [branch.name for branch in store.branches(DOMAIN)]


def risk_score(store: Store, branch: str = "main") -> Any:
    record = read_record(store, DOMAIN, "Supplier", "S-1002", branch=branch)
    return None if record is None else record.values.get("risk_score")


def operation_events(store: Store) -> list[dict[str, Any]]:
    return [e for e in store.events(DOMAIN, limit=1000) if e["type"].startswith("operation.")]


def audit_trail(store: Store) -> list[tuple[str, str, str]]:
    return [(e.principal, e.action, e.target) for e in store.writes.audit(DOMAIN)]


# -- task branches -------------------------------------------------------------------------------


def test_a_task_branch_is_created_then_reused_by_its_principal(supply: Store) -> None:
    main_head = head(supply)

    made = task_branch(supply)

    assert made.created is True
    branch = made.branch
    assert (branch.name, branch.mode, branch.created_by) == (TASK, "overlay", AGENT)
    assert (branch.base_branch, branch.base_revision, branch.head_revision) == (
        "main",
        main_head,
        main_head,
    )
    assert branch.protected is False
    assert TASK in branch_names(supply)
    [created] = supply.writes.audit(DOMAIN)
    assert (created.principal, created.action, created.target) == (AGENT, "branch.create", TASK)
    assert created.details == {"base": "main", "mode": "overlay"}

    again = task_branch(supply)

    assert again.created is False
    assert again.branch == branch
    assert len(supply.writes.audit(DOMAIN)) == 1
    assert branch_names(supply).count(TASK) == 1


def test_another_principal_may_not_take_a_task_branch(supply: Store) -> None:
    task_branch(supply)
    with pytest.raises(AlreadyExists) as raised:
        task_branch(supply, principal="svc_other")
    assert (raised.value.status, raised.value.code) == (409, "already-exists")
    assert raised.value.extra == {"branch": TASK}


def test_a_principal_holds_at_most_max_open_task_branches(supply: Store) -> None:
    task_branch(supply, "agent/svc/t1", max_open=2)
    task_branch(supply, "agent/svc/t2", max_open=2)
    # branches outside the prefix or made by others do not count
    supply.create_branch(DOMAIN, "draft", created_by=AGENT)
    task_branch(supply, "agent/svc/o1", principal="svc_other", max_open=2)

    with pytest.raises(AgentBranchLimit) as raised:
        task_branch(supply, "agent/svc/t3", max_open=2)

    error = raised.value
    assert (error.status, error.code) == (409, "agent-branch-limit")
    assert error.extra == {"branches": ["agent/svc/t1", "agent/svc/t2"], "limit": 2}
    assert "agent/svc/t3" not in branch_names(supply)
    # a held branch is still reused at the limit
    assert task_branch(supply, "agent/svc/t2", max_open=2).created is False


def test_a_deleted_task_branch_frees_its_place_and_its_name(supply: Store) -> None:
    task_branch(supply, max_open=1)
    execute(supply, "inv_1")
    proposal = propose(supply, "inv_1").proposal
    assert merge(supply, proposal, delete_source=True).branch_deleted is True

    again = task_branch(supply, max_open=1)

    assert again.created is True
    assert again.branch.head_revision == head(supply)


# -- proposing -----------------------------------------------------------------------------------


def test_propose_opens_one_proposal_and_records_an_attempt(supply: Store) -> None:
    task_branch(supply)
    executed = execute(supply, "inv_1")

    proposed = propose(supply, "inv_1", intent="Raise S-1002's risk")

    assert proposed.created is True
    proposal = proposed.proposal
    assert proposal.id.startswith("prp_")
    assert (proposal.domain, proposal.status, proposal.title, proposal.task) == (
        DOMAIN,
        "open",
        "Flag S-1002",
        "t1",
    )
    assert (proposal.source_branch, proposal.target_branch) == (TASK, "main")
    assert proposal.source_branch_id == supply.branch(DOMAIN, TASK).id
    assert proposal.target_branch_id == supply.branch(DOMAIN, "main").id
    assert proposal.intent == "Raise S-1002's risk"
    assert proposal.description == "Raise S-1002's risk [inv_1]"
    assert proposal.executions == [entry("inv_1")]
    assert (proposal.created_by, proposal.policy_review) == (AGENT, False)
    assert (proposal.merged_revision, proposal.closed_by) == (None, None)
    assert (proposal.reviews, proposal.approvals, proposal.changes_requested) == ([], 0, False)
    assert (proposal.open_conflicts, proposal.resolved_conflicts) == (0, 0)
    attempt = proposal.attempt
    assert attempt is not None
    assert attempt.id.startswith("mat_")
    assert (attempt.result, attempt.open_conflicts, attempt.resolved_conflicts) == (
        "fast_forward",
        0,
        0,
    )
    assert (attempt.base_revision, attempt.source_head, attempt.target_head) == (
        head(supply),
        executed.invocation.revision,
        head(supply),
    )
    invocation = supply.writes.invocation_by_id("inv_1")
    assert invocation is not None
    assert invocation.proposal_id == proposal.id
    assert supply.writes.proposal(DOMAIN, proposal.id) == proposal
    assert [p.id for p in supply.writes.proposals(DOMAIN, status="open")] == [proposal.id]
    assert supply.writes.proposals(DOMAIN, status="merged") == []
    assert [p.id for p in supply.writes.proposals(DOMAIN, created_by=AGENT)] == [proposal.id]
    # proposing merges nothing
    assert risk_score(supply) == "34"


def test_a_second_proposal_of_the_same_branches_adds_the_execution(supply: Store) -> None:
    task_branch(supply)
    execute(supply, "inv_1")
    first = propose(supply, "inv_1", intent="Raise S-1002's risk").proposal
    execute(supply, "inv_2", score=85)

    second = propose(supply, "inv_2", policy_review=True)

    assert second.created is False
    proposal = second.proposal
    assert proposal.id == first.id
    assert proposal.executions == [entry("inv_1"), entry("inv_2")]
    assert proposal.intent == "Raise S-1002's risk"
    assert proposal.description == "Raise S-1002's risk [inv_1, inv_2]"
    assert proposal.policy_review is True
    invocation = supply.writes.invocation_by_id("inv_2")
    assert invocation is not None
    assert invocation.proposal_id == first.id
    assert proposal.attempt is not None
    assert proposal.attempt.id != (first.attempt.id if first.attempt else None)
    assert proposal.attempt.source_head == head(supply, TASK)

    # an intent given replaces the old one; an execution proposed again is not listed twice
    third = propose(supply, "inv_2", intent="Raise it twice").proposal
    assert third.intent == "Raise it twice"
    assert third.executions == [entry("inv_1"), entry("inv_2")]
    assert third.description == "Raise it twice [inv_1, inv_2]"
    assert third.policy_review is True
    assert len(supply.writes.proposals(DOMAIN)) == 1
    actions = [(e.action, e.target) for e in supply.writes.audit(DOMAIN)]
    assert actions == [
        ("branch.create", TASK),
        ("operation.invoke", "inv_1"),
        ("proposal.create", first.id),
        ("operation.invoke", "inv_2"),
        ("proposal.update", first.id),
        ("proposal.update", first.id),
    ]


def test_another_principal_may_not_add_to_an_open_proposal(supply: Store) -> None:
    task_branch(supply)
    execute(supply, "inv_1")
    propose(supply, "inv_1")
    with pytest.raises(AlreadyExists):
        propose(supply, principal="svc_other")


# -- reviews -------------------------------------------------------------------------------------


def test_reviews_count_approvals_of_others_only(supply: Store) -> None:
    task_branch(supply)
    execute(supply, "inv_1")
    proposal = propose(supply, "inv_1").proposal

    own = supply.writes.review(DOMAIN, proposal.id, reviewer=AGENT, verdict="approve", body="mine")
    assert own.approvals == 0

    approved = supply.writes.review(
        DOMAIN, proposal.id, reviewer=REVIEWER, verdict="approve", body="fine"
    )
    assert approved.approvals == 1
    assert approved.changes_requested is False
    review = approved.reviews[-1]
    assert (review.reviewer, review.verdict, review.body) == (REVIEWER, "approve", "fine")
    assert review.source_head == head(supply, TASK)

    commented = supply.writes.review(
        DOMAIN, proposal.id, reviewer="usr_other", verdict="comment", body="why?"
    )
    assert (commented.approvals, commented.changes_requested) == (1, False)

    requested = supply.writes.review(
        DOMAIN, proposal.id, reviewer="usr_other", verdict="request_changes", body="no"
    )
    assert requested.approvals == 1
    assert requested.changes_requested is True
    assert requested.verdicts == {
        AGENT: "approve",
        REVIEWER: "approve",
        "usr_other": "request_changes",
    }

    # a reviewer's latest verdict counts
    later = supply.writes.review(
        DOMAIN, proposal.id, reviewer="usr_other", verdict="approve", body="ok now"
    )
    assert (later.approvals, later.changes_requested) == (2, False)
    assert len(later.reviews) == 5
    reviews = [e for e in supply.writes.audit(DOMAIN) if e.action == "proposal.review"]
    assert [(e.principal, e.details["verdict"]) for e in reviews] == [
        (AGENT, "approve"),
        (REVIEWER, "approve"),
        ("usr_other", "comment"),
        ("usr_other", "request_changes"),
        ("usr_other", "approve"),
    ]


# -- merging -------------------------------------------------------------------------------------


def test_merging_a_proposal_commits_on_the_target_and_writes_the_held_events(
    supply: Store,
) -> None:
    main_head = head(supply)
    task_branch(supply)
    executed = execute(supply, "inv_1")
    assert executed.invocation.events_pending is True
    assert operation_events(supply) == []
    proposal = propose(supply, "inv_1").proposal

    merged = merge(supply, proposal)

    assert merged.outcome.merged is True
    assert merged.branch_deleted is False
    new_head = head(supply)
    assert new_head != main_head
    assert merged.outcome.revision == new_head
    assert merged.outcome.attempt.result == "fast_forward"
    done = merged.proposal
    assert (done.status, done.merged_revision, done.merged_by) == ("merged", new_head, REVIEWER)
    assert done.merged_at is not None
    assert risk_score(supply) == "80"
    assert read_record(supply, DOMAIN, "RiskFlag", "RF-S-1002-inv_1") is not None
    revision = supply.log(DOMAIN, limit=1)[0]
    assert revision.parents == [main_head, executed.invocation.revision]
    assert (revision.origin_type, revision.origin_ref, revision.author) == (
        "merge",
        proposal.id,
        REVIEWER,
    )
    lineage = read_lineage(supply, DOMAIN, "Supplier", "S-1002")
    assert lineage.attributes["risk_score"].revision == executed.invocation.revision

    [event] = operation_events(supply)
    assert event["type"] == "operation.risk_flag_raised"
    assert (event["branch"], event["source_branch"], event["proposal"]) == (
        "main",
        TASK,
        proposal.id,
    )
    assert (event["head"], event["revisions"]) == (new_head, [executed.invocation.revision])
    assert (event["invocation_id"], event["principal"], event["domain"]) == ("inv_1", AGENT, DOMAIN)
    assert event["operation_id"] == operation_id(DOMAIN, "flag_supplier_risk")
    assert (event["edit_count"], event["edits_truncated"]) == (2, False)
    events = supply.events(DOMAIN, limit=1000)
    assert events[-1] == event
    assert (events[-2]["type"], events[-2]["revision"]) == ("revision.committed", new_head)
    invocation = supply.writes.invocation_by_id("inv_1")
    assert invocation is not None
    assert invocation.events_pending is False

    # once merged, it stays merged: no second merge, no second event
    with pytest.raises(ProposalNotOpen):
        merge(supply, proposal)
    assert len(operation_events(supply)) == 1
    assert head(supply) == new_head
    assert TASK in branch_names(supply)


def test_merging_with_delete_source_deletes_the_task_branch(supply: Store) -> None:
    task_branch(supply)
    execute(supply, "inv_1")
    proposal = propose(supply, "inv_1").proposal

    merged = merge(supply, proposal, delete_source=True)

    assert merged.outcome.merged is True
    assert merged.branch_deleted is True
    assert TASK not in branch_names(supply)
    assert risk_score(supply) == "80"
    assert len(operation_events(supply)) == 1
    trail = audit_trail(supply)
    assert trail[-2:] == [
        (REVIEWER, "proposal.merge", proposal.id),
        (REVIEWER, "branch.delete", TASK),
    ]
    [merge_entry] = [e for e in supply.writes.audit(DOMAIN) if e.action == "proposal.merge"]
    assert merge_entry.details == {"revision": head(supply), "automatic": False}


def test_the_task_branch_stays_while_another_open_proposal_has_it(supply: Store) -> None:
    supply.create_branch(DOMAIN, "staging", created_by="usr_tester")
    task_branch(supply)
    execute(supply, "inv_1")
    into_main = propose(supply, "inv_1").proposal
    into_staging = propose(supply, target="staging").proposal
    assert into_staging.id != into_main.id

    merged = merge(supply, into_main, delete_source=True)

    assert merged.outcome.merged is True
    assert merged.branch_deleted is False
    assert TASK in branch_names(supply)
    assert "branch.delete" not in [action for _, action, _ in audit_trail(supply)]
    # the last Proposal of the branch deletes it
    assert merge(supply, into_staging, delete_source=True).branch_deleted is True
    assert TASK not in branch_names(supply)
    assert risk_score(supply, "staging") == "80"


# -- closing -------------------------------------------------------------------------------------


def test_closing_a_proposal_drops_its_held_events_and_branch(supply: Store) -> None:
    main_head = head(supply)
    task_branch(supply)
    execute(supply, "inv_1")
    proposal = propose(supply, "inv_1").proposal

    closed = supply.writes.close(DOMAIN, proposal.id, actor=REVIEWER, delete_source=True)

    assert (closed.status, closed.closed_by, closed.merged_revision) == ("closed", REVIEWER, None)
    assert closed.closed_at is not None
    assert TASK not in branch_names(supply)
    invocation = supply.writes.invocation_by_id("inv_1")
    assert invocation is not None
    assert invocation.events_pending is False
    assert operation_events(supply) == []
    assert head(supply) == main_head
    assert risk_score(supply) == "34"
    assert audit_trail(supply)[-2:] == [
        (REVIEWER, "proposal.close", proposal.id),
        (REVIEWER, "branch.delete", TASK),
    ]


def test_a_closed_proposal_can_be_neither_merged_nor_reviewed(supply: Store) -> None:
    task_branch(supply)
    execute(supply, "inv_1")
    proposal = propose(supply, "inv_1").proposal
    supply.writes.close(DOMAIN, proposal.id, actor=REVIEWER, delete_source=False)
    main_head = head(supply)

    with pytest.raises(ProposalNotOpen) as raised:
        merge(supply, proposal)
    assert (raised.value.status, raised.value.code) == (409, "proposal-not-open")
    assert raised.value.extra == {"proposal": proposal.id}
    with pytest.raises(ProposalNotOpen):
        supply.writes.review(DOMAIN, proposal.id, reviewer=REVIEWER, verdict="approve", body="")
    with pytest.raises(ProposalNotOpen):
        supply.writes.attempt(DOMAIN, proposal.id, actor=REVIEWER)
    with pytest.raises(ProposalNotOpen):
        supply.writes.close(DOMAIN, proposal.id, actor=REVIEWER, delete_source=True)
    assert head(supply) == main_head
    assert operation_events(supply) == []
    assert supply.writes.proposal(DOMAIN, proposal.id).reviews == []


def test_closing_without_deleting_the_branch_still_drops_the_held_events(supply: Store) -> None:
    """The closed Proposal will never merge: its executions' events are dropped, even if a new
    Proposal of the same task branch merges the branch later."""
    task_branch(supply)
    execute(supply, "inv_1")
    proposal = propose(supply, "inv_1").proposal

    supply.writes.close(DOMAIN, proposal.id, actor=REVIEWER, delete_source=False)

    assert TASK in branch_names(supply)
    invocation = supply.writes.invocation_by_id("inv_1")
    assert invocation is not None
    assert invocation.events_pending is False

    reopened = propose(supply).proposal
    assert reopened.id != proposal.id
    assert merge(supply, reopened).outcome.merged is True
    assert risk_score(supply) == "80"
    assert operation_events(supply) == []


# -- Conflicts -----------------------------------------------------------------------------------


def conflicting_proposal(store: Store) -> ProposalInfo:
    """S-1002's risk score: 34 at the fork, 80 on the task branch, 20 on main."""
    task_branch(store)
    execute(store, "inv_1")
    commit(store, [UpsertRecord("Supplier", "S-1002", {"risk_score": 20})])
    return propose(store, "inv_1").proposal


def test_a_conflicting_proposal_lists_its_conflict_and_does_not_merge(supply: Store) -> None:
    proposal = conflicting_proposal(supply)
    main_head = head(supply)

    assert proposal.attempt is not None
    assert (proposal.attempt.result, proposal.attempt.open_conflicts) == ("conflicts", 1)
    assert proposal.attempt.counts == {"modified-both": 1}
    assert proposal.open_conflicts == 1
    _, [found] = supply.writes.conflicts(DOMAIN, proposal.id)
    assert found.id.startswith("cfl_")
    assert (found.entity, found.ref, found.attribute, found.code) == (
        "record",
        "Supplier/S-1002",
        "risk_score",
        "modified-both",
    )
    assert (found.base, found.source, found.target) == ("34", "80", "20")
    assert (found.status, found.resolution, found.value, found.resolved_by) == (
        "open",
        None,
        None,
        None,
    )

    # another attempt finds the same one Conflict (the open ones are replaced, not added)
    again, attempt = supply.writes.attempt(DOMAIN, proposal.id, actor=REVIEWER)
    assert (attempt.result, attempt.open_conflicts) == ("conflicts", 1)
    assert again.open_conflicts == 1
    assert len(supply.writes.conflicts(DOMAIN, proposal.id)[1]) == 1

    merged = merge(supply, proposal, delete_source=True)

    assert merged.outcome.merged is False
    assert merged.outcome.revision is None
    assert merged.outcome.attempt.result == "conflicts"
    assert merged.branch_deleted is False
    assert merged.proposal.status == "open"
    assert head(supply) == main_head
    assert risk_score(supply) == "20"
    assert TASK in branch_names(supply)
    assert operation_events(supply) == []
    assert "proposal.merge" not in [action for _, action, _ in audit_trail(supply)]


@pytest.mark.parametrize(
    ("resolution", "value", "expected"),
    [
        pytest.param("source", None, "80", id="source"),
        pytest.param("target", None, "20", id="target"),
        pytest.param("value", "55", "55", id="value"),
    ],
)
def test_a_resolved_conflict_lets_the_proposal_merge(
    supply: Store, resolution: str, value: Any, expected: str
) -> None:
    proposal = conflicting_proposal(supply)
    _, [found] = supply.writes.conflicts(DOMAIN, proposal.id)

    after, resolved = supply.writes.resolve(
        DOMAIN, proposal.id, found.id, resolution=resolution, value=value, by=REVIEWER
    )

    assert (resolved.id, resolved.status, resolved.resolution) == (found.id, "resolved", resolution)
    assert resolved.value == value
    assert resolved.resolved_by == REVIEWER
    assert resolved.resolved_at is not None
    assert (after.open_conflicts, after.resolved_conflicts) == (0, 1)
    assert supply.writes.conflicts(DOMAIN, proposal.id, status="open")[1] == []
    _, attempt = supply.writes.attempt(DOMAIN, proposal.id, actor=REVIEWER)
    assert (attempt.result, attempt.open_conflicts, attempt.resolved_conflicts) == ("merge", 0, 1)

    merged = merge(supply, proposal, delete_source=True)

    assert merged.outcome.merged is True
    assert merged.proposal.status == "merged"
    assert risk_score(supply) == expected
    assert read_record(supply, DOMAIN, "RiskFlag", "RF-S-1002-inv_1") is not None
    assert len(operation_events(supply)) == 1
    assert merged.branch_deleted is True


def test_resolving_an_unknown_conflict_is_not_found(supply: Store) -> None:
    proposal = conflicting_proposal(supply)
    with pytest.raises(ConflictNotFound) as raised:
        supply.writes.resolve(
            DOMAIN, proposal.id, "cfl_unknown", resolution="source", value=None, by=REVIEWER
        )
    assert (raised.value.status, raised.value.code) == (404, "conflict-not-found")


# -- the audit log -------------------------------------------------------------------------------


def test_the_audit_log_lists_every_step_in_order(supply: Store) -> None:
    proposal = conflicting_proposal(supply)
    supply.writes.review(DOMAIN, proposal.id, reviewer=REVIEWER, verdict="approve", body="ok")
    _, [found] = supply.writes.conflicts(DOMAIN, proposal.id)
    supply.writes.resolve(
        DOMAIN, proposal.id, found.id, resolution="source", value=None, by=REVIEWER
    )
    merge(supply, proposal, delete_source=True)

    assert audit_trail(supply) == [
        (AGENT, "branch.create", TASK),
        (AGENT, "operation.invoke", "inv_1"),
        (AGENT, "proposal.create", proposal.id),
        (REVIEWER, "proposal.review", proposal.id),
        (REVIEWER, "conflict.resolve", found.id),
        (REVIEWER, "proposal.merge", proposal.id),
        (REVIEWER, "branch.delete", TASK),
    ]
    entries = supply.writes.audit(DOMAIN)
    ids = [e.id for e in entries]
    assert ids == sorted(ids)
    assert entries[0].details == {"base": "main", "mode": "overlay"}
    assert entries[1].details == {
        "operation": "flag_supplier_risk",
        "branch": TASK,
        "revision": proposal.attempt.source_head if proposal.attempt else None,
    }
    assert entries[2].details == {"source": TASK, "target": "main"}
    assert entries[3].details == {"verdict": "approve"}
    assert entries[4].details == {"proposal": proposal.id, "resolution": "source"}
    assert entries[5].details == {"revision": head(supply), "automatic": False}
    assert entries[6].details == {}
    # paging
    assert [e.id for e in supply.writes.audit(DOMAIN, after=ids[1], limit=2)] == ids[2:4]


# -- reach ---------------------------------------------------------------------------------------


def test_the_reach_of_a_proposal_names_what_its_source_changed(supply: Store) -> None:
    task_branch(supply)
    execute(supply, "inv_1")
    proposal = propose(supply, "inv_1").proposal

    [(found_id, reach)] = supply.writes.reach(DOMAIN, [proposal], changes=True).items()

    assert found_id == proposal.id
    assert reach.kinds == {"RiskFlag", "Supplier"}
    assert reach.relations == {"flags"}
    assert list(reach.invocations) == ["inv_1"]
    assert reach.conflicts == []
    without = supply.writes.reach(DOMAIN, [proposal], changes=False)[proposal.id]
    assert (without.kinds, without.relations) == (None, None)
    assert list(without.invocations) == ["inv_1"]

    merged = merge(supply, proposal).proposal
    commit(supply, [UpsertRecord("Part", "P-10028", {"unit_cost": "1.00"})], branch=TASK)

    after = supply.writes.reach(DOMAIN, [merged], changes=True)[merged.id]
    assert after.kinds == {"RiskFlag", "Supplier"}  # bounded by the merged source head
