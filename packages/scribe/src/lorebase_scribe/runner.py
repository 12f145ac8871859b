"""`Scribe`: takes the due jobs of the store one at a time, runs them, records how it went.

Each job is taken with a lease of scribe.lease_s (`lorebase_store.Jobs`), so any number of
Scribes share one store; a run that ends in an exception is recorded on the job's row (its
attempts and last error, never a value) and the job comes back after its interval, or after
webhooks.backoff_max_s once it failed scribe.max_job_attempts times in a row.

One log line per run (logger `lorebase.scribe`): the kind, the Domain, the outcome and the
duration, with the run's summary or error; never a value or a secret.

A commit wakes an idle Scribe (`CommitWatch`): every commit writes an event, which
`Store.event_notices()` hears of by PostgreSQL's LISTEN/NOTIFY (across processes) or, on
SQLite, by polling the event table every agents.feed.poll_interval_s; the watch then brings the
`webhook_delivery` and `record_embeddings` rows due now (whichever Scribe takes one first runs
it) and ends the idle wait. A run that answers `RunReport(more=True)` (a backfill longer than one
run) is due again at once.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from lorebase_core.errors import LorebaseError
from lorebase_platform.settings import Settings
from lorebase_scribe.jobs import KINDS, JobContext, JobKind
from lorebase_store import Job, Store

logger = logging.getLogger("lorebase.scribe")

COMMIT_DRIVEN = ("webhook_delivery", "record_embeddings")
"""The kinds of job a commit brings due at once (it has deliveries, or Records to embed)."""

Outcome = Literal["done", "failed", "lost"]


@dataclass(frozen=True)
class JobOutcome:
    """How one run of a job went.

    Attributes:
        kind: the kind of job.
        domain: its Domain, None for a job over the whole store.
        outcome: `done`, `failed` (recorded on the row) or `lost` (the lease expired during the
            run and another Scribe took the job: nothing recorded).
        duration_s: how long the run took.
        summary: what the run did, or its error.
    """

    kind: str
    domain: str | None
    outcome: Outcome
    duration_s: float
    summary: str


def error_text(exc: BaseException) -> str:
    """What a job's `last_error` and log line say of an exception: never a value.

    Lorebase's own errors say what is wrong in words written for it; any other exception may
    carry a value in its message, so only its type and the place it was raised are kept.
    """
    if isinstance(exc, LorebaseError):
        return f"{type(exc).__name__}: {exc.detail}"
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {os.path.basename(frames[-1].filename)}:{frames[-1].lineno}" if frames else ""
    return f"{type(exc).__name__}{where} (unexpected; the message is not kept, it may hold values)"


def default_worker_id() -> str:
    """The name a Scribe leases under without scribe.worker_id: host name and process id."""
    return f"{socket.gethostname()}:{os.getpid()}"


class Scribe:
    """Runs the store's due jobs: `run_once` for one pass, `run` until asked to stop."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        *,
        kinds: Mapping[str, JobKind] = KINDS,
    ) -> None:
        self.store = store
        self.settings = settings
        self.worker_id = settings.scribe.worker_id or default_worker_id()
        self.kinds = {name: kind for name, kind in kinds.items() if kind.settings(settings).enabled}
        self.context = JobContext(store, settings)
        longest_pass = settings.webhooks.pass_timeout_s + settings.webhooks.timeout_s
        if "webhook_delivery" in self.kinds and settings.scribe.lease_s < longest_pass:
            logger.warning(
                "scribe.lease_s (%.0f s) is shorter than a delivery pass may take "
                "(webhooks.pass_timeout_s + webhooks.timeout_s = %.0f s): another Scribe may take "
                "the job while this one still runs it; raise scribe.lease_s",
                settings.scribe.lease_s,
                longest_pass,
            )
        self._stop = threading.Event()
        self._woken = threading.Event()

    def wake(self) -> None:
        """End the current idle wait now (something is due, or a stop was asked for)."""
        self._woken.set()

    def request_stop(self) -> None:
        """Stop after the job that is running (at once when idle)."""
        self._stop.set()
        self._woken.set()

    @property
    def stopping(self) -> bool:
        """Whether a stop was asked for."""
        return self._stop.is_set()

    def run_once(self) -> list[JobOutcome]:
        """Run every job that is due now once (stopping early when asked to); their outcomes."""
        if not self.kinds:
            return []
        jobs = self.store.jobs
        jobs.schedule({name: kind.per_domain for name, kind in self.kinds.items()})
        outcomes: list[JobOutcome] = []
        seen: set[int] = set()
        while not self._stop.is_set():
            job = jobs.take(
                self.worker_id, list(self.kinds), lease_s=self.settings.scribe.lease_s, exclude=seen
            )
            if job is None:
                break
            seen.add(job.id)
            outcomes.append(self._run(job))
        return outcomes

    def run(self) -> None:
        """Run passes until `request_stop`; between passes that found nothing due, wait
        scribe.idle_sleep_s, or until a commit brings webhook deliveries due (`CommitWatch`)."""
        watch = None
        if any(kind in self.kinds for kind in COMMIT_DRIVEN):
            watch = CommitWatch(
                self.store,
                self._commit_noticed,
                poll_interval_s=self.settings.agents.feed.poll_interval_s,
            ).start()
        try:
            while not self._stop.is_set():
                if self._pass():
                    continue
                self._woken.wait(self.settings.scribe.idle_sleep_s)
                self._woken.clear()
        finally:
            if watch is not None:
                watch.stop()
            self.context.close()

    def _pass(self) -> bool:
        """One pass; whether it ran a job. A store that cannot be reached (a database restarting)
        ends the pass, not the Scribe: the next pass tries again after the idle wait."""
        try:
            return bool(self.run_once())
        except Exception as exc:  # the jobs' own failures are recorded inside run_once
            logger.warning("pass failed, next after scribe.idle_sleep_s: %s", error_text(exc))
            return False

    def close(self) -> None:
        """Release what the jobs made (the embedding model's connections); `run` does it."""
        self.context.close()

    def _commit_noticed(self) -> None:
        for kind in COMMIT_DRIVEN:
            if kind in self.kinds:
                self.store.jobs.make_due(kind)
        self.wake()

    def _run(self, job: Job) -> JobOutcome:
        kind = self.kinds[job.kind]
        job_settings = kind.settings(self.settings)
        started = time.perf_counter()
        try:
            result = kind.run(self.context, job.domain)
        except Exception as exc:  # every failure of a job is recorded on its row
            summary = error_text(exc)
            kept = self.store.jobs.fail(
                job,
                summary,
                retry_s=job_settings.interval_s,
                max_attempts=self.settings.scribe.max_job_attempts,
                wait_s=self.settings.webhooks.backoff_max_s,
            )
            return self._outcome(job, "failed" if kept else "lost", started, summary)
        summary, more = (
            (result, False) if isinstance(result, str) else (result.summary, result.more)
        )
        # a run that left work (a long backfill) is due again at once: the next pass goes on
        interval_s = 0.0 if more else job_settings.interval_s
        kept = self.store.jobs.finish(job, interval_s=interval_s)
        return self._outcome(job, "done" if kept else "lost", started, summary)

    def _outcome(self, job: Job, outcome: Outcome, started: float, summary: str) -> JobOutcome:
        duration = time.perf_counter() - started
        level = logging.INFO if outcome == "done" else logging.WARNING
        logger.log(
            level,
            "job %s domain=%s outcome=%s duration_ms=%.1f attempts=%d: %s",
            job.kind,
            job.domain or "-",
            outcome,
            duration * 1000,
            job.attempts + (outcome == "failed"),
            summary,
        )
        return JobOutcome(job.kind, job.domain, outcome, duration, summary)


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
