"""OpenID Connect for Keeper: bearer tokens of keeper.auth.oidc's issuer and code sign-ins.

| module | holds |
| --- | --- |
| `issuer` | the discovery document and signing keys, cached; the startup check of the settings |
| `verification` | checking a JWT: algorithm, key, signature, iss, aud, exp, nbf, iat, sub |
| `principals` | the principal a token names, bound to its (issuer, sub) at the first sign-in |
| `sign_in` | exchanging an authorization code (PKCE) for a verified ID token |
| `authenticator` | `OidcAuthenticator`, what `lorebase_keeper.auth.authenticate.Authenticator` calls |
"""

from __future__ import annotations

from lorebase_keeper.auth.oidc.authenticator import OidcAuthenticator
from lorebase_keeper.auth.oidc.issuer import require_oidc_setup
from lorebase_keeper.auth.oidc.sign_in import OidcSignIn

__all__ = ["OidcAuthenticator", "OidcSignIn", "require_oidc_setup"]
