"""The off-path writer of the agent trace and the read audit (docs/trace.md, "Cost").

Requests only queue what they record (`submit`, a lock and an append); one background thread
per Keeper writes the queue in batches of `batch_size`, at least every `flush_interval_s`, each
batch in one transaction. Nothing here ever blocks or fails a request: a full queue drops the
step (`queue_full`), a batch the database refuses is tried again until `write_timeout_s` has
passed and then dropped (`write_failed`), steps past a session's cap are dropped by the store
(`session_full`), and what is still queued when Keeper stops is written within
`write_timeout_s`, the rest dropped (`shutdown`). Drops are counted by reason in
`lorebase.trace.steps.dropped`, written steps in `lorebase.trace.steps.recorded`.

Query plans (`X-Lorebase-Trace: debug`) are made here too, with EXPLAIN on the statements the
read ran: off the request path, and nothing runs twice. The same thread prunes steps older than
`retention_days` (and read audit entries older than keeper.auth.audit.retention_days) every
`prune_interval_s`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Literal, TypeVar

from lorebase_core.values import format_datetime
from lorebase_keeper.http.errors import described
from lorebase_platform.settings import Settings
from lorebase_platform.telemetry import Metrics
from lorebase_store import ReadAuditEntry, Store, TraceStep

logger = logging.getLogger("lorebase.keeper.trace")

DropReason = Literal["queue_full", "write_failed", "session_full", "shutdown"]
RECORDED = "lorebase.trace.steps.recorded"
DROPPED = "lorebase.trace.steps.dropped"
AUDIT_DROPPED = "lorebase.audit.reads.dropped"
_RETRY_PAUSE_S = 0.2
_LAST_ATTEMPT_S = 10.0  # what close() allows an attempt begun before its deadline
_T = TypeVar("_T")


@dataclass(frozen=True)
class _Planned:
    """A step waiting for the plans of the statements its read ran."""

    step: TraceStep
    statements: list[tuple[str, object]]


_Item = TraceStep | _Planned | ReadAuditEntry


def _retried(write: Callable[[], _T], deadline: float) -> _T:
    """`write()`, tried again after a pause while `deadline` (monotonic) leaves time for one;
    the failure of the last attempt is raised."""
    while True:
        try:
            return write()
        except Exception:
            if time.monotonic() + _RETRY_PAUSE_S < deadline:
                time.sleep(_RETRY_PAUSE_S)
                continue
            raise


class Recorder:
    """One Keeper's queue and background writer for trace steps and read audit entries."""

    def __init__(self, settings: Settings, store: Store, metrics: Metrics) -> None:
        self.trace = settings.keeper.trace
        self.audit = settings.keeper.auth.audit
        self.enabled = self.trace.enabled
        self.store = store
        self.metrics = metrics
        self._recorded = metrics.counter(RECORDED, "Agent trace steps written")
        self._dropped = metrics.counter(DROPPED, "Agent trace steps not written, by reason")
        self._audit_dropped = metrics.counter(
            AUDIT_DROPPED, "Read audit entries not written, by reason"
        )
        self._queue: deque[_Item] = deque()
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._writing = 0  # items taken off the queue and not yet written or dropped
        self._thread: threading.Thread | None = None
        self._closed = False
        self._flushing = 0  # callers of flush() waiting: write without waiting for a batch
        self._next_prune = 0.0
        self._close_deadline = 0.0  # once closed: no write is tried after this

    # -- the request side --------------------------------------------------------------------

    def submit(self, step: TraceStep, statements: list[tuple[str, object]] | None = None) -> bool:
        """Queue a step (with the statements to plan, for debug); False when not queued."""
        if not self.enabled:
            return False
        return self._put(_Planned(step, statements) if statements else step)

    def submit_audit(self, entry: ReadAuditEntry) -> bool:
        if not self.audit.reads:
            return False
        return self._put(entry)

    def _put(self, item: _Item) -> bool:
        with self._lock:
            if self._closed or len(self._queue) >= self.trace.queue_size:
                full = True
            else:
                full = False
                self._queue.append(item)
                if self._thread is None:
                    self._start()
                if len(self._queue) >= self.trace.batch_size:
                    self._wake.notify_all()
        if full:
            self._drop([item], "shutdown" if self._closed else "queue_full")
            return False
        return True

    # -- the writer ----------------------------------------------------------------------------

    def _start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="lorebase-trace-writer", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            with self._lock:
                if (
                    len(self._queue) < self.trace.batch_size
                    and not self._closed
                    and not self._flushing
                ):
                    self._wake.wait(self.trace.flush_interval_s)
                if self._closed and (not self._queue or time.monotonic() >= self._close_deadline):
                    return  # close() drops what is left as shutdown
                batch = [
                    self._queue.popleft()
                    for _ in range(min(self.trace.batch_size, len(self._queue)))
                ]
                self._writing = len(batch)
            try:
                if batch:
                    self._write(batch)
                if not self._closed:
                    self._prune_when_due()
            except Exception as exc:  # the writer never dies: log (no values) and go on
                logger.error("the trace writer failed:\n%s", described(exc))
            finally:
                with self._lock:
                    self._writing = 0
                    self._wake.notify_all()

    def _write(self, batch: list[_Item]) -> None:
        steps = [self._planned(item) for item in batch if not isinstance(item, ReadAuditEntry)]
        entries = [item for item in batch if isinstance(item, ReadAuditEntry)]
        deadline = time.monotonic() + self.trace.write_timeout_s
        with self._lock:
            if self._closed:
                deadline = min(deadline, self._close_deadline)
        if steps:
            self._write_steps(steps, deadline)
        if entries:
            self._write_entries(entries, deadline)

    def _planned(self, item: TraceStep | _Planned) -> TraceStep:
        if isinstance(item, TraceStep):
            return item
        try:
            plans = self.store.plan_summaries(item.statements)
        except Exception as exc:
            logger.warning("query plans of a traced step failed:\n%s", described(exc))
            plans = []
        return replace(item.step, explain=plans)

    def _write_steps(self, steps: list[TraceStep], deadline: float) -> None:
        try:
            written = _retried(
                lambda: self.store.write_trace(
                    steps,
                    max_steps_per_session=self.trace.max_steps_per_session,
                    inferred_idle_s=self.trace.inferred_session_idle_s,
                ),
                deadline,
            )
        except Exception as exc:
            logger.warning("a batch of trace steps was dropped:\n%s", described(exc))
            self._dropped.add(len(steps), {"reason": "write_failed"})
            return
        if written.recorded:
            self._recorded.add(written.recorded)
        if written.session_full:
            self._dropped.add(written.session_full, {"reason": "session_full"})

    def _write_entries(self, entries: list[ReadAuditEntry], deadline: float) -> None:
        try:
            _retried(lambda: self.store.write_read_audit(entries), deadline)
        except Exception as exc:
            logger.error("a batch of read audit entries was dropped:\n%s", described(exc))
            self._audit_dropped.add(len(entries), {"reason": "write_failed"})

    def _prune_when_due(self) -> None:
        now = time.monotonic()
        if now < self._next_prune:
            return
        self._next_prune = now + self.trace.prune_interval_s
        self.prune()

    def prune(self) -> None:
        """Delete what is past its retention (the writer does it every prune_interval_s)."""
        today = datetime.now(UTC)
        if self.enabled:
            self.store.prune_trace(
                format_datetime(today - timedelta(days=self.trace.retention_days))
            )
        if self.audit.reads:
            self.store.prune_read_audit(
                format_datetime(today - timedelta(days=self.audit.retention_days))
            )

    def _drop(self, items: list[_Item], reason: DropReason) -> None:
        steps = sum(1 for item in items if not isinstance(item, ReadAuditEntry))
        if steps:
            self._dropped.add(steps, {"reason": reason})
        if len(items) > steps:
            self._audit_dropped.add(len(items) - steps, {"reason": reason})

    # -- lifecycle -----------------------------------------------------------------------------

    def pending(self) -> int:
        with self._lock:
            return len(self._queue) + self._writing

    def flush(self, timeout_s: float | None = None) -> bool:
        """Wait until everything queued so far is written or dropped; False on timeout."""
        wait_s = timeout_s if timeout_s is not None else self.trace.write_timeout_s * 2
        deadline = time.monotonic() + wait_s
        with self._lock:
            if self._thread is None:
                return not self._queue
            self._flushing += 1
            self._wake.notify_all()
            try:
                while self._queue or self._writing:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        return False
                    self._wake.wait(remaining)
            finally:
                self._flushing -= 1
        return True

    def close(self) -> None:
        """Stop: write what is queued within write_timeout_s, drop the rest (`shutdown`).

        A batch being written when the deadline passes is not tried again (`write_failed`);
        close waits for its last attempt, so every step is counted once when it returns.
        """
        with self._lock:
            self._closed = True
            self._close_deadline = time.monotonic() + self.trace.write_timeout_s
            self._wake.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join(self.trace.write_timeout_s + _LAST_ATTEMPT_S)
            if thread.is_alive():
                logger.warning("the trace writer did not stop within its write timeout")
        with self._lock:
            left = list(self._queue)
            self._queue.clear()
        if left:
            self._drop(left, "shutdown")
