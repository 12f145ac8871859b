"""Every middleware of Keeper's app, in order: the one place that says what runs before what."""

from __future__ import annotations

from fastapi import FastAPI

from lorebase_keeper.auth.authenticate import AuthModeHeader
from lorebase_keeper.auth.csrf import CsrfCheck
from lorebase_keeper.auth.rate_limits import RateLimitHeaders
from lorebase_keeper.http.errors import RequestLog, RouteSeen
from lorebase_keeper.http.segments import PathSegments
from lorebase_keeper.middleware.body_limit import BodyLimit
from lorebase_keeper.middleware.browser_headers import SecurityHeaders, install_cors
from lorebase_keeper.middleware.text import ValidText
from lorebase_keeper.reads.fast_answers import FastAnswers
from lorebase_keeper.trace.middleware import TraceMiddleware
from lorebase_keeper.trace.recorder import Recorder
from lorebase_platform.settings import Settings


def install_middleware(app: FastAPI, settings: Settings, recorder: Recorder) -> None:
    """Add the middlewares `settings` turn on to `app` (its state holds `keeper` and `heads`).

    The last added runs first: browser headers, CORS, the auth-mode header, the log, the CSRF
    check, the trace, text and segments checked, the body read and checked, the rate-limit
    headers of the request's charge added, the route seen, a repeated read answered from memory.
    """
    keeper = settings.keeper
    if keeper.cache.fast_path and keeper.cache.max_entries > 0 and not keeper.auth.audit.reads:
        app.add_middleware(FastAnswers, keeper=app.state.keeper, heads=app.state.heads)
    app.add_middleware(RouteSeen)
    if keeper.rate_limits.enabled:
        app.add_middleware(RateLimitHeaders)
    app.add_middleware(
        BodyLimit, max_body_bytes=keeper.max_body_bytes, body_timeout_s=keeper.http.body_timeout_s
    )
    app.add_middleware(PathSegments)
    app.add_middleware(ValidText)
    if keeper.trace.enabled or keeper.auth.audit.reads:
        app.add_middleware(TraceMiddleware, settings=settings, recorder=recorder)
    if keeper.auth.mode != "none" and keeper.auth.sessions.enabled:
        # before the trace and every route: a forged request is refused before anything runs
        app.add_middleware(CsrfCheck, settings=keeper.auth.sessions)
    app.add_middleware(RequestLog)
    if keeper.auth.mode == "none":
        app.add_middleware(AuthModeHeader)
    install_cors(app, settings)  # outside the log: a preflight is answered before routing
    app.add_middleware(SecurityHeaders, sessions=keeper.auth.sessions)
