"""A branch's event stream read: Server-Sent Events frames, and where a followed stream is.

`LorebaseClient.events` and `AsyncLorebaseClient.events` iterate the event documents of
GET /branches/{branch}/events (`follow` of _async/event_stream.py and its sync twin): lines go
through a `FrameParser`, frames through a `Follower`, which keeps the last event id and the wait
before reconnecting.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

DEFAULT_RETRY_S = 3.0
"""How long to wait before reconnecting until the stream says (`retry:`)."""


@dataclass
class Frame:
    """One SSE frame: its fields (`id`, `event`, `data`, `retry`) and comment lines."""

    fields: dict[str, str] = field(default_factory=dict)
    comments: list[str] = field(default_factory=list)


class FrameParser:
    """SSE lines in, frames out: a blank line ends a frame; `data` lines are joined."""

    def __init__(self) -> None:
        self.frame = Frame()

    def feed(self, line: str) -> Frame | None:
        """The frame a line ends, if it ends one."""
        found = self.frame
        if not line:
            self.frame = Frame()
            return found if found.fields or found.comments else None
        if line.startswith(":"):
            found.comments.append(line[1:].strip())
            return None
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data" and "data" in found.fields:
            value = found.fields["data"] + "\n" + value
        found.fields[name] = value
        return None


@dataclass
class Follower:
    """Where a followed stream is: the last event id received and the wait before reconnecting."""

    last_event_id: str | None = None
    retry_s: float = DEFAULT_RETRY_S

    def headers(self) -> dict[str, str]:
        headers = {"Accept": "text/event-stream"}
        if self.last_event_id is not None:
            headers["Last-Event-ID"] = self.last_event_id
        return headers

    def take(self, frame: Frame) -> dict[str, Any] | None:
        """The event document of a frame (None for `retry:` and keep-alive comments)."""
        retry = frame.fields.get("retry", "")
        if retry.isdigit():
            self.retry_s = int(retry) / 1000
        if "data" not in frame.fields:
            return None
        if "id" in frame.fields:
            self.last_event_id = frame.fields["id"]
        event: dict[str, Any] = json.loads(frame.fields["data"])
        return event
