"""Scribe in a thread of another process: `lorebase serve --scribe` (and `lorebase demo`).

Keeper may not import Scribe (the import contract), so it loads `start` through the entry point
`scribe` of the group `lorebase.background`, only when asked to, and calls `stop` when it stops.
"""

from __future__ import annotations

import logging
import threading

from lorebase_platform.settings import Settings
from lorebase_scribe.runner import Scribe, error_text
from lorebase_store import Store

logger = logging.getLogger("lorebase.scribe")


class BackgroundScribe:
    """A Scribe running its jobs on a daemon thread, over its own connections to the store."""

    def __init__(self, settings: Settings) -> None:
        self.store = Store.from_settings(settings.database)
        self.scribe = Scribe(self.store, settings)
        self.thread = threading.Thread(target=self._run, name="lorebase-scribe", daemon=True)

    def start(self) -> BackgroundScribe:
        """Start the thread; answers self."""
        self.thread.start()
        logger.info("Scribe runs in this process as %r", self.scribe.worker_id)
        return self

    def stop(self, timeout_s: float = 30.0) -> bool:
        """Finish the running job and stop; False when the thread outlived `timeout_s` (its
        lease then expires and another Scribe takes the job)."""
        self.scribe.request_stop()
        self.thread.join(timeout_s)
        stopped = not self.thread.is_alive()
        if stopped:
            self.store.close()
            logger.info("Scribe stopped")
        else:
            logger.warning("Scribe still runs a job after %.0f s; its lease will expire", timeout_s)
        return stopped

    def _run(self) -> None:
        try:
            self.scribe.run()
        except Exception as exc:  # pragma: no cover - run() records job failures; the store gone
            # no traceback: an exception's message (a driver's, say) may hold values
            logger.error("Scribe stopped on an unexpected error: %s", error_text(exc))


def start(settings: Settings) -> BackgroundScribe:
    """The entry point `lorebase.background:scribe`: Scribe's jobs on a thread, started."""
    return BackgroundScribe(settings).start()
