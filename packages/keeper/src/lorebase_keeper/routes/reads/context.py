"""POST /context (agents.md section 1): a context pack of some seed Records, within a budget."""

from __future__ import annotations

from typing import Annotated

from fastapi import Body, Request, Response

from lorebase_core.context import ContextRequestInvalid, parse_context
from lorebase_core.errors import Issue
from lorebase_keeper.http.documented import READ_RESPONSES, markdown_answer, request_body
from lorebase_keeper.http.segments import segment_router
from lorebase_keeper.reads.context_pack import context_answer, context_limits
from lorebase_keeper.reads.reading import domain_read
from lorebase_keeper.shapes.reads.context import ContextAnswer, ContextRequest

router = segment_router("/api/v1/domains/{domain}", "context", READ_RESPONSES)


def _branch(body: object) -> str | None:
    """The branch member, checked before the Reader opens (the rest is checked against it)."""
    if not isinstance(body, dict):
        raise ContextRequestInvalid(
            "The request body must be a JSON object", [Issue("", "expected a JSON object", "type")]
        )
    branch = body.get("branch")
    if branch is not None and (not isinstance(branch, str) or not branch):
        raise ContextRequestInvalid(
            "branch must be a branch name", [Issue("branch", "expected a non-empty string", "type")]
        )
    return branch


@router.post(
    "/context",
    summary="A context pack: seed Records, their neighborhood and history",
    responses=markdown_answer(ContextAnswer),
    openapi_extra=request_body(ContextRequest),
)
def context(
    request: Request,
    domain: str,
    body: Annotated[
        object,
        Body(
            description=(
                "One seed selector (refs, query or search), branch, budget_tokens, depth, "
                "relations, traits, lens, include_schema, include_recent_changes, "
                "include_lineage, since, format (json or markdown). See docs/context.md."
            ),
            examples=[{"refs": ["Supplier/S-1001"], "depth": 1, "budget_tokens": 1500}],
        ),
    ],
) -> Response:
    branch = _branch(body)
    with domain_read(request, domain, branch=branch) as read:
        parsed = parse_context(
            body, read.reader.schema, read.scope, context_limits(read.keeper.settings)
        )
        return context_answer(request, read, parsed, body)
