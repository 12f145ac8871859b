"""POST /embed: one text as a vector of the embedding model Scribe stores vectors with."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from lorebase_guide.bodies import embed_request, read_json
from lorebase_guide.credentials import presented
from lorebase_guide.service import guide_of


async def embed(request: Request) -> Response:
    """Checks in the order of docs/guide.md ("Order of the checks"), then one embedding."""
    guide = guide_of(request)
    settings = guide.settings.guide
    guide.policy.check(request.headers)
    credential = presented(request.headers, settings.http)
    body = embed_request(await read_json(request, settings.http.max_body_bytes), settings.limits)
    principal = await guide.verifier.verify(credential)
    guide.limits.admit_embed(principal)
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
