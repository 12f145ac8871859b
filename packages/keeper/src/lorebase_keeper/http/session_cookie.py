"""The browser session cookie (docs/auth.md, "Browser sessions"): its name, reading, setting.

The cookie is `HttpOnly; SameSite=Lax; Path=/`; with keeper.auth.sessions.cookie_secure it is
also `Secure` and named `__Host-<cookie_name>`, so no other site of the domain can set it. Only
the configured name is read.
"""

from __future__ import annotations

from collections.abc import Iterable

from starlette.requests import cookie_parser

from lorebase_core.sessions import HOST_PREFIX, session_cookie_name
from lorebase_platform.settings import SessionSettings

SIGN_IN = ("POST", "/api/v1/auth/session")
"""Signing in: the one request that takes no credential and no CSRF token (it makes them)."""


def cookie_name(settings: SessionSettings) -> str:
    """The name the browser holds the cookie under."""
    return session_cookie_name(settings.cookie_name, settings.cookie_secure)


def cookie_names(settings: SessionSettings) -> tuple[bytes, bytes]:
    """Both forms of the name (plain and `__Host-`), for telling a cookie request apart."""
    return (f"{HOST_PREFIX}{settings.cookie_name}".encode(), settings.cookie_name.encode())


def cookie_in_headers(headers: Iterable[tuple[bytes, bytes]], name: str) -> str | None:
    """The value of cookie `name` in ASGI headers (None: not sent)."""
    for key, value in headers:
        if key == b"cookie":
            found = cookie_parser(value.decode("latin-1")).get(name)
            if found is not None:
                return found
    return None


def set_cookie(settings: SessionSettings, session_id: str) -> str:
    """The Set-Cookie value of a new session: it lasts as long as the session can."""
    return _cookie(settings, session_id, settings.absolute_timeout_s)


def clear_cookie(settings: SessionSettings) -> str:
    """The Set-Cookie value that makes the browser forget the cookie."""
    return _cookie(settings, "", 0)


def _cookie(settings: SessionSettings, value: str, max_age: int) -> str:
    parts = [f"{cookie_name(settings)}={value}", f"Max-Age={max_age}", "Path=/", "HttpOnly"]
    parts.append("SameSite=Lax")
    if settings.cookie_secure:
        parts.append("Secure")
    return "; ".join(parts)
