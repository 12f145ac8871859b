"""Principals, their API keys and their grants (docs/auth.md).

An API key reads `lbk_<key id>_<secret>`. Only the SHA-256 of the secret is stored, so the secret
is shown once, when the key is made; the key id finds the row in one probe and the digest is
compared in constant time. Roles are plain names here: Keeper knows what each allows.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass, replace
from typing import Any, Literal

import sqlalchemy as sa

from lorebase_core.errors import (
    AlreadyExists,
    BadRequest,
    GrantNotFound,
    KeyNotFound,
    PrincipalNotFound,
)
from lorebase_store import tables as t
from lorebase_store.clock import now_stamp
from lorebase_store.engine import inserted_id
from lorebase_store.rows import field_document, from_row

PrincipalType = Literal["user", "service"]
PRINCIPAL_ID = re.compile(r"^[a-z][a-z0-9_.-]{0,62}$")
KEY_PREFIX = "lbk_"
_KEY = re.compile(r"^lbk_([0-9a-f]{12})_([A-Za-z0-9_-]{20,128})$")


@dataclass(frozen=True)
class PrincipalInfo:
    id: str
    type: str
    display_name: str
    created_at: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "type": self.type, "display_name": self.display_name}


@dataclass(frozen=True, kw_only=True)
class GrantInfo:
    """A role on the branches of a Domain matching `branch` (a glob), maybe narrowed to Kinds."""

    id: int
    principal: str
    domain: str
    branch: str
    role: str
    kinds: tuple[str, ...] | None
    clearances: tuple[str, ...]
    created_at: str

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "principal": self.principal,
            "domain": self.domain,
            "branch": self.branch,
            "role": self.role,
            "kinds": list(self.kinds) if self.kinds is not None else None,
            "clearances": list(self.clearances),
            "created_at": self.created_at,
        }


@dataclass(frozen=True)
class KeyInfo:
    id: str
    principal: str
    description: str
    created_at: str
    revoked_at: str | None

    def to_json(self) -> dict[str, Any]:
        return field_document(self)


@dataclass(frozen=True)
class KeyRevocation:
    """A key revoked, and how many browser sessions signed in with it ended with it."""

    key: KeyInfo
    sessions_ended: int


@dataclass(frozen=True)
class NewKey:
    """A key just made: `secret` is the whole key, shown this once."""

    info: KeyInfo
    secret: str


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def check_principal_id(principal_id: str) -> None:
    if not PRINCIPAL_ID.match(principal_id):
        raise BadRequest(
            f"{principal_id!r} is not a principal id: use lower-case letters, digits and . _ -, "
            "starting with a letter (at most 63 characters)"
        )


def ensure_principal(
    connection: sa.Connection,
    principal_id: str,
    *,
    principal_type: PrincipalType = "user",
    display_name: str = "",
) -> PrincipalInfo:
    """The principal, created when it does not exist yet."""
    check_principal_id(principal_id)
    row = _principal_row(connection, principal_id)
    if row is None:
        created_at = now_stamp()
        connection.execute(
            t.principals.insert().values(
                id=principal_id,
                type=principal_type,
                display_name=display_name or principal_id,
                created_at=created_at,
            )
        )
        return PrincipalInfo(principal_id, principal_type, display_name or principal_id, created_at)
    return from_row(PrincipalInfo, row)


def principal(connection: sa.Connection, principal_id: str) -> PrincipalInfo:
    row = _principal_row(connection, principal_id)
    if row is None:
        raise PrincipalNotFound(f"Principal {principal_id!r} does not exist")
    return from_row(PrincipalInfo, row)


def _principal_row(connection: sa.Connection, principal_id: str) -> sa.Row[Any] | None:
    return connection.execute(
        sa.select(t.principals).where(t.principals.c.id == principal_id)
    ).first()


def create_key(connection: sa.Connection, principal_id: str, *, description: str = "") -> NewKey:
    principal(connection, principal_id)
    key_id = secrets.token_hex(6)
    secret = secrets.token_urlsafe(32)
    created_at = now_stamp()
    connection.execute(
        t.api_keys.insert().values(
            id=key_id,
            principal_id=principal_id,
            secret_digest=_digest(secret),
            description=description,
            created_at=created_at,
            revoked_at=None,
        )
    )
    info = KeyInfo(key_id, principal_id, description, created_at, None)
    return NewKey(info, f"{KEY_PREFIX}{key_id}_{secret}")


def list_keys(connection: sa.Connection, principal_id: str | None = None) -> list[KeyInfo]:
    query = sa.select(t.api_keys).order_by(t.api_keys.c.principal_id, t.api_keys.c.created_at)
    if principal_id is not None:
        query = query.where(t.api_keys.c.principal_id == principal_id)
    return [from_row(KeyInfo, row, principal=row.principal_id) for row in connection.execute(query)]


def revoke_key(connection: sa.Connection, key_id: str) -> KeyInfo:
    found = [key for key in list_keys(connection) if key.id == key_id]
    if not found:
        raise KeyNotFound(f"API key {key_id!r} does not exist")
    key = found[0]
    if key.revoked_at is not None:
        return key
    revoked_at = now_stamp()
    connection.execute(
        t.api_keys.update().where(t.api_keys.c.id == key_id).values(revoked_at=revoked_at)
    )
    return replace(key, revoked_at=revoked_at)


def api_key_id(presented: str) -> str | None:
    """The key id of a well-formed API key (the 12 hex digits after lbk_), without a lookup."""
    match = _KEY.match(presented)
    return match.group(1) if match else None


def key_principal(connection: sa.Connection, presented: str) -> PrincipalInfo | None:
    """The principal of a live API key, or None for a malformed, unknown or revoked one."""
    match = _KEY.match(presented)
    if match is None:
        return None
    key_id, secret = match.groups()
    row = connection.execute(
        sa.select(t.api_keys.c.secret_digest, t.api_keys.c.revoked_at, t.principals)
        .join_from(t.api_keys, t.principals, t.principals.c.id == t.api_keys.c.principal_id)
        .where(t.api_keys.c.id == key_id)
    ).first()
    if row is None or row.revoked_at is not None:
        return None
    if not hmac.compare_digest(row.secret_digest, _digest(secret)):
        return None
    return from_row(PrincipalInfo, row)


def add_grant(
    connection: sa.Connection,
    principal_id: str,
    *,
    domain: str,
    role: str,
    branch: str = "*",
    kinds: list[str] | None = None,
    clearances: list[str] | None = None,
) -> GrantInfo:
    principal(connection, principal_id)
    if kinds is not None and not kinds:
        raise BadRequest("A grant narrowed to Kinds names at least one Kind")
    duplicate = connection.execute(
        sa.select(t.grants.c.id).where(
            t.grants.c.principal_id == principal_id,
            t.grants.c.domain == domain,
            t.grants.c.branch == branch,
            t.grants.c.role == role,
        )
    ).scalar()
    if duplicate is not None:
        raise AlreadyExists(
            f"{principal_id!r} already holds {role!r} on {domain}:{branch} (grant {duplicate}); "
            "revoke it first to change it"
        )
    created_at = now_stamp()
    sorted_kinds = sorted(set(kinds)) if kinds is not None else None
    sorted_clearances = sorted(set(clearances or []))
    grant_id = inserted_id(
        connection.execute(
            t.grants.insert().values(
                principal_id=principal_id,
                domain=domain,
                branch=branch,
                role=role,
                kinds=sorted_kinds,
                clearances=sorted_clearances,
                created_at=created_at,
            )
        )
    )
    return GrantInfo(
        id=grant_id,
        principal=principal_id,
        domain=domain,
        branch=branch,
        role=role,
        kinds=tuple(sorted_kinds) if sorted_kinds is not None else None,
        clearances=tuple(sorted_clearances),
        created_at=created_at,
    )


def grants_of(connection: sa.Connection, principal_id: str | None = None) -> list[GrantInfo]:
    query = sa.select(t.grants).order_by(t.grants.c.principal_id, t.grants.c.id)
    if principal_id is not None:
        query = query.where(t.grants.c.principal_id == principal_id)
    return [
        from_row(
            GrantInfo,
            row,
            principal=row.principal_id,
            kinds=tuple(row.kinds) if row.kinds is not None else None,
            clearances=tuple(row.clearances),
        )
        for row in connection.execute(query)
    ]


def revoke_grant(connection: sa.Connection, grant_id: int) -> None:
    deleted = connection.execute(t.grants.delete().where(t.grants.c.id == grant_id)).rowcount
    if not deleted:
        raise GrantNotFound(f"Grant {grant_id} does not exist")
