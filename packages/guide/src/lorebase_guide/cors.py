"""CORS for the origins of guide.http.allowed_origins: headers on every answer, and preflights.

A preflight (OPTIONS with Access-Control-Request-Method) from an allowed origin is answered 204
with the methods and headers Guide takes; from any other origin, or without one, 403
origin_not_allowed. Every other answer to an allowed origin gets Access-Control-Allow-Origin
(that origin, never `*`, since session mode sends cookies), Allow-Credentials and
Expose-Headers: Retry-After, so the page can read a 429's reason and when to ask again.
"""

from __future__ import annotations

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lorebase_core.errors import OriginNotAllowed
from lorebase_guide.origins import OriginPolicy
from lorebase_platform.problems import PROBLEM_CONTENT_TYPE, problem_document, render_problem


class Cors:
    """The CORS middleware of Guide's app."""

    def __init__(self, app: ASGIApp, policy: OriginPolicy) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        if scope["method"] == "OPTIONS" and "access-control-request-method" in headers:
            await self._preflight(headers, send)
            return
        extra = self.policy.cors_headers(headers)
        if not extra:
            await self.app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                answer = MutableHeaders(scope=message)
                for name, value in extra.items():
                    if name == "Vary":
                        answer.add_vary_header(value)
                    else:
                        answer[name] = value
            await send(message)

        await self.app(scope, receive, sending)

    async def _preflight(self, headers: Headers, send: Send) -> None:
        origin = headers.get("origin")
        if origin is None or not self.policy.allows(origin):
            error = OriginNotAllowed(
                "This page's origin may not call Guide: add it to guide.http.allowed_origins "
                "(the web app's origin)"
            )
            body = render_problem(problem_document(error))
            await send(
                {
                    "type": "http.response.start",
                    "status": error.status,
                    "headers": [
                        (b"content-type", PROBLEM_CONTENT_TYPE.encode()),
                        (b"content-length", str(len(body)).encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        answer = [
            (name.lower().encode(), value.encode())
            for name, value in self.policy.preflight_headers(headers).items()
        ]
        await send(
            {
                "type": "http.response.start",
                "status": 204,
                "headers": [*answer, (b"content-length", b"0")],
            }
        )
        await send({"type": "http.response.body", "body": b""})
