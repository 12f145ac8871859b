"""POST /context (agents.md): not built yet, answers 501 naming the missing piece."""

from __future__ import annotations

from fastapi import APIRouter

from lorebase_keeper.errors import NotImplementedYet
from lorebase_keeper.routes.documented import READ_RESPONSES
from lorebase_keeper.segments import SegmentRoute

router = APIRouter(
    prefix="/api/v1/domains/{domain}",
    tags=["context"],
    route_class=SegmentRoute,
    responses=READ_RESPONSES,
)


@router.post("/context", summary="A context pack (not built yet)", include_in_schema=False)
def context(domain: str) -> None:
    raise NotImplementedYet("POST /context is not served yet", missing="context-packs")
