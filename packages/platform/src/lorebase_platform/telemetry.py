"""Metrics and spans through OpenTelemetry, exported over OTLP/HTTP when `telemetry.otlp_endpoint`
is set.

Each service (one Keeper app, say) owns a `Metrics`: its own MeterProvider, so two apps in one
process (tests) never mix their counts. Every provider also has an in-memory reader, which is
how `Metrics.value` reads a counter back without an exporter: tests and `/readyz`-style
reports see the numbers an exporter would send. Without an endpoint nothing leaves the process.

`tracer_provider` makes a service's own TracerProvider the same way: OTLP export of spans when
configured, and extra exporters (tests read spans back with an in-memory one).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.metrics import Counter, Histogram
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import (
    InMemoryMetricReader,
    MetricReader,
    PeriodicExportingMetricReader,
)
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor, SpanExporter

from lorebase_platform.settings import TelemetrySettings

Attributes = Mapping[str, str]


class Metrics:
    """The counters of one service, readable in process and exported when configured."""

    def __init__(self, settings: TelemetrySettings, service: str) -> None:
        self._memory = InMemoryMetricReader()
        readers: list[MetricReader] = [self._memory]
        if settings.otlp_endpoint:
            endpoint = settings.otlp_endpoint.rstrip("/") + "/v1/metrics"
            readers.append(
                PeriodicExportingMetricReader(
                    OTLPMetricExporter(endpoint=endpoint),
                    export_interval_millis=settings.export_interval_s * 1000,
                )
            )
        self._provider = MeterProvider(
            metric_readers=readers, resource=Resource.create({"service.name": service})
        )
        self._meter = self._provider.get_meter("lorebase")
        self._counters: dict[str, Counter] = {}
        self._histograms: dict[str, Histogram] = {}

    def counter(self, name: str, description: str, unit: str = "1") -> Counter:
        """The counter `name`, made on first use."""
        if name not in self._counters:
            made = self._meter.create_counter(name, unit=unit, description=description)
            self._counters[name] = made
        return self._counters[name]

    def histogram(self, name: str, description: str, unit: str = "s") -> Histogram:
        """The histogram `name` (durations, sizes), made on first use."""
        if name not in self._histograms:
            made = self._meter.create_histogram(name, unit=unit, description=description)
            self._histograms[name] = made
        return self._histograms[name]

    def count(self, name: str, attributes: Attributes | None = None) -> int:
        """How many values the histogram `name` recorded (with exactly `attributes`, when
        given)."""
        return self._total(name, attributes, "count")

    def value(self, name: str, attributes: Attributes | None = None) -> int:
        """The sum counted so far under `name` (with exactly `attributes`, when given)."""
        return self._total(name, attributes, "value")

    def _total(self, name: str, attributes: Attributes | None, member: str) -> int:
        """The sum of `member` over the data points of `name` read in memory."""
        data = self._memory.get_metrics_data()
        total = 0
        for resource in data.resource_metrics if data is not None else ():
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    if metric.name != name:
                        continue
                    for point in metric.data.data_points:
                        if attributes is None or dict(point.attributes or {}) == dict(attributes):
                            total += int(getattr(point, member, 0))
        return total

    def flush(self) -> None:
        """Export what is counted now (an exporter otherwise sends every export_interval_s)."""
        self._provider.force_flush()

    def shutdown(self) -> None:
        self._provider.shutdown()


def tracer_provider(
    settings: TelemetrySettings, service: str, exporters: Sequence[SpanExporter] = ()
) -> TracerProvider:
    """A service's own TracerProvider: spans exported over OTLP/HTTP to
    `settings.otlp_endpoint` when set, and to `exporters` (tests read spans back)."""
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    if settings.otlp_endpoint:
        endpoint = settings.otlp_endpoint.rstrip("/") + "/v1/traces"
        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint)))
    for exporter in exporters:
        provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider
