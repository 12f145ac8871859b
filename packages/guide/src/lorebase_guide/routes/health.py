"""GET /healthz (Guide is running) and GET /readyz (Keeper answers its /healthz)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from lorebase_guide.service import guide_of
from lorebase_platform.problems import PROBLEM_CONTENT_TYPE, problem, render_problem


async def healthz(request: Request) -> Response:
    """200 while the process serves requests; it checks nothing else."""
    return JSONResponse({"status": "ok"}, headers={"Cache-Control": "no-store"})


async def readyz(request: Request) -> Response:
    """200 when Keeper answers GET /healthz, else 503 keeper_unavailable."""
    guide = guide_of(request)
    if await guide.verifier.ready():
        return JSONResponse(
            {"status": "ready", "keeper": "ok"}, headers={"Cache-Control": "no-store"}
        )
    document = problem(
        503,
        "keeper_unavailable",
        "Keeper unavailable",
        "Keeper did not answer GET /healthz: check guide.keeper.base_url and that Keeper runs",
    )
    return Response(
        render_problem(document),
        status_code=503,
        media_type=PROBLEM_CONTENT_TYPE,
        headers={"Cache-Control": "no-store"},
    )
