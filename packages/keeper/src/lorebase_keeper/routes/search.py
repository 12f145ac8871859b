"""POST /search and POST /resolve (agents.md): not built yet, answers 501 naming the missing piece."""

from __future__ import annotations

from fastapi import APIRouter

from lorebase_keeper.errors import NotImplementedYet
from lorebase_keeper.routes.documented import READ_RESPONSES
from lorebase_keeper.segments import SegmentRoute

router = APIRouter(
    prefix="/api/v1/domains/{domain}",
    tags=["search"],
    route_class=SegmentRoute,
    responses=READ_RESPONSES,
)


@router.post("/search", summary="Search Records (not built yet)", include_in_schema=False)
def search(domain: str) -> None:
    raise NotImplementedYet("POST /search is not served yet", missing="search")


@router.post("/resolve", summary="Resolve words (not built yet)", include_in_schema=False)
def resolve(domain: str) -> None:
    raise NotImplementedYet("POST /resolve is not served yet", missing="resolve")
