"""Proposals, Conflicts and Operation executions (docs/writes.md)."""

from __future__ import annotations

from typing import Literal, TypedDict

from pydantic import Field

from lorebase_keeper.shapes.common import Hint, HintJson, Issue, JsonObject, Shape


class Approval(Shape):
    required: int
    approvals: int
    satisfied: bool


class ApprovalJson(TypedDict):
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


class ConflictCountsJson(TypedDict):
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


class BlockersJson(TypedDict):
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


class ProposalJson(TypedDict):
    id: str
    domain: str
    title: str
    description: str
    intent: str | None
    task: str | None
    status: str
    source_ref: str
    target_ref: str
    url: str
    created_by: str
    created_at: str
    updated_at: str
    executions: list[JsonObject]
    approval: ApprovalJson
    reviews: list[JsonObject]
    conflicts: ConflictCountsJson
    attempt: JsonObject | None
    merge: BlockersJson
    merged_revision: str | None
    merged_by: str | None
    merged_at: str | None
    closed_by: str | None
    closed_at: str | None
    next: list[HintJson]


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


class ConflictEntryJson(TypedDict):
    id: str
    entity: str
    ref: str
    attribute: str | None
    code: str
    base: object
    source: object
    target: object
    status: str
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


class CommittedJson(TypedDict):
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


class ReviewNeedJson(TypedDict):
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


class DryRunJson(TypedDict):
    status: Literal["dry_run"]
    operation: str
    branch: str
    revision: str | None
    parameters: JsonObject
    edits: list[JsonObject]
    edit_count: int
    violations: list[dict[str, str]]
    review: ReviewNeedJson
    replayed: bool


class ProposalHeader(Shape):
    id: str
    title: str
    status: str
    source_ref: str
    target_ref: str
    url: str
    created: bool


class ProposalHeaderJson(TypedDict):
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


class MergeAsked(TypedDict):
    """Whether an immediate merge was asked for, allowed and done: `AutoMergeJson` before the
    blockers are known."""

    requested: bool
    allowed: bool
    performed: bool


class AutoMergeJson(MergeAsked):
    blockers: list[str]


FlowStatus = Literal["proposed", "merged", "conflicts", "closed"]


class Proposed(Shape):
    """Written on a task branch, proposed for review (202), or merged at once (200)."""

    status: FlowStatus
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


class ProposedJson(TypedDict):
    status: FlowStatus
    operation: str
    branch: str
    target: str
    invocation_id: str
    revision: str | None
    revisions: list[str]
    edit_count: int
    replayed: bool
    proposal: ProposalHeaderJson
    approval: ApprovalJson
    attempt: JsonObject
    merge: AutoMergeJson
    merged_revision: str | None
    branch_created: bool
    branch_deleted: bool
    warnings: list[str]
    next: list[HintJson]


ExecuteBody = CommittedJson | DryRunJson | ProposedJson
"""What POST /operations/{op}/execute answers."""
