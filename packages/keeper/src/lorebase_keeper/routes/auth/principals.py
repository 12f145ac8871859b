"""Who is calling, and which Domains they may read: GET /auth/whoami, GET /domains."""

from __future__ import annotations

from fastapi import Request, Response

from lorebase_keeper.http.documented import READ_RESPONSES, answer
from lorebase_keeper.http.segments import segment_router
from lorebase_keeper.reads.answers import plain
from lorebase_keeper.reads.reading import caller_of
from lorebase_keeper.shapes.auth.principals import DomainsAnswer, DomainsAnswerJson, Whoami

router = segment_router("/api/v1", "auth", READ_RESPONSES)


@router.get(
    "/auth/whoami", summary="The caller: principal, type and grants", responses=answer(Whoami)
)
def whoami(request: Request) -> Response:
    _, principal = caller_of(request)
    return plain(principal.to_json())


@router.get("/domains", summary="The Domains the caller may read", responses=answer(DomainsAnswer))
def list_domains(request: Request) -> Response:
    keeper, principal = caller_of(request)
    listed: DomainsAnswerJson = {
        "domains": [
            {
                "name": info.name,
                "default_branch": info.default_branch,
                "created_at": info.created_at,
            }
            for info in keeper.store.domains()
            if principal.matching(info.name, None)
        ]
    }
    return plain(listed)
