"""`CommitWatch`: a commit anywhere in the store wakes Scribe's webhook deliveries at once.

Every commit writes an event; `lorebase_store.EventNotices` hears of it by PostgreSQL's
LISTEN/NOTIFY (across processes) or, on SQLite, by polling the event table every
agents.feed.poll_interval_s. The watch runs those notices on an event loop of its own thread and,
on each new event, brings the `webhook_delivery` row due now and wakes the runner from its idle
wait. The row is what counts: whichever Scribe takes it first delivers.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable

from lorebase_store import Store

logger = logging.getLogger("lorebase.scribe")

WAIT_S = 3600.0  # one wait's timeout: the loop waits again, nothing is missed


class CommitWatch:
    """Calls `on_commit` (from its own thread) whenever new events are written to the store."""

    def __init__(
        self, store: Store, on_commit: Callable[[], None], *, poll_interval_s: float
    ) -> None:
        self.store = store
        self.on_commit = on_commit
        self.poll_interval_s = poll_interval_s
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[None] | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name="lorebase-scribe-notices", daemon=True
        )

    def start(self) -> CommitWatch:
        """Start watching; answers self once the watch runs."""
        self._thread.start()
        self._ready.wait(10)
        return self

    def stop(self, timeout_s: float = 10.0) -> None:
        """Stop watching (the listening connection closed)."""
        loop, task = self._loop, self._task
        if loop is not None and task is not None and not loop.is_closed():
            loop.call_soon_threadsafe(task.cancel)
        self._thread.join(timeout_s)

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        try:
            self._loop = loop
            self._task = loop.create_task(self._watch())
            self._ready.set()
            loop.run_until_complete(self._task)
        except asyncio.CancelledError:
            pass
        finally:
            loop.close()

    async def _watch(self) -> None:
        notices = self.store.event_notices(poll_interval_s=self.poll_interval_s)
        known = await asyncio.to_thread(self.store.jobs.newest_event)
        try:
            while True:
                newest = await notices.wait(known, WAIT_S)
                if newest <= known:
                    continue
                known = newest
                try:
                    await asyncio.to_thread(self.on_commit)
                except Exception as exc:  # the next notice tries again; the interval still runs
                    logger.warning("waking Scribe on a commit failed: %s", type(exc).__name__)
        finally:
            await notices.close()
