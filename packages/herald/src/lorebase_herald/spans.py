"""Herald's spans: a tracer of its own, exported over OTLP/HTTP when telemetry.otlp_endpoint is set.

Each tool call is a span (a child of the caller's trace context when the MCP request carries
one, or of the span active in Herald), and each Keeper request a child span of it
(calls.KeeperTransport). Herald has its own TracerProvider, so spans exist and traceparents are
sent even when nothing exports them; without an endpoint nothing leaves the process.
"""

from __future__ import annotations

from collections.abc import Sequence

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor, SpanExporter

from lorebase_platform.settings import TelemetrySettings

SERVICE = "lorebase-herald"


def tracer_provider(
    settings: TelemetrySettings, exporters: Sequence[SpanExporter] = ()
) -> TracerProvider:
    """Herald's provider: OTLP export when configured, and `exporters` (tests read spans back)."""
    provider = TracerProvider(resource=Resource.create({"service.name": SERVICE}))
    if settings.otlp_endpoint:
        endpoint = settings.otlp_endpoint.rstrip("/") + "/v1/traces"
        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint)))
    for exporter in exporters:
        provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider
