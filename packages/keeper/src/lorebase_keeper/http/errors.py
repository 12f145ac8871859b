"""Errors of Keeper and the one place that renders every error as a problem document.

Log lines name the route (`/api/v1/domains/{domain}/kinds/{kind}/records/{key}`), never the
path, the query string or an exception's message: those carry keys and values (a database
error quotes the row it refused). An unexpected exception is logged as its types, the SQL
statement when there is one (its parameters are not in it) and where it was raised.
"""

from __future__ import annotations

import logging
import re
import time
import traceback
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, get_args

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lorebase_core.errors import (
    BranchNotFound,
    DomainNotFound,
    InvalidInput,
    Issue,
    LorebaseError,
    MalformedJson,
    MethodNotAllowed,
    NotFound,
    TooManyRequests,
    Unauthorized,
    quoted,
    shortened,
)
from lorebase_core.suggestions import hint
from lorebase_keeper.http.session_cookie import SIGN_IN
from lorebase_platform.problems import (
    PROBLEM_CONTENT_TYPE,
    problem,
    problem_document,
    render_problem,
)

if TYPE_CHECKING:
    from pydantic_core import ErrorDetails

logger = logging.getLogger("lorebase.keeper")
access_logger = logging.getLogger("lorebase.keeper.access")


class ProblemResponse(JSONResponse):
    """A problem document; rendering it cannot fail on the caller's text it quotes."""

    media_type = PROBLEM_CONTENT_TYPE

    def render(self, content: Any) -> bytes:  # as JSONResponse declares it
        return render_problem(content)


def _response(
    document: dict[str, object], status: int, extra_headers: Mapping[str, str] | None = None
) -> JSONResponse:
    headers = dict(extra_headers or {})
    if status == 401:
        headers["WWW-Authenticate"] = 'Bearer realm="lorebase"'
    return ProblemResponse(document, status_code=status, headers=headers)


def route_of(scope: Scope) -> str:
    """The route template that matched (`/api/v1/domains/{domain}/query`), for log lines."""
    route = scope.get("route")
    path = getattr(route, "path", None)
    return path if isinstance(path, str) else "(no route)"


def described(exc: BaseException) -> str:
    """An exception for the log without its messages: types, SQL statement, where raised."""
    lines: list[str] = []
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        kind = type(current)
        lines.append(f"{kind.__module__}.{kind.__qualname__}")
        statement = getattr(current, "statement", None)
        if isinstance(statement, str):
            lines.append(f"  SQL: {' '.join(statement.split())[:2000]}")
        sqlstate = getattr(getattr(current, "orig", None), "sqlstate", None)
        if isinstance(sqlstate, str):
            lines.append(f"  SQLSTATE {sqlstate}")
        frames = traceback.extract_tb(current.__traceback__)
        # our frames and the one that raised: the framework's dozens in between say little
        kept = [frame for frame in frames[:-1] if "lorebase_" in frame.filename] + frames[-1:]
        lines.extend(f"  {frame.filename}:{frame.lineno} in {frame.name}" for frame in kept)
        current = current.__cause__ or current.__context__
    return "\n".join(lines)


async def send_error(scope: Scope, receive: Receive, send: Send, error: LorebaseError) -> None:
    """Answer `error` from ASGI middleware, before any route ran."""
    document = problem_document(error, instance=scope.get("path", ""))
    await _response(document, error.status)(scope, receive, send)


ROUTE_SEEN = "lorebase.route"
"""Scope key of the holder `RouteSeen` fills for `RequestLog` (inner layers copy the scope)."""


