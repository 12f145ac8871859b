"""Following a branch's event stream: Server-Sent Events read as dicts, reconnecting.

`LorebaseClient.events` and `AsyncLorebaseClient.events` iterate the event documents of
GET /branches/{branch}/events. Keeper closes a stream after agents.feed.max_connection_s and a
connection may drop: the iterator then waits the `retry:` the stream sent and reconnects with
`Last-Event-ID`, so no event is missed or repeated. An answer that is a problem document (401,
403, 404, 422, 429) raises its typed error and ends the iteration.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx

from lorebase_client.errors import error_from_response

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


def frames(lines: Iterable[str]) -> Iterator[Frame]:
    """The frames of SSE lines."""
    parser = FrameParser()
    for line in lines:
        frame = parser.feed(line)
        if frame is not None:
            yield frame


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


def follow(
    http: httpx.Client,
    request: Callable[[dict[str, str]], httpx.Request],
    follower: Follower,
    *,
    reconnect: bool = True,
    sleep: Callable[[float], None],
) -> Iterator[dict[str, Any]]:
    """The events of a stream, reconnecting after Keeper closes it or the connection drops."""
    while True:
        try:
            response = http.send(request(follower.headers()), stream=True)
            try:
                if response.status_code >= 400:
                    response.read()
                    raise error_from_response(response)
                for frame in frames(response.iter_lines()):
                    event = follower.take(frame)
                    if event is not None:
                        yield event
            finally:
                response.close()
        except (httpx.RemoteProtocolError, httpx.ReadError, httpx.ReadTimeout):
            pass  # dropped: reconnect like after a close
        if not reconnect:
            return
        sleep(follower.retry_s)


async def follow_async(
    http: httpx.AsyncClient,
    request: Callable[[dict[str, str]], httpx.Request],
    follower: Follower,
    *,
    reconnect: bool = True,
    sleep: Callable[[float], Awaitable[Any]],
) -> AsyncIterator[dict[str, Any]]:
    """`follow` for `httpx.AsyncClient`."""
    while True:
        try:
            response = await http.send(request(follower.headers()), stream=True)
            try:
                if response.status_code >= 400:
                    await response.aread()
                    raise error_from_response(response)
                parser = FrameParser()
                async for line in response.aiter_lines():
                    frame = parser.feed(line)
                    event = follower.take(frame) if frame is not None else None
                    if event is not None:
                        yield event
            finally:
                await response.aclose()
        except (httpx.RemoteProtocolError, httpx.ReadError, httpx.ReadTimeout):
            pass  # dropped: reconnect like after a close
        if not reconnect:
            return
        await sleep(follower.retry_s)
