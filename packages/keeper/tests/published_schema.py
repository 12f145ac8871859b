"""Every answer checked against the published OpenAPI document, for the whole test suite.

`AnswersMatchDocument` is pure ASGI middleware the `keeper` fixture puts outermost: it finds the
route of each request as the router does, and checks the answer's status, media type and body
against what /openapi.json says for that path, method and status (or `default`). A 2xx whose
JSON schema is empty, a status or media type the document does not list, or a body breaking its
schema (a missing or extra member, a wrong type) fails the test that made the request.
"""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema_rs
from fastapi import FastAPI
from fastapi.routing import APIRoute, iter_route_contexts
from starlette.routing import compile_path
from starlette.types import ASGIApp, Message, Receive, Scope, Send

_DOCUMENTS: dict[tuple[object, ...], dict[str, Any]] = {}
"""Documents by what they depend on (the routes and the auth mode): every Keeper a test makes
has the same routes, and generating the document costs more than most tests."""

_VALIDATORS: dict[tuple[object, ...], jsonschema_rs.Draft202012Validator] = {}

_ROUTES: dict[tuple[object, ...], list[tuple[re.Pattern[str], set[str], str | None]]] = {}
"""Route tables by the routes they are made of: walking FastAPI's route contexts of a new app
costs tens of milliseconds, more than many tests, and every Keeper of a test has the same."""

UNTYPED: dict[str, Any] = {}
PROBLEM = "application/problem+json"
PROBLEM_REF = {"$ref": "#/components/schemas/Problem"}


class AnswersMatchDocument:
    def __init__(self, app: ASGIApp, keeper: FastAPI) -> None:
        self.app = app
        self.keeper = keeper
        self._compiled: list[tuple[re.Pattern[str], set[str], str | None]] | None = None
        self._key: tuple[object, ...] | None = None

    def _routes_key(self) -> tuple[object, ...]:
        """What the app's routes are made of, found without walking them: the included routers
        are the modules' own (they live as long as the process, so their ids stay theirs)."""
        if self._key is None:
            routes = tuple(
                (
                    type(route).__name__,
                    getattr(route, "path", None),
                    tuple(sorted(getattr(route, "methods", None) or ())),
                    id(getattr(route, "original_router", None)),
                )
                for route in self.keeper.routes
            )
            self._key = (self.keeper.state.keeper.settings.keeper.auth.mode, routes)
        return self._key

    def _routes(self) -> list[tuple[re.Pattern[str], set[str], str | None]]:
        """(path regex, methods, documented template or None), in the order the router tries."""
        if self._compiled is None:
            key = self._routes_key()
            found = _ROUTES.get(key)
            if found is None:
                found = _ROUTES[key] = []
                for context in iter_route_contexts(self.keeper.routes):
                    route = context.original_route
                    if not isinstance(route, APIRoute) or context.path is None:
                        continue
                    regex, path_format, _ = compile_path(context.path)
                    documented = path_format if route.include_in_schema else None
                    found.append((regex, set(context.methods or ()), documented))
            self._compiled = found
        return self._compiled

    def _template(self, scope: Scope) -> str | None:
        """The documented path template of the route that answers, None when none is."""
        # Keeper matches segments as sent (`segments.SegmentRoute`): a branch `a/changes`
        # arrives as a%2Fchanges and is no planned `.../{branch}/changes`
        raw = scope.get("raw_path")
        path = raw.decode("latin-1").split("?")[0] if raw else scope["path"]
        for regex, methods, documented in self._routes():
            if scope["method"] in methods and regex.match(path):
                return documented
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        template = self._template(scope)
        status = 0
        media = ""
        chunks: list[bytes] = []

        async def recording(message: Message) -> None:
            nonlocal status, media
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = {k.decode().lower(): v.decode() for k, v in message["headers"]}
                media = headers.get("content-type", "").split(";")[0].strip()
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
            await send(message)

        await self.app(scope, receive, recording)
        # checked once the answer is sent: raised inside `send`, an inner layer would catch it
        if status:
            self.check(scope["method"], template, status, media, b"".join(chunks))

    def check(
        self, method: str, template: str | None, status: int, media: str, body: bytes
    ) -> None:
        """Fail (AssertionError) unless the document declares this answer and it matches."""
        where = f"{method} {template} -> {status} {media}"
        if status in (204, 304) or method == "HEAD":
            assert not body, f"{where}: a body where none is declared"
            return
        document = self._document()
        if template is None:  # no route of the document: a 404, a 405, /docs and its assets
            if media == PROBLEM:
                self._assert_valid(document, ("", "", "problem", media), PROBLEM_REF, where, body)
            return
        operation = document["paths"].get(template, {}).get(method.lower())
        assert operation is not None, f"{where}: the route is not in the document"
        responses = operation["responses"]
        response = responses.get(str(status)) or responses.get("default")
        assert response is not None, f"{where}: status not in the document"
        content = response.get("content", {})
        assert media in content, f"{where}: media type not declared ({sorted(content)})"
        schema = content[media].get("schema", UNTYPED)
        if media in ("text/markdown", "text/event-stream"):
            return
        assert schema != UNTYPED, f"{where}: the document leaves the answer untyped"
        self._assert_valid(document, (method, template, str(status), media), schema, where, body)

    def _assert_valid(
        self,
        document: dict[str, Any],
        key: tuple[str, str, str, str],
        schema: dict[str, Any],
        where: str,
        body: bytes,
    ) -> None:
        validator = self._validator(document, key, schema)
        errors = [
            f"  at /{'/'.join(str(part) for part in error.instance_path)}: {error.message}"
            for error in validator.iter_errors(json.loads(body))
        ]
        assert not errors, f"{where}: the answer breaks the published schema\n" + "\n".join(
            errors[:20]
        )

    def _document(self) -> dict[str, Any]:
        """The Keeper's document, generated once for all Keepers of the same routes and auth."""
        key = self._routes_key()
        found = _DOCUMENTS.get(key)
        if found is None:
            found = _DOCUMENTS[key] = self.keeper.openapi()
        return found

    def _validator(
        self, document: dict[str, Any], key: tuple[str, str, str, str], schema: dict[str, Any]
    ) -> jsonschema_rs.Draft202012Validator:
        shared = (id(document), *key)  # the documents stay in _DOCUMENTS: their ids stay theirs
        found = _VALIDATORS.get(shared)
        if found is None:
            # the $refs name #/components/schemas/...: resolve them in the document's components
            root = {**schema, "components": document.get("components", {})}
            found = _VALIDATORS[shared] = jsonschema_rs.Draft202012Validator(root)
        return found
