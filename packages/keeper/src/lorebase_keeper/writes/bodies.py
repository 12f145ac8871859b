"""The JSON bodies the writes room builds, typed where they are built.

`XJson` mirrors the model `X` that describes it in the OpenAPI document (`shapes.writes`),
member for member and in the same order, as `shapes.common.HintJson` does `Hint`: the answers
are these dicts rendered as they are, so the bytes do not depend on the models.
"""

from __future__ import annotations

from typing import Literal, TypedDict

from lorebase_keeper.shapes.common import HintJson, JsonObject


class ApprovalJson(TypedDict):
    required: int
    approvals: int
    satisfied: bool


class ReviewNeedJson(TypedDict):
    required: bool
    reason: str | None


class CommittedJson(TypedDict):
    """Written on the branch (`revision` null when nothing changed)."""

    status: Literal["committed"]
    operation: str
    branch: str
    invocation_id: str
    revision: str | None
    revisions: list[str]
    edit_count: int
    replayed: bool


class DryRunJson(TypedDict):
    """What would be written: nothing was."""

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


class ProposalHeaderJson(TypedDict):
    id: str
    title: str
    status: str
    source_ref: str
    target_ref: str
    url: str
    created: bool


class MergeAskedJson(TypedDict):
    """Whether an immediate merge was asked for, allowed and done."""

    requested: bool
    allowed: bool
    performed: bool


class AutoMergeJson(MergeAskedJson):
    blockers: list[str]


FlowStatus = Literal["proposed", "merged", "conflicts", "closed"]


class ProposedJson(TypedDict):
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


class ConflictCountsJson(TypedDict):
    open: int
    resolved: int


class BlockersJson(TypedDict):
    blockers: list[str]


class ProposalJson(TypedDict):
    """A Proposal document."""

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


class ConflictJson(TypedDict):
    """A Conflict; values the caller may not read are `***`."""

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


class ExecuteLinkJson(TypedDict):
    """Where to run an Operation, and whether this caller's grants let it run there."""

    method: Literal["POST"]
    href: str
    allowed: bool
    refusal: Literal["forbidden", "kind-forbidden"] | None
