"""Proposals: a request to merge one branch into another, with reviews, merge attempts and Conflicts.

A Proposal is `open` until it is `merged` or `closed`. Every merge attempt plans the merge
(`merges.plan_merge`) with the resolutions given so far, keeps the Conflicts still open as rows
and records the attempt; a merge commits on the target only when no Conflict is open. What a
merge needs besides (approvals, no request for changes, the source head it was decided on, the
rule of automatic merges) is a `MergePolicy` of `lorebase_core.proposal_policy` that Keeper
passes in: the store decides it in the transaction that merges, under the lock of the Proposal
that reviews and resolutions take too, so no write landing in between is missed
(docs/writes.md). Proposals are read in batches: a page of them costs what one does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from lorebase_core import proposal_policy as policy
from lorebase_core.access import ReadScope
from lorebase_core.changes import Origin
from lorebase_core.errors import (
    ConflictNotFound,
    MergeBlocked,
    ProposalNotFound,
    ProposalNotOpen,
    StaleHead,
    quoted,
)
from lorebase_core.proposal_policy import MergePolicy, ReviewFacts
from lorebase_core.schema import Schema
from lorebase_core.values import format_datetime
from lorebase_store import tables as t
from lorebase_store.commits.commit import CommitRequest, commit_on
from lorebase_store.engine import is_sqlite
from lorebase_store.reads.diff import touched
from lorebase_store.results import BranchInfo, DomainInfo
from lorebase_store.versioned.schemas import schema_at
from lorebase_store.versioned.views import ancestry, branch_by_id, load_branch
from lorebase_store.writes.executions import (
    Invocation,
    invocations_of_proposal,
    invocations_of_proposals,
    write_operation_events,
)
from lorebase_store.writes.ids import new_id
from lorebase_store.writes.merges import (
    ConflictResolution,
    FoundConflict,
    MergePlan,
    plan_merge,
    require_within,
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
    target_protected: bool = True
    """Whether its target branch is protected (a deleted target counts as protected)."""

    @property
    def facts(self) -> ReviewFacts:
        """What the merge policy (`lorebase_core.proposal_policy`) reads of it."""
        return ReviewFacts(
            self.created_by,
            [(review.reviewer, review.verdict) for review in self.reviews],
            self.policy_review,
            self.open_conflicts,
        )

    @property
    def verdicts(self) -> dict[str, str]:
        """Each reviewer's latest approval or request for changes (comments do not count)."""
        return policy.latest_verdicts(self.facts.reviews)

    @property
    def approvals(self) -> int:
        """Reviewers whose latest verdict is an approval (never the author's own)."""
        return policy.approvals(self.facts)

    @property
    def changes_requested(self) -> bool:
        return policy.changes_requested(self.facts)


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


_PROPOSAL_ROWS = sa.select(
    t.proposals,
    # a deleted target counts as protected: its Proposal never merges without review
    sa.or_(t.branches.c.protected, t.branches.c.deleted).label("target_protected"),
).select_from(t.proposals.outerjoin(t.branches, t.branches.c.id == t.proposals.c.target_branch_id))


def _proposals(
    connection: sa.Connection, domain: DomainInfo, rows: Sequence[Any]
) -> list[ProposalInfo]:
    """The Proposals of `rows` with their reviews, Conflict counts and last attempts.

    Three statements whatever the number of rows (reviews, counts and attempts are read for all
    of them at once), so that a page of Proposals costs what one does.
    """
    if not rows:
        return []
    ids = [row["id"] for row in rows]
    reviews: dict[str, list[Review]] = {proposal_id: [] for proposal_id in ids}
    for r in connection.execute(
        sa.select(t.proposal_reviews)
        .where(t.proposal_reviews.c.proposal_id.in_(ids))
        .order_by(t.proposal_reviews.c.id)
    ):
        reviews[r.proposal_id].append(
            Review(
                id=r.id,
                reviewer=r.reviewer,
                verdict=r.verdict,
                body=r.body,
                source_head=r.source_head,
                created_at=r.created_at,
            )
        )
    counts: dict[tuple[str, str], int] = {
        (proposal_id, status): int(n)
        for proposal_id, status, n in connection.execute(
            sa.select(t.conflicts.c.proposal_id, t.conflicts.c.status, sa.func.count())
            .where(t.conflicts.c.proposal_id.in_(ids))
            .group_by(t.conflicts.c.proposal_id, t.conflicts.c.status)
        ).all()
    }
    attempt_ids = [row["last_attempt_id"] for row in rows if row["last_attempt_id"]]
    attempts = (
        {
            a["id"]: _attempt(a)
            for a in connection.execute(
                sa.select(t.merge_attempts).where(t.merge_attempts.c.id.in_(attempt_ids))
            ).mappings()
        }
        if attempt_ids
        else {}
    )
    return [
        ProposalInfo(
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
            reviews=reviews[row["id"]],
            open_conflicts=counts.get((row["id"], "open"), 0),
            resolved_conflicts=counts.get((row["id"], "resolved"), 0),
            attempt=attempts.get(row["last_attempt_id"]) if row["last_attempt_id"] else None,
            target_protected=row["target_protected"] is not False,
        )
        for row in rows
    ]


