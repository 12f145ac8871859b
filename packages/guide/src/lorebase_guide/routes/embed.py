"""POST /embed: one text as a vector of the embedding model Scribe stores vectors with."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from lorebase_guide.bodies import embed_request
from lorebase_guide.routes.checks import checked


async def embed(request: Request) -> Response:
    """Checks in the order of docs/guide.md ("Order of the checks"), then one embedding."""
    passed = await checked(request, embed_request)
    guide, body = passed.guide, passed.body
    guide.limits.admit_embed(passed.principal)
    embedder = guide.usable_embedder()
    try:
        [vector] = await embedder.embed([body.text], body.mode)
    except Exception:
        guide.telemetry.embeddings.add(1, {"mode": body.mode, "outcome": "unavailable"})
        raise
    guide.telemetry.embeddings.add(1, {"mode": body.mode, "outcome": "ok"})
    return JSONResponse(
        {"model": embedder.model, "dims": len(vector), "mode": body.mode, "vector": vector},
        headers={"Cache-Control": "no-store"},
    )
