"""Verifying a JWT of the issuer: an access token (bearer) or an ID token (sign-in).

The algorithm must be one of keeper.auth.oidc.algorithms (never `none`, never HMAC: the settings
refuse those), and the key that the header's `kid` names must be a key of that algorithm (its
`kty`, its curve and its own `alg`), so no token chooses how it is checked. `iss` must be the
issuer, `aud` one of the audiences, `exp`, `nbf` and `iat` hold with leeway_s, `sub` is
required. Each refusal is a 401 saying which check failed, never the token.
"""

from __future__ import annotations

from collections.abc import Sequence

import jwt

from lorebase_core.errors import Unauthorized
from lorebase_keeper.auth.oidc.issuer import Issuer
from lorebase_keeper.shapes.common import JsonObject

_KEY_TYPES = {
    "RS256": ("RSA", None),
    "RS384": ("RSA", None),
    "RS512": ("RSA", None),
    "PS256": ("RSA", None),
    "PS384": ("RSA", None),
    "PS512": ("RSA", None),
    "ES256": ("EC", "P-256"),
    "ES384": ("EC", "P-384"),
    "ES512": ("EC", "P-521"),
    "EdDSA": ("OKP", None),
}
"""The key type (and curve) each accepted algorithm verifies with."""


def verify_jwt(
    token: str,
    issuer: Issuer,
    *,
    audiences: Sequence[str],
    what: str = "token",
    nonce: str | None = None,
) -> JsonObject:
    """The claims of `token` once every check holds.

    Raises:
        Unauthorized: a malformed token, or one that fails a check (the detail says which).
        IdentityProviderUnavailable: the issuer's keys could not be read.
    """
    settings = issuer.settings
    try:
        header = jwt.get_unverified_header(token)
    except jwt.PyJWTError:
        raise Unauthorized(f"The {what} is not a well-formed JWT") from None
    algorithm = header.get("alg")
    if algorithm not in settings.algorithms or algorithm not in _KEY_TYPES:
        raise Unauthorized(
            f"The {what} is signed with algorithm {str(algorithm)[:20]!r}, which this Keeper "
            f"does not accept (keeper.auth.oidc.algorithms: {', '.join(settings.algorithms)})"
        )
    kid = header.get("kid")
    if kid is not None and not isinstance(kid, str):
        raise Unauthorized(f"The {what}'s key id (kid) is not a string")
    key = _signing_key(issuer.keys(kid), kid, algorithm, what)
    claims = _decoded(token, key, algorithm, issuer, audiences, what)
    if not isinstance(claims.get("sub"), str) or not claims["sub"]:
        raise Unauthorized(f"The {what}'s sub claim is not a non-empty string")
    if nonce is not None and claims.get("nonce") != nonce:
        raise Unauthorized(f"The {what}'s nonce is not the sign-in's: start the sign-in again")
    return claims


def _decoded(
    token: str,
    key: jwt.PyJWK,
    algorithm: str,
    issuer: Issuer,
    audiences: Sequence[str],
    what: str,
) -> JsonObject:
    """The claims once signature, issuer, audience and times hold; 401 saying which did not."""
    settings = issuer.settings
    try:
        claims: JsonObject = jwt.decode(
            token,
            key.key,
            algorithms=[algorithm],
            audience=list(audiences),
            issuer=issuer.url,
            leeway=settings.leeway_s,
            options={"require": ["exp", "iat", "iss", "aud", "sub"], "strict_aud": False},
        )
    except jwt.ExpiredSignatureError:
        raise Unauthorized(f"The {what} has expired: get a new one from the issuer") from None
    except jwt.ImmatureSignatureError:
        raise Unauthorized(
            f"The {what} is not yet valid (nbf or iat in the future beyond "
            f"{settings.leeway_s} s of leeway): check the clocks of issuer and Keeper"
        ) from None
    except jwt.InvalidAudienceError:
        raise Unauthorized(
            f"The {what} is for another audience: its aud must name one of "
            f"{', '.join(repr(name) for name in audiences)} (keeper.auth.oidc.audience)"
        ) from None
    except jwt.InvalidIssuerError:
        raise Unauthorized(
            f"The {what} is from another issuer: its iss must be {issuer.url!r}"
        ) from None
    except jwt.InvalidSignatureError:
        raise Unauthorized(f"The {what}'s signature does not verify") from None
    except jwt.MissingRequiredClaimError as error:
        raise Unauthorized(f"The {what} has no {error.claim!r} claim") from None
    except jwt.PyJWTError as error:
        raise Unauthorized(f"The {what} is not valid ({type(error).__name__})") from None
    return claims


def _signing_key(keys: list[JsonObject], kid: str | None, algorithm: str, what: str) -> jwt.PyJWK:
    kty, curve = _KEY_TYPES[algorithm]
    named = [key for key in keys if kid is None or key.get("kid") == kid]
    if not named:
        raise Unauthorized(
            f"The {what} is signed with a key the issuer does not publish (unknown kid)"
        )
    fitting = [
        key
        for key in named
        if key.get("kty") == kty
        and (curve is None or key.get("crv") == curve)
        and key.get("alg") in (None, algorithm)
        and key.get("use") in (None, "sig")
    ]
    if algorithm == "EdDSA":
        fitting = [key for key in fitting if key.get("crv") in ("Ed25519", "Ed448")]
    if len(fitting) != 1:
        raise Unauthorized(
            f"The {what}'s algorithm {algorithm!r} does not fit the issuer's key it names"
            if fitting == []
            else f"The {what} names no key id (kid) and the issuer publishes several keys"
        )
    try:
        return jwt.PyJWK(fitting[0], algorithm=algorithm)
    except jwt.PyJWTError:
        raise Unauthorized(f"The issuer's key for the {what} cannot verify {algorithm!r}") from None
