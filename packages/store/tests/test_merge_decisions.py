"""Merges decide in their own transaction: the policy holds under the locks, or nothing merges.

Each race runs many times, with two threads released together by a barrier: whichever write
wins, the other sees what it did (a review lands on a merged Proposal and is refused, or the
merge finds the review and is refused). Nothing merges that the policy refuses.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from lorebase_core.changes import Origin, UpsertRecord
from lorebase_core.errors import MergeBlocked, ProposalNotOpen, StaleHead
from lorebase_core.proposal_policy import AutoMergeRule, MergePolicy
from lorebase_store import CommitRequest, ExecutionRecord, Merged, ProposalInfo, Store
from lorebase_store.testing import read_record

DOMAIN = "supply"
AGENT = "svc_agent"
REVIEWER = "usr_reviewer"
OTHER = "usr_other"
ROUNDS = 20
POLICY = MergePolicy(required_approvals=1)
AUTO = MergePolicy(
    required_approvals=0,
    auto_merge=AutoMergeRule(frozenset({"editor"}), frozenset({"editor"})),
)


def open_proposal(store: Store, task: str, score: int) -> ProposalInfo:
    """A task branch raising S-1002's risk score to `score`, proposed into main."""
    branch = f"agent/svc/{task}"
    store.writes.task_branch(
        DOMAIN,
        branch,
        from_branch="main",
        mode="overlay",
        principal=AGENT,
        owned_prefix="agent/svc/",
        max_open=ROUNDS * 3,
    )
    invocation = f"inv_{task}"
    store.writes.execute(
        CommitRequest(
            domain=DOMAIN,
            branch=branch,
            author=AGENT,
            message="Raise S-1002",
            origin=Origin("operation", invocation),
        ),
        [UpsertRecord("Supplier", "S-1002", {"risk_score": score}, must_exist=True)],
        ExecutionRecord(
            invocation_id=invocation,
            operation="update_supplier",
            principal=AGENT,
            idempotency_key=None,
            request_digest=f"digest-{task}",
            branch=branch,
            parameters={"supplier": "S-1002"},
            edits=[{"op": "upsert_record", "kind": "Supplier"}],
            side_effects=(),
            target="main",
            events_now=False,
        ),
    )
    return store.writes.propose(
        DOMAIN,
        source=branch,
        target="main",
        principal=AGENT,
        title=f"Raise S-1002 ({task})",
        intent=None,
        task=task,
        policy_review=False,
        execution={"invocation_id": invocation, "operation": "update_supplier", "summary": "-"},
        describe=lambda intent, executions: "",
    ).proposal


def merge(
    store: Store, proposal: ProposalInfo, policy: MergePolicy, *, delete_source: bool = True
) -> Merged:
    return store.writes.merge(
        DOMAIN,
        proposal.id,
        actor=REVIEWER,
        message=f"Merge {proposal.id}",
        max_event_edits=50,
        delete_source=delete_source,
        policy=policy,
    )


def review(store: Store, proposal: ProposalInfo, verdict: str, reviewer: str = OTHER) -> None:
    store.writes.review(DOMAIN, proposal.id, reviewer=reviewer, verdict=verdict, body="")


def race(first: Callable[[], Any], second: Callable[[], Any]) -> list[Any]:
    """Run both at once (a barrier releases them together); each answer or its exception."""
    barrier = threading.Barrier(2)

    def run(work: Callable[[], Any]) -> Any:
        barrier.wait(timeout=60)
        try:
            return work()
        except Exception as refused:
            return refused

    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = [pool.submit(run, first), pool.submit(run, second)]
        return [future.result(timeout=300) for future in futures]


def risk_score(store: Store) -> int:
    """S-1002's risk score on main (integers are stored in canonical form, as text)."""
    record = read_record(store, DOMAIN, "Supplier", "S-1002")
    assert record is not None
    return int(record.values["risk_score"])


