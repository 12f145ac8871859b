"""Phrases POST /resolve could not match, kept per Domain with how often and when they came.

Scribe turns the frequent ones into alias or description suggestions (docs/resolve.md). Keeper
records them only for reads of a branch head whose request and settings allow it, never for time
travel reads (`at`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from lorebase_core.values import format_datetime
from lorebase_store import tables as t
from lorebase_store.engine import is_sqlite, write_transaction

MAX_PHRASE_CHARS = 255


@dataclass(frozen=True)
class ResolveMiss:
    phrase: str
    count: int
    first_seen_at: str
    last_seen_at: str


def record_misses(
    engine: sa.Engine, domain_id: int, phrases: Iterable[str], *, now: datetime | None = None
) -> int:
    """Count each phrase once more (inserting the new ones) in one write transaction."""
    unique = sorted({phrase[:MAX_PHRASE_CHARS] for phrase in phrases if phrase})
    if not unique:
        return 0
    seen_at = format_datetime(now or datetime.now(UTC))
    rows = [
        {
            "domain_id": domain_id,
            "phrase": phrase,
            "count": 1,
            "first_seen_at": seen_at,
            "last_seen_at": seen_at,
        }
        for phrase in unique
    ]
    with write_transaction(engine) as connection:
        insert = (sqlite.insert if is_sqlite(connection) else postgresql.insert)(t.resolve_misses)
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
    return len(unique)


def read_misses(connection: sa.Connection, domain_id: int) -> list[ResolveMiss]:
    """The recorded phrases of a Domain, most frequent first."""
    table = t.resolve_misses
    rows = connection.execute(
        sa.select(table.c.phrase, table.c.count, table.c.first_seen_at, table.c.last_seen_at)
        .where(table.c.domain_id == domain_id)
        .order_by(table.c.count.desc(), table.c.phrase)
    )
    return [ResolveMiss(str(row[0]), int(row[1]), str(row[2]), str(row[3])) for row in rows]
