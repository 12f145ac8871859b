"""Browser sessions: rows of `auth_sessions` (docs/auth.md, "Browser sessions").

A session id (`lorebase_core.sessions`) is shown once, when the session is made, and lives only
in the browser's cookie: the row holds its SHA-256. A session ends when it is revoked (with its
API key, its principal, or by signing out), when it has not been used for idle_timeout_s, or
absolute_timeout_s after sign-in. Past max_per_principal live sessions, the oldest are revoked.
Expired and revoked rows are pruned, a bounded number at each sign-in.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

import sqlalchemy as sa

from lorebase_core.sessions import SESSION_ID, new_session_id, session_digest
from lorebase_core.values import format_datetime
from lorebase_platform.settings import SessionSettings
from lorebase_store import tables as t
from lorebase_store.access import principal
from lorebase_store.clock import now_stamp

SessionMethod = Literal["api_key", "oidc"]
PRUNE_BATCH = 200
"""Rows pruned at most per sign-in: the cost of a sign-in stays bounded."""


@dataclass(frozen=True, kw_only=True)
class SessionInfo:
    """A live session: whose, how it signed in, and until when it lasts."""

    principal: str
    principal_type: str
    method: str
    key_id: str | None
    claims: dict[str, Any]
    created_at: str
    last_seen_at: str
    expires_at: str
    """Its absolute end."""
    idle_expires_at: str
    """When it ends unless used before (never after `expires_at`)."""


@dataclass(frozen=True)
class NewSession:
    """A session just made: `session_id` goes into the cookie and is not shown again."""

    session_id: str
    info: SessionInfo


def _moment(text: str) -> datetime:
    return datetime.fromisoformat(text)


def _info(row: sa.Row[Any], settings: SessionSettings) -> SessionInfo:
    idle_end = _moment(row.last_seen_at) + timedelta(seconds=settings.idle_timeout_s)
    end = _moment(row.expires_at)
    return SessionInfo(
        principal=row.principal_id,
        principal_type=row.type,
        method=row.method,
        key_id=row.key_id,
        claims=dict(row.claims or {}),
        created_at=row.created_at,
        last_seen_at=row.last_seen_at,
        expires_at=row.expires_at,
        idle_expires_at=format_datetime(min(idle_end, end)),
    )


def _select() -> sa.Select[Any]:
    return sa.select(t.auth_sessions, t.principals.c.type).join_from(
        t.auth_sessions, t.principals, t.principals.c.id == t.auth_sessions.c.principal_id
    )


def create_session(
    connection: sa.Connection,
    principal_id: str,
    *,
    method: SessionMethod,
    key_id: str | None,
    claims: dict[str, Any],
    settings: SessionSettings,
) -> NewSession:
    """A new session of `principal_id` (it must exist), revoking its oldest past the limit."""
    principal(connection, principal_id)
    prune_sessions(connection, settings)
    now = datetime.now(UTC)
    stamp = format_datetime(now)
    session_id = new_session_id()
    connection.execute(
        t.auth_sessions.insert().values(
            id_digest=session_digest(session_id),
            principal_id=principal_id,
            method=method,
            key_id=key_id,
            claims=claims,
            created_at=stamp,
            last_seen_at=stamp,
            expires_at=format_datetime(now + timedelta(seconds=settings.absolute_timeout_s)),
            revoked_at=None,
        )
    )
    _limit(connection, principal_id, settings, now)
    row = connection.execute(
        _select().where(t.auth_sessions.c.id_digest == session_digest(session_id))
    ).one()
    return NewSession(session_id, _info(row, settings))


def _limit(
    connection: sa.Connection, principal_id: str, settings: SessionSettings, now: datetime
) -> None:
    rows = connection.execute(
        sa.select(
            t.auth_sessions.c.id_digest,
            t.auth_sessions.c.created_at,
            t.auth_sessions.c.last_seen_at,
            t.auth_sessions.c.expires_at,
        ).where(
            t.auth_sessions.c.principal_id == principal_id,
            t.auth_sessions.c.revoked_at.is_(None),
        )
    ).all()
    live = [row for row in rows if _live(row.last_seen_at, row.expires_at, settings, now)]
    if len(live) <= settings.max_per_principal:
        return
    # the newest stay; compared as moments, since stamps of one second differ in length
    live.sort(key=lambda row: (_moment(row.created_at), row.id_digest), reverse=True)
    oldest = [row.id_digest for row in live[settings.max_per_principal :]]
    connection.execute(
        t.auth_sessions.update()
        .where(t.auth_sessions.c.id_digest.in_(oldest))
        .values(revoked_at=format_datetime(now))
    )


def _live(last_seen_at: str, expires_at: str, settings: SessionSettings, now: datetime) -> bool:
    idle_end = _moment(last_seen_at) + timedelta(seconds=settings.idle_timeout_s)
    return now < _moment(expires_at) and now < idle_end


def find_session(
    connection: sa.Connection, session_id: str, settings: SessionSettings
) -> SessionInfo | None:
    """The live session of a presented id; None when malformed, unknown, revoked or expired.

    A session made with an API key ends with the key, even one revoked some other way.
    """
    if not SESSION_ID.match(session_id):
        return None
    row = connection.execute(
        _select()
        .add_columns(t.api_keys.c.revoked_at.label("key_revoked_at"))
        .outerjoin(t.api_keys, t.api_keys.c.id == t.auth_sessions.c.key_id)
        .where(t.auth_sessions.c.id_digest == session_digest(session_id))
    ).first()
    if row is None or row.revoked_at is not None or row.key_revoked_at is not None:
        return None
    if not _live(row.last_seen_at, row.expires_at, settings, datetime.now(UTC)):
        return None
    return _info(row, settings)


def touch_due(found: SessionInfo, settings: SessionSettings) -> bool:
    """Whether touch_interval_s has passed since `found` was last written as used."""
    since = datetime.now(UTC) - _moment(found.last_seen_at)
    return since >= timedelta(seconds=settings.touch_interval_s)


def touch_session(
    connection: sa.Connection, session_id: str, found: SessionInfo, settings: SessionSettings
) -> SessionInfo:
    """`found` used now: its last_seen_at written (at most every touch_interval_s: `touch_due`)."""
    now = datetime.now(UTC)
    stamp = format_datetime(now)
    connection.execute(
        t.auth_sessions.update()
        .where(
            t.auth_sessions.c.id_digest == session_digest(session_id),
            t.auth_sessions.c.revoked_at.is_(None),
        )
        .values(last_seen_at=stamp)
    )
    idle_end = now + timedelta(seconds=settings.idle_timeout_s)
    idle_expires_at = format_datetime(min(idle_end, _moment(found.expires_at)))
    return SessionInfo(
        **{**found.__dict__, "last_seen_at": stamp, "idle_expires_at": idle_expires_at}
    )


def _revoke(connection: sa.Connection, condition: sa.ColumnElement[bool]) -> int:
    result = connection.execute(
        t.auth_sessions.update()
        .where(condition, t.auth_sessions.c.revoked_at.is_(None))
        .values(revoked_at=now_stamp())
    )
    return result.rowcount


def revoke_session(connection: sa.Connection, session_id: str) -> bool:
    """End one session (signing out); False when it was not live."""
    if not SESSION_ID.match(session_id):
        return False
    return _revoke(connection, t.auth_sessions.c.id_digest == session_digest(session_id)) > 0


def revoke_key_sessions(connection: sa.Connection, key_id: str) -> int:
    """End every session signed in with the API key `key_id`; how many were live."""
    return _revoke(connection, t.auth_sessions.c.key_id == key_id)


def revoke_principal_sessions(connection: sa.Connection, principal_id: str) -> int:
    """End every session of `principal_id` (it must exist); how many were not revoked yet."""
    principal(connection, principal_id)
    return _revoke(connection, t.auth_sessions.c.principal_id == principal_id)


def prune_sessions(connection: sa.Connection, settings: SessionSettings) -> int:
    """Delete up to PRUNE_BATCH rows of ended sessions (revoked, idle or past their end)."""
    now = datetime.now(UTC)
    idle_since = format_datetime(now - timedelta(seconds=settings.idle_timeout_s))
    ended = (
        sa.select(t.auth_sessions.c.id_digest)
        .where(
            sa.or_(
                t.auth_sessions.c.revoked_at.is_not(None),
                t.auth_sessions.c.expires_at < format_datetime(now),
                t.auth_sessions.c.last_seen_at < idle_since,
            )
        )
        .limit(PRUNE_BATCH)
    )
    digests = list(connection.execute(ended).scalars())
    if not digests:
        return 0
    connection.execute(t.auth_sessions.delete().where(t.auth_sessions.c.id_digest.in_(digests)))
    return len(digests)
