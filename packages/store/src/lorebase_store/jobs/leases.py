"""Scribe's jobs as rows of `scribe_jobs`, each taken with a lease (docs/scribe.md).

One row per kind of job, and per Domain for the kinds that work per Domain. A Scribe takes a due
row whose lease is free or has expired, and holds it until `lease_s` has passed: on PostgreSQL
with `SELECT ... FOR UPDATE SKIP LOCKED`, on SQLite under the write lock (`BEGIN IMMEDIATE`), so
two Scribes never take one job at once. Finishing or failing a job answers whether the lease was
still the Scribe's: a Scribe that outlived its lease lost the job to another, and leaves the row
alone. A Scribe killed mid-job loses nothing: the row comes due to the others once the lease
expires.

Times are stored as fixed-width UTC text (`2026-12-02T01:02:03.000000Z`) so that they compare as
strings on both backends.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa

from lorebase_store import tables as t
from lorebase_store.engine import is_sqlite, write_transaction
from lorebase_store.rows import from_row

_TIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"
_ERROR_LENGTH = 1000
# PostgreSQL advisory lock taken while rows are scheduled, so two Scribes starting at once do
# not both insert a store-wide job (NULL domain_id escapes the unique index)
_SCHEDULE_LOCK = 0x5C81BE


def job_time(moment: datetime) -> str:
    """`moment` as the fixed-width UTC text the table stores."""
    return moment.astimezone(UTC).strftime(_TIME_FORMAT)


@dataclass(frozen=True, kw_only=True)
class Job:
    """A job a Scribe holds the lease of.

    Attributes:
        id: the row's id.
        kind: what to run (`webhook_delivery`, `statistics_recount`, `webhook_prune`).
        domain: the name of the Domain it works on, None for a job over the whole store.
        owner: the Scribe holding the lease.
        lease_expires_at: when the lease ends (another Scribe may take the job after it).
        attempts: failures in a row before this run.
    """

    id: int
    kind: str
    domain: str | None
    owner: str
    lease_expires_at: str
    attempts: int


@dataclass(frozen=True, kw_only=True)
class JobState:
    """A row of `scribe_jobs` as it is now (what `Jobs.states` lists)."""

    kind: str
    domain: str | None
    due_at: str
    lease_owner: str | None
    lease_expires_at: str | None
    attempts: int
    last_error: str | None
    last_run_at: str | None


class Jobs:
    """The rows of Scribe's jobs on one store's engine."""

    def __init__(self, engine: sa.Engine) -> None:
        self.engine = engine

    def schedule(self, kinds: Mapping[str, bool], *, now: datetime | None = None) -> int:
        """Make the missing rows of `kinds` (kind to whether it works per Domain), due now.

        Answers how many rows it made; rows already there keep their schedule.
        """
        moment = job_time(now or datetime.now(UTC))
        with self.engine.connect() as connection:  # most passes: every row is there already
            if not _missing(connection, kinds):
                return 0
        with write_transaction(self.engine, announce=False) as connection:
            if not is_sqlite(connection):
                connection.execute(sa.select(sa.func.pg_advisory_xact_lock(_SCHEDULE_LOCK)))
            missing = _missing(connection, kinds)
            for kind, domain_id in missing:
                connection.execute(
                    t.scribe_jobs.insert().values(
                        kind=kind, domain_id=domain_id, due_at=moment, attempts=0
                    )
                )
        return len(missing)

    def take(
        self,
        owner: str,
        kinds: Sequence[str],
        *,
        lease_s: float,
        exclude: Collection[int] = (),
        now: datetime | None = None,
    ) -> Job | None:
        """Lease the job of `kinds` that is due first and free (or whose lease expired), other
        than the rows `exclude` names (a pass runs each job once)."""
        moment = now or datetime.now(UTC)
        due = _due(job_time(moment), kinds, exclude)
        with self.engine.connect() as connection:  # most passes find nothing: no write lock
            if connection.execute(due).first() is None:
                return None
        jobs = t.scribe_jobs
        with write_transaction(self.engine, announce=False) as connection:
            row = connection.execute(due.with_for_update(skip_locked=True, of=jobs)).first()
            if row is None:
                return None
            expires = job_time(moment + timedelta(seconds=lease_s))
            connection.execute(
                jobs.update()
                .where(jobs.c.id == row.id)
                .values(lease_owner=owner, lease_expires_at=expires)
            )
            return Job(
                id=row.id,
                kind=row.kind,
                domain=row.name,
                owner=owner,
                lease_expires_at=expires,
                attempts=row.attempts,
            )

    def finish(self, job: Job, *, interval_s: float, now: datetime | None = None) -> bool:
        """Done: due again after `interval_s`, its failures forgotten. False: the lease was lost."""
        moment = now or datetime.now(UTC)
        return self._release(
            job,
            due_at=job_time(moment + timedelta(seconds=interval_s)),
            attempts=0,
            last_error=None,
            last_run_at=job_time(moment),
        )

    def fail(
        self,
        job: Job,
        error: str,
        *,
        retry_s: float,
        max_attempts: int,
        wait_s: float,
        now: datetime | None = None,
    ) -> bool:
        """Record a failure: due again after `retry_s`, or after `wait_s` once it has failed
        `max_attempts` times in a row. `error` is kept as `last_error` (it must hold no value).
        False: the lease was lost."""
        moment = now or datetime.now(UTC)
        attempts = job.attempts + 1
        delay = wait_s if attempts >= max_attempts else retry_s
        return self._release(
            job,
            due_at=job_time(moment + timedelta(seconds=delay)),
            attempts=attempts,
            last_error=error[:_ERROR_LENGTH],
            last_run_at=job_time(moment),
        )

    def make_due(self, kind: str, *, now: datetime | None = None) -> int:
        """Bring the rows of `kind` due now (a commit has something for them); answers how many.

        A row that has been failing keeps its wait: a commit does not make it fail faster.
        """
        current = job_time(now or datetime.now(UTC))
        jobs = t.scribe_jobs
        with write_transaction(self.engine, announce=False) as connection:
            result = connection.execute(
                jobs.update()
                .where(jobs.c.kind == kind, jobs.c.due_at > current, jobs.c.attempts == 0)
                .values(due_at=current)
            )
            return int(result.rowcount)

    def newest_event(self) -> int:
        """The sequence of the newest event written (0: none): where a watch for commits that
        wake the jobs starts, so that events already written wake nothing."""
        with self.engine.connect() as connection:
            found = connection.execute(sa.select(sa.func.max(t.events.c.sequence))).scalar()
            return int(found or 0)

    def states(self) -> list[JobState]:
        """Every row, by kind and Domain (for `lorebase-scribe` and tests)."""
        jobs = t.scribe_jobs
        with self.engine.connect() as connection:
            rows = connection.execute(
                sa.select(jobs, t.domains.c.name.label("domain_name"))
                .select_from(jobs.outerjoin(t.domains, t.domains.c.id == jobs.c.domain_id))
                .order_by(jobs.c.kind, t.domains.c.name)
            )
            return [from_row(JobState, row, domain=row.domain_name) for row in rows]

    def _release(self, job: Job, **values: object) -> bool:
        jobs = t.scribe_jobs
        with write_transaction(self.engine, announce=False) as connection:
            result = connection.execute(
                jobs.update()
                .where(
                    jobs.c.id == job.id,
                    jobs.c.lease_owner == job.owner,
                    jobs.c.lease_expires_at == job.lease_expires_at,
                )
                .values(lease_owner=None, lease_expires_at=None, **values)
            )
            return bool(result.rowcount)


def _missing(connection: sa.Connection, kinds: Mapping[str, bool]) -> list[tuple[str, int | None]]:
    """The rows `kinds` need that are not there: (kind, domain id or None)."""
    existing = {
        (row.kind, row.domain_id)
        for row in connection.execute(sa.select(t.scribe_jobs.c.kind, t.scribe_jobs.c.domain_id))
    }
    domain_ids = list(
        connection.execute(sa.select(t.domains.c.id).order_by(t.domains.c.id)).scalars()
    )
    missing: list[tuple[str, int | None]] = []
    for kind, per_domain in sorted(kinds.items()):
        targets: Sequence[int | None] = domain_ids if per_domain else [None]
        missing += [(kind, domain_id) for domain_id in targets if (kind, domain_id) not in existing]
    return missing


def _due(current: str, kinds: Sequence[str], exclude: Collection[int]) -> sa.Select[Any]:
    """The job of `kinds` due first at `current` whose lease is free or expired."""
    jobs = t.scribe_jobs
    return (
        sa.select(jobs.c.id, jobs.c.kind, jobs.c.attempts, t.domains.c.name)
        .select_from(jobs.outerjoin(t.domains, t.domains.c.id == jobs.c.domain_id))
        .where(
            jobs.c.kind.in_(list(kinds)),
            jobs.c.due_at <= current,
            sa.or_(jobs.c.lease_expires_at.is_(None), jobs.c.lease_expires_at <= current),
            jobs.c.id.not_in(list(exclude)),
        )
        .order_by(jobs.c.due_at, jobs.c.id)
        .limit(1)
    )
