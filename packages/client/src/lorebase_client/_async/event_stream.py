"""`follow`: the events of a branch's stream for `AsyncLorebaseClient.events`, reconnecting.

Keeper closes a stream after agents.feed.max_connection_s and a connection may drop: `follow`
then waits the `retry:` the stream sent and reconnects with `Last-Event-ID` (a `Follower` of
events.py keeps both), so no event is missed or repeated. An answer that is a problem document
(401, 403, 404, 422, 429) raises its typed error and ends the iteration.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import httpx

from lorebase_client.connection import build_request
from lorebase_client.errors import error_from_response
from lorebase_client.events import Follower, FrameParser
from lorebase_client.routes import ApiRequest

DROPPED = (httpx.RemoteProtocolError, httpx.ReadError, httpx.ReadTimeout)
"""A connection lost mid-stream: reconnect as after Keeper closed it."""


async def follow(
    http: httpx.AsyncClient, route: ApiRequest, follower: Follower, *, reconnect: bool = True
) -> AsyncIterator[dict[str, Any]]:
    """The events of the stream of `route`, reconnecting after a close or a drop (`reconnect`)."""
    while True:
        request = build_request(http, replace(route, headers=follower.headers()))
        try:
            response = await http.send(request, stream=True)
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
        except DROPPED:
            pass
        if not reconnect:
            return
        await asyncio.sleep(follower.retry_s)
