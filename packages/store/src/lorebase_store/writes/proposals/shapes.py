"""What the store returns of Proposals: the Proposal, its reviews, merge attempts and Conflicts.

Also the mapping of their rows to these objects, used by every read of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lorebase_core import proposal_policy as policy
from lorebase_core.proposal_policy import ReviewFacts
from lorebase_store.rows import field_document, from_row
from lorebase_store.writes.executions import Invocation
from lorebase_store.writes.merges import FoundConflict


@dataclass(frozen=True, kw_only=True)
class Review:
    id: int
    reviewer: str
    verdict: str
    body: str
    source_head: str | None
    created_at: str

    def to_json(self) -> dict[str, Any]:
        return field_document(self)


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
class ConflictInfo(FoundConflict):
    """A Conflict kept for a Proposal: what its merge attempt found, and how it was resolved."""

    id: str
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


@dataclass(frozen=True)
class MergeOutcome:
    merged: bool
    revision: str | None
    """The target head after the merge (None when it did not merge)."""
    attempt: Attempt


def attempt_of(row: Any) -> Attempt:
    """An Attempt from a `merge_attempts` row (or the mapping inserted as one)."""
    return from_row(Attempt, row, counts=dict(row["counts"]))


def conflict_of(row: Any) -> ConflictInfo:
    """A ConflictInfo from a `conflicts` row."""
    return from_row(ConflictInfo, row)


def review_of(row: Any) -> Review:
    """A Review from a `proposal_reviews` row."""
    return from_row(Review, row)
