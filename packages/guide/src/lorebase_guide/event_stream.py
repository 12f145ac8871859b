"""Server-sent events of an exploration, and Stop: a client that goes away cancels the work.

Each event is `event: <name>\\ndata: <json>\\n\\n`, the data one line of JSON (newlines inside
strings are escaped by JSON, and every string is made encodable first). `EventStream` listens for
the client's disconnect while it streams, whatever the server's ASGI version, and cancels the
producer at once: a model call in flight is abandoned, not finished for nobody. `on_close` runs
however the stream ends (done, an error, a disconnect), which is where the slots are released.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from lorebase_platform.problems import printable

logger = logging.getLogger("lorebase_guide.event_stream")

EVENT_STREAM_TYPE = "text/event-stream"


def frame(name: str, data: dict[str, Any]) -> bytes:
    """One event in the text/event-stream format."""
    payload = json.dumps(printable(data), ensure_ascii=False, separators=(",", ":"))
    return f"event: {name}\ndata: {payload}\n\n".encode()


class EventStream(Response):
    """A streamed answer of `events`, cancelled when the client disconnects."""

    media_type = EVENT_STREAM_TYPE

    def __init__(
        self,
        events: AsyncIterator[tuple[str, dict[str, Any]]],
        *,
        headers: dict[str, str] | None = None,
        on_close: Callable[[str], None] | None = None,
    ) -> None:
        self.events = events
        self.on_close = on_close
        self.status_code = 200
        self.background = None
        self.init_headers(
            {
                "Cache-Control": "no-store",
                "X-Accel-Buffering": "no",
                **(headers or {}),
            }
        )
        self.ending = "done"
        """How the stream ended: done, disconnected or failed (for metrics and the log)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            async with anyio.create_task_group() as group:

                async def stream() -> None:
                    await self._stream(send)
                    group.cancel_scope.cancel()

                group.start_soon(stream)
                await self._wait_for_disconnect(receive)
                self.ending = "disconnected"
                group.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                aclose = getattr(self.events, "aclose", None)
                if aclose is not None:
                    await aclose()
            if self.on_close is not None:
                self.on_close(self.ending)

    async def _stream(self, send: Send) -> None:
        await send(
            {"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers}
        )
        try:
            async for name, data in self.events:
                await send(
                    {"type": "http.response.body", "body": frame(name, data), "more_body": True}
                )
        except OSError:
            self.ending = "disconnected"
            return
        except Exception as error:  # the stream has started: log and end it, never a trace back
            self.ending = "failed"
            logger.error("exploration failed: %s", type(error).__name__)
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    @staticmethod
    async def _wait_for_disconnect(receive: Receive) -> None:
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
