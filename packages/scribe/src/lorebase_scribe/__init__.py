"""Lorebase Scribe: the background worker (docs/scribe.md).

Scribe runs jobs kept as rows of the store, each taken with a lease, so several Scribes can share
one PostgreSQL and a Scribe that dies loses nothing: webhook deliveries (with its HTTP sender,
`lorebase_scribe.webhooks.HttpxSender`), statistics recounts and the pruning of old deliveries.

| part | holds |
| --- | --- |
| `runner` | `Scribe`: `run_once`, `run`, `request_stop`; one log line per job run |
| `jobs` | what each kind of job does (`KINDS`) |
| `cli` | the console script `lorebase-scribe run [--once]` |
| `background` | Scribe on a thread of Keeper (`lorebase serve --scribe`, entry point) |
"""

from lorebase_scribe.background import BackgroundScribe, start
from lorebase_scribe.jobs import KINDS, JobContext, JobKind, JobUnavailable
from lorebase_scribe.runner import JobOutcome, Scribe, default_worker_id, error_text

__all__ = [
    "KINDS",
    "BackgroundScribe",
    "JobContext",
    "JobKind",
    "JobOutcome",
    "JobUnavailable",
    "Scribe",
    "default_worker_id",
    "error_text",
    "start",
]
