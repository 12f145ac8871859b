"""Guide's ASGI app: POST /explore, POST /embed, GET /healthz, GET /readyz (docs/guide.md).

`create_app(settings)` builds the app `lorebase-guide serve` runs. Refusals are problem
documents (application/problem+json) in Keeper's shape, with Retry-After on a 429 and
WWW-Authenticate on a 401; anything unexpected is a 500 with a generic detail and a log line
naming only the exception's type (`telemetry.RequestTelemetry` contains it).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

import httpx
from opentelemetry.sdk.trace.export import SpanExporter
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from lorebase_core.errors import EmbeddingUnavailable, LorebaseError, TooManyRequests
from lorebase_guide.cors import Cors
from lorebase_guide.limits import CallerLimits
from lorebase_guide.origins import OriginPolicy
from lorebase_guide.routes.embed import embed
from lorebase_guide.routes.explore import explore
from lorebase_guide.routes.health import healthz, readyz
from lorebase_guide.service import Explorer, Guide, guide_of
from lorebase_guide.telemetry import GuideTelemetry, RequestTelemetry
from lorebase_guide.verification import Verifier
from lorebase_inference import ChatModel, Embedder, embedder_for, endpoint_for, mode_memory_for
from lorebase_platform.problems import PROBLEM_CONTENT_TYPE, problem, render_problem
from lorebase_platform.settings import Settings

logger = logging.getLogger("lorebase_guide.app")

QUIET_LOGGERS = ("httpx", "httpcore")
"""The HTTP client's own loggers name every URL (so Record keys): kept at WARNING."""

HTTP_CODES = {404: "not-found", 405: "method-not-allowed"}


def create_app(
    settings: Settings,
    *,
    keeper_transport: httpx.AsyncBaseTransport | None = None,
    explorer: Explorer | None = None,
    embedder: Embedder | None = None,
    span_exporters: Sequence[SpanExporter] = (),
) -> Starlette:
    """Guide's app for `settings`.

    Args:
        settings: every setting; Guide reads guide, inference and telemetry.
        keeper_transport: an httpx transport to Keeper (tests: `httpx.ASGITransport`); None
            connects to guide.keeper.base_url.
        explorer: what runs an exploration (None: `lorebase_guide.exploration.explore`).
        embedder: the embedding model (None: `embedder_for(settings.inference.embeddings)`).
        span_exporters: more span exporters (tests read the server spans back).
    """
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)
    guide = _guide(settings, keeper_transport, explorer, embedder, span_exporters)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await guide.aclose()

    app = Starlette(
        routes=[
            Route("/explore", explore, methods=["POST"]),
            Route("/embed", embed, methods=["POST"]),
            Route("/healthz", healthz, methods=["GET"]),
            Route("/readyz", readyz, methods=["GET"]),
        ],
        middleware=[
            Middleware(RequestTelemetry, telemetry=guide.telemetry),
            Middleware(Cors, policy=guide.policy),
        ],
        exception_handlers={
            LorebaseError: _lorebase_error,
            HTTPException: _http_error,
        },
        lifespan=lifespan,
    )
    app.state.guide = guide
    return app


def _guide(
    settings: Settings,
    keeper_transport: httpx.AsyncBaseTransport | None,
    explorer: Explorer | None,
    embedder: Embedder | None,
    span_exporters: Sequence[SpanExporter],
) -> Guide:
    """What the routes share: `create_app`'s arguments made into checks, limits and models."""
    if explorer is None:
        from lorebase_guide.exploration import explore as run_exploration

        explorer = run_exploration
    policy = OriginPolicy.of(settings.guide.http)
    telemetry = GuideTelemetry(settings.telemetry, span_exporters)
    return Guide(
        settings=settings,
        policy=policy,
        verifier=Verifier(
            settings.guide.keeper,
            settings.guide.limits.max_concurrent_verifications,
            transport=keeper_transport,
        ),
        limits=CallerLimits(settings.guide.limits),
        telemetry=telemetry,
        model=ChatModel(
            endpoint_for(settings.inference.llm, settings.guide.agent.task),
            memory=mode_memory_for(settings),
        ),
        embedder=embedder if embedder is not None else _embedder(settings),
        explorer=explorer,
        keeper_transport=keeper_transport,
    )


def _embedder(settings: Settings) -> Embedder | None:
    try:
        return embedder_for(settings.inference.embeddings)
    except EmbeddingUnavailable as error:
        logger.warning("no embedding model: %s", error.detail)
        return None


def _problem_response(
    document: dict[str, object], status: int, headers: dict[str, str] | None = None
) -> Response:
    return Response(
        render_problem(document),
        status_code=status,
        media_type=PROBLEM_CONTENT_TYPE,
        headers={"Cache-Control": "no-store", **(headers or {})},
    )


async def _lorebase_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, LorebaseError)
    guide_of(request).telemetry.refuse(error.code)
    headers: dict[str, str] = {}
    if isinstance(error, TooManyRequests):
        headers["Retry-After"] = str(error.retry_after_s)
    if error.status == 401:
        headers["WWW-Authenticate"] = "Bearer"
    document = error.to_problem()
    document["instance"] = request.url.path
    return _problem_response(document, error.status, headers)


async def _http_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, HTTPException)
    code = HTTP_CODES.get(error.status_code, "bad-request")
    detail = (
        "No such route: Guide serves POST /explore, POST /embed, GET /healthz and GET /readyz"
        if error.status_code == 404
        else f"{request.method} is not allowed here"
    )
    document = problem(error.status_code, code, code.replace("-", " ").capitalize(), detail)
    return _problem_response(document, error.status_code, dict(error.headers or {}))
