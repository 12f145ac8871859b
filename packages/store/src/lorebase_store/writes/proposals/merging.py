"""A Proposal's merge: each attempt plans it and keeps its open Conflicts; a merge commits.

What a merge needs besides (approvals, no request for changes, the source head it was decided
on, the rule of automatic merges) is a `MergePolicy` of `lorebase_core.proposal_policy` that
Keeper passes in: the store decides it in the transaction that merges, under the lock of the
Proposal that reviews and resolutions take too, so no write landing in between is missed
(docs/writes.md).
"""

from __future__ import annotations

import sqlalchemy as sa

from lorebase_core.access import ReadScope
from lorebase_core.errors import MergeBlocked, ProposalNotOpen, StaleHead, quoted
from lorebase_core.proposal_policy import MergePolicy
from lorebase_core.schema import Schema
from lorebase_store import tables as t
from lorebase_store.clock import now_stamp
from lorebase_store.engine import is_sqlite
from lorebase_store.results import BranchInfo, DomainInfo
from lorebase_store.versioned.schemas import schema_at
from lorebase_store.versioned.views import branch_by_id, load_branch
from lorebase_store.writes.executions import invocations_of_proposal, write_operation_events
from lorebase_store.writes.ids import new_id
from lorebase_store.writes.merges import (
    ConflictResolution,
    FoundConflict,
    MergePlan,
    commit_merge,
    plan_merge,
    require_within,
)
from lorebase_store.writes.proposals.lifecycle import update_proposal
from lorebase_store.writes.proposals.reads import conflicts_of, load_proposal, lock_proposal
from lorebase_store.writes.proposals.shapes import (
    Attempt,
    MergeOutcome,
    ProposalInfo,
    attempt_of,
)


def _resolutions(
    connection: sa.Connection, proposal_id: str
) -> dict[tuple[str, str], ConflictResolution]:
    return {
        (c.ref, c.attribute): (c.resolution or "target", c.value)
        for c in conflicts_of(connection, proposal_id, status="resolved")
    }


def attempt_merge(
    connection: sa.Connection,
    domain: DomainInfo,
    schema: Schema,
    proposal: ProposalInfo,
    actor: str,
) -> tuple[MergePlan, Attempt]:
    """Plan the Proposal's merge, keep its open Conflicts and record the attempt."""
    source = branch_by_id(connection, domain, proposal.source_branch_id)
    target = branch_by_id(connection, domain, proposal.target_branch_id)
    plan = plan_merge(connection, schema, source, target, _resolutions(connection, proposal.id))
    attempt_id = new_id("mat")
    connection.execute(
        t.conflicts.delete().where(
            t.conflicts.c.proposal_id == proposal.id, t.conflicts.c.status == "open"
        )
    )
    for found in plan.conflicts:
        _insert_conflict(connection, domain, proposal.id, attempt_id, found)
    stamp = now_stamp()
    row = {
        "id": attempt_id,
        "domain_id": domain.id,
        "proposal_id": proposal.id,
        "source_branch_id": source.id,
        "target_branch_id": target.id,
        "source_head": plan.source_head,
        "target_head": plan.target_head,
        "base_revision": plan.base_revision,
        "result": plan.result,
        "open_conflicts": len(plan.conflicts),
        "resolved_conflicts": len(plan.resolved),
        "counts": plan.counts,
        "created_by": actor,
        "created_at": stamp,
    }
    connection.execute(t.merge_attempts.insert(), row)
    update_proposal(connection, proposal.id, last_attempt_id=attempt_id)
    return plan, attempt_of(row)


def _insert_conflict(
    connection: sa.Connection,
    domain: DomainInfo,
    proposal_id: str,
    attempt_id: str,
    found: FoundConflict,
) -> None:
    connection.execute(
        t.conflicts.insert(),
        {
            "id": new_id("cfl"),
            "domain_id": domain.id,
            "proposal_id": proposal_id,
            "attempt_id": attempt_id,
            "entity": found.entity,
            "ref": found.ref,
            "attribute": found.attribute,
            "code": found.code,
            "base": found.base,
            "source": found.source,
            "target": found.target,
            "status": "open",
        },
    )


