"""Time stamps of steps and audit entries: stored so that text order is time order.

`format_datetime` strings do not sort as text within one second (`...:00Z` sorts after
`...:00.5Z`), so the trace and read audit tables keep them with microseconds always
(`stored`), which sorts and compares in SQL like the instants do; reads give them back as
`format_datetime` strings (`shown`).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from lorebase_core.errors import BadRequest, quoted
from lorebase_core.values import format_datetime

STORED = "%Y-%m-%dT%H:%M:%S.%fZ"


def moment(text: str) -> datetime:
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise BadRequest(
            f"time stamp {quoted(text)} is not ISO 8601 (2026-01-31T12:00:00Z)"
        ) from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def stored(text: str) -> str:
    """The form a time stamp is kept and compared in: UTC, always with microseconds."""
    return moment(text).strftime(STORED)


def shown(text: str) -> str:
    """A kept time stamp as the API gives them (`format_datetime`)."""
    return format_datetime(moment(text))


def shifted(text: str, delta: timedelta) -> str:
    """`text` moved by `delta`, in the stored form (a bound in SQL)."""
    return (moment(text) + delta).strftime(STORED)
