"""OIDC identities: which principal an issuer's subject is (docs/auth.md, "OIDC").

A row binds (issuer, subject) to one principal, and a principal to at most one identity. The
first sign-in of a subject creates its principal (no grants) and the binding; later sign-ins
find the principal through the binding, whatever its claims say then. A principal that exists
already without a binding and has API keys is not taken over by a sign-in whose claim happens to
name it: an administrator links it (`lorebase principal link-oidc`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal

import sqlalchemy as sa

from lorebase_core.errors import AlreadyExists
from lorebase_core.values import format_datetime
from lorebase_store import tables as t
from lorebase_store.access import PrincipalInfo, PrincipalType, ensure_principal, principal
from lorebase_store.rows import from_row

OidcConflict = Literal["bound-elsewhere", "has-api-keys"]

_TOUCH_INTERVAL = timedelta(minutes=1)


@dataclass(frozen=True)
class OidcIdentity:
    issuer: str
    subject: str
    principal_id: str
    created_at: str
    last_seen_at: str


@dataclass(frozen=True)
class OidcBinding:
    """What a sign-in of (issuer, subject) names: its principal, or why it may not have one.

    `conflict`: `bound-elsewhere` (the principal is another identity's), `has-api-keys` (the
    principal exists with API keys and no binding); `principal` is then None.
    """

    principal: PrincipalInfo | None
    created: bool = False
    conflict: OidcConflict | None = None


def _now() -> datetime:
    return datetime.now(UTC)


def bind_oidc_identity(
    connection: sa.Connection,
    *,
    issuer: str,
    subject: str,
    principal_id: str,
    principal_type: PrincipalType = "user",
    display_name: str = "",
) -> OidcBinding:
    """The principal bound to (issuer, subject); the first time, `principal_id`, made and bound."""
    identities = t.oidc_identities
    now = _now()
    row = connection.execute(
        sa.select(identities).where(identities.c.issuer == issuer, identities.c.subject == subject)
    ).first()
    if row is not None:
        if datetime.fromisoformat(row.last_seen_at) + _TOUCH_INTERVAL < now:
            connection.execute(
                identities.update()
                .where(identities.c.issuer == issuer, identities.c.subject == subject)
                .values(last_seen_at=format_datetime(now))
            )
        return OidcBinding(principal(connection, row.principal_id))
    bound = connection.execute(
        sa.select(identities.c.issuer).where(identities.c.principal_id == principal_id)
    ).first()
    if bound is not None:
        return OidcBinding(None, conflict="bound-elsewhere")
    existing = connection.execute(
        sa.select(t.principals.c.id).where(t.principals.c.id == principal_id)
    ).first()
    if existing is not None:
        keys = connection.execute(
            sa.select(sa.func.count())
            .select_from(t.api_keys)
            .where(t.api_keys.c.principal_id == principal_id)
        ).scalar_one()
        if keys:
            return OidcBinding(None, conflict="has-api-keys")
    info = ensure_principal(
        connection, principal_id, principal_type=principal_type, display_name=display_name
    )
    _insert(connection, issuer, subject, principal_id, now)
    return OidcBinding(info, created=existing is None)


def link_oidc_identity(
    connection: sa.Connection, principal_id: str, *, issuer: str, subject: str
) -> OidcIdentity:
    """Bind (issuer, subject) to an existing principal (an administrator's `link-oidc`).

    Raises:
        PrincipalNotFound: no such principal.
        AlreadyExists: the identity or the principal is bound already.
    """
    principal(connection, principal_id)
    identities = t.oidc_identities
    row = connection.execute(
        sa.select(identities).where(
            (identities.c.principal_id == principal_id)
            | ((identities.c.issuer == issuer) & (identities.c.subject == subject))
        )
    ).first()
    if row is not None:
        raise AlreadyExists(
            f"Principal {row.principal_id!r} is bound to subject {row.subject!r} of issuer "
            f"{row.issuer!r} already: unlink it first (`lorebase principal unlink-oidc`)"
        )
    now = _now()
    _insert(connection, issuer, subject, principal_id, now)
    stamp = format_datetime(now)
    return OidcIdentity(issuer, subject, principal_id, stamp, stamp)


def unlink_oidc_identity(connection: sa.Connection, principal_id: str) -> OidcIdentity | None:
    """Remove the principal's binding (None: it had none); its next sign-in is refused."""
    identities = t.oidc_identities
    row = connection.execute(
        sa.select(identities).where(identities.c.principal_id == principal_id)
    ).first()
    if row is None:
        return None
    connection.execute(identities.delete().where(identities.c.principal_id == principal_id))
    return from_row(OidcIdentity, row)


def oidc_identities(connection: sa.Connection) -> list[OidcIdentity]:
    identities = t.oidc_identities
    query = sa.select(identities).order_by(identities.c.principal_id)
    return [from_row(OidcIdentity, row) for row in connection.execute(query)]


def _insert(
    connection: sa.Connection, issuer: str, subject: str, principal_id: str, now: datetime
) -> None:
    stamp = format_datetime(now)
    connection.execute(
        t.oidc_identities.insert().values(
            issuer=issuer,
            subject=subject,
            principal_id=principal_id,
            created_at=stamp,
            last_seen_at=stamp,
        )
    )
