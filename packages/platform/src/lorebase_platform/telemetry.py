"""Metrics through OpenTelemetry, exported over OTLP/HTTP when `telemetry.otlp_endpoint` is set.

Each service (one Keeper app, say) owns a `Metrics`: its own MeterProvider, so two apps in one
process (tests) never mix their counts. Every provider also has an in-memory reader, which is
how `Metrics.value` reads a counter back without an exporter: tests and `/readyz`-style
reports see the numbers an exporter would send. Without an endpoint nothing leaves the process.
"""

from __future__ import annotations

from collections.abc import Mapping

from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.metrics import Counter
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import (
    InMemoryMetricReader,
    MetricReader,
    PeriodicExportingMetricReader,
)
from opentelemetry.sdk.resources import Resource

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

    def counter(self, name: str, description: str, unit: str = "1") -> Counter:
        """The counter `name`, made on first use."""
        found = self._counters.get(name)
        if found is None:
            found = self._meter.create_counter(name, unit=unit, description=description)
            self._counters[name] = found
        return found

    def value(self, name: str, attributes: Attributes | None = None) -> int:
        """The sum counted so far under `name` (with exactly `attributes`, when given)."""
        data = self._memory.get_metrics_data()
        total = 0
        for resource in data.resource_metrics if data is not None else ():
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    if metric.name != name:
                        continue
                    for point in metric.data.data_points:
                        if attributes is None or dict(point.attributes or {}) == dict(attributes):
                            total += int(getattr(point, "value", 0))
        return total

    def flush(self) -> None:
        """Export what is counted now (an exporter otherwise sends every export_interval_s)."""
        self._provider.force_flush()

    def shutdown(self) -> None:
        self._provider.shutdown()
