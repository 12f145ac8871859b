"""Proposals: a request to merge one branch into another, with reviews, merge attempts and Conflicts.

A Proposal is `open` until it is `merged` or `closed`. Every merge attempt plans the merge
(`merges.plan_merge`) with the resolutions given so far, keeps the Conflicts still open as rows
and records the attempt; a merge commits on the target only when no Conflict is open. Who may
merge and how many approvals are needed is Keeper's business (docs/writes.md): the store keeps
the facts and performs the merge in one transaction, with the operation events of the reviewed
executions it brings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from lorebase_core.changes import Origin
from lorebase_core.errors import ConflictNotFound, ProposalNotFound, ProposalNotOpen, quoted
from lorebase_core.schema import Schema
from lorebase_core.values import format_datetime
from lorebase_store import tables as t
from lorebase_store.commits.commit import CommitRequest, commit_on
from lorebase_store.engine import is_sqlite
from lorebase_store.reads.diff import touched
from lorebase_store.results import BranchInfo, DomainInfo
from lorebase_store.versioned.views import ancestry, branch_by_id, load_branch
from lorebase_store.writes.executions import (
    Invocation,
    invocations_of_proposal,
    write_operation_events,
)
from lorebase_store.writes.ids import new_id
from lorebase_store.writes.merges import (
    ConflictResolution,
    FoundConflict,
    MergeCheck,
    MergePlan,
    plan_merge,
)


def now() -> str:
    return format_datetime(datetime.now(UTC))


@dataclass(frozen=True, kw_only=True)
class Review:
    id: int
    reviewer: str
    verdict: str
    body: str
    source_head: str | None
    created_at: str

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "reviewer": self.reviewer,
            "verdict": self.verdict,
            "body": self.body,
            "source_head": self.source_head,
            "created_at": self.created_at,
        }


@dataclass(frozen=True, kw_only=True)
class Attempt:
    id: str
    result: str
    open_conflicts: int
    resolved_conflicts: int
    counts: dict[str, int]
    base_revision: str | None
    source_head: str | None
    target_head: str | None
    created_at: str

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "result": self.result,
            "open_conflicts": self.open_conflicts,
            "resolved_conflicts": self.resolved_conflicts,
            "counts": self.counts,
        }


@dataclass(frozen=True, kw_only=True)
class ConflictInfo:
    id: str
    entity: str
    ref: str
    attribute: str
    code: str
    base: Any
    source: Any
    target: Any
    status: str
    resolution: str | None
    value: Any
    resolved_by: str | None
    resolved_at: str | None


@dataclass(frozen=True, kw_only=True)
class ProposalInfo:
    id: str
    domain: str
    title: str
    description: str
    intent: str | None
    task: str | None
    status: str
    source_branch: str
    source_branch_id: int
    target_branch: str
    target_branch_id: int
    policy_review: bool
    executions: list[dict[str, Any]]
    created_by: str
    created_at: str
    updated_at: str
    merged_revision: str | None
    merged_by: str | None
    merged_at: str | None
    closed_by: str | None
    closed_at: str | None
    reviews: list[Review] = field(default_factory=list)
    open_conflicts: int = 0
    resolved_conflicts: int = 0
    attempt: Attempt | None = None

    @property
    def verdicts(self) -> dict[str, str]:
        """Each reviewer's latest approval or request for changes (comments do not count)."""
        latest: dict[str, str] = {}
        for review in self.reviews:
            if review.verdict in {"approve", "request_changes"}:
                latest[review.reviewer] = review.verdict
        return latest

    @property
    def approvals(self) -> int:
        """Reviewers whose latest verdict is an approval (never the author's own)."""
        return sum(
            1
            for reviewer, verdict in self.verdicts.items()
            if verdict == "approve" and reviewer != self.created_by
        )

    @property
    def changes_requested(self) -> bool:
        return "request_changes" in self.verdicts.values()


def insert_proposal(
    connection: sa.Connection,
    domain: DomainInfo,
    *,
    source: BranchInfo,
    target: BranchInfo,
    title: str,
    description: str,
    created_by: str,
    intent: str | None = None,
    task: str | None = None,
    policy_review: bool = False,
    executions: Sequence[dict[str, Any]] = (),
) -> str:
    proposal_id = new_id("prp")
    stamp = now()
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
        .values(updated_at=now(), **values)
    )


def open_proposal_between(
    connection: sa.Connection, domain: DomainInfo, source_id: int, target_id: int
) -> ProposalInfo | None:
    proposal_id = connection.execute(
        sa.select(t.proposals.c.id).where(
            t.proposals.c.domain_id == domain.id,
            t.proposals.c.source_branch_id == source_id,
            t.proposals.c.target_branch_id == target_id,
            t.proposals.c.status == "open",
        )
    ).scalar()
    return load_proposal(connection, domain, proposal_id) if proposal_id else None


