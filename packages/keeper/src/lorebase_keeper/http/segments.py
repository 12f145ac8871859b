"""Path segments may hold any character, `/` included, when the client percent-encodes them.

Starlette routes on the decoded path, where `Supplier/a%2Fb` would become three segments. So
`PathSegments` rebuilds the path from the raw one, decoding each segment but keeping `/` and `%`
escaped inside it, and `SegmentRoute` decodes the path parameters once a route matched; every
router of Keeper's API is a `segment_router`.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from urllib.parse import unquote

from fastapi import APIRouter, Request, Response
from fastapi.routing import APIRoute
from starlette.types import ASGIApp, Receive, Scope, Send

from lorebase_keeper.http.documented import Responses


def _escaped(segment: str) -> str:
    return unquote(segment).replace("%", "%25").replace("/", "%2F")


class PathSegments:
    """Pure ASGI middleware: route on segments, not on the decoded path."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        raw = scope.get("raw_path")
        if scope["type"] == "http" and raw and b"%" in raw:
            path = raw.split(b"?", 1)[0].decode("latin-1")
            rebuilt = "/".join(_escaped(segment) for segment in path.split("/"))
            scope = {**scope, "path": rebuilt}
        await self.app(scope, receive, send)


class SegmentRoute(APIRoute):
    """An APIRoute whose path parameters are decoded after `PathSegments` kept them escaped."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[object, object, Response]]:
        handler = super().get_route_handler()

        async def decoded(request: Request) -> Response:
            params = request.scope.get("path_params", {})
            request.scope["path_params"] = {
                name: unquote(value) if isinstance(value, str) else value
                for name, value in params.items()
            }
            return await handler(request)

        return decoded


def segment_router(prefix: str, tag: str, responses: Responses | None = None) -> APIRouter:
    """The router of one family of routes: paths under `prefix`, shown under the tag `tag` in the
    OpenAPI document, path parameters decoded by `SegmentRoute`, and `responses` what each of its
    routes may answer besides its own (`READ_RESPONSES`, `WRITE_RESPONSES`)."""
    return APIRouter(prefix=prefix, tags=[tag], route_class=SegmentRoute, responses=responses)
