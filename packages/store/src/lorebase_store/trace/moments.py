"""Time stamps of steps: strings of `format_datetime`, compared as instants.

The strings do not sort as text within one second (`...:00Z` > `...:00.5Z`), so windows and
minimums are computed on datetimes; SQL filters on the strings are widened by a second.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from lorebase_core.errors import BadRequest, quoted
from lorebase_core.values import format_datetime

SLACK = timedelta(seconds=1)


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


def earliest(*texts: str) -> str:
    return min(texts, key=moment)


def latest(*texts: str) -> str:
    return max(texts, key=moment)


def shifted(text: str, delta: timedelta) -> str:
    """`text` moved by `delta`, as a string for SQL bounds."""
    return format_datetime(moment(text) + delta)
