"""The Operations a caller may read: GET /operations, GET /operations/{op} and the
`operations` of GET /schema (built by `lorebase_keeper.writes.operation_catalog`)."""

from __future__ import annotations

from typing import Literal, TypedDict

from pydantic import Field

from lorebase_keeper.shapes.common import Shape, Stamped, ValueRulesShape


class OperationParameter(ValueRulesShape):
    """One parameter: its rules (as GET /schema gives Attributes, `required` always) and what
    it names."""

    required: bool
    refers_to: list[str] | None = Field(
        default=None, description="The Kinds whose key the parameter is."
    )
    sets: list[str] | None = Field(default=None, description="`Kind.attribute` it writes.")
    summary: str = Field(description="The rules in one sentence.")


class OperationEdit(Shape):
    """One declared edit: what it writes (a Kind, or a Relation with its ends)."""

    op: str
    kind: str | None = None
    relation: str | None = None
    from_: str | None = Field(default=None, alias="from")
    to: str | None = None
    attributes: list[str] | None = Field(
        default=None, description="The Attributes it sets (not their templates)."
    )


class OperationReview(Shape):
    """Whether and when an execution on the branch read needs review."""

    needed: Literal["always", "conditional", "never"]
    reasons: list[Literal["protected-branch", "review-policy"]] = Field(
        description="The reasons a 409 review-required may give."
    )
    protected_branch: bool
    policy: str | None = Field(description="The review policy expression, if any.")
    policy_parameters: list[str]
    when: str | None = Field(description="The policy in words, when it depends on parameters.")
    description: str = Field(description="The review in one sentence, and what to do then.")


class SideEffect(Shape):
    name: str
    event: str = Field(description="The event a merge or commit emits: operation.<name>.")


class ExecuteLink(Shape):
    """Where to run it, and whether this caller's grants let it run on the branch."""

    method: Literal["POST"]
    href: str
    allowed: bool
    refusal: Literal["forbidden", "kind-forbidden"] | None = Field(
        description="The code execute would answer, or null."
    )


class ExecuteLinkJson(TypedDict):
    method: Literal["POST"]
    href: str
    allowed: bool
    refusal: Literal["forbidden", "kind-forbidden"] | None


class OperationEntry(Shape):
    """One Operation as the caller sees it."""

    name: str
    description: str
    parameters: list[OperationParameter]
    edits: list[OperationEdit]
    kinds: list[str]
    review: OperationReview
    side_effects: list[SideEffect]
    permissions: list[str]
    execute: ExecuteLink


class OperationsAnswer(Stamped):
    """GET /operations: every Operation the caller may read, in the schema's order."""

    operations: list[OperationEntry]


class OperationAnswer(OperationEntry, Stamped):
    """GET /operations/{op}: one Operation, its members beside the stamp."""