def open_proposals_from(connection: sa.Connection, source_id: int) -> list[str]:
    return list(
        connection.execute(
            sa.select(t.proposals.c.id)
            .where(t.proposals.c.source_branch_id == source_id, t.proposals.c.status == "open")
            .order_by(t.proposals.c.id)
        ).scalars()
    )


def _attempt(row: Any) -> Attempt:
    return Attempt(
        id=row["id"],
        result=row["result"],
        open_conflicts=row["open_conflicts"],
        resolved_conflicts=row["resolved_conflicts"],
        counts=dict(row["counts"]),
        base_revision=row["base_revision"],
        source_head=row["source_head"],
        target_head=row["target_head"],
        created_at=row["created_at"],
    )


def load_proposal(
    connection: sa.Connection, domain: DomainInfo, proposal_id: str, *, lock: bool = False
) -> ProposalInfo:
    query = sa.select(t.proposals).where(
        t.proposals.c.id == proposal_id, t.proposals.c.domain_id == domain.id
    )
    if lock and not is_sqlite(connection):
        query = query.with_for_update()
    row = connection.execute(query).mappings().first()
    if row is None:
        raise ProposalNotFound(
            f"Proposal {quoted(proposal_id)} does not exist in Domain {quoted(domain.name)}",
            proposal=proposal_id,
        )
    reviews = [
        Review(
            id=r.id,
            reviewer=r.reviewer,
            verdict=r.verdict,
            body=r.body,
            source_head=r.source_head,
            created_at=r.created_at,
        )
        for r in connection.execute(
            sa.select(t.proposal_reviews)
            .where(t.proposal_reviews.c.proposal_id == proposal_id)
            .order_by(t.proposal_reviews.c.id)
        )
    ]
    counts: dict[str, int] = dict(
        connection.execute(
            sa.select(t.conflicts.c.status, sa.func.count())
            .where(t.conflicts.c.proposal_id == proposal_id)
            .group_by(t.conflicts.c.status)
        ).all()
    )
    attempt = None
    if row["last_attempt_id"]:
        attempt_row = (
            connection.execute(
                sa.select(t.merge_attempts).where(t.merge_attempts.c.id == row["last_attempt_id"])
            )
            .mappings()
            .one()
        )
        attempt = _attempt(attempt_row)
    return ProposalInfo(
        id=row["id"],
        domain=domain.name,
        title=row["title"],
        description=row["description"],
        intent=row["intent"],
        task=row["task"],
        status=row["status"],
        source_branch=row["source_branch"],
        source_branch_id=row["source_branch_id"],
        target_branch=row["target_branch"],
        target_branch_id=row["target_branch_id"],
        policy_review=bool(row["policy_review"]),
        executions=list(row["executions"]),
        created_by=row["created_by"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        merged_revision=row["merged_revision"],
        merged_by=row["merged_by"],
        merged_at=row["merged_at"],
        closed_by=row["closed_by"],
        closed_at=row["closed_at"],
        reviews=reviews,
        open_conflicts=int(counts.get("open", 0)),
        resolved_conflicts=int(counts.get("resolved", 0)),
        attempt=attempt,
    )


def list_proposals(
    connection: sa.Connection,
    domain: DomainInfo,
    *,
    status: str | None = None,
    created_by: str | None = None,
    after: str | None = None,
    limit: int = 50,
) -> list[ProposalInfo]:
    query = sa.select(t.proposals.c.id).where(t.proposals.c.domain_id == domain.id)
    if status is not None:
        query = query.where(t.proposals.c.status == status)
    if created_by is not None:
        query = query.where(t.proposals.c.created_by == created_by)
    if after is not None:
        query = query.where(t.proposals.c.id > after)
    ids = connection.execute(query.order_by(t.proposals.c.id).limit(limit)).scalars().all()
    return [load_proposal(connection, domain, proposal_id) for proposal_id in ids]


@dataclass(frozen=True)
class ProposalReach:
    """What a Proposal touches, for Keeper to decide what of it a read scope shows.

    Attributes:
        kinds: Kinds of the Records its source branch changed (since it forked from the
            target's history), None when they were not asked for.
        relations: Relations of the Links its source branch changed, likewise.
        invocations: its executions, by invocation id (their edits name what they write).
        conflicts: its Conflicts, open and resolved.
    """

    kinds: frozenset[str] | None
    relations: frozenset[str] | None
    invocations: dict[str, Invocation]
    conflicts: list[ConflictInfo]


def proposal_reach(
    connection: sa.Connection, domain: DomainInfo, proposal: ProposalInfo, *, changes: bool
) -> ProposalReach:
    """The reach of a Proposal; `changes` adds the Kinds and Relations its source changed.

    A Proposal that is no longer open is bounded by the source head of its last attempt (the one
    merged), so later commits on a kept source branch do not change what it touched.
    """
    invocations = {i.id: i for i in invocations_of_proposal(connection, proposal.id)}
    conflicts = conflicts_of(connection, proposal.id)
    if not changes:
        return ProposalReach(None, None, invocations, conflicts)
    source = branch_by_id(connection, domain, proposal.source_branch_id)
    target = branch_by_id(connection, domain, proposal.target_branch_id)
    seq = source.head_seq
    if proposal.status != "open" and proposal.attempt is not None and proposal.attempt.source_head:
        found = connection.execute(
            sa.select(t.revisions.c.seq).where(
                t.revisions.c.branch_id == source.id,
                t.revisions.c.id == proposal.attempt.source_head,
            )
        ).scalar()
        seq = int(found) if found is not None else seq
    records, links = touched(
        connection, ancestry(connection, source, seq), ancestry(connection, target, target.head_seq)
    )
    return ProposalReach(
        frozenset(kind for kind, _ in records),
        frozenset(relation for relation, _, _ in links),
        invocations,
        conflicts,
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
            "created_at": now(),
        },
    )
    update_proposal(connection, proposal.id)


