# generated from _async/event_stream.py by scripts/unasync.py; do not edit
"""`follow`: the events of a branch's stream for `LorebaseClient.events`, reconnecting.

Keeper closes a stream after agents.feed.max_connection_s and a connection may drop: `follow`
then waits the `retry:` the stream sent and reconnects with `Last-Event-ID` (a `Follower` of
events.py keeps both), so no event is missed or repeated. An answer that is a problem document
(401, 403, 404, 422, 429) raises its typed error and ends the iteration.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import httpx

from lorebase_client.connection import build_request
from lorebase_client.errors import error_from_response
from lorebase_client.events import Follower, FrameParser
from lorebase_client.routes import ApiRequest

DROPPED = (httpx.RemoteProtocolError, httpx.ReadError, httpx.ReadTimeout)
"""A connection lost mid-stream: reconnect as after Keeper closed it."""


def follow(
    http: httpx.Client, route: ApiRequest, follower: Follower, *, reconnect: bool = True
) -> Iterator[dict[str, Any]]:
    """The events of the stream of `route`, reconnecting after a close or a drop (`reconnect`)."""
    while True:
        request = build_request(http, replace(route, headers=follower.headers()))
        try:
            response = http.send(request, stream=True)
            try:
                if response.status_code >= 400:
                    response.read()
                    raise error_from_response(response)
                parser = FrameParser()
                for line in response.iter_lines():
                    frame = parser.feed(line)
                    event = follower.take(frame) if frame is not None else None
                    if event is not None:
                        yield event
            finally:
                response.close()
        except DROPPED:
            pass
        if not reconnect:
            return
        time.sleep(follower.retry_s)
