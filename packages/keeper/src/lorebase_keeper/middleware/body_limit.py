"""Request bodies that are too large, too slow or hold text that cannot be stored are refused
before a route reads them.

Too large: past keeper.max_body_bytes (413). Too slow: not whole within keeper.http.body_timeout_s
(408). Bad text: `text.body_issues` (422 `invalid-text`). The other timeouts (headers, idle
connections) are the HTTP server's (server.py).
"""

from __future__ import annotations

import json

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lorebase_core.errors import BodyTooLarge, RequestTimeout
from lorebase_keeper.http.errors import send_error
from lorebase_keeper.middleware.text import body_issues, invalid_text, is_json
from lorebase_platform.problems import PROBLEM_CONTENT_TYPE, problem_document

BODY = "lorebase.body"
"""Scope key of the request body `BodyLimit` read (bytes), for the fast path's key."""


class BodyLimit:
    """Pure ASGI middleware: 413 for a declared or streamed body past the limit, 408 for a slow one.

    The body is read before the route runs (it is at most `max_body_bytes`), so a streamed body
    that grows too large is refused with 413 before any route or framework parses it, and a body
    that has not arrived whole within `body_timeout_s` (a Content-Length larger than what the
    client sends, a client that stalls) is answered 408 request-timeout with `Connection: close`.
    """

    def __init__(self, app: ASGIApp, max_body_bytes: int, body_timeout_s: float) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.body_timeout_s = body_timeout_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in {"GET", "HEAD", "OPTIONS"}:
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers", [])).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_body_bytes:
            await self._refuse(scope, send)
            return
        chunks: list[bytes] = []
        received = 0
        with anyio.move_on_after(self.body_timeout_s) as deadline:
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    return
                chunk = message.get("body", b"")
                received += len(chunk)
                if received > self.max_body_bytes:
                    await self._refuse(scope, send)
                    return
                chunks.append(chunk)
                if not message.get("more_body", False):
                    break
        if deadline.cancelled_caught:
            await self._time_out(scope, send, received)
            return
        body = b"".join(chunks)
        issues = body_issues(body) if is_json(scope) else []
        if issues:
            await send_error(scope, receive, send, invalid_text(issues, "the body"))
            return
        replayed = False
        scope[BODY] = body

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, scope: Scope, send: Send) -> None:
        error = BodyTooLarge(
            f"Request bodies are limited to {self.max_body_bytes} bytes (keeper.max_body_bytes)"
        )
        document = problem_document(error, instance=scope.get("path", ""))
        body = json.dumps(document).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", PROBLEM_CONTENT_TYPE.encode()),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    async def _time_out(self, scope: Scope, send: Send, received: int) -> None:
        error = RequestTimeout(
            f"The request body did not arrive within {self.body_timeout_s:g} s "
            f"(keeper.http.body_timeout_s; {received} bytes came): send the whole body at once, "
            "with a Content-Length that matches it"
        )
        body = json.dumps(problem_document(error, instance=scope.get("path", ""))).encode()
        await send(
            {
                "type": "http.response.start",
                "status": error.status,
                "headers": [
                    (b"content-type", PROBLEM_CONTENT_TYPE.encode()),
                    (b"content-length", str(len(body)).encode()),
                    # the rest of the body may still come: the connection cannot serve another
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
