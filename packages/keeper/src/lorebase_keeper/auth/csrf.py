"""CSRF protection of browser sessions (docs/auth.md, "Browser sessions").

A browser sends the session cookie with any request to Keeper's site, a forged one from another
site included; it sends a header only when the page chose to, and a page of another origin
cannot read the token (GET /api/v1/auth/session). So an unsafe request (any method but GET, HEAD
and OPTIONS) that carries the session cookie and no credential header of its own must send
X-CSRF-Token matching `csrf_token(cookie)`, or it is answered 403 `csrf` before routing: every
unsafe route, present and future, is covered. The token is derived from the session id, so the
check reads nothing. Sign-in (POST /api/v1/auth/session) has no session yet and checks its
Origin and Content-Type instead (`routes.sessions`). A request with Authorization or X-API-Key
authenticates by that header (it wins over the cookie), which no other site can make a browser
send.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from lorebase_core.errors import CsrfRejected
from lorebase_core.sessions import CSRF_HEADER, csrf_matches
from lorebase_keeper.http.errors import send_error
from lorebase_keeper.http.headers import header
from lorebase_keeper.http.session_cookie import SIGN_IN, cookie_in_headers, cookie_name
from lorebase_platform.settings import SessionSettings

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
TOKEN_HEADER = CSRF_HEADER.lower().encode()


class CsrfCheck:
    """Pure ASGI middleware: unsafe requests authenticated by the session cookie need the token."""

    def __init__(self, app: ASGIApp, *, settings: SessionSettings) -> None:
        self.app = app
        self.cookie = cookie_name(settings)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not self._needs_token(scope):
            await self.app(scope, receive, send)
            return
        headers = scope["headers"]
        session_id = cookie_in_headers(headers, self.cookie)
        if session_id is None:
            await self.app(scope, receive, send)
            return
        token = header(headers, TOKEN_HEADER)
        if csrf_matches(session_id, token.decode("latin-1") if token is not None else None):
            await self.app(scope, receive, send)
            return
        detail = (
            f"This {scope['method']} request carries the session cookie {self.cookie!r} but "
            f"{'a wrong' if token else 'no'} {CSRF_HEADER} header: send the csrf_token of "
            "GET /api/v1/auth/session as X-CSRF-Token"
        )
        await send_error(scope, receive, send, CsrfRejected(detail))

    @staticmethod
    def _needs_token(scope: Scope) -> bool:
        method = scope["method"]
        if method in SAFE_METHODS or (method, scope["path"]) == SIGN_IN:
            return False
        # a credential header authenticates the request instead (auth.Authenticator): as there,
        # any Authorization counts, and an X-API-Key only when it is not blank
        headers = scope["headers"]
        if header(headers, b"authorization"):
            return False
        key = header(headers, b"x-api-key")
        return not (key and key.strip())
