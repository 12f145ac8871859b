"""The agent flow: a write that needs review, run on a task branch and proposed (docs/writes.md).

A write on a branch that needs review is refused with 409 review-required unless the caller
names a task; then Keeper checks the write as a direct one would be (step 1), cuts or reuses
the task branch (step 2), runs the Operation there (step 3), opens or extends the Proposal
(step 4) and merges it when every condition holds (step 5). Every step is its own transaction;
a retry under the same idempotency key finds what the first attempt did (`replay`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lorebase_core.errors import (
    InvalidInput,
    Issue,
    MergeBlocked,
    MergeOutsideScope,
    ProposalNotOpen,
    ReviewRequired,
    StaleHead,
    ValuesInvalid,
)
from lorebase_core.proposal_policy import AutoMergeRule
from lorebase_keeper.shapes.common import JsonObject
from lorebase_keeper.shapes.writes.proposals import (
    CommittedJson,
    FlowStatus,
    MergeAsked,
    ProposalHeaderJson,
    ProposedJson,
)
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
from lorebase_keeper.writes.execute_request import Answer, Call, committed
from lorebase_keeper.writes.proposal_scope import ProposalScopes
from lorebase_keeper.writes.write_scope import merge_scope, write_permissions
from lorebase_platform.settings import AgentWritesSettings
from lorebase_store import Invocation, ProposalInfo
from lorebase_store import Proposed as StoreProposed


def review_reason(call: Call) -> str | None:
    """Why the write needs review (None: it does not)."""
    if call.branch.protected:
        return "protected-branch"
    if call.execution.review_required:
        return "review-policy"
    return None


@dataclass(frozen=True)
class _Flow:
    """One write taken through the agent flow."""

    call: Call
    settings: AgentWritesSettings
    reason: str
    task: str
    branch: str
    """The task branch."""
    target: str


@dataclass
class _Merged:
    """What step 5 did."""

    proposal: ProposalInfo
    asked: MergeAsked
    deleted: bool = False
    warnings: list[str] = field(default_factory=list)


def agent_flow(call: Call, reason: str) -> Answer:
    """The write on a task branch, its Proposal and, when every condition holds, its merge."""
    flow = _flow_of(call, reason)
    if _checked(flow) == 0:
        return _nothing_written(flow)
    writes = call.writes
    prefix = task_branch_name(flow.settings, call.principal.id, "")
    made = writes.task_branch(  # step 2: the task branch
        call.domain.name,
        flow.branch,
        from_branch=flow.target,
        mode=flow.settings.branch_mode,
        principal=call.principal.id,
        owned_prefix=prefix,
        max_open=flow.settings.max_open_branches_per_principal,
    )
    executed = writes.execute(  # step 3: the Operation there (its review is the Proposal)
        call.commit_request(flow.branch, None),
        call.execution.changes,
        call.record(flow.branch, target=flow.target, events_now=False),
    )
    if executed.replayed:
        return replay(call, executed.invocation)
    invocation = executed.invocation
    proposed = _propose(  # step 4: one open Proposal per task branch and target
        call,
        flow.settings,
        invocation,
        target=flow.target,
        policy_review=reason == "review-policy" or call.execution.review_required,
    )
    merged = _merge(flow, proposed.proposal, invocation)
    return flow_answer(
        call,
        invocation,
        merged.proposal,
        created=proposed.created,
        branch_created=made.created,
        branch_deleted=merged.deleted,
        merge=merged.asked,
        replayed=False,
        warnings=merged.warnings,
    )


def _flow_of(call: Call, reason: str) -> _Flow:
    """The flow of a write that needs review; 409 review-required when the caller does not
    take it (no task, or auto_propose off)."""
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
    domain = call.domain.name
    task = task_slug(call.request.task, agent_writes.max_task_length)
    branch = task_branch_name(agent_writes, call.principal.id, task)
    for permission in ("branch.create", "proposal.create"):
        call.principal.require(permission, domain, branch)
    return _Flow(call, agent_writes, reason, task, branch, call.branch.name)


def _checked(flow: _Flow) -> int:
    """Step 1: the write checked as a direct one would be (nothing is created when it would
    be refused) and recorded in the audit log; the number of changes it makes."""
    call = flow.call
    dry = call.writes.dry_run(
        call.commit_request(flow.target, call.request.expected_head), call.execution.changes
    )
    if dry.violations:
        raise ValuesInvalid(
            f"The edits were refused: {len(dry.violations)} problem(s); nothing was written",
            dry.violations,
        )
    call.writes.record(
        call.domain.name,
        call.principal.id,
        "operation.propose",
        call.invocation_id,
        operation=call.operation,
        target=flow.target,
        task=flow.task,
    )
    return dry.changes


def _nothing_written(flow: _Flow) -> Answer:
    """A write that changes nothing: committed, with no Revision, no branch and no Proposal."""
    call = flow.call
    body: CommittedJson = {
        "status": "committed",
        "operation": call.operation,
        "branch": flow.target,
        "invocation_id": call.invocation_id,
        "revision": None,
        "revisions": [],
        "edit_count": 0,
        "replayed": False,
    }
    return Answer(200, body, False)


def _propose(
    call: Call,
    agent_writes: AgentWritesSettings,
    invocation: Invocation,
    *,
    target: str,
    policy_review: bool,
) -> StoreProposed:
    """The Proposal of the task branch an execution ran on into `target`, opened or extended."""
    task = invocation.branch.rsplit("/", 1)[-1]
    return call.writes.propose(
        call.domain.name,
        source=invocation.branch,
        target=target,
        principal=call.principal.id,
        title=agent_writes.title_template.format_map(
            {"principal": call.principal.id, "task": task}
        ),
        intent=call.request.intent,
        task=task,
        policy_review=policy_review,
        execution=execution_entry(
            call.schema, agent_writes, invocation.operation, invocation.parameters, invocation.id
        ),
        describe=describe(agent_writes),
    )


def _merge(flow: _Flow, proposal: ProposalInfo, invocation: Invocation) -> _Merged:
    """Step 5: the merge, only when every condition holds; the store decides it again in the
    merge's own transaction, so a review or a commit landing meanwhile is not missed."""
    call, domain = flow.call, flow.call.domain.name
    requested = call.request.auto_merge
    if requested is None:
        requested = flow.settings.auto_merge
    rule = AutoMergeRule(
        frozenset(grant.role for grant in call.principal.matching(domain, flow.branch)),
        frozenset(flow.settings.allowed_roles_for_auto_merge),
    )
    operations = operations_of(call.keeper.settings, call.domain)
    _, blockers = approval_state(operations, proposal)
    asked: MergeAsked = {"requested": requested, "allowed": rule.allowed, "performed": False}
    if not (requested and rule.allowed and not blockers):
        return _Merged(proposal, asked)
    # others may write on the task branch too: merge only what the caller writes itself
    permissions = write_permissions(call.schema.operations[call.operation])
    scope = merge_scope(call.keeper, call.principal, domain, flow.target, permissions)
    # what is decided on: the task branch as this execution left it
    attempt = proposal.attempt
    decided_on = invocation.revision or (attempt.source_head if attempt is not None else None)
    try:
        merged = call.writes.merge(
            domain,
            proposal.id,
            actor=call.principal.id,
            message=f"Merge {proposal.title} ({proposal.id})",
            max_event_edits=operations.side_effect_max_edits,
            delete_source=flow.settings.delete_branch_on_merge,
            policy=merge_policy(operations, expected_source_head=decided_on, auto_merge=rule),
            write_scope=scope,
        )
    except MergeOutsideScope:
        return _Merged(proposal, {**asked, "allowed": False})
    except (MergeBlocked, ProposalNotOpen):  # what stopped it shows
        return _Merged(call.writes.proposal(domain, proposal.id), asked)
    except StaleHead:
        warning = (
            f"{flow.branch!r} moved after this execution: not merged automatically; "
            "the Proposal stays open"
        )
        return _Merged(call.writes.proposal(domain, proposal.id), asked, warnings=[warning])
    asked["performed"] = merged.outcome.merged
    return _Merged(merged.proposal, asked, deleted=merged.branch_deleted)