class RouteSeen:
    """Pure ASGI middleware, innermost: tells `RequestLog` (and the trace) which route answered,
    with its path parameters."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await self.app(scope, receive, send)
        finally:
            holder = scope.get(ROUTE_SEEN)
            if isinstance(holder, dict):
                holder["route"] = route_of(scope)
                holder["path_params"] = dict(scope.get("path_params") or {})


class RequestLog:
    """Pure ASGI middleware, outermost: one log line per answer, and the 500 of last resort.

    The line names the method, the route template, the status and the time taken (logger
    `lorebase.keeper.access`), so `lorebase serve` turns uvicorn's access log off: it prints
    paths and query strings, which hold keys and values. An exception no handler took becomes
    a 500 problem document; Starlette's own last resort answers and then re-raises, so the
    server logs the traceback with its message (values) and drops the connection: this one logs
    `described(exc)` and the connection stays usable.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        holder: dict[str, object] = {}
        scope = {**scope, ROUTE_SEEN: holder}
        status = 0
        began = time.perf_counter()

        async def watched(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception as exc:
            route = holder.get("route", "(no route)")
            logger.error("unexpected error on %s %s:\n%s", scope["method"], route, described(exc))
            if status:
                raise RuntimeError("the answer failed after it started (logged above)") from None
            status = 500
            document = problem(
                500,
                "internal",
                "Internal error",
                "Keeper failed to answer; the error is logged.",
                instance=scope.get("path", ""),
            )
            await _response(document, 500)(scope, receive, send)
        finally:
            access_logger.info(
                "%s %s %d %.1fms",
                scope["method"],
                holder.get("route", "(no route)"),
                status,
                (time.perf_counter() - began) * 1000,
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
    if (request.method, request.url.path) == SIGN_IN:
        return None  # signing in takes no credential: its own input decides
    try:
        await run_in_threadpool(request.app.state.keeper.authenticator.principal, request)
    except Unauthorized as refused:
        return _response(problem_document(refused, instance=request.url.path), 401)
    except TooManyRequests as refused:  # this ask was the request's first: its rate charge
        document = problem_document(refused, instance=request.url.path)
        return _response(document, refused.status, {"Retry-After": str(refused.retry_after_s)})
    return None


def with_visible_names(request: Request, error: LorebaseError) -> LorebaseError:
    """An unknown Domain or branch, its message naming the closest the caller may read.

    The store raises these without knowing the caller, the grants check raises them before the
    store is asked: both come through here, so an unknown Domain and one the caller may not
    read answer from the same list (the Domains it may read), and so do branches.
    """
    if not isinstance(error, DomainNotFound | BranchNotFound) or error.unknown_name is None:
        return error
    keeper = request.app.state.keeper
    try:
        principal = keeper.authenticator.principal(request)
        if isinstance(error, DomainNotFound):
            domains = [
                domain.name
                for domain in keeper.store.domains()
                if "data.read" in principal.permissions(domain.name, None)
            ]
            return DomainNotFound.named(error.unknown_name, domains)
        if error.domain is None:
            return error
        branches = [
            branch.name
            for branch in keeper.store.branches(error.domain)
            if "data.read" in principal.permissions(error.domain, branch.name)
        ]
        return BranchNotFound.named(error.unknown_name, error.domain, branches)
    except LorebaseError:
        return error


def _model_of(annotation: object) -> type[BaseModel] | None:
    """The pydantic model an annotation holds (`list[Item] | None` holds `Item`)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for argument in get_args(annotation):
        found = _model_of(argument)
        if found is not None:
            return found
    return None


def body_members(request: Request, location: tuple[int | str, ...]) -> list[str] | None:
    """The members the route's body model takes at `location` (a validation error's `loc`
    without the member itself), as the caller writes them (aliases); None when unknown."""
    body_field = getattr(request.scope.get("route"), "body_field", None)
    model = _model_of(getattr(getattr(body_field, "field_info", None), "annotation", None))
    for part in location[1:]:  # the first part is "body"
        if model is None:
            return None
        if isinstance(part, int):
            continue
        field = next(
            (field for name, field in model.model_fields.items() if part in (name, field.alias)),
            None,
        )
        model = None if field is None else _model_of(field.annotation)
    if model is None:
        return None
    return sorted(field.alias or name for name, field in model.model_fields.items())


def _validation_issue(request: Request, error: ErrorDetails) -> Issue:
    """One validation error as an issue; a member the body does not take names those it does."""
    location = tuple(error["loc"])
    path = ".".join(shortened(str(part)) for part in location[1:]) or str(location[0])
    if error["type"] == "extra_forbidden" and location[:1] == ("body",) and len(location) > 1:
        members = body_members(request, location[:-1])
        if members:
            member = str(location[-1])
            suggestion = hint(member, members, "members", listed=0)
            use = f"{' Use' if suggestion else '; use'} {', '.join(members)}"
            return Issue(path, f"unknown member {quoted(member)}{suggestion}{use}", error["type"])
    return Issue(path, error["msg"], error["type"])


def install_error_handlers(app: FastAPI) -> None:
    """Every error as a problem document: ours, FastAPI's validation errors, Starlette's."""
    app.exception_handler(LorebaseError)(_lorebase_error)
    app.exception_handler(RequestValidationError)(_validation_error)
    app.exception_handler(StarletteHTTPException)(_http_error)


async def _lorebase_error(request: Request, exc: LorebaseError) -> JSONResponse:
    if exc.status >= 500 and exc.status != 501:
        logger.error(
            "internal error on %s %s: %s",
            request.method,
            route_of(request.scope),
            described(exc),
        )
    elif 400 <= exc.status < 500 and exc.status != 401:
        refused = await _unauthenticated(request)
        if refused is not None:
            return refused
        exc = await run_in_threadpool(with_visible_names, request, exc)
    retry = {"Retry-After": str(exc.retry_after_s)} if isinstance(exc, TooManyRequests) else None
    return _response(problem_document(exc, instance=request.url.path), exc.status, retry)


async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
    refused = await _unauthenticated(request)
    if refused is not None:
        return refused
    # the same code and paths as our own validation: `limit`, `name`, not `query.limit`
    issues = [_validation_issue(request, error) for error in exc.errors()]
    malformed = any(error["type"] == "json_invalid" for error in exc.errors())
    status, code, title = (
        (MalformedJson.status, MalformedJson.code, MalformedJson.title)
        if malformed
        else (InvalidInput.status, InvalidInput.code, InvalidInput.title)
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


async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
    if isinstance(exc.__cause__, RecursionError):
        # FastAPI answers a body its JSON decoding cannot nest that deep as a bare 400
        document = problem(
            MalformedJson.status,
            MalformedJson.code,
            MalformedJson.title,
            "The JSON body is nested too deeply to decode: keep bodies to a few dozen levels",
            issues=[Issue("", "the JSON body is nested too deeply", "too-deep")],
            instance=request.url.path,
        )
        return _response(document, MalformedJson.status)
    # the framework's own 404 and 405 carry the codes of our classes; others keep a generic one
    code = {404: NotFound.code, 405: MethodNotAllowed.code}.get(exc.status_code, "http-error")
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
