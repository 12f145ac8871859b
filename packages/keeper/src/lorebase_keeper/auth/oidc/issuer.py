"""The OIDC issuer of keeper.auth.oidc: its discovery document and signing keys, cached.

`<issuer>/.well-known/openid-configuration` is read over https (http only for an issuer on a
loopback address, the tests' provider), and its `issuer` must be the setting exactly. Document
and keys are kept `jwks_cache_s`; a token whose `kid` is not among the keys reads them again at
once, but at most every 10 s, so a rotated key is picked up and a stream of made-up key ids
causes no stream of requests to the issuer. Every failure is a 502 that names the issuer and
what went wrong, never a token, code or secret.
"""

from __future__ import annotations

import ipaddress
import threading
import time
from urllib.parse import urlsplit

import httpx

from lorebase_core.errors import IdentityProviderUnavailable, UnsafeSettings
from lorebase_keeper.shapes.common import JsonObject
from lorebase_platform.settings import AuthSettings, OidcSettings

REFRESH_INTERVAL_S = 10.0
"""An unknown key id reads the issuer's keys again at most this often."""

MAX_DOCUMENT_BYTES = 1_048_576


def is_loopback_host(host: str) -> bool:
    """Whether `host` is localhost, ::1 or an address of 127.0.0.0/8."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def issuer_problem(issuer: str) -> str | None:
    """Why `issuer` cannot be an issuer URL (None: it can)."""
    parts = urlsplit(issuer)
    if (parts.scheme == "https" and parts.hostname) or (
        parts.scheme == "http" and parts.hostname and is_loopback_host(parts.hostname)
    ):
        pass
    else:
        return (
            f"keeper.auth.oidc.issuer {issuer!r} must be an https URL (http only on a loopback "
            "address such as 127.0.0.1)"
        )
    if parts.query or parts.fragment:
        return f"keeper.auth.oidc.issuer {issuer!r} must have no query or fragment"
    return None


def require_oidc_setup(auth: AuthSettings) -> None:
    """Refuse an auth mode that takes OIDC without an issuer and client id to take it from.

    Raises:
        UnsafeSettings: mode oidc or api_key+oidc with keeper.auth.oidc incomplete or unsafe.
    """
    if auth.mode not in ("oidc", "api_key+oidc"):
        return
    oidc = auth.oidc
    missing = [name for name in ("issuer", "client_id") if not getattr(oidc, name)]
    if missing:
        raise UnsafeSettings(
            f"Keeper does not start in auth mode {auth.mode!r} without "
            f"{' and '.join(f'keeper.auth.oidc.{name}' for name in missing)}: set the issuer's "
            "URL and Keeper's client id there (docs/auth.md, 'OIDC'), or use "
            "keeper.auth.mode: api_key"
        )
    problem = issuer_problem(str(oidc.issuer))
    if problem is not None:
        raise UnsafeSettings(f"Keeper does not start in auth mode {auth.mode!r}: {problem}")


class Issuer:
    """The issuer's discovery document and JSON Web Key Set, read on demand and cached."""

    def __init__(self, settings: OidcSettings, *, transport: httpx.BaseTransport | None = None):
        if settings.issuer is None:
            raise ValueError("keeper.auth.oidc.issuer is not set")
        self.settings = settings
        self.url = settings.issuer
        self._client = httpx.Client(
            timeout=settings.timeout_s, follow_redirects=False, transport=transport
        )
        self._lock = threading.Lock()
        self._discovery: JsonObject | None = None
        self._discovery_at = 0.0
        self._keys: list[JsonObject] = []
        self._keys_at = 0.0
        self._refreshed_at = -REFRESH_INTERVAL_S

    def close(self) -> None:
        self._client.close()

    def discovery(self) -> JsonObject:
        """The discovery document (cached `jwks_cache_s`)."""
        with self._lock:
            return self._discovery_locked(time.monotonic())

    def keys(self, kid: str | None) -> list[JsonObject]:
        """The issuer's keys; read again first when `kid` is not among them (at most every 10 s)."""
        with self._lock:
            now = time.monotonic()
            if not self._keys or now - self._keys_at >= self.settings.jwks_cache_s:
                self._read_keys(now)
            elif not _holds(self._keys, kid) and now - self._refreshed_at >= REFRESH_INTERVAL_S:
                # only these reads count towards the interval: a key rotated right after the
                # scheduled read is still picked up at once
                self._refreshed_at = now
                self._discovery = None  # a rotation may move the key set too
                self._read_keys(now)
            return list(self._keys)

    def post(self, endpoint: str, form: dict[str, str]) -> httpx.Response:
        """POST a form to one of the issuer's endpoints (the token endpoint)."""
        target = self.discovery().get(endpoint)
        if not isinstance(target, str) or not target:
            raise IdentityProviderUnavailable(
                f"The OIDC issuer {self.url!r} names no {endpoint} in its discovery document"
            )
        try:
            return self._client.post(target, data=form, headers={"Accept": "application/json"})
        except httpx.HTTPError as error:
            raise self._unavailable(endpoint, error) from None

    def _discovery_locked(self, now: float) -> JsonObject:
        if self._discovery is not None and now - self._discovery_at < self.settings.jwks_cache_s:
            return self._discovery
        found = self._get_json(
            f"{self.url.rstrip('/')}/.well-known/openid-configuration", "discovery document"
        )
        if found.get("issuer") != self.url:
            raise IdentityProviderUnavailable(
                f"The OIDC issuer {self.url!r} answers a discovery document for issuer "
                f"{found.get('issuer')!r}: set keeper.auth.oidc.issuer to exactly the issuer "
                "the provider names"
            )
        self._discovery, self._discovery_at = found, now
        return found

    def _read_keys(self, now: float) -> None:
        jwks_uri = self._discovery_locked(now).get("jwks_uri")
        if not isinstance(jwks_uri, str) or issuer_problem(_origin(jwks_uri)) is not None:
            raise IdentityProviderUnavailable(
                f"The OIDC issuer {self.url!r} names no usable jwks_uri (https, or http on "
                "loopback) in its discovery document"
            )
        found = self._get_json(jwks_uri, "signing keys")
        keys = found.get("keys")
        if not isinstance(keys, list):
            raise IdentityProviderUnavailable(
                f"The OIDC issuer {self.url!r} answers signing keys without a keys list"
            )
        self._keys = [key for key in keys if isinstance(key, dict)]
        self._keys_at = now

    def _get_json(self, url: str, what: str) -> JsonObject:
        try:
            answer = self._client.get(url, headers={"Accept": "application/json"})
        except httpx.HTTPError as error:
            raise self._unavailable(what, error) from None
        if answer.status_code != 200:
            raise IdentityProviderUnavailable(
                f"The OIDC issuer {self.url!r} answered {answer.status_code} for its {what}"
            )
        if len(answer.content) > MAX_DOCUMENT_BYTES:
            raise IdentityProviderUnavailable(
                f"The OIDC issuer {self.url!r} answered more than 1 MiB for its {what}"
            )
        try:
            found = answer.json()
        except ValueError:
            found = None
        if not isinstance(found, dict):
            raise IdentityProviderUnavailable(
                f"The OIDC issuer {self.url!r} answered no JSON object for its {what}"
            )
        return found

    def _unavailable(self, what: str, error: httpx.HTTPError) -> IdentityProviderUnavailable:
        reason = (
            f"no answer within {self.settings.timeout_s:g} s (keeper.auth.oidc.timeout_s)"
            if isinstance(error, httpx.TimeoutException)
            else "it could not be reached"
            if isinstance(error, httpx.TransportError)
            else type(error).__name__
        )
        return IdentityProviderUnavailable(
            f"The OIDC issuer {self.url!r} could not be read ({what}): {reason}; check that "
            "it is up and that keeper.auth.oidc.issuer names it"
        )


def _holds(keys: list[JsonObject], kid: str | None) -> bool:
    if kid is None:
        return bool(keys)
    return any(key.get("kid") == kid for key in keys)


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
