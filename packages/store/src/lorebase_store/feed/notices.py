"""`EventNotices`: wake those waiting for new events the moment they are written.

On PostgreSQL one connection per process LISTENs on `notify.CHANNEL` (every commit transaction
that writes an event NOTIFYs it, across processes) and wakes every waiter at once. On SQLite, and
on PostgreSQL as the fallback should the listening connection fail, the event table is polled
every `poll_interval_s`. A waiter holds no transaction and no thread: it awaits an asyncio event.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

import sqlalchemy as sa

from lorebase_store import tables as t
from lorebase_store.feed.notify import CHANNEL

logger = logging.getLogger(__name__)

_NEWER = (
    sa.select(t.events.c.branch_id, sa.func.max(t.events.c.sequence).label("sequence"))
    .where(t.events.c.sequence > sa.bindparam("after"))
    .group_by(t.events.c.branch_id)
)


class EventNotices:
    """The newest event sequence of each branch as this process knows it, and waiting for it.

    `await notices.wait(after_sequence, timeout_s, branch_id=...)` returns as soon as an event
    after `after_sequence` is known (of that branch, or of any branch without `branch_id`), or
    after `timeout_s`; it returns the newest sequence known. It listens and polls only while
    someone waits. Made with the store's engine; `close()` stops it.
    """

    def __init__(self, engine: sa.Engine, *, poll_interval_s: float = 1.0) -> None:
        self.engine = engine
        self.poll_interval_s = poll_interval_s
        self._latest: dict[int, int] = {}
        self._newest = 0
        self._waiters = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._changed: asyncio.Event | None = None
        self._tasks: list[asyncio.Task[None]] = []

    @property
    def listening(self) -> bool:
        """Whether notices arrive by LISTEN/NOTIFY (PostgreSQL) rather than by polling only."""
        return self.engine.dialect.name == "postgresql"

    def known(self, branch_id: int | None = None) -> int:
        """The newest sequence known, of one branch or of any."""
        return self._newest if branch_id is None else self._latest.get(branch_id, 0)

    async def wait(
        self, after_sequence: int, timeout_s: float, *, branch_id: int | None = None
    ) -> int:
        """Wait until an event after `after_sequence` is known or `timeout_s` has passed."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        self._waiters += 1
        try:
            self._start(loop)
            while True:
                current = self.known(branch_id)
                remaining = deadline - loop.time()
                if current > after_sequence or remaining <= 0:
                    return current
                changed = self._changed
                assert changed is not None
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(changed.wait(), remaining)
        finally:
            self._waiters -= 1

    async def close(self) -> None:
        """Stop listening and polling."""
        tasks, self._tasks = self._tasks, []
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    # -- inside ------------------------------------------------------------------------------
    def _start(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._loop is not loop:  # a new event loop (a test's, a restarted server's)
            self._loop, self._tasks = loop, []
            self._changed = asyncio.Event()
        self._tasks = [task for task in self._tasks if not task.done()]
        if not self._tasks:
            self._tasks.append(loop.create_task(self._poll()))
            if self.listening:
                self._tasks.append(loop.create_task(self._listen()))

    def _record(self, branch_id: int, sequence: int) -> None:
        if sequence > self._latest.get(branch_id, 0):
            self._latest[branch_id] = sequence
        self._newest = max(self._newest, sequence)

    def _wake(self) -> None:
        if self._changed is not None:
            self._changed.set()
            self._changed = asyncio.Event()

    def _newer(self) -> list[tuple[int, int]]:
        with self.engine.connect() as connection:
            rows = connection.execute(_NEWER, {"after": self._newest}).all()
        return [(int(row.branch_id), int(row.sequence)) for row in rows]

    async def _poll(self) -> None:
        while self._waiters > 0:
            try:
                found = await asyncio.to_thread(self._newer)
            except Exception as exc:  # the next round tries again
                logger.warning("polling the event table failed: %s", type(exc).__name__)
                found = []
            for branch_id, sequence in found:
                self._record(branch_id, sequence)
            if found:
                self._wake()
            await asyncio.sleep(self.poll_interval_s)

    async def _listen(self) -> None:
        import psycopg  # PostgreSQL only: SQLite installs need not have it

        url = self.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
        while self._waiters > 0:
            try:
                async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
                    found = await (await conn.execute("SELECT current_schema()")).fetchone()
                    schema = str(found[0]) if found else ""
                    await conn.execute(f"LISTEN {CHANNEL}")
                    async for notice in conn.notifies():
                        where, _domain, branch, sequence = notice.payload.rsplit(" ", 3)
                        if where != schema:  # another database in the same PostgreSQL one
                            continue
                        self._record(int(branch), int(sequence))
                        self._wake()
                        if self._waiters == 0:
                            return
            except (psycopg.Error, OSError, ValueError) as exc:
                # polling goes on meanwhile; the error's type only, the DSN holds a password
                logger.warning("listening for event notices failed: %s", type(exc).__name__)
                await asyncio.sleep(self.poll_interval_s)
