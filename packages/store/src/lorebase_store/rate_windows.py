"""Shared rate windows: request counts that several Keepers on one PostgreSQL share.

One row of `rate_windows` per principal, bucket (`writes`, `writes:supply`) and period
(`m<epoch minute>`, `d<epoch day>`). Each request adds one in its own short transaction,
`INSERT ... ON CONFLICT DO UPDATE SET count = count + 1 RETURNING count`, so two processes
counting at once each see a distinct count and the window never allows more than its limit in
total. `RateWindows` is the `lorebase_platform.WindowCounter` that `WindowLimiter` counts with.

Rows outlive their window by a minute (`expires_at`); every `prune_interval_s` one increment
also deletes up to `prune_batch` expired rows, so the table stays the size of the active windows.
The statements work on SQLite too (the store's tests run them there), but Keeper refuses mode
shared on SQLite: a SQLite file is one process's database.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from lorebase_store import tables as t
from lorebase_store.engine import is_sqlite, write_transaction

__all__ = ["RateWindows"]

W = t.rate_windows


class RateWindows:
    """The counts of `rate_windows` on one store's engine (thread-safe)."""

    def __init__(
        self,
        engine: sa.Engine,
        *,
        prune_interval_s: float = 60.0,
        prune_batch: int = 1000,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.engine = engine
        self.prune_interval_s = prune_interval_s
        self.prune_batch = prune_batch
        self.wall = wall
        self._next_prune = 0.0
        self._lock = threading.Lock()

    def increment(self, key: str, bucket: str, period: str, expires_at: float) -> int:
        """Add one request to the window and answer its count, this one included."""
        self._prune_when_due()
        insert = (sqlite.insert if is_sqlite(self.engine) else postgresql.insert)(W)
        statement = (
            insert.values(
                principal_id=key, bucket=bucket, period=period, count=1, expires_at=expires_at
            )
            .on_conflict_do_update(
                index_elements=[W.c.principal_id, W.c.bucket, W.c.period],
                set_={"count": W.c.count + 1},
            )
            .returning(W.c.count)
        )
        with write_transaction(self.engine, announce=False) as connection:
            return int(connection.execute(statement).scalar_one())

    def prune(self, *, now: float | None = None) -> int:
        """Delete up to `prune_batch` rows whose window has expired; answer how many."""
        moment = self.wall() if now is None else now
        expired = (
            sa.select(W.c.principal_id, W.c.bucket, W.c.period)
            .where(W.c.expires_at < moment)
            .limit(self.prune_batch)
        )
        with write_transaction(self.engine, announce=False) as connection:
            keys = [tuple(row) for row in connection.execute(expired)]
            if not keys:
                return 0
            statement = sa.delete(W).where(
                sa.tuple_(W.c.principal_id, W.c.bucket, W.c.period).in_(keys)
            )
            return int(connection.execute(statement).rowcount)

    def count(self, key: str, bucket: str, period: str) -> int:
        """The count of one window (0 when it has no row)."""
        query = sa.select(W.c.count).where(
            W.c.principal_id == key, W.c.bucket == bucket, W.c.period == period
        )
        with self.engine.connect() as connection:
            found = connection.execute(query).scalar_one_or_none()
        return 0 if found is None else int(found)

    def _prune_when_due(self) -> None:
        now = self.wall()
        with self._lock:
            if now < self._next_prune:
                return
            self._next_prune = now + self.prune_interval_s
        self.prune(now=now)
