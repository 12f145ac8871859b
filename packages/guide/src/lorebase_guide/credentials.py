"""What a caller presents, and exactly what of it Guide forwards to Keeper (docs/guide.md,
"Authentication").

- `Authorization` (a Bearer API key or OIDC token): forwarded unchanged, nothing else.
- Keeper's session cookie (guide.http.session_cookie, or `__Host-<name>`): only that cookie and
  the `X-CSRF-Token` header are forwarded; a value not shaped like a Keeper session id is
  refused (401) before anything is sent, and so is a cookie without its CSRF header (403).
- Nothing, only with guide.http.allow_anonymous (a Keeper in auth mode none): nothing is sent.

Guide never adds a credential of its own: no key of its settings, no $LOREBASE_API_KEY.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from http.cookies import CookieError, SimpleCookie
from typing import Literal

from lorebase_core.errors import CsrfRejected, Unauthorized
from lorebase_core.sessions import CSRF_HEADER, HOST_PREFIX, SESSION_ID
from lorebase_platform.settings import GuideHttpSettings

CredentialKind = Literal["authorization", "session", "anonymous"]


@dataclass(frozen=True)
class Presented:
    """A caller's credential as Guide forwards it.

    Attributes:
        kind: which of the three ways the caller came.
        headers: the headers every Keeper request of this caller carries, verbatim.
        csrf_token: the X-CSRF-Token the caller sent with a session cookie (checked against
            Keeper's GET /auth/session before any work).
    """

    kind: CredentialKind
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    csrf_token: str | None = field(default=None, repr=False)


def presented(headers: Mapping[str, str], settings: GuideHttpSettings) -> Presented:
    """The credential of a request with `headers` (lower-case names), or 401/403."""
    authorization = headers.get("authorization")
    if authorization is not None:
        if not authorization.strip():
            raise Unauthorized("The Authorization header is empty: send Bearer <API key>")
        return Presented("authorization", {"Authorization": authorization})
    cookie = _session_cookie(headers.get("cookie"), settings.session_cookie)
    if cookie is not None:
        name, value = cookie
        if SESSION_ID.fullmatch(value) is None:
            raise Unauthorized(f"The {name} cookie does not hold a Keeper session: sign in again")
        token = headers.get(CSRF_HEADER.lower())
        if not token or not token.strip():
            raise CsrfRejected(
                f"A request with Keeper's session cookie needs the session's {CSRF_HEADER} "
                "header (csrf_token of GET /api/v1/auth/session)"
            )
        return Presented(
            "session", {"Cookie": f"{name}={value}", CSRF_HEADER: token}, csrf_token=token
        )
    if settings.allow_anonymous:
        return Presented("anonymous")
    raise Unauthorized(
        "Guide needs your own credential: send Authorization: Bearer <API key or token>, or "
        "Keeper's session cookie with its X-CSRF-Token"
    )


def _session_cookie(header: str | None, cookie_name: str) -> tuple[str, str] | None:
    """The session cookie of a Cookie header, by either of its names (the `__Host-` one
    first); None when there is none."""
    if not header:
        return None
    jar = SimpleCookie()
    try:
        jar.load(header)
    except CookieError:
        return _plain_pairs(header, cookie_name)
    for name in (HOST_PREFIX + cookie_name, cookie_name):
        morsel = jar.get(name)
        if morsel is not None:
            return name, morsel.value
    return None


def _plain_pairs(header: str, cookie_name: str) -> tuple[str, str] | None:
    """A Cookie header SimpleCookie refuses (a stray character in another cookie): split by
    hand, as browsers send it."""
    pairs: dict[str, str] = {}
    for part in header.split(";"):
        name, _, value = part.strip().partition("=")
        pairs.setdefault(name.strip(), value.strip())
    for name in (HOST_PREFIX + cookie_name, cookie_name):
        if name in pairs:
            return name, pairs[name]
    return None
