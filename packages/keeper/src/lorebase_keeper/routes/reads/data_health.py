"""The health of the data: GET /health and /kinds/{kind}/health (agents.md section 6)."""

from __future__ import annotations

from fastapi import Request, Response

from lorebase_keeper.http.documented import READ_RESPONSES, markdown_answer
from lorebase_keeper.http.parameters import AT, BRANCH, FORMAT
from lorebase_keeper.http.segments import segment_router
from lorebase_keeper.reads.health_report import health_json, health_markdown
from lorebase_keeper.reads.reading import Read, domain_read
from lorebase_keeper.shapes.reads.health import HealthAnswer, HealthAnswerJson

router = segment_router("/api/v1/domains/{domain}", "data health", READ_RESPONSES)


def _answer(request: Request, read: Read, kind: str | None, markdown: bool) -> Response:
    def compute(_etag: str) -> HealthAnswerJson | str:
        document = health_json(read, kind=kind)
        return health_markdown(document) if markdown else document

    return read.answer(request, compute, markdown=markdown)


@router.get(
    "/health",
    summary="How sound the data of a branch is: violations, duplicates, orphans, gaps",
    responses=markdown_answer(HealthAnswer),
)
def domain_health(
    request: Request,
    domain: str,
    branch: BRANCH = None,
    at: AT = None,
    format: FORMAT = "json",
) -> Response:
    with domain_read(request, domain, branch=branch, at=at) as read:
        return _answer(request, read, None, format == "markdown")


@router.get(
    "/kinds/{kind}/health",
    summary="The health report of one Kind and its Relations",
    responses=markdown_answer(HealthAnswer),
)
def kind_health(
    request: Request,
    domain: str,
    kind: str,
    branch: BRANCH = None,
    at: AT = None,
    format: FORMAT = "json",
) -> Response:
    with domain_read(request, domain, branch=branch, at=at) as read:
        read.kind(kind)  # unknown and unreadable Kinds answer alike
        return _answer(request, read, kind, format == "markdown")
