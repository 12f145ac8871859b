"""POST /operations/{op}/execute: the request checked, then a direct write or a dry run.

The steps follow agents.md section 4 (docs/writes.md): the request is checked (permissions, the
Operation and its parameters, the expected head); a dry run writes nothing; a write on a branch
that needs review is refused with 409 review-required unless the caller names a task, in which
case the agent flow (`agent_flow`) takes it through a task branch and a Proposal. What the
checks read (the Domain, the branch, its schema, the execution made before under the same
idempotency key) is read in one read transaction (`lorebase_store.prepare_write`); every write
step is its own transaction. Whether an idempotency key was used for another request is the
store's decision alone (409 `idempotency-key-reused`).
"""

from __future__ import annotations

from lorebase_core.errors import InvalidInput, Issue, ValuesInvalid
from lorebase_core.operations import parameter_view, plan_execution
from lorebase_keeper.auth.authz import Principal
from lorebase_keeper.reads.reading import Keeper
from lorebase_keeper.shapes.writes.proposals import DryRunJson
from lorebase_keeper.writes.agent_flow import agent_flow, replay, review_reason
from lorebase_keeper.writes.agent_writes import operations_of
from lorebase_keeper.writes.execute_request import Answer, Call, ExecuteRequest, committed
from lorebase_keeper.writes.write_scope import (
    masked_invalid,
    masked_issues,
    masked_run,
    missing_permission,
    operation_scope,
)
from lorebase_store import DomainInfo, PreparedWrite, new_id, prepare_write, request_digest

__all__ = ["Answer", "ExecuteRequest", "execute_operation"]


def _check_key(request: ExecuteRequest, header: str | None) -> None:
    """The idempotency key of the body and the header agree and have 1 to 255 characters."""
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


def _prepare(
    keeper: Keeper,
    principal: Principal,
    domain_name: str,
    request: ExecuteRequest,
    header_key: str | None,
) -> PreparedWrite:
    """The grants first, the store after (docs/auth.md, "Existence"): a foreign Domain is
    unknown and a branch outside the grants is 403 whether it exists or not. Then what the
    store holds, in one read transaction, checked in the order the errors always answered."""
    principal.require_domain(domain_name)
    if request.branch:
        principal.require("data.read", domain_name, request.branch)

    def check(domain: DomainInfo) -> None:
        _check_key(request, header_key)
        _check_texts(keeper, domain, request)

    def authorize(branch: str) -> None:
        principal.require("data.read", domain_name, branch)

    key = request.idempotency_key or header_key
    return prepare_write(
        keeper.store.engine,
        domain_name,
        request.branch or None,
        principal=principal.id,
        idempotency_key=None if request.dry_run else key,  # a dry run replays nothing
        check=check,
        authorize=authorize,
    )


def execute_operation(
    keeper: Keeper,
    principal: Principal,
    domain_name: str,
    operation: str,
    request: ExecuteRequest,
    header_key: str | None,
) -> Answer:
    prepared = _prepare(keeper, principal, domain_name, request, header_key)
    branch, schema = prepared.branch, prepared.schema
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
    call = Call(
        keeper,
        principal,
        prepared.domain,
        operation,
        request,
        request.idempotency_key or header_key,
        branch,
        schema,
        execution,
        invocation_id,
        digest,
        request.message or f"Run {operation}",
        scope,
    )
    try:
        return _dispatch(call, prepared)
    except ValuesInvalid as refused:  # a refusal shows no value the caller may not read
        raise masked_invalid(refused, schema, scope) from None


def _dispatch(call: Call, prepared: PreparedWrite) -> Answer:
    if call.request.dry_run:
        return _dry_run(call)
    earlier = prepared.replayed(call.digest)  # 409 when the key was used for another request
    if earlier is not None:
        return replay(call, earlier)
    reason = review_reason(call)
    if reason is None:
        return _direct(call)
    return agent_flow(call, reason)


def _direct(call: Call) -> Answer:
    executed = call.writes.execute(
        call.commit_request(call.branch.name, call.request.expected_head),
        call.execution.changes,
        call.record(call.branch.name, target=None, events_now=True),
    )
    if executed.replayed:
        return replay(call, executed.invocation)
    return committed(executed.invocation, False)


def _dry_run(call: Call) -> Answer:
    dry = call.writes.dry_run(
        call.commit_request(call.branch.name, call.request.expected_head), call.execution.changes
    )
    reason = review_reason(call)
    operation = call.schema.operations[call.operation]
    parameters, edits = masked_run(
        operation,
        call.schema,
        call.scope,
        parameter_view(operation, call.execution.parameters),
        call.execution.edits,
    )
    body: DryRunJson = {
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