def _review_required(call: Call, reason: str, agent_writes: AgentWritesSettings) -> ReviewRequired:
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


def _flow_status(proposal: ProposalInfo) -> FlowStatus:
    if proposal.status == "merged":
        return "merged"
    if proposal.status == "closed":
        return "closed"
    if proposal.open_conflicts:
        return "conflicts"
    return "proposed"


def _attempt_json(proposal: ProposalInfo) -> JsonObject:
    """The last merge attempt; ids and result null before the first one."""
    if proposal.attempt is not None:
        return proposal.attempt.to_json()
    return {"id": None, "result": None, "open_conflicts": 0, "resolved_conflicts": 0, "counts": {}}


def _header(domain: str, proposal: ProposalInfo, created: bool) -> ProposalHeaderJson:
    return {
        "id": proposal.id,
        "title": proposal.title,
        "status": proposal.status,
        "source_ref": proposal.source_branch,
        "target_ref": proposal.target_branch,
        "url": proposal_url(domain, proposal.id),
        "created": created,
    }


def flow_answer(
    call: Call,
    invocation: Invocation,
    proposal: ProposalInfo,
    *,
    created: bool,
    branch_created: bool,
    branch_deleted: bool,
    merge: MergeAsked,
    replayed: bool,
    warnings: list[str] | None = None,
) -> Answer:
    """The answer of a write that went through a task branch: 200 merged, else 202."""
    domain = call.domain.name
    # the caller's own Proposal, yet shown within its read scope like every other answer
    [scoped] = ProposalScopes(call.keeper, call.principal, domain).scoped([proposal])
    proposal = scoped.proposal
    approval, found = approval_state(operations_of(call.keeper.settings, call.domain), proposal)
    status = _flow_status(proposal)
    body: ProposedJson = {
        "status": status,
        "operation": invocation.operation,
        "branch": invocation.branch,
        "target": invocation.target or proposal.target_branch,
        "invocation_id": invocation.id,
        "revision": invocation.revision,
        "revisions": invocation.result.get("revisions", []),
        "edit_count": invocation.result.get("edit_count", 0),
        "replayed": replayed,
        "proposal": _header(domain, proposal, created),
        "approval": approval,
        "attempt": _attempt_json(proposal),
        "merge": {**merge, "blockers": found},
        "merged_revision": proposal.merged_revision,
        "branch_created": branch_created,
        "branch_deleted": branch_deleted,
        "warnings": warnings or [],
        "next": proposal_hints(domain, proposal, approval["required"], found),
    }
    return Answer(200 if status == "merged" else 202, body, replayed)


def replay(call: Call, invocation: Invocation) -> Answer:
    """The answer of an execution done before, from what it left: commit, branch, Proposal."""
    if invocation.target is None:
        return committed(invocation, True)
    if invocation.proposal_id is None:  # the first attempt stopped before its Proposal: go on
        proposal = None
    else:
        proposal = call.writes.proposal(call.domain.name, invocation.proposal_id)
    if proposal is None:
        agent_writes = agent_writes_of(call.keeper.settings, call.domain)
        proposal = _propose(
            call,
            agent_writes,
            invocation,
            target=invocation.target,
            policy_review=call.execution.review_required,
        ).proposal
    gone = (
        proposal.status != "open"
        and call.keeper.store.find_branch(call.domain.name, invocation.branch) is None
    )
    asked: MergeAsked = {
        "requested": bool(call.request.auto_merge),
        "allowed": False,
        "performed": False,
    }
    return flow_answer(
        call,
        invocation,
        proposal,
        created=False,
        branch_created=False,
        branch_deleted=gone,
        merge=asked,
        replayed=True,
    )
