"""telemetry: where metrics are exported (OpenTelemetry)."""

from __future__ import annotations

from pydantic import Field

from lorebase_platform.settings.base import Section, seconds


class TelemetrySettings(Section):
    otlp_endpoint: str | None = Field(
        default=None,
        description="OTLP/HTTP endpoint metrics are exported to (http://host:4318); "
        "empty: nothing is exported.",
    )
    export_interval_s: float = seconds(60.0, "Seconds between two exports of the metrics.")
