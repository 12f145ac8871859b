"""OIDC in Keeper's Authenticator: bearer tokens and code sign-ins (docs/auth.md, "OIDC").

A verified token's principal (with its stored grants and the grants of its groups) is cached by
the token's digest until the token expires or keeper.auth.authz.grants_cache_ttl_s passes,
whichever comes first.
"""

from __future__ import annotations

import hashlib
import threading
import time

from lorebase_core.values import JsonValue
from lorebase_keeper.auth.authz import Principal
from lorebase_keeper.auth.oidc.group_grants import group_grants
from lorebase_keeper.auth.oidc.issuer import Issuer
from lorebase_keeper.auth.oidc.principals import bound_principal
from lorebase_keeper.auth.oidc.sign_in import OidcSignIn, exchange_code
from lorebase_keeper.auth.oidc.verification import verify_jwt
from lorebase_keeper.shapes.auth.oidc import OidcConfigurationJson
from lorebase_keeper.shapes.common import JsonObject
from lorebase_platform.settings import OidcSettings
from lorebase_store import GrantInfo, Store

MAX_CACHED_TOKENS = 10_000


class OidcAuthenticator:
    """Verifies the issuer's tokens and maps them to principals; one per Keeper process."""

    def __init__(self, settings: OidcSettings, store: Store, *, grants_ttl_s: float) -> None:
        self.settings = settings
        self.store = store
        self.issuer = Issuer(settings)
        self.audiences = list(settings.audience) or [str(settings.client_id)]
        self.grants_ttl_s = grants_ttl_s
        self._cache: dict[str, tuple[float, Principal]] = {}
        self._lock = threading.Lock()

    def close(self) -> None:
        self.issuer.close()

    def token_principal(self, token: str) -> Principal:
        """The principal of a bearer token (see `verify_jwt` for what is refused)."""
        cache_key = hashlib.sha256(token.encode()).hexdigest()
        now = time.monotonic()
        with self._lock:
            cached = self._cache.get(cache_key)
        if cached is not None and now < cached[0]:
            return cached[1]
        claims = verify_jwt(token, self.issuer, audiences=self.audiences, what="token")
        found = self._principal(claims)
        expires_in = _number(claims["exp"]) - time.time()
        until = now + max(0.0, min(expires_in, self.grants_ttl_s))
        with self._lock:
            if len(self._cache) > MAX_CACHED_TOKENS:
                self._cache.clear()
            self._cache[cache_key] = (until, found)
        return found

    def sign_in(
        self, *, code: str, code_verifier: str, redirect_uri: str, nonce: str | None
    ) -> OidcSignIn:
        """Exchange a sign-in code; the principal it names and the claims a session keeps."""
        claims = exchange_code(
            self.issuer,
            code=code,
            code_verifier=code_verifier,
            redirect_uri=redirect_uri,
            nonce=nonce,
        )
        info = bound_principal(self.store, self.issuer.url, claims, self.settings)
        return OidcSignIn(info.id, self.session_claims(claims))

    def session_claims(self, claims: JsonObject) -> dict[str, list[str]]:
        """What a session keeps of the claims: `{"groups": [...]}` (groups_claim's values)."""
        name = self.settings.groups_claim
        named = claims.get(name) if name else None
        groups = [named] if isinstance(named, str) else named
        if not isinstance(groups, list):
            return {"groups": []}
        return {"groups": sorted({item for item in groups if isinstance(item, str)})}

    def session_grants(
        self, principal_id: str, session_claims: JsonObject
    ) -> tuple[GrantInfo, ...]:
        """The group grants of a session's claims (`session_claims`), whatever groups_claim is."""
        if self.settings.groups_claim is None:
            return ()
        named = {self.settings.groups_claim: session_claims.get("groups", [])}
        return group_grants(self.settings, principal_id, named)

    def _principal(self, claims: JsonObject) -> Principal:
        info = bound_principal(self.store, self.issuer.url, claims, self.settings)
        grants = tuple(self.store.grants(info.id)) + group_grants(self.settings, info.id, claims)
        return Principal(info.id, info.type, grants, "oidc", None)

    def public_configuration(self) -> OidcConfigurationJson:
        """What GET /api/v1/auth/oidc answers: how the web app and the CLI sign in (no secret)."""
        discovery = self.issuer.discovery()
        return {
            "issuer": self.issuer.url,
            "client_id": self.settings.client_id,
            "authorization_endpoint": discovery.get("authorization_endpoint"),
            "token_endpoint": discovery.get("token_endpoint"),
            "device_authorization_endpoint": discovery.get("device_authorization_endpoint"),
            "scopes": list(self.settings.scopes),
            "redirect_uris": list(self.settings.redirect_uris),
            "audience": self.audiences,
        }


def _number(claim: JsonValue) -> float:
    """A time claim (`exp`) as a number: PyJWT checked it is one (or its digits)."""
    if isinstance(claim, int | float | str):
        return float(claim)
    raise TypeError(f"expected a number, not {type(claim).__name__}")
