"""Guide's metrics, spans and access log (docs/guide.md, "Observability").

`GuideTelemetry` holds the service's own `Metrics` and TracerProvider (exported over OTLP/HTTP
when telemetry.otlp_endpoint is set, readable in process always). `RequestTelemetry` is the ASGI
middleware of every request: one server span (a child of the caller's `traceparent`), the
counter lorebase.guide.requests and the histogram lorebase.guide.request.duration by route,
method and status, and one access-log line with method, route, status and duration only: no
query string, header, body or credential.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

from opentelemetry import trace
from opentelemetry.sdk.trace.export import SpanExporter
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lorebase_platform.settings import TelemetrySettings
from lorebase_platform.telemetry import Metrics, tracer_provider

SERVICE = "lorebase-guide"
VERSION = "0.1.0"
REQUESTS = "lorebase.guide.requests"
REQUEST_DURATION = "lorebase.guide.request.duration"
EMBEDDINGS = "lorebase.guide.embeddings"
REFUSED = "lorebase.guide.refused"

access_log = logging.getLogger("lorebase_guide.access")


class GuideTelemetry:
    """The counters, histograms and tracer of one Guide app."""

    def __init__(self, settings: TelemetrySettings, exporters: Sequence[SpanExporter] = ()) -> None:
        self.metrics = Metrics(settings, SERVICE)
        self.provider = tracer_provider(settings, SERVICE, exporters)
        self.tracer = self.provider.get_tracer("lorebase_guide", VERSION)
        self.requests = self.metrics.counter(REQUESTS, "Requests Guide answered")
        self.duration = self.metrics.histogram(
            REQUEST_DURATION, "Seconds from a request to the end of its answer (streams too)"
        )
        self.embeddings = self.metrics.counter(EMBEDDINGS, "Texts POST /embed embedded")
        self.refused = self.metrics.counter(REFUSED, "Requests refused before any work, by reason")

    def refuse(self, reason: str) -> None:
        self.refused.add(1, {"reason": reason})

    def shutdown(self) -> None:
        self.metrics.shutdown()
        self.provider.shutdown()


def route_of(scope: Scope) -> str:
    """The route template of a request Starlette routed, else `unmatched` (never the raw path,
    which could hold anything)."""
    route = scope.get("route")
    path = getattr(route, "path", None)
    return path if isinstance(path, str) else "unmatched"


class RequestTelemetry:
    """Span, metrics and access log of each HTTP request."""

    def __init__(self, app: ASGIApp, telemetry: GuideTelemetry) -> None:
        self.app = app
        self.telemetry = telemetry
        self._propagator = TraceContextTextMapPropagator()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method = str(scope.get("method", ""))
        carrier = {
            name.decode("latin-1").lower(): value.decode("latin-1")
            for name, value in scope.get("headers", [])
            if name.lower() in (b"traceparent", b"tracestate")
        }
        parent = self._propagator.extract(carrier) if carrier else None
        status = 500
        started = time.perf_counter()

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        with self.telemetry.tracer.start_as_current_span(
            method, context=parent, kind=trace.SpanKind.SERVER
        ) as span:
            try:
                await self.app(scope, receive, sending)
            finally:
                route = route_of(scope)
                elapsed = time.perf_counter() - started
                span.update_name(f"{method} {route}")
                span.set_attribute("http.request.method", method)
                span.set_attribute("http.route", route)
                span.set_attribute("http.response.status_code", status)
                if status >= 500:
                    span.set_status(trace.StatusCode.ERROR)
                attributes = {"route": route, "method": method, "status": str(status)}
                self.telemetry.requests.add(1, attributes)
                self.telemetry.duration.record(elapsed, attributes)
                access_log.info("%s %s %d %.1f ms", method, route, status, elapsed * 1000)
