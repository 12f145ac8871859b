"""POST /operations/{op}/execute: direct writes, dry runs, review-required and the agent flow.

The steps follow agents.md section 4 (docs/writes.md): the request is checked (permissions, the
Operation and its parameters, the expected head); a dry run writes nothing; a write on a branch
that needs review is refused with 409 review-required unless the caller names a task, in which
case Keeper cuts (or reuses) the task branch, runs the Operation there, opens (or extends) the
Proposal and merges it when every condition of step 5 holds. Every step is its own transaction;
an idempotency key makes a retry find what the first attempt did.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from lorebase_core.access import ReadScope
from lorebase_core.changes import Origin
from lorebase_core.errors import (
    IdempotencyKeyReused,
    InvalidInput,
    Issue,
    MergeBlocked,
    MergeOutsideScope,
    ProposalNotOpen,
    ReviewRequired,
    StaleHead,
    ValuesInvalid,
)
from lorebase_core.operations import Execution, parameter_view, plan_execution
from lorebase_core.proposal_policy import AutoMergeRule
from lorebase_core.schema import Schema
from lorebase_keeper.auth.authz import Principal
from lorebase_keeper.reads.reading import Keeper
from lorebase_keeper.writes.agent_writes import (
    API,
    agent_writes_of,
    approval_state,
    describe,
    execution_entry,
    hint,
    merge_policy,
    operations_of,
    proposal_hints,
    proposal_url,
    task_branch_name,
    task_slug,
)
from lorebase_keeper.writes.proposal_scope import ProposalScopes
from lorebase_keeper.writes.write_scope import (
    masked_invalid,
    masked_issues,
    masked_run,
    merge_scope,
    missing_permission,
    operation_scope,
    write_permissions,
)
from lorebase_platform.settings import AgentWritesSettings
from lorebase_store import (
    BranchInfo,
    CommitRequest,
    DomainInfo,
    ExecutionRecord,
    Invocation,
    ProposalInfo,
    Writes,
    new_id,
    request_digest,
)


class ExecuteRequest(BaseModel):
    """The body of POST /operations/{op}/execute (agents.md section 4)."""

    model_config = ConfigDict(extra="forbid")

    parameters: dict[str, Any] = Field(
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
    body: dict[str, Any]
    replayed: bool


@dataclass
class _Call:
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


def _idempotency_key(request: ExecuteRequest, header: str | None) -> str | None:
    if (
        header is not None
        and request.idempotency_key is not None
        and header != request.idempotency_key
    ):
        raise InvalidInput(
            "The Idempotency-Key header and idempotency_key differ",
            [Issue("idempotency_key", "differs from the Idempotency-Key header", "mismatch")],
        )
    key = request.idempotency_key or header
    if key is not None and not 1 <= len(key) <= 255:
        raise InvalidInput(
            "An idempotency key has 1 to 255 characters",
            [Issue("idempotency_key", f"{len(key)} characters", "out-of-range")],
        )
    return key


def _check_texts(keeper: Keeper, domain: DomainInfo, request: ExecuteRequest) -> None:
    limits = operations_of(keeper.settings, domain)
    issues = [
        Issue(member, f"longer than {limit} characters", "too-long")
        for member, text, limit in (
            ("message", request.message, limits.max_message_chars),
            ("intent", request.intent, limits.max_intent_chars),
        )
        if text is not None and len(text) > limit
    ]
    if issues:
        raise InvalidInput("The request has texts past their limits", issues)


def _require_operation(
    principal: Principal, domain: str, branch: str, permissions: tuple[str, ...]
) -> None:
    """operation.execute, or operation.execute_custom with the Operation's own permissions."""
    missing = missing_permission(principal, domain, branch, permissions)
    if missing is not None:
        principal.require(missing, domain, branch)


