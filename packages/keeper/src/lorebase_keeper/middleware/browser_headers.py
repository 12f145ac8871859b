"""What Keeper tells browsers: CORS for the origins it names, and security headers on every answer.

CORS (`install_cors`) is Starlette's `CORSMiddleware` with `keeper.http.allowed_origins`; with no
origins (the default) Keeper sends no CORS header at all, and a browser keeps pages of other
origins from reading its answers. Credentials are allowed (the session cookie), the request
headers are those our clients send, and the answer headers a page may read are those Keeper sets.

`SecurityHeaders` is a pure ASGI middleware outside the others, so that every answer has the
headers, a problem document of last resort included (docs/auth.md, "Browsers: CORS and security
headers"):

- `X-Content-Type-Options: nosniff`, `Referrer-Policy: no-referrer`, `X-Frame-Options: DENY`;
- a `Content-Security-Policy`: API answers may load nothing (`default-src 'none'`), the web app's
  files (web_files.py, which sets its own) load only from Keeper's origin, and /docs and /redoc
  may run their inline script by its hash, and what Swagger UI and ReDoc load from
  /static-offline-docs;
- `Cache-Control: private` on answers to a request carrying a credential (Authorization,
  X-API-Key or the session cookie), unless the route set a Cache-Control of its own: a shared
  cache must not hand one principal's answer to another.
"""

from __future__ import annotations

import base64
import hashlib
import re

from fastapi import FastAPI
from starlette.datastructures import Headers, MutableHeaders
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import cookie_parser
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lorebase_keeper.http.session_cookie import cookie_names
from lorebase_platform.settings import SessionSettings, Settings

API_CSP = "default-src 'none'; frame-ancestors 'none'"
WEB_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
DOCS_PATHS = frozenset({"/docs", "/docs/oauth2-redirect", "/redoc"})
"""The pages of fastapi-offline: HTML with an inline script, assets from /static-offline-docs."""

FIXED_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}
CREDENTIAL_HEADERS = ("authorization", "x-api-key")

REQUEST_HEADERS = (
    "Authorization",
    "X-API-Key",
    "X-CSRF-Token",
    "Content-Type",
    "If-None-Match",
    "Idempotency-Key",
    "traceparent",
    "tracestate",
)
"""What our clients send; the agent trace's headers (keeper.trace.*_header) are added to them."""
EXPOSED_HEADERS = (
    "ETag",
    "Location",
    "Retry-After",
    "RateLimit",
    "RateLimit-Policy",
    "RateLimit-Limit",
    "RateLimit-Remaining",
    "RateLimit-Reset",
    "Lorebase-Revision",
    "Lorebase-Auth",
    "Idempotent-Replayed",
    "WWW-Authenticate",
)
"""The answer headers Keeper sets that a page of another origin may read."""

_INLINE_SCRIPT = re.compile(rb"<script>(.*?)</script>", re.DOTALL)


def install_cors(app: FastAPI, settings: Settings) -> None:
    """Add CORS for `keeper.http.allowed_origins` (nothing when it names none)."""
    origins = settings.keeper.http.allowed_origins
    if not origins:
        return
    trace = settings.keeper.trace
    app.add_middleware(
        CORSMiddleware,
        allow_origins=origins,
        allow_credentials=True,
        allow_methods=["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"],
        allow_headers=[
            *REQUEST_HEADERS,
            trace.session_header,
            trace.tool_header,
            trace.opt_in_header,
            trace.client_header,
        ],
        expose_headers=list(EXPOSED_HEADERS),
        max_age=600,
    )


def docs_csp(html: bytes, *, redoc: bool) -> str:
    """The policy of a /docs or /redoc page: its inline scripts by hash, assets from Keeper.

    ReDoc compiles JSON schema validators with `new Function` (ajv), runs its search in a worker
    made from a blob, and its styled components write `<style>` elements; Swagger UI needs
    neither eval nor workers, but sets inline styles too.
    """
    sources = ["'self'"]
    sources += [
        "'sha256-" + base64.b64encode(hashlib.sha256(script).digest()).decode() + "'"
        for script in _INLINE_SCRIPT.findall(html)
    ]
    if redoc:
        sources.append("'unsafe-eval'")
    policy = [
        "default-src 'none'",
        "script-src " + " ".join(sources),
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self' data:",
        "connect-src 'self'",
    ]
    if redoc:
        policy.append("worker-src blob:")
    policy += ["base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'"]
    return "; ".join(policy)


class SecurityHeaders:
    """Pure ASGI middleware, outermost: the security headers of every answer (module docstring)."""

    def __init__(self, app: ASGIApp, *, sessions: SessionSettings) -> None:
        self.app = app
        # both forms of the name (plain and __Host-): either one is a credential
        self.session_cookies = tuple(name.decode() for name in cookie_names(sessions))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        private = self._authenticated(Headers(scope=scope))
        if scope["path"] in DOCS_PATHS:
            await self._docs(scope, receive, send, private=private)
            return

        async def marked(message: Message) -> None:
            if message["type"] == "http.response.start":
                self._mark(MutableHeaders(scope=message), API_CSP, private=private)
            await send(message)

        await self.app(scope, receive, marked)

    async def _docs(self, scope: Scope, receive: Receive, send: Send, *, private: bool) -> None:
        """A docs page is held until complete (a few KiB): its policy names its scripts' hashes."""
        start: Message | None = None
        body = bytearray()

        async def held(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                start = message
                return
            if message["type"] != "http.response.body" or start is None:
                await send(message)  # pragma: no cover - nothing else answers a docs page
                return
            body.extend(message.get("body", b""))
            if message.get("more_body", False):
                return
            self._mark(
                MutableHeaders(scope=start),
                docs_csp(bytes(body), redoc=scope["path"] == "/redoc"),
                private=private,
            )
            await send(start)
            await send({"type": "http.response.body", "body": bytes(body)})

        await self.app(scope, receive, held)

    def _authenticated(self, headers: Headers) -> bool:
        if any(headers.get(name) for name in CREDENTIAL_HEADERS):
            return True
        cookies = cookie_parser(headers.get("cookie", ""))
        return any(name in cookies for name in self.session_cookies)

    @staticmethod
    def _mark(headers: MutableHeaders, policy: str, *, private: bool) -> None:
        for name, value in FIXED_HEADERS.items():
            headers[name] = value
        if "content-security-policy" not in headers:  # the web app's files set their own
            headers["Content-Security-Policy"] = policy
        if private and "cache-control" not in headers:
            headers["Cache-Control"] = "private"
