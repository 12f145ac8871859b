"""Keeper's ASGI application."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi_offline import FastAPIOffline

from lorebase_keeper.answers import AnswerCache
from lorebase_keeper.auth import Authenticator, AuthModeHeader
from lorebase_keeper.browser_headers import SecurityHeaders, install_cors
from lorebase_keeper.csrf import CsrfCheck
from lorebase_keeper.errors import RequestLog, RouteSeen, install_error_handlers
from lorebase_keeper.fast_answers import FastAnswers
from lorebase_keeper.feed_stream import FeedState
from lorebase_keeper.limits import BodyLimit
from lorebase_keeper.loopback import require_safe_auth
from lorebase_keeper.openapi import install_openapi
from lorebase_keeper.rate_limits import RateLimitHeaders
from lorebase_keeper.reading import Keeper
from lorebase_keeper.routes import (
    audit,
    context,
    data_health,
    feed,
    health,
    history,
    oidc,
    operation_catalog,
    operations,
    principals,
    proposals,
    queries,
    records,
    resolve,
    revisions,
    search,
    sessions,
    trace,
    webhooks,
)
from lorebase_keeper.segments import PathSegments
from lorebase_keeper.text import ValidText
from lorebase_keeper.trace.middleware import TraceMiddleware
from lorebase_keeper.trace.recorder import Recorder
from lorebase_keeper.web_files import WebFiles, check_dist
from lorebase_platform.settings import Settings
from lorebase_platform.telemetry import Metrics
from lorebase_store import HeadWatch, Store

VERSION = "0.1.0"


def create_app(settings: Settings, store: Store | None = None) -> FastAPI:
    """Keeper over `store` (opened from settings when not given, and closed with the app).

    Raises:
        UnsafeSettings: auth mode `none` with a `keeper.host` that is not loopback, an OIDC
            mode without its issuer, keeper.rate_limits.mode `shared` on SQLite, or a
            keeper.web.dist that is not a web app's build.
    """
    require_safe_auth(settings.keeper.host, settings.keeper.auth)
    if settings.keeper.web.dist is not None:
        check_dist(settings.keeper.web.dist)  # before the store opens
    owned = store is None

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.heads.start()  # PostgreSQL's notices heard on the server's own event loop
        yield
        await app.state.feed.notices.close()
        app.state.heads.close()
        app.state.keeper.recorder.close()  # what is queued is written before the store closes
        app.state.metrics.shutdown()
        app.state.keeper.authenticator.close()
        if owned:
            app.state.store.close()

    # /docs and /redoc serve their assets from the installed package: no CDN, so they work offline
    app = FastAPIOffline(
        title="Lorebase Keeper",
        version=VERSION,
        lifespan=lifespan,
        description="The REST API of Lorebase: governed, versioned knowledge graphs for agents.",
    )
    app.state.settings = settings
    app.state.store = store if store is not None else Store.from_settings(settings.database)
    app.state.metrics = Metrics(settings.telemetry, "lorebase-keeper")
    recorder = Recorder(settings, app.state.store, app.state.metrics)
    app.state.keeper = Keeper(
        settings,
        app.state.store,
        Authenticator(settings, app.state.store),
        AnswerCache(settings.keeper.cache),
        recorder,
    )
    app.state.feed = FeedState.make(settings.agents.feed, app.state.store)
    app.state.heads = HeadWatch(app.state.store.engine, app.state.feed.notices)
    install_error_handlers(app)
    # the last added runs first: logged, CSRF checked, traced, text and segments checked, the
    # body read and checked, the rate-limit headers of the request's charge added, a repeated
    # read answered from memory
    cache = settings.keeper.cache
    if cache.fast_path and cache.max_entries > 0 and not settings.keeper.auth.audit.reads:
        app.add_middleware(FastAnswers, keeper=app.state.keeper, heads=app.state.heads)
    app.add_middleware(RouteSeen)
    if settings.keeper.rate_limits.enabled:
        app.add_middleware(RateLimitHeaders)
    app.add_middleware(
        BodyLimit,
        max_body_bytes=settings.keeper.max_body_bytes,
        body_timeout_s=settings.keeper.http.body_timeout_s,
    )
    app.add_middleware(PathSegments)
    app.add_middleware(ValidText)
    if settings.keeper.trace.enabled or settings.keeper.auth.audit.reads:
        app.add_middleware(TraceMiddleware, settings=settings, recorder=recorder)
    auth = settings.keeper.auth
    if auth.mode != "none" and auth.sessions.enabled:
        # before the trace and every route: a forged request is refused before anything runs
        app.add_middleware(CsrfCheck, settings=auth.sessions)
    app.add_middleware(RequestLog)
    if settings.keeper.auth.mode == "none":
        app.add_middleware(AuthModeHeader)
    install_cors(app, settings)  # outside the log: a preflight is answered before routing
    app.add_middleware(SecurityHeaders, sessions=settings.keeper.auth.sessions)
    # the feed before revisions: /branches/{branch:path} would swallow /branches/main/changes
    for module in (
        health,
        principals,
        oidc,
        sessions,
        feed,
        operations,
        operation_catalog,
        proposals,
        records,
        history,
        queries,
        context,
        resolve,
        search,
        data_health,
        revisions,
        trace,
        audit,
        webhooks,
    ):
        app.include_router(module.router)
    install_openapi(app, settings)
    if settings.keeper.web.dist is not None:
        app.router.default = WebFiles(settings.keeper.web.dist, settings, app.router.not_found)
    return app