def execute_operation(
    keeper: Keeper,
    principal: Principal,
    domain_name: str,
    operation: str,
    request: ExecuteRequest,
    header_key: str | None,
) -> Answer:
    store = keeper.store
    # the grants first, the store after (docs/auth.md, "Existence"): a foreign Domain is unknown
    # and a branch outside the grants is 403 whether it exists or not
    principal.require_domain(domain_name)
    if request.branch:
        principal.require("data.read", domain_name, request.branch)
    domain = store.domain(domain_name)
    key = _idempotency_key(request, header_key)
    _check_texts(keeper, domain, request)
    branch = store.branch(domain_name, request.branch or domain.default_branch)
    principal.require("data.read", domain_name, branch.name)
    schema = store.schema(domain_name, branch=branch.name)
    # an Operation reaching a Kind the caller does not read answers like an unknown one
    scope = operation_scope(keeper, principal, domain_name, branch.name, schema, operation)
    invocation_id = new_id("inv")
    execution = plan_execution(schema, operation, request.parameters, invocation_id)
    _require_operation(
        principal, domain_name, branch.name, schema.operations[operation].permissions
    )
    digest = request_digest(
        {
            "operation": operation,
            "branch": branch.name,
            "parameters": execution.parameters,
            "task": request.task,
        }
    )
    call = _Call(
        keeper,
        principal,
        domain,
        operation,
        request,
        key,
        branch,
        schema,
        execution,
        invocation_id,
        digest,
        request.message or f"Run {operation}",
        scope,
    )
    try:
        return _dispatch(call)
    except ValuesInvalid as refused:  # a refusal shows no value the caller may not read
        raise masked_invalid(refused, schema, scope) from None


def _dispatch(call: _Call) -> Answer:
    if call.request.dry_run:
        return _dry_run(call)
    key = call.key
    if key is not None:
        earlier = call.writes.invocation(call.domain.name, call.principal.id, key)
        if earlier is not None:
            if earlier.request_digest != call.digest:
                raise IdempotencyKeyReused(
                    f"Idempotency key {key!r} was used for another request "
                    f"({earlier.operation}, invocation {earlier.id}); send a new key",
                    invocation_id=earlier.id,
                )
            return _replay(call, earlier)
    reason = _review_reason(call)
    if reason is None:
        return _direct(call)
    return _agent_flow(call, reason)


def _review_reason(call: _Call) -> str | None:
    if call.branch.protected:
        return "protected-branch"
    if call.execution.review_required:
        return "review-policy"
    return None


