"""Errors of Keeper and the one place that renders every error as a problem document."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from lorebase_core.errors import Issue, LorebaseError, Unauthorized
from lorebase_platform.problems import PROBLEM_CONTENT_TYPE, problem, problem_document

logger = logging.getLogger("lorebase.keeper")


class NotImplementedYet(LorebaseError):
    """A part of the API that is planned and not built: 501, naming the missing piece."""

    status = 501
    code = "not-implemented"
    title = "Not implemented yet"


def _response(
    document: dict[str, object], status: int, headers: dict[str, str] | None = None
) -> JSONResponse:
    if status == 401:
        headers = {**(headers or {}), "WWW-Authenticate": 'Bearer realm="lorebase"'}
    return JSONResponse(
        document, status_code=status, media_type=PROBLEM_CONTENT_TYPE, headers=headers
    )


_METHODS = ("DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT")


def _allowed_methods(request: Request) -> str:
    """Every method some route serves on the path (Starlette's 405 names one route's only)."""
    routes = request.app.router.routes
    allowed = [
        method
        for method in _METHODS
        if any(
            route.matches({**request.scope, "method": method})[0] == Match.FULL for route in routes
        )
    ]
    return ", ".join(allowed)


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(LorebaseError)
    async def lorebase_error(request: Request, exc: LorebaseError) -> JSONResponse:
        if exc.status >= 500 and exc.status != 501:
            logger.error(
                "internal error on %s %s: %s", request.method, request.url.path, type(exc).__name__
            )
        return _response(problem_document(exc, instance=request.url.path), exc.status)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        # FastAPI checks the request before the route asks who calls: without a valid
        # credential the answer is the 401 the route would give, not the request's issues
        try:
            await run_in_threadpool(request.app.state.keeper.authenticator.principal, request)
        except Unauthorized as refused:
            return _response(problem_document(refused, instance=request.url.path), 401)
        # the same code and paths as our own validation: `limit`, `name`, not `query.limit`
        issues = [
            Issue(
                ".".join(str(part) for part in error["loc"][1:]) or str(error["loc"][0]),
                error["msg"],
                error["type"],
            )
            for error in exc.errors()
        ]
        malformed = any(error["type"] == "json_invalid" for error in exc.errors())
        status, code, title = (
            (400, "malformed-json", "Malformed JSON")
            if malformed
            else (422, "invalid-input", "Invalid input")
        )
        document = problem(
            status,
            code,
            title,
            f"{len(issues)} problem(s) in the request",
            issues=issues,
            instance=request.url.path,
        )
        return _response(document, status)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not-found", 405: "method-not-allowed"}.get(exc.status_code, "http-error")
        document = problem(
            exc.status_code,
            code,
            str(exc.detail),
            f"{request.method} {request.url.path}: {exc.detail}",
            instance=request.url.path,
        )
        headers = dict(exc.headers or {})
        if exc.status_code == 405:
            headers["Allow"] = _allowed_methods(request)
        return _response(document, exc.status_code, headers)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        logger.exception("unexpected error on %s %s", request.method, request.url.path)
        document = problem(
            500,
            "internal",
            "Internal error",
            "Keeper failed to answer; the error is logged.",
            instance=request.url.path,
        )
        return _response(document, 500)
