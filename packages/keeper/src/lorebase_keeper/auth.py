"""Authentication: who a request comes from (docs/auth.md).

Auth mode `none` makes every request the local administrator (the demo; Keeper then listens on
loopback by default). Mode `api_key` takes `Authorization: Bearer <key>` or `X-API-Key: <key>`.
A credential's principal and grants are kept for keeper.auth.authz.grants_cache_ttl_s, so a
revoked key or a withdrawn grant takes effect within that time, in every process.
"""

from __future__ import annotations

import hashlib
import threading
import time

from fastapi import Request
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lorebase_core.errors import Unauthorized
from lorebase_keeper.authz import Principal, local_admin
from lorebase_keeper.trace.context import current_step
from lorebase_platform.settings import Settings
from lorebase_store import Store, api_key_id

AUTH_MODE_HEADER = "Lorebase-Auth"


class AuthModeHeader:
    """Pure ASGI middleware of auth mode `none`: every answer says `Lorebase-Auth: none`.

    Every request then acts as the local administrator, whatever credential it carries; a
    client that sent an API key learns from the header that the key was not used (the CLI says
    so on stderr), instead of believing it acts as the key's principal.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def marked(message: Message) -> None:
            if message["type"] == "http.response.start":
                MutableHeaders(scope=message)[AUTH_MODE_HEADER] = "none"
            await send(message)

        await self.app(scope, receive, marked)


class Authenticator:
    """Turns a request's credential into a `Principal`, with a short per-process cache."""

    def __init__(self, settings: Settings, store: Store) -> None:
        self.mode = settings.keeper.auth.mode
        self.ttl_s = settings.keeper.auth.authz.grants_cache_ttl_s
        self.store = store
        self._cache: dict[str, tuple[float, Principal | None]] = {}
        self._lock = threading.Lock()

    def principal(self, request: Request) -> Principal:
        found = self._principal(request)
        step = current_step()
        if step is not None:
            step.principal = found
        return found

    def _principal(self, request: Request) -> Principal:
        if self.mode == "none":
            return local_admin()
        presented = _credential(request)
        if presented is None:
            raise Unauthorized(
                "This request needs an API key: send Authorization: Bearer <key> "
                "(create one with `lorebase key create`)"
            )
        found = self._lookup(presented)
        if found is None:
            raise Unauthorized("The API key is not valid: it is malformed, unknown or revoked")
        return found

    def _lookup(self, presented: str) -> Principal | None:
        # the cache is keyed by a digest, so no key sits in memory longer than its request
        cache_key = hashlib.sha256(presented.encode()).hexdigest()
        now = time.monotonic()
        with self._lock:
            cached = self._cache.get(cache_key)
        if cached is not None and now - cached[0] < self.ttl_s:
            return cached[1]
        info = self.store.key_principal(presented)
        found = None
        if info is not None:
            grants = tuple(self.store.grants(info.id))
            found = Principal(info.id, info.type, grants, "api_key", api_key_id(presented))
        with self._lock:
            if len(self._cache) > 10_000:
                self._cache.clear()
            self._cache[cache_key] = (now, found)
        return found


def _credential(request: Request) -> str | None:
    header = request.headers.get("authorization")
    if header:
        scheme, _, value = header.partition(" ")
        if scheme.lower() == "bearer" and value.strip():
            return value.strip()
        raise Unauthorized("Authorization must be 'Bearer <API key>'")
    key = request.headers.get("x-api-key")
    return key.strip() if key and key.strip() else None
