"""Errors of Keeper and the one place that renders every error as a problem document."""

from __future__ import annotations

import logging
import re

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
_PARAMETER = re.compile(r"\{[^}]+\}")


def _allowed_methods(request: Request) -> str:
    """The methods of the path: as the OpenAPI document lists them, else as the routes serve.

    The document's path parameters are single segments, so `/branches/x/merge` is the merge
    route's, not a GET of the branch `x/merge` (the routes, which take `/` in branch names,
    would say both). Starlette's own 405 names the first matching route's methods only.
    """
    path = request.scope["path"]
    documented: set[str] = set()
    for template, operations in request.app.openapi()["paths"].items():
        pattern = "[^/]+".join(re.escape(part) for part in _PARAMETER.split(template))
        if re.fullmatch(pattern, path):
            documented.update(method.upper() for method in operations)
    if documented:
        return ", ".join(method for method in _METHODS if method in documented)
    routes = request.app.router.routes
    served = [
        method
        for method in _METHODS
        if any(
            route.matches({**request.scope, "method": method})[0] == Match.FULL for route in routes
        )
    ]
    return ", ".join(served)


async def _unauthenticated(request: Request) -> JSONResponse | None:
    """The 401 of a request without a valid credential, or None when it has one.

    A request is checked (by FastAPI, or by a route parsing its body) before the route asks who
    calls; without a valid key the answer is the 401, never what the request's input says.
    """
    try:
        await run_in_threadpool(request.app.state.keeper.authenticator.principal, request)
    except Unauthorized as refused:
        return _response(problem_document(refused, instance=request.url.path), 401)
    return None


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(LorebaseError)
    async def lorebase_error(request: Request, exc: LorebaseError) -> JSONResponse:
        if exc.status >= 500 and exc.status != 501:
            logger.error(
                "internal error on %s %s: %s", request.method, request.url.path, type(exc).__name__
            )
        elif 400 <= exc.status < 500 and exc.status != 401:
            refused = await _unauthenticated(request)
            if refused is not None:
                return refused
        return _response(problem_document(exc, instance=request.url.path), exc.status)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        refused = await _unauthenticated(request)
        if refused is not None:
            return refused
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