def lock_proposal(connection: sa.Connection, domain: DomainInfo, proposal_id: str) -> None:
    """Hold a Proposal's row until the transaction ends (PostgreSQL; SQLite's write lock is).

    Every write that changes what a merge decides on (a review, a resolution, the merge itself)
    takes it first, so they run one after another and each sees what the one before wrote.
    """
    if not is_sqlite(connection):
        connection.execute(
            sa.select(t.proposals.c.id)
            .where(t.proposals.c.id == proposal_id, t.proposals.c.domain_id == domain.id)
            .with_for_update()
        )


def load_proposal(
    connection: sa.Connection, domain: DomainInfo, proposal_id: str, *, lock: bool = False
) -> ProposalInfo:
    """A Proposal; `lock` holds its row first (`lock_proposal`), so what is read is current."""
    if lock:
        lock_proposal(connection, domain, proposal_id)
    rows = (
        connection.execute(
            _PROPOSAL_ROWS.where(
                t.proposals.c.id == proposal_id, t.proposals.c.domain_id == domain.id
            )
        )
        .mappings()
        .all()
    )
    if not rows:
        raise ProposalNotFound(
            f"Proposal {quoted(proposal_id)} does not exist in Domain {quoted(domain.name)}",
            proposal=proposal_id,
        )
    return _proposals(connection, domain, rows)[0]


def list_proposals(
    connection: sa.Connection,
    domain: DomainInfo,
    *,
    status: str | None = None,
    created_by: str | None = None,
    after: str | None = None,
    limit: int = 50,
) -> list[ProposalInfo]:
    query = _PROPOSAL_ROWS.where(t.proposals.c.domain_id == domain.id)
    if status is not None:
        query = query.where(t.proposals.c.status == status)
    if created_by is not None:
        query = query.where(t.proposals.c.created_by == created_by)
    if after is not None:
        query = query.where(t.proposals.c.id > after)
    rows = connection.execute(query.order_by(t.proposals.c.id).limit(limit)).mappings().all()
    return _proposals(connection, domain, rows)


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


def proposal_reaches(
    connection: sa.Connection,
    domain: DomainInfo,
    proposals: Sequence[ProposalInfo],
    *,
    changes: bool,
) -> dict[str, ProposalReach]:
    """The reach of each Proposal; `changes` adds the Kinds and Relations its source changed.

    Executions and Conflicts are read for all of them at once; what the sources changed is read
    per Proposal (it compares two branches' histories). A Proposal that is no longer open is
    bounded by the source head of its last attempt (the one merged), so later commits on a kept
    source branch do not change what it touched.
    """
    ids = [proposal.id for proposal in proposals]
    invocations = invocations_of_proposals(connection, ids)
    conflicts: dict[str, list[ConflictInfo]] = {proposal_id: [] for proposal_id in ids}
    if ids:
        for row in connection.execute(
            sa.select(t.conflicts)
            .where(t.conflicts.c.proposal_id.in_(ids))
            .order_by(t.conflicts.c.id)
        ):
            conflicts[row.proposal_id].append(_conflict(row))
    reaches = {}
    for proposal in proposals:
        by_id = {i.id: i for i in invocations.get(proposal.id, [])}
        if not changes:
            reaches[proposal.id] = ProposalReach(None, None, by_id, conflicts[proposal.id])
            continue
        kinds, relations = _changed(connection, domain, proposal)
        reaches[proposal.id] = ProposalReach(kinds, relations, by_id, conflicts[proposal.id])
    return reaches


def _changed(
    connection: sa.Connection, domain: DomainInfo, proposal: ProposalInfo
) -> tuple[frozenset[str], frozenset[str]]:
    """The Kinds and Relations a Proposal's source changed since it forked from the target's."""
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
    return (
        frozenset(kind for kind, _ in records),
        frozenset(relation for relation, _, _ in links),
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
    proposal_id: str,
    *,
    actor: str,
    message: str,
    max_event_edits: int,
    policy: MergePolicy | None = None,
    write_scope: ReadScope | None = None,
) -> tuple[ProposalInfo, MergeOutcome]:
    """Decide and merge an open Proposal in the caller's write transaction.

    The decision is made on what holds under the transaction's locks (`decide_merge`): the
    Proposal (which reviews and resolutions take) and the Domain (which every commit takes
    first, so no commit lands on the source or the target meanwhile). Then the merge is planned
    again and commits on the target when no Conflict is open, with the operation events of the
    reviewed executions it brings. A plan reaching beyond `write_scope` is refused (403
    `merge-outside-scope`) with the attempt rolled back with the rest of the transaction.
    """
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
    if policy is not None:
        decide_merge(proposal, branch_by_id(connection, domain, proposal.source_branch_id), policy)
    target = load_branch(connection, domain, proposal.target_branch)
    schema = schema_at(connection, domain, target.head_revision)
    plan, attempt = attempt_merge(connection, domain, schema, proposal, actor)
    require_within(schema, plan, write_scope, proposal.source_branch, proposal.target_branch)
    if plan.conflicts:
        return proposal, MergeOutcome(False, None, attempt)
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
    for invocation in invocations_of_proposal(connection, proposal.id):
        if not invocation.pending_events:
            continue
        write_operation_events(
            connection,
            domain.id,
            domain.name,
            target.id,
            target.name,
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
    return proposal, MergeOutcome(True, head, attempt)


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
