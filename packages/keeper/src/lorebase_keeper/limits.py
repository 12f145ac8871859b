"""Request bodies larger than keeper.max_body_bytes are refused before a route reads them, and
so are bodies holding text that cannot be stored (`text.body_issues`: 422 `invalid-text`)."""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lorebase_keeper.errors import send_error
from lorebase_keeper.text import body_issues, invalid_text, is_json
from lorebase_platform.problems import PROBLEM_CONTENT_TYPE, problem


class BodyLimit:
    """Pure ASGI middleware: 413 for a declared or streamed body past the limit.

    The body is read before the route runs (it is at most `max_body_bytes`), so a streamed body
    that grows too large is refused with 413 before any route or framework parses it.
    """

    def __init__(self, app: ASGIApp, max_body_bytes: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes

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
        body = b"".join(chunks)
        issues = body_issues(body) if is_json(scope) else []
        if issues:
            await send_error(scope, receive, send, invalid_text(issues, "the body"))
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, scope: Scope, send: Send) -> None:
        document = problem(
            413,
            "body-too-large",
            "Request body too large",
            f"Request bodies are limited to {self.max_body_bytes} bytes (keeper.max_body_bytes)",
            instance=scope.get("path", ""),
        )
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
