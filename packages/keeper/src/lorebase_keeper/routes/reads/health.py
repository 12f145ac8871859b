"""Liveness and readiness probes."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from lorebase_keeper.http.documented import answer
from lorebase_keeper.shapes.reads.health import Alive, Ready
from lorebase_store import Store

router = APIRouter(tags=["health"])


@router.get("/healthz", summary="Keeper is running", responses=answer(Alive))
def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get(
    "/readyz",
    summary="Keeper can reach its database",
    responses={
        **answer(Ready),
        **answer(Ready, 503, "The database is unreachable."),
    },
)
def readyz(request: Request) -> JSONResponse:
    store: Store = request.app.state.store
    if store.ping():
        return JSONResponse({"status": "ready", "database": store.backend})
    return JSONResponse({"status": "unavailable", "database": store.backend}, status_code=503)
