"""Grants that an OIDC groups claim gives (keeper.auth.oidc.groups, docs/auth.md "OIDC").

They are not rows of the store: they hold while the token, or the session signed in with it,
names the group, and end with it. Each has id 0 (no row to revoke) and `created_at` empty.
"""

from __future__ import annotations

from collections.abc import Mapping

from lorebase_core.values import JsonValue
from lorebase_platform.settings import OidcSettings
from lorebase_store import GrantInfo


def group_grants(
    settings: OidcSettings, principal_id: str, claims: Mapping[str, JsonValue]
) -> tuple[GrantInfo, ...]:
    """The grants of the groups in `claims[settings.groups_claim]` (none without that claim).

    A claim that is a string counts as one group; anything else but a list of strings gives none.
    """
    if settings.groups_claim is None or not settings.groups:
        return ()
    named = claims.get(settings.groups_claim)
    groups = [named] if isinstance(named, str) else named
    if not isinstance(groups, list):
        return ()
    found: list[GrantInfo] = []
    for group in sorted({item for item in groups if isinstance(item, str)}):
        for grant in settings.groups.get(group, ()):
            found.append(
                GrantInfo(
                    id=0,
                    principal=principal_id,
                    domain=grant.domain,
                    branch=grant.branch,
                    role=grant.role,
                    kinds=tuple(sorted(set(grant.kinds))) if grant.kinds is not None else None,
                    clearances=tuple(sorted(set(grant.clearances))),
                    created_at="",
                )
            )
    return tuple(found)
