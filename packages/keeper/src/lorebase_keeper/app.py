"""Keeper's ASGI application."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from lorebase_keeper.answers import AnswerCache
from lorebase_keeper.auth import Authenticator
from lorebase_keeper.errors import install_error_handlers
from lorebase_keeper.limits import BodyLimit
from lorebase_keeper.openapi import install_openapi
from lorebase_keeper.reading import Keeper
from lorebase_keeper.routes import (
    context,
    data_health,
    health,
    history,
    operations,
    principals,
    proposals,
    queries,
    records,
    resolve,
    revisions,
    search,
    unfinished,
)
from lorebase_keeper.segments import PathSegments
from lorebase_platform.settings import Settings
from lorebase_store.store import Store

VERSION = "0.1.0"


def create_app(settings: Settings, store: Store | None = None) -> FastAPI:
    """Keeper over `store` (opened from settings when not given, and closed with the app)."""
    owned = store is None

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        if owned:
            app.state.store.close()

    app = FastAPI(
        title="Lorebase Keeper",
        version=VERSION,
        lifespan=lifespan,
        description="The REST API of Lorebase: governed, versioned knowledge graphs for agents.",
    )
    app.state.settings = settings
    app.state.store = store if store is not None else Store.from_settings(settings.database)
    app.state.keeper = Keeper(
        settings,
        app.state.store,
        Authenticator(settings, app.state.store),
        AnswerCache(settings.keeper.cache),
    )
    install_error_handlers(app)
    app.add_middleware(BodyLimit, max_body_bytes=settings.keeper.max_body_bytes)
    app.add_middleware(PathSegments)
    # planned routes first: /branches/{branch:path} would swallow /branches/main/changes
    for module in (
        health,
        principals,
        unfinished,
        operations,
        proposals,
        records,
        history,
        queries,
        context,
        resolve,
        search,
        data_health,
        revisions,
    ):
        app.include_router(module.router)
    install_openapi(app, settings)
    return app