def _committed(call: _Call, invocation: Invocation, replayed: bool) -> Answer:
    body = {
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


def _direct(call: _Call) -> Answer:
    executed = call.writes.execute(
        call.commit_request(call.branch.name, call.request.expected_head),
        call.execution.changes,
        call.record(call.branch.name, target=None, events_now=True),
    )
    if executed.replayed:
        return _replay(call, executed.invocation)
    return _committed(call, executed.invocation, False)


def _dry_run(call: _Call) -> Answer:
    dry = call.writes.dry_run(
        call.commit_request(call.branch.name, call.request.expected_head), call.execution.changes
    )
    reason = _review_reason(call)
    operation = call.schema.operations[call.operation]
    parameters, edits = masked_run(
        operation,
        call.schema,
        call.scope,
        parameter_view(operation, call.execution.parameters),
        call.execution.edits,
    )
    body = {
        "status": "dry_run",
        "operation": call.operation,
        "branch": call.branch.name,
        "revision": dry.head,
        "parameters": parameters,
        "edits": edits,
        "edit_count": dry.changes,
        "violations": [
            issue.to_json() for issue in masked_issues(dry.violations, call.schema, call.scope)
        ],
        "review": {"required": reason is not None, "reason": reason},
        "replayed": False,
    }
    return Answer(200, body, False)


def _review_required(call: _Call, reason: str, agent_writes: AgentWritesSettings) -> ReviewRequired:
    domain, branch = call.domain.name, call.branch.name
    opened = [
        p
        for p in call.writes.proposals(
            domain, status="open", created_by=call.principal.id, limit=100
        )
        if p.target_branch == branch
    ]
    mine = [
        {
            "id": scoped.proposal.id,
            "url": proposal_url(domain, scoped.proposal.id),
            "source_ref": scoped.proposal.source_branch,
        }
        for scoped in ProposalScopes(call.keeper, call.principal, domain).scoped(opened)
        if scoped.visible
    ]
    execute = f"{API}/{domain}/operations/{call.operation}/execute"
    next_hints = [
        hint(
            "name_a_task",
            "Send the request again with a task and an intent (and auto_propose: true unless "
            "you are an agent principal): Keeper runs it on a task branch and opens a Proposal.",
            "POST",
            execute,
            "proposal.create",
        ),
        hint(
            "create_branch",
            "Or cut a work branch, run the Operation there and open a Proposal yourself.",
            "POST",
            f"{API}/{domain}/branches",
            "branch.create",
        ),
        hint(
            "open_proposal",
            "Open a Proposal of your work branch into this one.",
            "POST",
            f"{API}/{domain}/proposals",
            "proposal.create",
        ),
    ]
    why = (
        f"branch {branch!r} is protected"
        if reason == "protected-branch"
        else f"the review policy of {call.operation} holds for these parameters"
    )
    return ReviewRequired(
        f"{call.operation} needs review on {branch!r}: {why}",
        branch=branch,
        operation=call.operation,
        proposals=mine,
        reason=reason,
        next=next_hints,
        auto_propose_enabled=agent_writes.enabled,
    )


def _agent_flow(call: _Call, reason: str) -> Answer:
    agent_writes = agent_writes_of(call.keeper.settings, call.domain)
    is_agent = call.principal.type in agent_writes.principal_types
    auto_propose = call.request.auto_propose
    if auto_propose is None:
        auto_propose = agent_writes.auto_propose and is_agent
    if call.request.auto_propose and call.request.task is None:
        raise InvalidInput(
            "auto_propose needs a task", [Issue("task", "required with auto_propose", "missing")]
        )
    if not (agent_writes.enabled and auto_propose and call.request.task is not None):
        raise _review_required(call, reason, agent_writes)
    domain, target = call.domain.name, call.branch.name
    task = task_slug(call.request.task, agent_writes.max_task_length)
    branch_name = task_branch_name(agent_writes, call.principal.id, task)
    for permission in ("branch.create", "proposal.create"):
        call.principal.require(permission, domain, branch_name)
    # step 1: checked as a direct write would be; nothing is created when it would be refused
    dry = call.writes.dry_run(
        call.commit_request(target, call.request.expected_head), call.execution.changes
    )
    if dry.violations:
        raise ValuesInvalid(
            f"The edits were refused: {len(dry.violations)} problem(s); nothing was written",
            dry.violations,
        )
    call.writes.record(
        domain,
        call.principal.id,
        "operation.propose",
        call.invocation_id,
        operation=call.operation,
        target=target,
        task=task,
    )
    if dry.changes == 0:
        body: dict[str, Any] = {
            "status": "committed",
            "operation": call.operation,
            "branch": target,
            "invocation_id": call.invocation_id,
            "revision": None,
            "revisions": [],
            "edit_count": 0,
            "replayed": False,
        }
        return Answer(200, body, False)
    # step 2: the task branch
    prefix = task_branch_name(agent_writes, call.principal.id, "")
    made = call.writes.task_branch(
        domain,
        branch_name,
        from_branch=target,
        mode=agent_writes.branch_mode,
        principal=call.principal.id,
        owned_prefix=prefix,
        max_open=agent_writes.max_open_branches_per_principal,
    )
    # step 3: the Operation on the task branch (its review is the Proposal)
    executed = call.writes.execute(
        call.commit_request(branch_name, None),
        call.execution.changes,
        call.record(branch_name, target=target, events_now=False),
    )
    if executed.replayed:
        return _replay(call, executed.invocation)
    invocation = executed.invocation
    # step 4: one open Proposal per task branch and target
    title = agent_writes.title_template.format_map({"principal": call.principal.id, "task": task})
    proposed = call.writes.propose(
        domain,
        source=branch_name,
        target=target,
        principal=call.principal.id,
        title=title,
        intent=call.request.intent,
        task=task,
        policy_review=reason == "review-policy" or call.execution.review_required,
        execution=execution_entry(
            call.schema, agent_writes, call.operation, invocation.parameters, invocation.id
        ),
        describe=describe(agent_writes),
    )
    # step 5: the merge, only when every condition holds; the store decides it again in the
    # merge's own transaction, so a review or a commit landing meanwhile is not missed
    requested = (
        call.request.auto_merge if call.request.auto_merge is not None else agent_writes.auto_merge
    )
    rule = AutoMergeRule(
        frozenset(grant.role for grant in call.principal.matching(domain, branch_name)),
        frozenset(agent_writes.allowed_roles_for_auto_merge),
    )
    allowed = rule.allowed
    proposal = proposed.proposal
    operations = operations_of(call.keeper.settings, call.domain)
    state = approval_state(operations, proposal)
    performed, deleted = False, False
    warnings: list[str] = []
    if requested and allowed and not state["blockers"]:
        # others may write on the task branch too: merge only what the caller writes itself
        operation = call.schema.operations[call.operation]
        scope = merge_scope(
            call.keeper, call.principal, domain, target, write_permissions(operation)
        )
        # what is decided on: the task branch as this execution left it
        decided_on = invocation.revision or (
            proposal.attempt.source_head if proposal.attempt is not None else None
        )
        try:
            merged = call.writes.merge(
                domain,
                proposal.id,
                actor=call.principal.id,
                message=f"Merge {proposal.title} ({proposal.id})",
                max_event_edits=operations.side_effect_max_edits,
                delete_source=agent_writes.delete_branch_on_merge,
                policy=merge_policy(operations, expected_source_head=decided_on, auto_merge=rule),
                write_scope=scope,
            )
        except MergeOutsideScope:
            allowed = False
        except (MergeBlocked, ProposalNotOpen):
            proposal = call.writes.proposal(domain, proposal.id)  # what stopped it shows
        except StaleHead:
            proposal = call.writes.proposal(domain, proposal.id)
            warnings.append(
                f"{branch_name!r} moved after this execution: not merged automatically; "
                "the Proposal stays open"
            )
        else:
            proposal, performed = merged.proposal, merged.outcome.merged
            deleted = merged.branch_deleted
    return _flow_answer(
        call,
        invocation,
        proposal,
        created=proposed.created,
        branch_created=made.created,
        branch_deleted=deleted,
        merge={"requested": bool(requested), "allowed": allowed, "performed": performed},
        replayed=False,
        warnings=warnings,
    )


def _flow_answer(
    call: _Call,
    invocation: Invocation,
    proposal: ProposalInfo,
    *,
    created: bool,
    branch_created: bool,
    branch_deleted: bool,
    merge: dict[str, Any],
    replayed: bool,
    warnings: list[str] | None = None,
) -> Answer:
    domain = call.domain.name
    # the caller's own Proposal, yet shown within its read scope like every other answer
    [scoped] = ProposalScopes(call.keeper, call.principal, domain).scoped([proposal])
    proposal = scoped.proposal
    state = approval_state(operations_of(call.keeper.settings, call.domain), proposal)
    found = state.pop("blockers")
    if proposal.status == "merged":
        status = "merged"
    elif proposal.status == "closed":
        status = "closed"
    elif proposal.open_conflicts:
        status = "conflicts"
    else:
        status = "proposed"
    attempt = (
        proposal.attempt.to_json()
        if proposal.attempt is not None
        else {
            "id": None,
            "result": None,
            "open_conflicts": 0,
            "resolved_conflicts": 0,
            "counts": {},
        }
    )
    body: dict[str, Any] = {
        "status": status,
        "operation": invocation.operation,
        "branch": invocation.branch,
        "target": invocation.target or proposal.target_branch,
        "invocation_id": invocation.id,
        "revision": invocation.revision,
        "revisions": invocation.result.get("revisions", []),
        "edit_count": invocation.result.get("edit_count", 0),
        "replayed": replayed,
        "proposal": {
            "id": proposal.id,
            "title": proposal.title,
            "status": proposal.status,
            "source_ref": proposal.source_branch,
            "target_ref": proposal.target_branch,
            "url": proposal_url(domain, proposal.id),
            "created": created,
        },
        "approval": state,
        "attempt": attempt,
        "merge": {**merge, "blockers": found},
        "merged_revision": proposal.merged_revision,
        "branch_created": branch_created,
        "branch_deleted": branch_deleted,
        "warnings": warnings or [],
        "next": proposal_hints(domain, proposal, state["required"], found),
    }
    return Answer(200 if status == "merged" else 202, body, replayed)


def _replay(call: _Call, invocation: Invocation) -> Answer:
    """The answer of an execution done before, from what it left: commit, branch, Proposal."""
    if invocation.target is None:
        return _committed(call, invocation, True)
    if invocation.proposal_id is None:  # the first attempt stopped before its Proposal: go on
        proposal = None
    else:
        proposal = call.writes.proposal(call.domain.name, invocation.proposal_id)
    if proposal is None:
        agent_writes = agent_writes_of(call.keeper.settings, call.domain)
        proposed = call.writes.propose(
            call.domain.name,
            source=invocation.branch,
            target=invocation.target,
            principal=call.principal.id,
            title=agent_writes.title_template.format_map(
                {"principal": call.principal.id, "task": invocation.branch.rsplit("/", 1)[-1]}
            ),
            intent=call.request.intent,
            task=invocation.branch.rsplit("/", 1)[-1],
            policy_review=call.execution.review_required,
            execution=execution_entry(
                call.schema,
                agent_writes,
                invocation.operation,
                invocation.parameters,
                invocation.id,
            ),
            describe=describe(agent_writes),
        )
        proposal = proposed.proposal
    gone = (
        proposal.status != "open"
        and call.keeper.store.find_branch(call.domain.name, invocation.branch) is None
    )
    return _flow_answer(
        call,
        invocation,
        proposal,
        created=False,
        branch_created=False,
        branch_deleted=gone,
        merge={"requested": bool(call.request.auto_merge), "allowed": False, "performed": False},
        replayed=True,
    )
