"""An execute request: its body, the checked call both ways of writing share, and its answer.

`executing` checks the request and writes directly or runs a dry run; `agent_flow` takes a
write that needs review through a task branch and a Proposal. Both work on one `Call`.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from lorebase_core.access import ReadScope
from lorebase_core.changes import Origin
from lorebase_core.operations import Execution, parameter_view
from lorebase_core.schema import Schema
from lorebase_keeper.auth.authz import Principal
from lorebase_keeper.reads.reading import Keeper
from lorebase_keeper.shapes.writes.proposals import CommittedJson, ExecuteBody
from lorebase_keeper.writes.agent_writes import operations_of
from lorebase_store import (
    BranchInfo,
    CommitRequest,
    DomainInfo,
    ExecutionRecord,
    Invocation,
    Writes,
)


class ExecuteRequest(BaseModel):
    """The body of POST /operations/{op}/execute (agents.md section 4)."""

    model_config = ConfigDict(extra="forbid")

    parameters: dict[str, object] = Field(
        default_factory=dict, description="The Operation's parameters."
    )
    branch: str | None = Field(
        default=None, description="Branch to write (default: the default one)."
    )
    dry_run: bool = Field(
        default=False, description="Answer the edits and violations; write nothing."
    )
    expected_head: str | None = Field(
        default=None, description="Fail with 409 stale-head when the branch head is another one."
    )
    message: str | None = Field(default=None, description="Message of the Revision.")
    idempotency_key: str | None = Field(
        default=None, min_length=1, max_length=255, description="Or the Idempotency-Key header."
    )
    task: str | None = Field(default=None, description="Names the piece of work (agent flow).")
    intent: str | None = Field(
        default=None, description="What you are after: the Proposal's start."
    )
    auto_propose: bool | None = Field(default=None, description="Open a task branch and Proposal.")
    auto_merge: bool | None = Field(default=None, description="Ask for an immediate merge.")


@dataclass(frozen=True)
class Answer:
    status: int
    body: ExecuteBody
    replayed: bool


@dataclass
class Call:
    """One execute request, checked."""

    keeper: Keeper
    principal: Principal
    domain: DomainInfo
    operation: str
    request: ExecuteRequest
    key: str | None
    branch: BranchInfo
    schema: Schema
    execution: Execution
    invocation_id: str
    digest: str
    message: str
    scope: ReadScope

    @property
    def writes(self) -> Writes:
        return self.keeper.store.writes

    def commit_request(self, branch: str, expected_head: str | None) -> CommitRequest:
        return CommitRequest(
            domain=self.domain.name,
            branch=branch,
            author=self.principal.id,
            message=self.message,
            origin=Origin("operation", self.invocation_id),
            expected_head=expected_head,
        )

    def record(self, branch: str, *, target: str | None, events_now: bool) -> ExecutionRecord:
        operation = self.schema.operations[self.operation]
        return ExecutionRecord(
            invocation_id=self.invocation_id,
            operation=self.operation,
            principal=self.principal.id,
            idempotency_key=self.key,
            request_digest=self.digest,
            branch=branch,
            parameters=parameter_view(operation, self.execution.parameters),
            edits=self.execution.edits,
            side_effects=operation.side_effects,
            target=target,
            events_now=events_now,
            max_event_edits=operations_of(self.keeper.settings, self.domain).side_effect_max_edits,
        )


def committed(invocation: Invocation, replayed: bool) -> Answer:
    """The answer of an execution written on the branch it named."""
    body: CommittedJson = {
        "status": "committed",
        "operation": invocation.operation,
        "branch": invocation.branch,
        "invocation_id": invocation.id,
        "revision": invocation.revision,
        "revisions": invocation.result.get("revisions", []),
        "edit_count": invocation.result.get("edit_count", 0),
        "replayed": replayed,
    }
    return Answer(200, body, replayed)