# -- the decision, one write at a time ----------------------------------------------------------


def test_a_merge_without_the_approvals_the_target_requires_is_blocked(supply: Store) -> None:
    proposal = open_proposal(supply, "t1", 71)
    before = supply.branch(DOMAIN, "main").head_revision

    with pytest.raises(MergeBlocked) as raised:
        merge(supply, proposal, POLICY)

    assert raised.value.extra["blockers"] == ["approvals-pending"]
    assert supply.branch(DOMAIN, "main").head_revision == before
    assert supply.writes.proposal(DOMAIN, proposal.id).status == "open"


def test_a_request_for_changes_blocks_the_merge_despite_an_approval(supply: Store) -> None:
    proposal = open_proposal(supply, "t1", 72)
    review(supply, proposal, "approve", REVIEWER)
    review(supply, proposal, "request_changes")

    with pytest.raises(MergeBlocked) as raised:
        merge(supply, proposal, POLICY)

    assert raised.value.extra["blockers"] == ["changes-requested"]
    assert supply.writes.proposal(DOMAIN, proposal.id).status == "open"


def test_a_review_policy_needs_an_approval_even_when_the_target_needs_none(
    supply: Store,
) -> None:
    proposal = open_proposal(supply, "t1", 73)
    supply.writes.propose(
        DOMAIN,
        source=proposal.source_branch,
        target="main",
        principal=AGENT,
        title=proposal.title,
        intent=None,
        task="t1",
        policy_review=True,
        execution=None,
        describe=lambda intent, executions: "",
    )

    with pytest.raises(MergeBlocked) as raised:
        merge(supply, proposal, MergePolicy(required_approvals=0))

    assert raised.value.extra["blockers"] == ["review-policy-needs-approval"]


def test_the_authors_own_approval_does_not_count(supply: Store) -> None:
    proposal = open_proposal(supply, "t1", 74)
    review(supply, proposal, "approve", AGENT)

    with pytest.raises(MergeBlocked):
        merge(supply, proposal, POLICY)


def test_a_source_that_moved_since_the_decision_refuses_the_merge(supply: Store) -> None:
    proposal = open_proposal(supply, "t1", 75)
    review(supply, proposal, "approve", REVIEWER)
    decided_on = supply.branch(DOMAIN, proposal.source_branch).head_revision
    supply.commit(
        CommitRequest(
            domain=DOMAIN,
            branch=proposal.source_branch,
            author=AGENT,
            message="More",
            origin=Origin("operation", "x"),
        ),
        [UpsertRecord("Supplier", "S-1002", {"risk_score": 76}, must_exist=True)],
    )

    with pytest.raises(StaleHead) as raised:
        merge(supply, proposal, MergePolicy(1, expected_source_head=decided_on))

    assert raised.value.extra["expected_head"] == decided_on
    assert supply.writes.proposal(DOMAIN, proposal.id).status == "open"
    assert risk_score(supply) != 76


def test_an_automatic_merge_needs_an_allowed_role(supply: Store) -> None:
    proposal = open_proposal(supply, "t1", 77)
    rule = AutoMergeRule(frozenset({"viewer"}), frozenset({"editor"}))

    with pytest.raises(MergeBlocked) as raised:
        merge(supply, proposal, MergePolicy(0, auto_merge=rule))

    assert raised.value.extra["blockers"] == ["auto-merge-not-allowed"]


def test_a_merge_whose_policy_holds_merges_and_a_later_review_is_refused(supply: Store) -> None:
    proposal = open_proposal(supply, "t1", 78)
    review(supply, proposal, "approve", REVIEWER)

    merged = merge(supply, proposal, POLICY)

    assert merged.outcome.merged
    assert merged.proposal.status == "merged"
    assert risk_score(supply) == 78
    with pytest.raises(ProposalNotOpen):
        review(supply, proposal, "request_changes")


# -- races ---------------------------------------------------------------------------------------


