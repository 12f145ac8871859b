"""What each Keeper request of a tool call carries: the caller's credential and the trace headers.

One `AsyncLorebaseClient` (one connection pool) serves every tool call. What differs per call
(the MCP tool's name, the session id, the Authorization header of an HTTP caller, the opt-in
header) is a `CallScope` in a context variable, set by the tool call for its own task, and
`KeeperTransport` writes it onto each request as it leaves, together with a `traceparent` of a
child span of the tool call's span (docs/mcp.md, "The agent trace").
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import httpx
from opentelemetry import trace
from opentelemetry.trace import SpanKind, Status, StatusCode
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator


@dataclass(frozen=True, kw_only=True)
class TraceHeaders:
    """Keeper's names of the agent trace's headers (keeper.trace.*_header)."""

    session: str
    tool: str
    opt_in: str


@dataclass(frozen=True, kw_only=True)
class CallScope:
    """What the Keeper requests of one tool call send besides the request itself.

    `authorization` replaces Herald's own credential (None: Herald's key, if it has one);
    `trace` False sends none of the trace headers and no traceparent.
    """

    tool: str
    session_id: str | None = None
    authorization: str | None = None
    opt_in: str | None = None
    trace: bool = True


_scope: ContextVar[CallScope | None] = ContextVar("lorebase_herald_call", default=None)


@contextmanager
def calling(scope: CallScope) -> Iterator[None]:
    """Make `scope` the one of the Keeper requests sent in this task until the block ends."""
    token = _scope.set(scope)
    try:
        yield
    finally:
        _scope.reset(token)


class KeeperTransport(httpx.AsyncBaseTransport):
    """An httpx transport that adds the current `CallScope` to every request it sends."""

    def __init__(
        self,
        inner: httpx.AsyncBaseTransport,
        *,
        headers: TraceHeaders,
        tracer: trace.Tracer,
    ) -> None:
        self._inner = inner
        self._headers = headers
        self._tracer = tracer
        self._propagator = TraceContextTextMapPropagator()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        scope = _scope.get()
        if scope is None:
            return await self._inner.handle_async_request(request)
        if scope.authorization is not None:
            request.headers["Authorization"] = scope.authorization
        if not scope.trace:
            return await self._inner.handle_async_request(request)
        request.headers[self._headers.tool] = scope.tool
        if scope.session_id is not None:
            request.headers[self._headers.session] = scope.session_id
        if scope.opt_in is not None:
            request.headers[self._headers.opt_in] = scope.opt_in
        name = f"keeper {request.method} {request.url.path}"
        with self._tracer.start_as_current_span(name, kind=SpanKind.CLIENT) as span:
            carrier: dict[str, str] = {}
            self._propagator.inject(carrier)
            request.headers.update(carrier)
            span.set_attribute("http.request.method", request.method)
            span.set_attribute("url.path", request.url.path)
            response = await self._inner.handle_async_request(request)
            span.set_attribute("http.response.status_code", response.status_code)
            if response.status_code >= 500:
                span.set_status(Status(StatusCode.ERROR))
            return response

    async def aclose(self) -> None:
        await self._inner.aclose()
