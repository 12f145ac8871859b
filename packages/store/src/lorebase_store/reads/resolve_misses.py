"""Phrases POST /resolve could not match, kept per Domain with how often and when they came.

Scribe turns the frequent ones into alias or description suggestions (docs/resolve.md). Keeper
records them only for reads of a branch head whose request and settings allow it, never for time
travel reads (`at`), and only the words that cannot identify anyone (`TextResolution.recordable`).

The store bounds what it keeps (read.resolve.misses): phrases of at most `max_words` words; at
most `max_per_principal_per_day` phrases per principal and UTC day, counted in
`resolve_miss_quotas` (a phrase seen again counts like a new one); and each phrase for
`retention_days` after it was last seen. Every recording first deletes what expired, in the same
transaction (one index range each, usually empty), and reads leave expired phrases out, so a
phrase past its retention is neither returned nor counted on, even before the next recording.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from lorebase_core.values import format_datetime
from lorebase_platform.settings import ResolveMissesSettings
from lorebase_store import tables as t
from lorebase_store.engine import is_sqlite, write_transaction

MAX_PHRASE_CHARS = 255


@dataclass(frozen=True)
class ResolveMiss:
    phrase: str
    count: int
    first_seen_at: str
    last_seen_at: str


def _expired_before(now: datetime, retention_days: int) -> str:
    return format_datetime(now - timedelta(days=retention_days))


def _insert(connection: sa.Connection, table: sa.Table) -> postgresql.Insert | sqlite.Insert:
    return (sqlite.insert if is_sqlite(connection) else postgresql.insert)(table)


def prune_misses(connection: sa.Connection, *, retention_days: int, now: datetime) -> int:
    """Delete phrases not seen for `retention_days` and the counts of past days; how many phrases."""
    deleted = connection.execute(
        sa.delete(t.resolve_misses).where(
            t.resolve_misses.c.last_seen_at < _expired_before(now, retention_days)
        )
    ).rowcount
    today = now.astimezone(UTC).date().isoformat()
    connection.execute(sa.delete(t.resolve_miss_quotas).where(t.resolve_miss_quotas.c.day < today))
    return int(deleted or 0)


def _take_quota(
    connection: sa.Connection, principal_id: str, day: str, wanted: int, allowed_per_day: int
) -> int:
    """How many of `wanted` phrases the principal may still record today (and count them)."""
    quotas = t.resolve_miss_quotas
    insert = _insert(connection, quotas)
    # the upsert locks the principal's row: concurrent recordings of one principal queue here
    total = connection.execute(
        insert.values(principal_id=principal_id, day=day, recorded=wanted)
        .on_conflict_do_update(
            index_elements=[quotas.c.principal_id, quotas.c.day],
            set_={"recorded": quotas.c.recorded + insert.excluded.recorded},
        )
        .returning(quotas.c.recorded)
    ).scalar_one()
    before = int(total) - wanted
    granted = max(0, min(wanted, allowed_per_day - before))
    if granted != wanted:
        connection.execute(
            sa.update(quotas)
            .where(quotas.c.principal_id == principal_id, quotas.c.day == day)
            .values(recorded=before + granted)
        )
    return granted


def record_misses(
    engine: sa.Engine,
    domain_id: int,
    phrases: Iterable[str],
    *,
    principal_id: str,
    limits: ResolveMissesSettings,
    now: datetime | None = None,
) -> int:
    """Count each phrase once more (inserting the new ones) within the limits; how many were.

    Phrases longer than `limits.max_words` words or `MAX_PHRASE_CHARS` characters are dropped,
    and past the principal's quota of the day the rest are; expired phrases are deleted first.
    """
    unique = sorted(
        {
            phrase
            for phrase in phrases
            if phrase
            and len(phrase) <= MAX_PHRASE_CHARS
            and len(phrase.split()) <= limits.max_words
        }
    )
    moment = now or datetime.now(UTC)
    seen_at = format_datetime(moment)
    day = moment.astimezone(UTC).date().isoformat()
    with write_transaction(engine) as connection:
        prune_misses(connection, retention_days=limits.retention_days, now=moment)
        if not unique or limits.max_per_principal_per_day == 0:
            return 0
        granted = _take_quota(
            connection, principal_id, day, len(unique), limits.max_per_principal_per_day
        )
        if not granted:
            return 0
        rows = [
            {
                "domain_id": domain_id,
                "phrase": phrase,
                "count": 1,
                "first_seen_at": seen_at,
                "last_seen_at": seen_at,
            }
            for phrase in unique[:granted]
        ]
        insert = _insert(connection, t.resolve_misses)
        connection.execute(
            insert.on_conflict_do_update(
                index_elements=[t.resolve_misses.c.domain_id, t.resolve_misses.c.phrase],
                set_={
                    "count": t.resolve_misses.c.count + 1,
                    "last_seen_at": insert.excluded.last_seen_at,
                },
            ),
            rows,
        )
    return granted


def read_misses(
    connection: sa.Connection,
    domain_id: int,
    *,
    retention_days: int | None = None,
    now: datetime | None = None,
) -> list[ResolveMiss]:
    """The recorded phrases of a Domain, most frequent first (without expired ones, if asked)."""
    table = t.resolve_misses
    query = (
        sa.select(table.c.phrase, table.c.count, table.c.first_seen_at, table.c.last_seen_at)
        .where(table.c.domain_id == domain_id)
        .order_by(table.c.count.desc(), table.c.phrase)
    )
    if retention_days is not None:
        cutoff = _expired_before(now or datetime.now(UTC), retention_days)
        query = query.where(table.c.last_seen_at >= cutoff)
    rows = connection.execute(query)
    return [ResolveMiss(str(row[0]), int(row[1]), str(row[2]), str(row[3])) for row in rows]
