"""Which principal an OIDC token or sign-in names (docs/auth.md, "OIDC", "Principals").

The value of keeper.auth.oidc.principal_claim, lower-cased, with characters outside a-z 0-9 _ . -
turned into `-`, is the principal id. The store binds (issuer, sub) to it at the first sign-in,
creating the principal with no grants; from then on the binding names the principal. A claim
value that names another identity's principal, or an existing principal that has API keys and
no binding, is refused: a colliding claim takes over nobody.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from lorebase_core.errors import Unauthorized
from lorebase_core.values import JsonValue
from lorebase_platform.settings import OidcSettings
from lorebase_store import PRINCIPAL_ID, PrincipalInfo, Store

_OUTSIDE = re.compile(r"[^a-z0-9_.-]")


def principal_id_from(claims: Mapping[str, JsonValue], settings: OidcSettings) -> str:
    """The principal id the claims name.

    Raises:
        Unauthorized: the claim is missing, or its value cannot make a principal id.
    """
    name = settings.principal_claim
    value = claims.get(name)
    if not isinstance(value, str) or not value.strip():
        raise Unauthorized(
            f"The token has no {name!r} claim to name its principal: set "
            "keeper.auth.oidc.principal_claim to a claim the issuer sends (sub, email, "
            "preferred_username)"
        )
    principal_id = _OUTSIDE.sub("-", value.strip().lower())
    if not PRINCIPAL_ID.match(principal_id):
        raise Unauthorized(
            f"The token's {name!r} claim does not make a principal id (lower-case letters, "
            "digits and . _ -, starting with a letter, at most 63 characters): set "
            "keeper.auth.oidc.principal_claim to another claim (preferred_username, email)"
        )
    return principal_id


def bound_principal(
    store: Store, issuer: str, claims: Mapping[str, JsonValue], settings: OidcSettings
) -> PrincipalInfo:
    """The principal of the token's (issuer, sub): made and bound at the first sign-in.

    Raises:
        Unauthorized: the claim's principal belongs to another identity, or exists with API
            keys and no binding.
    """
    principal_id = principal_id_from(claims, settings)
    display = claims.get("name") or claims.get("email") or ""
    binding = store.bind_oidc_identity(
        issuer=issuer,
        subject=str(claims["sub"]),
        principal_id=principal_id,
        principal_type=settings.principal_type,
        display_name=display[:200] if isinstance(display, str) else "",
    )
    if binding.principal is not None:
        return binding.principal
    link = (
        f"an administrator links the identity with `lorebase principal link-oidc "
        f"{principal_id} --issuer ISSUER --subject SUB`"
    )
    if binding.conflict == "bound-elsewhere":
        raise Unauthorized(
            f"Principal {principal_id!r} is bound to another identity of an OIDC issuer, so "
            f"this token cannot be it: {link} after unlinking the other "
            "(`lorebase principal unlink-oidc`), or set keeper.auth.oidc.principal_claim to a "
            "claim that is unique (sub)"
        )
    raise Unauthorized(
        f"Principal {principal_id!r} exists with API keys and is bound to no OIDC identity, "
        f"so a token naming it does not sign in as it: {link}"
    )
