"""`lorebase-herald --http`: MCP over Streamable HTTP, with the SDK's DNS-rebinding protection.

The allowed Host and Origin headers come from herald.http.allowed_hosts/allowed_origins. With
herald.http.require_authorization a request without its own Authorization header is answered
401 before it reaches the MCP endpoint; otherwise such a request reads with Herald's own key.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.types import ASGIApp, Receive, Scope, Send

from lorebase_herald.server import Herald


def http_app(herald: Herald) -> ASGIApp:
    """The Starlette app serving `herald.mcp` at herald.http.path; it closes `herald` when it
    shuts down."""
    settings = herald.settings.herald.http
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=list(settings.allowed_hosts),
        allowed_origins=list(settings.allowed_origins),
    )
    app = herald.mcp.streamable_http_app(
        streamable_http_path=settings.path,
        stateless_http=settings.stateless,
        json_response=settings.json_response,
        transport_security=security,
        host=settings.host,
    )
    opened = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(served: Starlette) -> AsyncIterator[Any]:
        async with opened(served) as state:
            try:
                yield state
            finally:
                await herald.aclose()

    app.router.lifespan_context = lifespan
    if settings.require_authorization:
        return RequireAuthorization(app)
    return app


class RequireAuthorization:
    """Answers 401 to an HTTP request that carries no Authorization header of its own."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or any(
            name.lower() == b"authorization" for name, _ in scope.get("headers", [])
        ):
            await self.app(scope, receive, send)
            return
        body = json.dumps(
            {
                "status": 401,
                "code": "unauthorized",
                "title": "Unauthorized",
                "detail": "This Herald needs your own credential: send Authorization: Bearer "
                "<Lorebase API key> (herald.http.require_authorization is on).",
            }
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/problem+json"),
                    (b"www-authenticate", b"Bearer"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
