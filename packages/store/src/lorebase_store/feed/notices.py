"""`EventNotices`: wake those waiting for new events the moment they are written.

On PostgreSQL one connection per process LISTENs on `engine.CHANNEL` (every transaction that
writes an event NOTIFYs it, across processes, and so does every other announced write) and wakes
every waiter at once. On SQLite, and on PostgreSQL as the fallback should the listening
connection fail, the event table is polled every `poll_interval_s`. A waiter holds no
transaction and no thread: it awaits an asyncio event.
`follow()` keeps the listening connection up while nobody waits, for `HeadWatch` (heads.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

import sqlalchemy as sa

from lorebase_store import tables as t
from lorebase_store.engine import CHANNEL

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
        self._poll_task: asyncio.Task[None] | None = None
        self._listen_task: asyncio.Task[None] | None = None
        self._following = False  # listen while nobody waits too (`follow`)
        self._connected = False  # the listening connection is up and LISTENing
        self._heard = 0  # notices heard, and connections made and lost

    @property
    def listening(self) -> bool:
        """Whether notices arrive by LISTEN/NOTIFY (PostgreSQL) rather than by polling only."""
        return self.engine.dialect.name == "postgresql"

    def follow(self) -> None:
        """Listen from now on whether or not anyone waits (PostgreSQL; a no-op on SQLite).

        Call it on the event loop the notices are wanted on; `heard()` then tells whether a
        commit of another process may have been announced since it was last asked.
        """
        if not self.listening:
            return
        self._following = True
        self._start(asyncio.get_running_loop())

    def heard(self) -> int | None:
        """A number that changes with every notice heard and every connection made or lost;
        None while no listening connection is up on the running event loop (nothing can be
        known of other processes)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return None
        return self._heard if self._connected and loop is self._loop else None

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
        self._following = False
        tasks = [task for task in (self._poll_task, self._listen_task) if task is not None]
        self._poll_task = self._listen_task = None
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    # -- inside ------------------------------------------------------------------------------
    def _start(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._loop is not loop:  # a new event loop (a test's, a restarted server's)
            self._loop, self._poll_task, self._listen_task = loop, None, None
            self._changed = asyncio.Event()
            self._connected = False
        if self._waiters > 0 and (self._poll_task is None or self._poll_task.done()):
            self._poll_task = loop.create_task(self._poll())
        if self.listening and (self._listen_task is None or self._listen_task.done()):
            self._listen_task = loop.create_task(self._listen())

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
        while self._waiters > 0 or self._following:
            try:
                async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
                    found = await (await conn.execute("SELECT current_schema()")).fetchone()
                    schema = str(found[0]) if found else ""
                    await conn.execute(f"LISTEN {CHANNEL}")
                    self._connected, self._heard = True, self._heard + 1
                    async for notice in conn.notifies():
                        if notice.payload.endswith(" -"):  # a write without an event
                            if notice.payload[:-2] == schema:
                                self._heard += 1
                            continue
                        where, _domain, branch, sequence = notice.payload.rsplit(" ", 3)
                        if where != schema:  # another database in the same PostgreSQL one
                            continue
                        self._heard += 1
                        self._record(int(branch), int(sequence))
                        self._wake()
                        if self._waiters == 0 and not self._following:
                            return
            except (psycopg.Error, OSError, ValueError) as exc:
                self._lost()
                # polling goes on meanwhile; the error's type only, the DSN holds a password
                logger.warning("listening for event notices failed: %s", type(exc).__name__)
                await asyncio.sleep(self.poll_interval_s)
            finally:
                self._lost()

    def _lost(self) -> None:
        """The listening connection is down: what other processes commit is not heard."""
        self._connected, self._heard = False, self._heard + 1