def merge_proposal(
    connection: sa.Connection,
    domain: DomainInfo,
    proposal_id: str,
    *,
    actor: str,
    message: str,
    max_event_edits: int,
    policy: MergePolicy | None,
    write_scope: ReadScope | None,
) -> tuple[ProposalInfo, MergeOutcome]:
    """Decide and merge an open Proposal in the caller's write transaction.

    The decision is made on what holds under the transaction's locks (`decide_merge`): the
    Proposal (which reviews and resolutions take) and the Domain (which every commit takes
    first, so no commit lands on the source or the target meanwhile). Then the merge is planned
    again and commits on the target when no Conflict is open, with the operation events of the
    reviewed executions it brings. A plan reaching beyond `write_scope` is refused (403
    `merge-outside-scope`) with the attempt rolled back with the rest of the transaction.
    """
    proposal = _locked_open_proposal(connection, domain, proposal_id)
    if policy is not None:
        decide_merge(proposal, branch_by_id(connection, domain, proposal.source_branch_id), policy)
    target = load_branch(connection, domain, proposal.target_branch)
    schema = schema_at(connection, domain, target.head_revision)
    plan, attempt = attempt_merge(connection, domain, schema, proposal, actor)
    require_within(schema, plan, write_scope, proposal.source_branch, proposal.target_branch)
    if plan.conflicts:
        return proposal, MergeOutcome(False, None, attempt)
    head = commit_merge(
        connection,
        plan,
        domain=domain.name,
        target=target,
        author=actor,
        message=message,
        origin_ref=proposal.id,
    )
    _write_pending_events(connection, domain, target, proposal, head or "", max_event_edits)
    update_proposal(
        connection,
        proposal.id,
        status="merged",
        merged_revision=head,
        merged_by=actor,
        merged_at=now_stamp(),
    )
    return proposal, MergeOutcome(True, head, attempt)


def _locked_open_proposal(
    connection: sa.Connection, domain: DomainInfo, proposal_id: str
) -> ProposalInfo:
    """The Proposal, read under its lock and the Domain's; 409 unless it is open."""
    # PostgreSQL: the Proposal first, then the Domain, the order of every write on a Proposal
    # (a review holds the Proposal, then its audit row needs the Domain's); SQLite's write lock
    # is held already (BEGIN IMMEDIATE)
    lock_proposal(connection, domain, proposal_id)
    if not is_sqlite(connection):
        connection.execute(
            sa.select(t.domains.c.id).where(t.domains.c.id == domain.id).with_for_update()
        )
    proposal = load_proposal(connection, domain, proposal_id)
    if proposal.status != "open":
        raise ProposalNotOpen(
            f"Proposal {quoted(proposal.id)} is {proposal.status}", proposal=proposal.id
        )
    return proposal


def _write_pending_events(
    connection: sa.Connection,
    domain: DomainInfo,
    target: BranchInfo,
    proposal: ProposalInfo,
    head: str,
    max_event_edits: int,
) -> None:
    """The operation events the Proposal's executions held back, written on the target now."""
    for invocation in invocations_of_proposal(connection, proposal.id):
        if not invocation.pending_events:
            continue
        write_operation_events(
            connection,
            domain.id,
            domain.name,
            target.id,
            target.name,
            head,
            invocation,
            invocation.pending_events,
            max_event_edits,
            source_branch=proposal.source_branch,
            proposal=proposal.id,
        )
        connection.execute(
            t.invocations.update()
            .where(t.invocations.c.id == invocation.id)
            .values(pending_events=[])
        )


def decide_merge(proposal: ProposalInfo, source: BranchInfo, policy: MergePolicy) -> None:
    """Refuse the merge unless `policy` holds for the Proposal as read under the locks.

    409 `merge-blocked` (with `blockers`) for an automatic merge its rule does not allow and for
    approvals, requests for changes and review policies; 409 `stale-head` when the source moved
    since the head the decision was made on.
    """
    if policy.auto_merge is not None and not policy.auto_merge.allowed:
        raise MergeBlocked(
            f"Proposal {proposal.id} cannot merge automatically: no role of the caller on "
            f"{proposal.source_branch!r} is in allowed_roles_for_auto_merge",
            proposal=proposal.id,
            blockers=["auto-merge-not-allowed"],
        )
    refusals = policy.refusals(proposal.facts, proposal.target_protected)
    if refusals:
        raise MergeBlocked(
            f"Proposal {proposal.id} cannot merge: {', '.join(refusals)}",
            proposal=proposal.id,
            blockers=refusals,
        )
    expected = policy.expected_source_head
    if expected is not None and source.head_revision != expected:
        raise StaleHead(
            f"Branch {source.name!r} moved since the merge was decided: its head is "
            f"{source.head_revision}, not {expected}; read the Proposal again and merge",
            branch=source.name,
            head=source.head_revision,
            expected_head=expected,
        )
