"""Scribe's jobs: rows of the store taken with a lease (`Jobs`, docs/scribe.md)."""

from lorebase_store.jobs.leases import Job, Jobs, JobState, job_time

__all__ = ["Job", "JobState", "Jobs", "job_time"]
