"""The shape of browser session ids and their CSRF tokens (docs/auth.md, "Browser sessions").

A session id reads `lbs_<43 characters of base64url>` (32 random bytes). Only its SHA-256 is
stored. Its CSRF token is derived from it (an HMAC keyed by the id), so Keeper checks a token
without reading the store, and only a holder of the session id, or a page that may read
GET /api/v1/auth/session, knows it. Guide checks the shape before forwarding a cookie.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets

SESSION_PREFIX = "lbs_"
SESSION_ID = re.compile(r"^lbs_[A-Za-z0-9_-]{43}$")
CSRF_HEADER = "X-CSRF-Token"
HOST_PREFIX = "__Host-"


def new_session_id() -> str:
    """A fresh random session id."""
    return SESSION_PREFIX + secrets.token_urlsafe(32)


def session_digest(session_id: str) -> str:
    """What the store keeps of a session id (hex SHA-256)."""
    return hashlib.sha256(session_id.encode()).hexdigest()


def csrf_token(session_id: str) -> str:
    """The CSRF token of a session: unsafe requests with its cookie send it as X-CSRF-Token."""
    mac = hmac.new(session_id.encode(), b"lorebase-csrf-v1", hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).rstrip(b"=").decode()


def csrf_matches(session_id: str, presented: str | None) -> bool:
    """Whether `presented` is the session's CSRF token (compared in constant time)."""
    if not presented:
        return False
    return hmac.compare_digest(csrf_token(session_id).encode(), presented.strip().encode())


def session_cookie_name(cookie_name: str, secure: bool) -> str:
    """The cookie's name as the browser holds it: `__Host-<name>` when Secure."""
    return f"{HOST_PREFIX}{cookie_name}" if secure else cookie_name
