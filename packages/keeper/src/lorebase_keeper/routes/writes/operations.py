"""POST /operations/{op}/execute: the only way data changes (docs/writes.md)."""

from __future__ import annotations

from fastapi import Header, Request, Response

from lorebase_keeper.http.documented import WRITE_RESPONSES, answer
from lorebase_keeper.http.segments import segment_router
from lorebase_keeper.reads.answers import plain
from lorebase_keeper.reads.reading import caller_of
from lorebase_keeper.shapes.writes.proposals import Committed, DryRun, Proposed
from lorebase_keeper.writes.executing import ExecuteRequest, execute_operation

router = segment_router("/api/v1/domains/{domain}", "writes", WRITE_RESPONSES)


@router.post(
    "/operations/{operation}/execute",
    summary="Execute an Operation (directly, as a dry run, or through a task Proposal)",
    responses={
        **answer(
            Committed | DryRun | Proposed,
            description="Committed, a dry run, or merged at once through a task Proposal.",
        ),
        **answer(Proposed, 202, "Proposed: the write waits on a task branch for review."),
    },
)
def execute(
    request: Request,
    domain: str,
    operation: str,
    body: ExecuteRequest,
    idempotency_key: str | None = Header(default=None, alias="Idempotency-Key"),
) -> Response:
    keeper, principal = caller_of(request)
    answer = execute_operation(keeper, principal, domain, operation, body, idempotency_key)
    response = plain(answer.body, status=answer.status, revision=answer.body.get("revision"))
    if answer.replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return response