def _conflict(row: Any) -> ConflictInfo:
    return ConflictInfo(
        id=row.id,
        entity=row.entity,
        ref=row.ref,
        attribute=row.attribute,
        code=row.code,
        base=row.base,
        source=row.source,
        target=row.target,
        status=row.status,
        resolution=row.resolution,
        value=row.value,
        resolved_by=row.resolved_by,
        resolved_at=row.resolved_at,
    )


def conflicts_of(
    connection: sa.Connection, proposal_id: str, *, status: str | None = None
) -> list[ConflictInfo]:
    query = sa.select(t.conflicts).where(t.conflicts.c.proposal_id == proposal_id)
    if status is not None:
        query = query.where(t.conflicts.c.status == status)
    return [_conflict(row) for row in connection.execute(query.order_by(t.conflicts.c.id))]


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
            resolved_at=now(),
        )
    )
    update_proposal(connection, proposal.id)
    return next(c for c in conflicts_of(connection, proposal.id) if c.id == conflict_id)


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
    stamp = now()
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
    return plan, _attempt(row)


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


@dataclass(frozen=True)
class MergeOutcome:
    merged: bool
    revision: str | None
    """The target head after the merge (None when it did not merge)."""
    attempt: Attempt


def merge_proposal(
    connection: sa.Connection,
    domain: DomainInfo,
    schema: Schema,
    proposal: ProposalInfo,
    *,
    actor: str,
    message: str,
    max_event_edits: int,
    check: MergeCheck | None = None,
) -> MergeOutcome:
    """Merge an open Proposal when no Conflict is open; its reviewed executions' events with it.

    `check` sees the plan before anything is merged; when it raises, the attempt is rolled back
    with the rest of the transaction.
    """
    if proposal.status != "open":
        raise ProposalNotOpen(
            f"Proposal {quoted(proposal.id)} is {proposal.status}", proposal=proposal.id
        )
    target = load_branch(connection, domain, proposal.target_branch)
    if not is_sqlite(connection):  # hold the target while the merge is planned and committed
        connection.execute(
            sa.select(t.branches.c.id).where(t.branches.c.id == target.id).with_for_update()
        )
    plan, attempt = attempt_merge(connection, domain, schema, proposal, actor)
    if check is not None:
        check(schema, plan)
    if plan.conflicts:
        return MergeOutcome(False, None, attempt)
    head = target.head_revision
    if plan.changes:
        result = commit_on(
            connection,
            CommitRequest(
                domain=domain.name,
                branch=target.name,
                author=actor,
                message=message,
                origin=Origin("merge", proposal.id),
                merge_parent=plan.source_head,
            ),
            plan.changes,
        )
        if result.revision is not None:
            head = result.revision.id
    target_after = load_branch(connection, domain, proposal.target_branch)
    for invocation in invocations_of_proposal(connection, proposal.id):
        if not invocation.pending_events:
            continue
        write_operation_events(
            connection,
            domain.id,
            domain.name,
            target_after.id,
            target_after.name,
            head or "",
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
    update_proposal(
        connection,
        proposal.id,
        status="merged",
        merged_revision=head,
        merged_by=actor,
        merged_at=now(),
    )
    return MergeOutcome(True, head, attempt)


def close_proposal(connection: sa.Connection, proposal: ProposalInfo, actor: str) -> None:
    if proposal.status != "open":
        raise ProposalNotOpen(
            f"Proposal {quoted(proposal.id)} is {proposal.status}", proposal=proposal.id
        )
    update_proposal(connection, proposal.id, status="closed", closed_by=actor, closed_at=now())
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
