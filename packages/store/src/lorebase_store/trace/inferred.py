"""Inferred sessions: steps without a session id grouped by client and time (docs/trace.md).

A step joins the session of its client whose window `[first_at - idle, last_at + idle]` holds
its `at`, the nearest one; otherwise it starts a new one. Steps are placed in order of `at`, not
of arrival, so calls that finish out of order still share a session, and each step widens the
window of the session it joins.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

PREFIX = "inferred-"


def new_inferred_id() -> str:
    return PREFIX + secrets.token_hex(8)


@dataclass
class Window:
    """A session's span so far; `row` is None for a session this batch starts."""

    session_id: str
    row: int | None
    first: datetime
    last: datetime

    def distance(self, at: datetime) -> timedelta:
        if at < self.first:
            return self.first - at
        if at > self.last:
            return at - self.last
        return timedelta(0)


def place(windows: list[Window], moments: Sequence[datetime], idle: timedelta) -> list[Window]:
    """The window each moment joins (index for index); `windows` grows with the new sessions."""
    placed: list[Window | None] = [None] * len(moments)
    for index in sorted(range(len(moments)), key=lambda i: moments[i]):
        at = moments[index]
        near = [window for window in windows if window.distance(at) <= idle]
        if near:
            # nearest first; of two as near, the later session (the one still going on)
            window = min(near, key=lambda w: (w.distance(at), -w.last.timestamp()))
            window.first = min(window.first, at)
            window.last = max(window.last, at)
        else:
            window = Window(session_id=new_inferred_id(), row=None, first=at, last=at)
            windows.append(window)
        placed[index] = window
    return [window for window in placed if window is not None]
