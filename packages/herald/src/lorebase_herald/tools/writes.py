"""Writes, only through declared Operations and Proposals: operations, execute, proposal.

Left out of the catalogue entirely when herald.read_only is on (tools/__init__.py); each also
refuses on its own when called on a read-only Herald, so no path writes through one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import Field

from lorebase_client import Verdict
from lorebase_core.markdown import inline_value, short_revision
from lorebase_herald.markdown import pairs, where
from lorebase_herald.tools.base import Ctx, Family, ToolCall, run
from lorebase_herald.tools.hints import READ, WRITE, Answered
from lorebase_herald.tools.params import At, Branch, Domain, Limit
from lorebase_herald.tools.shaping import LIMIT, Shape

TOOLS = Family()
"""The write tools, in the order they are listed."""

OPERATIONS = """\
The Operations of a Domain: the only way to write. Each has typed parameters, the edits it
makes and whether it needs review. Call it before lorebase_execute; name= describes one.
Example: {"domain": "supply", "name": "flag_supplier_risk"}"""

EXECUTE = """\
Run an Operation with parameters. Send dry_run=true first to see the edits, violations and
whether review is needed; then run it with a task (what you are working on) and intent (why),
which makes it an agent change on a branch of its own, proposed for review when policy says so.
An idempotency_key makes a retry safe; expected_head refuses to write on a moved branch.
Example: {"domain": "supply", "operation": "flag_supplier_risk", "parameters": {"supplier":
"S-1001", "severity": "high", "reason": "late deliveries"}, "task": "risk review S-1001",
"intent": "flag repeated late deliveries", "dry_run": true}"""

PROPOSAL = """\
Proposals: reviewed changes from a branch into another. action=list (open ones), show (one,
with its review state), open (from your branch), review (approve, request_changes, comment),
merge or close. Use it after lorebase_execute answered a proposal, or to propose a branch.
Example: {"domain": "supply", "action": "show", "proposal_id": "prp_..."}"""

READ_ONLY = "Herald is read-only (herald.read_only): it makes no writes."

# The arguments of one tool each (those tools share are in params.py).
DryRun = Annotated[bool, Field(description="Only check: the edits, violations and review needed.")]
Task = Annotated[str | None, Field(description="What you are working on (opens the agent flow).")]
IdempotencyKey = Annotated[
    str | None, Field(description="The same key on a retry answers the first result.")
]
ExpectedHead = Annotated[
    str | None, Field(description="Refuse if the branch head is no longer this.")
]
AutoMerge = Annotated[
    bool | None, Field(description="Merge the agent branch at once when policy allows.")
]
Action = Annotated[
    Literal["list", "show", "open", "review", "merge", "close"],
    Field(description="What to do."),
]
ProposalId = Annotated[str | None, Field(description="The Proposal (show, review, merge, close).")]
ReviewVerdict = Annotated[
    Literal["approve", "request_changes", "comment"] | None,
    Field(description="The review's verdict (review)."),
]


@TOOLS.tool(
    title="Operations",
    description=OPERATIONS,
    annotations=READ,  # listing Operations is a read, in the write family
)
async def lorebase_operations(
    ctx: Ctx,
    domain: Domain,
    name: Annotated[str | None, Field(description="Describe only this Operation.")] = None,
    branch: Branch = None,
    at: At = None,
) -> Answered:
    async def read(call: ToolCall) -> Answered:
        if call.read_only:
            return call.refused(READ_ONLY, code="read-only", status=403)
        if name is None:
            answer = dict(await call.client.operations(domain, branch=branch, at=at))
        else:
            one = await call.client.operation(domain, name, branch=branch, at=at)
            answer = {
                "domain": one.get("domain", domain),
                "branch": one.get("branch"),
                "revision": one.get("revision"),
                "operations": [one.get("operation", one)],
            }
        return call.shaped(answer, OPERATIONS_SHAPE)

    return await run(ctx, "lorebase_operations", read)


@TOOLS.tool(title="Execute", description=EXECUTE, annotations=WRITE)
async def lorebase_execute(
    ctx: Ctx,
    domain: Domain,
    operation: Annotated[str, Field(description="The Operation's name.")],
    parameters: Annotated[dict[str, Any], Field(description="Its parameters by name.")],
    dry_run: DryRun = False,
    task: Task = None,
    intent: Annotated[str | None, Field(description="Why you make this change.")] = None,
    message: Annotated[str | None, Field(description="The Revision's message.")] = None,
    idempotency_key: IdempotencyKey = None,
    expected_head: ExpectedHead = None,
    auto_merge: AutoMerge = None,
    branch: Branch = None,
) -> Answered:
    async def write(call: ToolCall) -> Answered:
        if call.read_only:
            return call.refused(READ_ONLY, code="read-only", status=403)
        answer = await call.client.execute(
            domain,
            operation,
            parameters,
            branch=branch,
            dry_run=dry_run or None,
            expected_head=expected_head,
            message=message,
            idempotency_key=idempotency_key,
            task=task,
            intent=intent,
            auto_merge=auto_merge,
        )
        document = {"domain": domain, **answer}
        return call.shaped(document, EXECUTION_SHAPE)

    return await run(ctx, "lorebase_execute", write)


@TOOLS.tool(title="Proposals", description=PROPOSAL, annotations=WRITE)
async def lorebase_proposal(
    ctx: Ctx,
    domain: Domain,
    action: Action,
    proposal_id: ProposalId = None,
    source: Annotated[str | None, Field(description="Branch to propose (open).")] = None,
    target: Annotated[str | None, Field(description="Branch to merge into (open).")] = None,
    title: Annotated[str | None, Field(description="Title (open).")] = None,
    description: Annotated[str | None, Field(description="Description (open).")] = None,
    verdict: ReviewVerdict = None,
    body: Annotated[str | None, Field(description="The review's text (review).")] = None,
    limit: Limit = None,
) -> Answered:
    request = ProposalRequest(
        domain=domain,
        action=action,
        proposal_id=proposal_id,
        source=source,
        target=target,
        title=title,
        description=description,
        verdict=verdict,
        body=body,
        limit=limit,
    )

    async def act(call: ToolCall) -> Answered:
        if call.read_only:
            return call.refused(READ_ONLY, code="read-only", status=403)
        missing = _missing_argument(action, proposal_id, source, verdict)
        if missing is not None:
            return call.refused(missing, code="invalid-arguments", status=422)
        return await _act_on_proposal(call, request)

    return await run(ctx, "lorebase_proposal", act)


@dataclass(frozen=True, kw_only=True)
class ProposalRequest:
    """The arguments of one lorebase_proposal call."""

    domain: str
    action: str
    proposal_id: str | None
    source: str | None
    target: str | None
    title: str | None
    description: str | None
    verdict: Verdict | None
    body: str | None
    limit: int | None


async def _act_on_proposal(call: ToolCall, request: ProposalRequest) -> Answered:
    domain, proposal_id = request.domain, request.proposal_id
    if request.action == "list":
        items = [
            item async for item in call.client.proposals(domain, status="open", limit=request.limit)
        ]
        listing = {"domain": domain, "proposals": items}
        return call.shaped(listing, PROPOSALS_SHAPE)
    if request.action == "open":
        assert request.source is not None
        answer = await call.client.open_proposal(
            domain,
            request.source,
            target=request.target,
            title=request.title,
            description=request.description,
        )
    else:
        assert proposal_id is not None
        if request.action == "review":
            assert request.verdict is not None
            answer = await call.client.review_proposal(
                domain, proposal_id, request.verdict, body=request.body
            )
        elif request.action == "merge":
            answer = await call.client.merge_proposal(domain, proposal_id)
        elif request.action == "close":
            answer = await call.client.close_proposal(domain, proposal_id)
        else:
            answer = await call.client.proposal(domain, proposal_id)
    document = {"domain": domain, **answer}
    return call.shaped(document, PROPOSAL_SHAPE)


def _missing_argument(
    action: str, proposal_id: str | None, source: str | None, verdict: str | None
) -> str | None:
    if action in ("show", "review", "merge", "close") and proposal_id is None:
        return f"action={action} needs proposal_id (action=list lists the open Proposals)."
    if action == "open" and source is None:
        return "action=open needs source: the branch to propose."
    if action == "review" and verdict is None:
        return "action=review needs verdict: approve, request_changes or comment."
    return None


def render_operations(answer: Mapping[str, Any]) -> str:
    lines = [f"# Operations of {where(answer)}"]
    for operation in answer.get("operations", []):
        lines.append(f"## {operation.get('name')}")
        if operation.get("description"):
            lines.append(inline_value(operation["description"]))
        for parameter in operation.get("parameters", []):
            lines.append(
                f"- {parameter.get('name')}: "
                f"{inline_value(parameter.get('summary') or parameter.get('type'))}"
                + (
                    f" {inline_value(parameter['description'])}"
                    if parameter.get("description")
                    else ""
                )
            )
        review = operation.get("review") or {}
        if review:
            lines.append(
                f"review: {review.get('needed')}"
                + (f" (when {inline_value(review['when'])})" if review.get("when") else "")
            )
    return "\n".join(lines)


def render_execution(answer: Mapping[str, Any]) -> str:
    lines = [
        f"# {answer.get('operation')}: {answer.get('status')} on {answer.get('domain')}/"
        f"{answer.get('branch')} @ {short_revision(answer.get('revision'))}"
    ]
    for edit in answer.get("edits", []):
        target = edit.get("kind") or edit.get("relation")
        ends = f" {edit.get('from')} -> {edit.get('to')}" if "from" in edit else ""
        lines.append(
            f"- {edit.get('op')} {target} {edit.get('key') or ''}{ends}: {pairs(edit.get('values'))}"
        )
    for violation in answer.get("violations", []):
        lines.append(f"- violation: {inline_value(violation)}")
    review = answer.get("review")
    if review:
        lines.append(f"review: {pairs(review)}")
    proposal = answer.get("proposal")
    if proposal:
        shown = proposal if isinstance(proposal, Mapping) else {"id": proposal}
        lines.append(f"proposal: {pairs(shown)}")
    rest = {
        name: item
        for name, item in answer.items()
        if name
        not in (
            "domain",
            "operation",
            "status",
            "branch",
            "revision",
            "edits",
            "violations",
            "review",
            "proposal",
            "parameters",
        )
    }
    if rest:
        lines.append(pairs(rest))
    return "\n".join(lines)


def render_proposals(answer: Mapping[str, Any]) -> str:
    lines = [f"# Open Proposals of {answer.get('domain')}"]
    lines += [
        f"- {item.get('id')}: {inline_value(item.get('title') or '')} ({item.get('source')} -> "
        f"{item.get('target')}, {item.get('status')})"
        for item in answer.get("proposals", [])
    ]
    return "\n".join(lines)


def render_proposal(answer: Mapping[str, Any]) -> str:
    lines = [f"# Proposal {answer.get('id')} of {answer.get('domain')}"]
    for name, item in answer.items():
        if name not in ("id", "domain"):
            lines.append(f"- {name}: {inline_value(item)}")
    return "\n".join(lines)


# How each tool shows its answer.
OPERATIONS_SHAPE = Shape(
    render_operations, member="operations", what="Operations", rest="describe one with name=...."
)
EXECUTION_SHAPE = Shape(render_execution, member="edits", what="edits")
PROPOSALS_SHAPE = Shape(render_proposals, member="proposals", what="open Proposals", rest=LIMIT)
PROPOSAL_SHAPE = Shape(render_proposal)