def test_a_request_for_changes_racing_a_merge_never_lets_both_through(supply: Store) -> None:
    outcomes = set()
    for round_ in range(ROUNDS):
        proposal = open_proposal(supply, f"r{round_}", 10 + round_)
        review(supply, proposal, "approve", REVIEWER)
        before = risk_score(supply)

        reviewed, merged = race(
            lambda p=proposal: review(supply, p, "request_changes"),
            lambda p=proposal: merge(supply, p, POLICY),
        )

        after = supply.writes.proposal(DOMAIN, proposal.id)
        verdicts = [r.verdict for r in after.reviews]
        if isinstance(merged, Merged):  # the merge won: the review came too late
            assert isinstance(reviewed, ProposalNotOpen), reviewed
            assert after.status == "merged"
            assert "request_changes" not in verdicts
            assert risk_score(supply) == 10 + round_
            outcomes.add("merge first")
        else:  # the review won: the merge saw it
            assert reviewed is None, reviewed
            assert isinstance(merged, MergeBlocked), merged
            assert merged.extra["blockers"] == ["changes-requested"]
            assert after.status == "open"
            assert "request_changes" in verdicts
            assert risk_score(supply) == before
            supply.writes.close(DOMAIN, proposal.id, actor=AGENT, delete_source=True)
            outcomes.add("review first")
    assert outcomes  # which orders occurred depends on the scheduler


def test_a_commit_on_the_source_racing_a_merge_is_merged_whole_or_not_at_all(
    supply: Store,
) -> None:
    for round_ in range(ROUNDS):
        proposal = open_proposal(supply, f"c{round_}", 30 + round_)
        review(supply, proposal, "approve", REVIEWER)
        decided_on = supply.branch(DOMAIN, proposal.source_branch).head_revision
        policy = MergePolicy(1, expected_source_head=decided_on)
        later = CommitRequest(
            domain=DOMAIN,
            branch=proposal.source_branch,
            author=AGENT,
            message="Unreviewed",
            origin=Origin("operation", "late"),
        )

        committed, merged = race(
            lambda r=later, n=round_: supply.commit(
                r, [UpsertRecord("Supplier", "S-1002", {"risk_score": 50 + n}, must_exist=True)]
            ),
            lambda p=proposal, policy=policy: merge(supply, p, policy, delete_source=False),
        )

        after = supply.writes.proposal(DOMAIN, proposal.id)
        if isinstance(merged, Merged):  # merged what was reviewed; the commit stays on the source
            assert not isinstance(committed, Exception), committed
            assert risk_score(supply) == 30 + round_
            main = supply.log(DOMAIN, limit=1)[0]
            assert main.parents[1] == decided_on
        else:  # the commit came first: the merge refuses the moved source
            assert isinstance(merged, StaleHead), merged
            assert after.status == "open"
            assert risk_score(supply) != 50 + round_
            supply.writes.close(DOMAIN, proposal.id, actor=AGENT, delete_source=True)


def test_an_automatic_merge_racing_a_request_for_changes_never_lets_both_through(
    supply: Store,
) -> None:
    for round_ in range(ROUNDS):
        proposal = open_proposal(supply, f"a{round_}", 70 + round_)

        reviewed, merged = race(
            lambda p=proposal: review(supply, p, "request_changes"),
            lambda p=proposal: merge(supply, p, AUTO),
        )

        after = supply.writes.proposal(DOMAIN, proposal.id)
        verdicts = [r.verdict for r in after.reviews]
        if isinstance(merged, Merged):
            assert isinstance(reviewed, ProposalNotOpen), reviewed
            assert after.status == "merged"
            assert verdicts == []
        else:
            assert reviewed is None, reviewed
            assert isinstance(merged, MergeBlocked), merged
            assert after.status == "open"
            assert verdicts == ["request_changes"]
            supply.writes.close(DOMAIN, proposal.id, actor=AGENT, delete_source=True)
