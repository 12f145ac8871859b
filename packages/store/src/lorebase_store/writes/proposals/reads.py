"""Proposals read: one, a page, their Conflicts, and what each one reaches.

A page of Proposals is read in batches: it costs what one does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa

from lorebase_core.errors import ProposalNotFound, quoted
from lorebase_store import tables as t
from lorebase_store.engine import is_sqlite
from lorebase_store.reads.diff import touched
from lorebase_store.results import DomainInfo
from lorebase_store.rows import from_row
from lorebase_store.versioned.views import ancestry, branch_by_id
from lorebase_store.writes.executions import invocations_of_proposals
from lorebase_store.writes.proposals.shapes import (
    Attempt,
    ConflictInfo,
    ProposalInfo,
    ProposalReach,
    Review,
    attempt_of,
    conflict_of,
    review_of,
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
    reviews = _reviews_of(connection, ids)
    counts = _conflict_counts(connection, ids)
    attempts = _attempts_of(connection, [row["last_attempt_id"] for row in rows])
    return [
        from_row(
            ProposalInfo,
            row,
            domain=domain.name,
            policy_review=bool(row["policy_review"]),
            executions=list(row["executions"]),
            reviews=reviews[row["id"]],
            open_conflicts=counts.get((row["id"], "open"), 0),
            resolved_conflicts=counts.get((row["id"], "resolved"), 0),
            attempt=attempts.get(row["last_attempt_id"]) if row["last_attempt_id"] else None,
            target_protected=row["target_protected"] is not False,
        )
        for row in rows
    ]


def _reviews_of(connection: sa.Connection, ids: list[str]) -> dict[str, list[Review]]:
    reviews: dict[str, list[Review]] = {proposal_id: [] for proposal_id in ids}
    for row in connection.execute(
        sa.select(t.proposal_reviews)
        .where(t.proposal_reviews.c.proposal_id.in_(ids))
        .order_by(t.proposal_reviews.c.id)
    ):
        reviews[row.proposal_id].append(review_of(row))
    return reviews


def _conflict_counts(connection: sa.Connection, ids: list[str]) -> dict[tuple[str, str], int]:
    """How many Conflicts each Proposal has, by (Proposal id, status)."""
    return {
        (proposal_id, status): int(n)
        for proposal_id, status, n in connection.execute(
            sa.select(t.conflicts.c.proposal_id, t.conflicts.c.status, sa.func.count())
            .where(t.conflicts.c.proposal_id.in_(ids))
            .group_by(t.conflicts.c.proposal_id, t.conflicts.c.status)
        ).all()
    }


def _attempts_of(connection: sa.Connection, last_attempts: list[str | None]) -> dict[str, Attempt]:
    attempt_ids = [attempt_id for attempt_id in last_attempts if attempt_id]
    if not attempt_ids:
        return {}
    return {
        row["id"]: attempt_of(row)
        for row in connection.execute(
            sa.select(t.merge_attempts).where(t.merge_attempts.c.id.in_(attempt_ids))
        ).mappings()
    }


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
            conflicts[row.proposal_id].append(conflict_of(row))
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


def conflicts_of(
    connection: sa.Connection, proposal_id: str, *, status: str | None = None
) -> list[ConflictInfo]:
    query = sa.select(t.conflicts).where(t.conflicts.c.proposal_id == proposal_id)
    if status is not None:
        query = query.where(t.conflicts.c.status == status)
    return [conflict_of(row) for row in connection.execute(query.order_by(t.conflicts.c.id))]
