"""scribe: the background worker and its jobs (docs/scribe.md)."""

from __future__ import annotations

from pydantic import Field

from lorebase_platform.settings.base import Section, count, flag, seconds, section


class ScribeJobSettings(Section):
    """scribe.jobs.<kind>: how often one kind of job runs."""

    enabled: bool = flag(True, "Run this job.")
    interval_s: float = seconds(60.0, "Wait between two runs of this job (per Domain).")


class _FrequentJob(ScribeJobSettings):
    interval_s: float = seconds(5.0, "Wait between two runs of this job.")


class _RecountJob(ScribeJobSettings):
    interval_s: float = seconds(300.0, "Wait between two runs of this job (per Domain).")


class _HourlyJob(ScribeJobSettings):
    interval_s: float = seconds(3600.0, "Wait between two runs of this job.")


class ScribeJobsSettings(Section):
    """scribe.jobs: each kind of job Scribe runs (each its own class, so that an environment
    override of one member keeps the job's own defaults for the others)."""

    webhook_delivery: _FrequentJob = section(
        _FrequentJob, "Deliver pending webhook deliveries (and seal keys)."
    )
    statistics_recount: _RecountJob = section(
        _RecountJob, "Count the statistics of each Domain's default branch again."
    )
    webhook_prune: _HourlyJob = section(
        _HourlyJob, "Delete deliveries older than webhooks.retention_days."
    )
    record_embeddings: _FrequentJob = section(
        _FrequentJob,
        "Embed the text of the Records commits changed (inference.embeddings) and "
        "store their vectors, for the Domains whose schema names search.embedding.",
    )


class ScribeSettings(Section):
    """scribe: the background worker (docs/scribe.md)."""

    worker_id: str | None = Field(
        default=None,
        description="Name this Scribe takes its leases under; null: host name and process id.",
    )
    lease_s: float = seconds(
        120.0,
        "A job taken is this Scribe's for this long; after it another Scribe may "
        "take it (a Scribe that died loses nothing).",
    )
    idle_sleep_s: float = seconds(
        1.0, "Wait when no job is due (a commit notice on PostgreSQL wakes it earlier).", le=60
    )
    max_job_attempts: int = count(
        5,
        "A job that failed this many times in a row waits backoff_max_s before the "
        "next try (its last error is kept).",
    )
    jobs: ScribeJobsSettings = section(
        ScribeJobsSettings, "Per kind of job: enabled and interval_s."
    )
