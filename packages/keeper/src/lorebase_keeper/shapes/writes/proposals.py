"""Proposals, Conflicts and Operation executions (docs/writes.md)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from lorebase_keeper.shapes.common import Hint, Issue, Shape


class Approval(Shape):
    required: int
    approvals: int
    satisfied: bool


class Review(Shape):
    id: int
    reviewer: str
    verdict: str
    body: str
    source_head: str | None
    created_at: str


class ConflictCounts(Shape):
    open: int
    resolved: int


class Attempt(Shape):
    """The last merge attempt (ids and result null before the first one)."""

    id: str | None
    result: str | None
    open_conflicts: int
    resolved_conflicts: int
    counts: dict[str, int]


class Blockers(Shape):
    blockers: list[str]


class Proposal(Shape):
    id: str
    domain: str
    title: str
    description: str
    intent: str | None
    task: str | None
    status: Literal["open", "merged", "closed"]
    source_ref: str
    target_ref: str
    url: str
    created_by: str
    created_at: str
    updated_at: str
    executions: list[dict[str, object]]
    approval: Approval
    reviews: list[Review]
    conflicts: ConflictCounts
    attempt: Attempt | None
    merge: Blockers
    merged_revision: str | None
    merged_by: str | None
    merged_at: str | None
    closed_by: str | None
    closed_at: str | None
    next: list[Hint]


class ProposalMerged(Proposal):
    """POST /proposals/{proposal}/merge."""

    branch_deleted: bool


class ProposalsPage(Shape):
    domain: str
    proposals: list[Proposal]
    next_cursor: str | None


class ConflictEntry(Shape):
    """Values the caller may not read are `***`."""

    id: str
    entity: str = Field(description="record or link.")
    ref: str
    attribute: str | None
    code: str
    base: object
    source: object
    target: object
    status: Literal["open", "resolved"]
    resolution: str | None
    value: object
    resolved_by: str | None
    resolved_at: str | None


class ConflictsAnswer(Shape):
    domain: str
    proposal: str
    conflicts: list[ConflictEntry]


class Committed(Shape):
    """Written on the branch (`revision` null when nothing changed)."""

    status: Literal["committed"]
    operation: str
    branch: str
    invocation_id: str
    revision: str | None
    revisions: list[str]
    edit_count: int
    replayed: bool


class ReviewNeed(Shape):
    required: bool
    reason: str | None


class DryRun(Shape):
    """What would be written: nothing was."""

    status: Literal["dry_run"]
    operation: str
    branch: str
    revision: str | None
    parameters: dict[str, object]
    edits: list[dict[str, object]]
    edit_count: int
    violations: list[Issue]
    review: ReviewNeed
    replayed: bool


class ProposalHeader(Shape):
    id: str
    title: str
    status: str
    source_ref: str
    target_ref: str
    url: str
    created: bool


class AutoMerge(Shape):
    requested: bool
    allowed: bool
    performed: bool
    blockers: list[str]


class Proposed(Shape):
    """Written on a task branch, proposed for review (202), or merged at once (200)."""

    status: Literal["proposed", "merged", "conflicts", "closed"]
    operation: str
    branch: str
    target: str
    invocation_id: str
    revision: str | None
    revisions: list[str]
    edit_count: int
    replayed: bool
    proposal: ProposalHeader
    approval: Approval
    attempt: Attempt
    merge: AutoMerge
    merged_revision: str | None
    branch_created: bool
    branch_deleted: bool
    warnings: list[str]
    next: list[Hint]
