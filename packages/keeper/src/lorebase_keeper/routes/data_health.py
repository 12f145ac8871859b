"""GET /health and /kinds/{kind}/health (agents.md): not built yet, answers 501 naming the missing piece."""

from __future__ import annotations

from fastapi import APIRouter

from lorebase_keeper.errors import NotImplementedYet
from lorebase_keeper.routes.documented import READ_RESPONSES
from lorebase_keeper.segments import SegmentRoute

router = APIRouter(
    prefix="/api/v1/domains/{domain}",
    tags=["data health"],
    route_class=SegmentRoute,
    responses=READ_RESPONSES,
)


@router.get("/health", summary="Health of the data (not built yet)", include_in_schema=False)
def domain_health(domain: str) -> None:
    raise NotImplementedYet("GET /health is not served yet", missing="health")


@router.get(
    "/kinds/{kind}/health", summary="Health of a Kind (not built yet)", include_in_schema=False
)
def kind_health(domain: str, kind: str) -> None:
    raise NotImplementedYet("GET /kinds/{kind}/health is not served yet", missing="health")
