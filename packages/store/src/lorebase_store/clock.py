"""The time the store stamps on the rows it writes."""

from __future__ import annotations

from datetime import UTC, datetime

from lorebase_core.values import format_datetime


def now_stamp() -> str:
    """Now, as `format_datetime` writes time stamps (UTC, microseconds unless on the second)."""
    return format_datetime(datetime.now(UTC))
