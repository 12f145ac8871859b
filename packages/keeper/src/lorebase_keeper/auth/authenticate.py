"""Authentication: who a request comes from (docs/auth.md).

Auth mode `none` makes every request the local administrator (the demo; Keeper then listens on
loopback by default). Mode `api_key` takes `Authorization: Bearer <key>` or `X-API-Key: <key>`;
mode `oidc` takes bearer tokens of keeper.auth.oidc's issuer; `api_key+oidc` both. Every mode
but `none` also takes a browser session cookie (POST /api/v1/auth/session). A bearer credential
wins over a cookie. A credential's principal and grants are kept for
keeper.auth.authz.grants_cache_ttl_s, so a revoked key, session or grant takes effect within that
time, in every process.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable

from fastapi import Request
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lorebase_core.errors import SignInUnavailable, Unauthorized
from lorebase_core.sessions import SESSION_ID, session_digest
from lorebase_keeper.auth.authz import Principal, local_admin
from lorebase_keeper.auth.oidc.authenticator import OidcAuthenticator
from lorebase_keeper.auth.oidc.sign_in import OidcSignIn
from lorebase_keeper.auth.rate_limits import RequestLimits
from lorebase_keeper.http.session_cookie import cookie_name
from lorebase_keeper.trace.context import current_step
from lorebase_platform.settings import Settings
from lorebase_store import KEY_PREFIX, SessionInfo, Store, api_key_id

AUTH_MODE_HEADER = "Lorebase-Auth"
SESSION_CACHE = "session:"
"""Cache keys of sessions: this prefix and the session's digest (keys are digests alone)."""
SESSION_ENDED = (
    "The session has ended: it was signed out or revoked, went unused for longer than "
    "keeper.auth.sessions.idle_timeout_s, or is older than absolute_timeout_s. Sign in again at "
    "POST /api/v1/auth/session"
)


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
        self.settings = settings
        self.mode = settings.keeper.auth.mode
        self.takes_api_keys = self.mode in ("api_key", "api_key+oidc")
        self.takes_oidc = self.mode in ("oidc", "api_key+oidc")
        self.ttl_s = settings.keeper.auth.authz.grants_cache_ttl_s
        self.store = store
        self.limits = RequestLimits(settings.keeper.rate_limits, store)
        self._cache: dict[str, tuple[float, Principal | None]] = {}
        self._lock = threading.Lock()
        oidc = settings.keeper.auth.oidc
        self.oidc: OidcAuthenticator | None = None
        if self.takes_oidc and oidc.issuer and oidc.client_id:
            self.oidc = OidcAuthenticator(oidc, store, grants_ttl_s=self.ttl_s)

    def close(self) -> None:
        """Close the connections to the OIDC issuer."""
        if self.oidc is not None:
            self.oidc.close()

    def principal(self, request: Request) -> Principal:
        """The request's principal; the first ask charges the request to its rate limits.

        Raises:
            Unauthorized: no credential, or one Keeper does not accept (never charged).
            RateLimited, QuotaExceeded: past the principal's limit of the request's class.
        """
        found = self._principal(request)
        step = current_step()
        if step is not None:
            step.principal = found
        self.limits.charge(request, found.id)
        return found

    def _principal(self, request: Request) -> Principal:
        if self.mode == "none":
            return local_admin()
        presented = _credential(request)
        if presented is not None:
            if self.takes_oidc and not (self.takes_api_keys and presented.startswith(KEY_PREFIX)):
                return self._token_principal(presented)
            found = self._lookup(presented)
            if found is None:
                raise Unauthorized("The API key is not valid: it is malformed, unknown or revoked")
            return found
        session = self._session_principal(request)
        if session is not None:
            return session
        raise Unauthorized(self._missing_credential())

    def _missing_credential(self) -> str:
        if self.mode == "oidc":
            return (
                "This request needs a token of the OIDC issuer: send Authorization: Bearer "
                "<token> (`lorebase login` gets one), or sign in at POST /api/v1/auth/session"
            )
        return (
            "This request needs an API key: send Authorization: Bearer <key> "
            "(create one with `lorebase key create`), or sign in at POST /api/v1/auth/session"
        )

    def _token_principal(self, token: str) -> Principal:
        """The principal of an OIDC bearer token (auth modes oidc and api_key+oidc).

        Raises:
            Unauthorized: a token that is malformed, expired, not yet valid, for another
                audience or issuer, or signed by a key or algorithm the issuer does not use.
        """
        if self.oidc is None:
            raise Unauthorized(
                "This Keeper takes no OIDC tokens: keeper.auth.oidc.issuer and client_id are "
                "not set"
            )
        return self.oidc.token_principal(token)

    def oidc_sign_in(
        self, *, code: str, code_verifier: str, redirect_uri: str, nonce: str | None = None
    ) -> OidcSignIn:
        """Finish an OIDC authorization-code sign-in (PKCE) for POST /api/v1/auth/session.

        Exchanges the code at the issuer's token endpoint and verifies the ID token.

        Raises:
            SignInUnavailable: the auth mode takes no OIDC, or keeper.auth.oidc is not set up.
            Unauthorized: a code, verifier or redirect URI the issuer refuses, or a bad ID token.
            IdentityProviderUnavailable: the issuer cannot be reached.
        """
        if self.oidc is None:
            raise SignInUnavailable(
                "OIDC sign-in is not available on this Keeper: it needs keeper.auth.mode oidc "
                "or api_key+oidc and keeper.auth.oidc.issuer and client_id (docs/auth.md, 'OIDC')"
            )
        return self.oidc.sign_in(
            code=code, code_verifier=code_verifier, redirect_uri=redirect_uri, nonce=nonce
        )

    def _session_principal(self, request: Request) -> Principal | None:
        """The principal of the request's browser session cookie (None: no session cookie).

        Its grants are the principal's stored ones plus those of the groups its sign-in named.

        Raises:
            Unauthorized: a cookie naming a session that is unknown, revoked or expired.
        """
        session_id = self.presented_session(request)
        if session_id is None:
            return None
        sessions = self.settings.keeper.auth.sessions

        def lookup() -> Principal | None:
            found = self._usable(self.store.session(session_id, sessions))
            if found is None:
                return None
            grants = tuple(self.store.grants(found.principal))
            if self.oidc is not None:  # the claims hold {"groups": [...]}, whatever groups_claim is
                grants += self.oidc.session_grants(found.principal, found.claims)
            return Principal(found.principal, found.principal_type, grants, "session", found.key_id)

        principal = self._cached(SESSION_CACHE + session_digest(session_id), lookup)
        if principal is None:
            raise Unauthorized(SESSION_ENDED)
        return principal

    def presented_session(self, request: Request) -> str | None:
        """The session id of the request's cookie (None: sessions off, or no cookie).

        Raises:
            Unauthorized: a cookie value that is not shaped like a session id (no store read).
        """
        sessions = self.settings.keeper.auth.sessions
        if self.mode == "none" or not sessions.enabled:
            return None
        name = cookie_name(sessions)
        value = request.cookies.get(name)
        if value is None:
            return None
        if not SESSION_ID.match(value):
            raise Unauthorized(
                f"The cookie {name!r} does not hold a session id: sign in again at "
                "POST /api/v1/auth/session"
            )
        return value

    def current_session(self, request: Request) -> tuple[str, SessionInfo]:
        """The request's live session and its id, read from the store (GET /auth/session).

        Raises:
            Unauthorized: no session cookie, a malformed one, or a session that has ended.
        """
        session_id = self.presented_session(request)
        if session_id is None:
            if _credential(request) is not None:
                raise Unauthorized(
                    "A bearer credential has no session: sign in at POST /api/v1/auth/session "
                    "to get a session cookie"
                )
            raise Unauthorized(
                "This request carries no session cookie: sign in at POST /api/v1/auth/session"
            )
        found = self._usable(self.store.session(session_id, self.settings.keeper.auth.sessions))
        if found is None:
            raise Unauthorized(SESSION_ENDED)
        return session_id, found

    def forget_session(self, session_id: str) -> None:
        """Drop a session from this process's cache (it was revoked here)."""
        with self._lock:
            self._cache.pop(SESSION_CACHE + session_digest(session_id), None)

    def _usable(self, found: SessionInfo | None) -> SessionInfo | None:
        # a session made one way lasts only while the auth mode takes that way of signing in
        if found is None:
            return None
        if found.method == "api_key" and not self.takes_api_keys:
            return None
        if found.method == "oidc" and not self.takes_oidc:
            return None
        return found

    def known_principal(self, request: Request) -> tuple[str, Principal] | None:
        """The request's credential (as its cache key) and principal when both are known
        without asking the store: auth mode `none`, or an API key whose principal is cached and
        fresh. None otherwise (no credential, a session, an OIDC token, an unknown key): the
        request then goes the usual way (`principal`). Nothing is charged."""
        if self.mode == "none":
            return "none", local_admin()
        try:
            presented = _credential(request)
        except Unauthorized:
            return None
        if presented is None:
            return None
        if self.takes_oidc and not (self.takes_api_keys and presented.startswith(KEY_PREFIX)):
            return None
        cache_key = hashlib.sha256(presented.encode()).hexdigest()
        found = self._fresh(cache_key)
        return None if found is None or found[1] is None else (cache_key, found[1])

    def charge(self, request: Request, principal: Principal) -> None:
        """Charge a request whose principal `known_principal` told (RateLimited, QuotaExceeded
        past its limit), as `principal` does on the usual way."""
        self.limits.charge(request, principal.id)

    def _fresh(self, cache_key: str) -> tuple[float, Principal | None] | None:
        with self._lock:
            cached = self._cache.get(cache_key)
        if cached is not None and time.monotonic() - cached[0] < self.ttl_s:
            return cached
        return None

    def _cached(self, cache_key: str, lookup: Callable[[], Principal | None]) -> Principal | None:
        cached = self._fresh(cache_key)
        if cached is not None:
            return cached[1]
        now = time.monotonic()
        found = lookup()
        with self._lock:
            if len(self._cache) > 10_000:
                self._cache.clear()
            self._cache[cache_key] = (now, found)
        return found

    def _lookup(self, presented: str) -> Principal | None:
        # the cache is keyed by a digest, so no key sits in memory longer than its request
        def lookup() -> Principal | None:
            info = self.store.key_principal(presented)
            if info is None:
                return None
            grants = tuple(self.store.grants(info.id))
            return Principal(info.id, info.type, grants, "api_key", api_key_id(presented))

        return self._cached(hashlib.sha256(presented.encode()).hexdigest(), lookup)


def _credential(request: Request) -> str | None:
    header = request.headers.get("authorization")
    if header:
        scheme, _, value = header.partition(" ")
        if scheme.lower() == "bearer" and value.strip():
            return value.strip()
        raise Unauthorized("Authorization must be 'Bearer <API key>'")
    key = request.headers.get("x-api-key")
    return key.strip() if key and key.strip() else None
