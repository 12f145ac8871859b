"""A Proposal's life besides its merge: opened, reviewed, its Conflicts resolved, closed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa

from lorebase_core.errors import ConflictNotFound, ProposalNotOpen, quoted
from lorebase_store import tables as t
from lorebase_store.clock import now_stamp
from lorebase_store.results import BranchInfo, DomainInfo
from lorebase_store.writes.ids import new_id
from lorebase_store.writes.proposals.reads import conflicts_of
from lorebase_store.writes.proposals.shapes import ConflictInfo, ProposalInfo


def insert_proposal(
    connection: sa.Connection,
    domain: DomainInfo,
    *,
    source: BranchInfo,
    target: BranchInfo,
    title: str,
    description: str,
    created_by: str,
    intent: str | None,
    task: str | None,
    policy_review: bool,
    executions: Sequence[dict[str, Any]],
) -> str:
    proposal_id = new_id("prp")
    stamp = now_stamp()
    connection.execute(
        t.proposals.insert(),
        {
            "id": proposal_id,
            "domain_id": domain.id,
            "title": title,
            "description": description,
            "intent": intent,
            "task": task,
            "status": "open",
            "source_branch": source.name,
            "source_branch_id": source.id,
            "target_branch": target.name,
            "target_branch_id": target.id,
            "policy_review": policy_review,
            "executions": list(executions),
            "created_by": created_by,
            "created_at": stamp,
            "updated_at": stamp,
        },
    )
    return proposal_id


def update_proposal(connection: sa.Connection, proposal_id: str, **values: Any) -> None:
    connection.execute(
        t.proposals.update()
        .where(t.proposals.c.id == proposal_id)
        .values(updated_at=now_stamp(), **values)
    )


def add_review(
    connection: sa.Connection,
    proposal: ProposalInfo,
    reviewer: str,
    verdict: str,
    body: str,
    source_head: str | None,
) -> None:
    connection.execute(
        t.proposal_reviews.insert(),
        {
            "proposal_id": proposal.id,
            "reviewer": reviewer,
            "verdict": verdict,
            "body": body,
            "source_head": source_head,
            "created_at": now_stamp(),
        },
    )
    update_proposal(connection, proposal.id)


def resolve_conflict(
    connection: sa.Connection,
    proposal: ProposalInfo,
    conflict_id: str,
    resolution: str,
    value: Any,
    by: str,
) -> ConflictInfo:
    found = [c for c in conflicts_of(connection, proposal.id) if c.id == conflict_id]
    if not found:
        raise ConflictNotFound(
            f"Conflict {quoted(conflict_id)} does not belong to Proposal {quoted(proposal.id)}",
            conflict=conflict_id,
        )
    connection.execute(
        t.conflicts.update()
        .where(t.conflicts.c.id == conflict_id)
        .values(
            status="resolved",
            resolution=resolution,
            value=value if resolution == "value" else None,
            resolved_by=by,
            resolved_at=now_stamp(),
        )
    )
    update_proposal(connection, proposal.id)
    return next(c for c in conflicts_of(connection, proposal.id) if c.id == conflict_id)


def close_proposal(connection: sa.Connection, proposal: ProposalInfo, actor: str) -> None:
    if proposal.status != "open":
        raise ProposalNotOpen(
            f"Proposal {quoted(proposal.id)} is {proposal.status}", proposal=proposal.id
        )
    update_proposal(
        connection, proposal.id, status="closed", closed_by=actor, closed_at=now_stamp()
    )
    # its executions will never merge through it: their operation events are dropped
    connection.execute(
        t.invocations.update()
        .where(t.invocations.c.proposal_id == proposal.id)
        .values(pending_events=[])
    )


def delete_branch(connection: sa.Connection, branch_id: int) -> None:
    """Delete a branch (its Revisions stay in the history) and drop its unmerged events."""
    connection.execute(t.branches.update().where(t.branches.c.id == branch_id).values(deleted=True))
    unmerged = sa.select(t.proposals.c.id).where(
        t.proposals.c.source_branch_id == branch_id, t.proposals.c.status != "merged"
    )
    connection.execute(
        t.invocations.update()
        .where(t.invocations.c.proposal_id.in_(unmerged))
        .values(pending_events=[])
    )
