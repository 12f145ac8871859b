"""Keeper's ASGI application."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi_offline import FastAPIOffline

from lorebase_keeper.auth.authenticate import Authenticator
from lorebase_keeper.auth.loopback import require_safe_auth
from lorebase_keeper.feed.stream import FeedState
from lorebase_keeper.http.errors import install_error_handlers
from lorebase_keeper.http.openapi import install_openapi
from lorebase_keeper.middleware.web_files import WebFiles, check_dist
from lorebase_keeper.reads.answers import AnswerCache
from lorebase_keeper.reads.reading import Keeper
from lorebase_keeper.routes import trace
from lorebase_keeper.routes.auth import oidc, principals, sessions
from lorebase_keeper.routes.feed import changes, webhooks
from lorebase_keeper.routes.reads import (
    audit,
    context,
    data_health,
    health,
    history,
    operation_catalog,
    queries,
    records,
    resolve,
    revisions,
    search,
)
from lorebase_keeper.routes.writes import operations, proposals
from lorebase_keeper.stack import install_middleware
from lorebase_keeper.trace.recorder import Recorder
from lorebase_platform.settings import Settings
from lorebase_platform.telemetry import Metrics
from lorebase_store import HeadWatch, Store

VERSION = "0.1.0"

ROUTERS = (
    health.router,
    principals.router,
    oidc.router,
    sessions.router,
    changes.router,
    operations.router,
    operation_catalog.router,
    proposals.router,
    records.router,
    history.router,
    queries.router,
    context.router,
    resolve.router,
    search.router,
    data_health.router,
    revisions.router,
    trace.router,
    audit.router,
    webhooks.router,
)
"""Keeper's routes, in the order they are tried: the feed before revisions, whose
/branches/{branch:path} would swallow /branches/main/changes."""


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
    install_middleware(app, settings, recorder)
    for router in ROUTERS:
        app.include_router(router)
    install_openapi(app, settings)
    if settings.keeper.web.dist is not None:
        app.router.default = WebFiles(settings.keeper.web.dist, settings, app.router.not_found)
    return app
