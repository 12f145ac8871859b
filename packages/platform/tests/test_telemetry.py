"""Metrics: counted in process, and sent over OTLP/HTTP only to a configured endpoint."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
)
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from lorebase_platform.settings import TelemetrySettings
from lorebase_platform.telemetry import Metrics, tracer_provider


class Collector(ThreadingHTTPServer):
    """An OTLP/HTTP receiver on loopback: keeps the metric requests it is sent."""

    def __init__(self) -> None:
        self.received: list[tuple[str, ExportMetricsServiceRequest]] = []
        super().__init__(("127.0.0.1", 0), _Receive)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def points(self, name: str) -> dict[str, int]:
        found: dict[str, int] = {}
        for _path, request in self.received:
            for resource in request.resource_metrics:
                for scope in resource.scope_metrics:
                    for metric in scope.metrics:
                        if metric.name == name:
                            for point in metric.sum.data_points:
                                attributes = {a.key: a.value.string_value for a in point.attributes}
                                found[attributes.get("reason", "")] = point.as_int
        return found


class _Receive(BaseHTTPRequestHandler):
    server: Collector

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        request = ExportMetricsServiceRequest()
        request.ParseFromString(body)
        self.server.received.append((self.path, request))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def collector() -> Iterator[Collector]:
    server = Collector()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_counters_are_readable_without_an_exporter() -> None:
    metrics = Metrics(TelemetrySettings(), "lorebase-test")
    dropped = metrics.counter("lorebase.trace.steps.dropped", "Steps not written")
    dropped.add(2, {"reason": "queue_full"})
    dropped.add(1, {"reason": "shutdown"})
    assert metrics.value("lorebase.trace.steps.dropped") == 3
    assert metrics.value("lorebase.trace.steps.dropped", {"reason": "shutdown"}) == 1
    assert metrics.value("lorebase.trace.steps.recorded") == 0
    metrics.shutdown()


def test_two_services_keep_their_own_counts() -> None:
    first, second = (Metrics(TelemetrySettings(), "lorebase-test") for _ in range(2))
    first.counter("lorebase.trace.steps.recorded", "Steps written").add(5)
    assert second.value("lorebase.trace.steps.recorded") == 0
    first.shutdown()
    second.shutdown()


def test_an_endpoint_receives_the_counters_over_otlp_http(collector: Collector) -> None:
    settings = TelemetrySettings(otlp_endpoint=collector.url, export_interval_s=3600)
    metrics = Metrics(settings, "lorebase-test")
    metrics.counter("lorebase.trace.steps.dropped", "Steps not written").add(
        4, {"reason": "write_failed"}
    )
    metrics.flush()
    assert [path for path, _ in collector.received] == ["/v1/metrics"]
    assert collector.points("lorebase.trace.steps.dropped") == {"write_failed": 4}
    resource = collector.received[0][1].resource_metrics[0].resource
    assert {a.key: a.value.string_value for a in resource.attributes}["service.name"] == (
        "lorebase-test"
    )
    metrics.shutdown()


def test_histograms_count_what_they_record() -> None:
    metrics = Metrics(TelemetrySettings(), "lorebase-test")
    duration = metrics.histogram("lorebase.test.duration", "Seconds")
    duration.record(0.5, {"route": "/a"})
    duration.record(1.5, {"route": "/a"})
    duration.record(0.1, {"route": "/b"})
    assert metrics.count("lorebase.test.duration") == 3
    assert metrics.count("lorebase.test.duration", {"route": "/a"}) == 2
    assert metrics.count("lorebase.test.other") == 0
    metrics.shutdown()


def test_a_tracer_provider_sends_spans_to_its_exporters() -> None:
    spans = InMemorySpanExporter()
    provider = tracer_provider(TelemetrySettings(), "lorebase-test", [spans])
    with provider.get_tracer("test").start_as_current_span("work"):
        pass
    [span] = spans.get_finished_spans()
    assert span.name == "work"
    assert span.resource.attributes["service.name"] == "lorebase-test"
    provider.shutdown()
