"""Finishing an OIDC authorization-code sign-in (PKCE) at the issuer's token endpoint.

The web app sends the person to the issuer, gets a code back on its redirect URI and hands
code, verifier and redirect URI to POST /api/v1/auth/session; Keeper exchanges the code here
(with the client secret when keeper.auth.oidc.client_secret is set) and verifies the ID token:
aud Keeper's client id, the sign-in's nonce when it sent one.
"""

from __future__ import annotations

from dataclasses import dataclass

from lorebase_core.errors import IdentityProviderUnavailable, Unauthorized
from lorebase_keeper.auth.oidc.issuer import Issuer
from lorebase_keeper.auth.oidc.verification import verify_jwt
from lorebase_keeper.shapes.common import JsonObject
from lorebase_platform import resolve_secret


@dataclass(frozen=True)
class OidcSignIn:
    """Who an OIDC sign-in names, and the claims its session keeps (its groups; never a token)."""

    principal_id: str
    claims: dict[str, list[str]]


def exchange_code(
    issuer: Issuer,
    *,
    code: str,
    code_verifier: str,
    redirect_uri: str,
    nonce: str | None,
) -> JsonObject:
    """The verified claims of the ID token the issuer answers for `code`.

    Raises:
        Unauthorized: the redirect URI is not one of the settings', the issuer refuses the
            code or verifier, or its ID token fails a check.
        IdentityProviderUnavailable: the issuer cannot be reached or answers nonsense.
    """
    settings = issuer.settings
    if redirect_uri not in settings.redirect_uris:
        raise Unauthorized(
            f"Redirect URI {redirect_uri[:200]!r} is not one of keeper.auth.oidc.redirect_uris: "
            "sign in from the web app's own address, or add it there"
        )
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "code_verifier": code_verifier,
        "redirect_uri": redirect_uri,
        "client_id": str(settings.client_id),
    }
    if settings.client_secret:
        form["client_secret"] = resolve_secret(settings.client_secret)
    answer = issuer.post("token_endpoint", form)
    try:
        body = answer.json()
    except ValueError:
        body = None
    if answer.status_code in (400, 401) and isinstance(body, dict):
        error = str(body.get("error", "invalid_grant"))[:60]
        raise Unauthorized(
            f"The OIDC issuer refused the sign-in code ({error}): it is used, expired, or its "
            "verifier or redirect URI differ from the sign-in's; sign in again"
        )
    if answer.status_code != 200 or not isinstance(body, dict):
        raise IdentityProviderUnavailable(
            f"The OIDC issuer {issuer.url!r} answered {answer.status_code} at its token endpoint"
        )
    id_token = body.get("id_token")
    if not isinstance(id_token, str):
        raise Unauthorized(
            "The OIDC issuer answered no ID token: keeper.auth.oidc.scopes must include openid"
        )
    return verify_jwt(
        id_token, issuer, audiences=[str(settings.client_id)], what="ID token", nonce=nonce
    )
