"""Who is calling, and which Domains they may read: GET /auth/whoami, GET /domains."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from lorebase_keeper.http.documented import READ_RESPONSES, answer
from lorebase_keeper.http.segments import SegmentRoute
from lorebase_keeper.reads.answers import plain
from lorebase_keeper.reads.reading import keeper_of
from lorebase_keeper.shapes.auth.principals import DomainsAnswer, DomainsAnswerJson, Whoami

router = APIRouter(
    prefix="/api/v1", tags=["auth"], route_class=SegmentRoute, responses=READ_RESPONSES
)


@router.get(
    "/auth/whoami", summary="The caller: principal, type and grants", responses=answer(Whoami)
)
def whoami(request: Request) -> Response:
    principal = keeper_of(request).authenticator.principal(request)
    return plain(principal.to_json())


@router.get("/domains", summary="The Domains the caller may read", responses=answer(DomainsAnswer))
def list_domains(request: Request) -> Response:
    keeper = keeper_of(request)
    principal = keeper.authenticator.principal(request)
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
