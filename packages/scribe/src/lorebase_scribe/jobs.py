"""What each kind of job does: one run of it, for one Domain or for the whole store.

| kind | per Domain | runs |
| --- | --- | --- |
| `webhook_delivery` | no | one delivery pass: `lorebase_store.webhooks.deliver_pending` with `HttpxSender` |
| `statistics_recount` | yes | `Store.recount_statistics`, only when coverage would say `approximate` |
| `webhook_prune` | no | deliveries older than webhooks.retention_days deleted |

A run answers a short summary for the log (counts and Revisions, never a value) or raises; the
runner records the failure on the job's row.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from lorebase_core.errors import LorebaseError
from lorebase_platform.settings import ScribeJobSettings, Settings
from lorebase_store import Store


class JobUnavailable(LorebaseError):
    """A kind of job whose code this installation lacks (the job fails with this error)."""

    status = 503
    code = "job-unavailable"
    title = "Job unavailable"


@dataclass(frozen=True)
class JobContext:
    """What a run of a job works with: the store and the settings tree."""

    store: Store
    settings: Settings


JobRun = Callable[[JobContext, str | None], str]


@dataclass(frozen=True)
class JobKind:
    """A kind of job: its name, whether it has one row per Domain, and what one run does."""

    name: str
    per_domain: bool
    run: JobRun

    def settings(self, settings: Settings) -> ScribeJobSettings:
        """scribe.jobs.<name>: whether it runs and how often."""
        found = getattr(settings.scribe.jobs, self.name)
        if not isinstance(found, ScribeJobSettings):  # pragma: no cover - a kind without settings
            raise TypeError(f"scribe.jobs has no settings for the job {self.name!r}")
        return found


def recount_statistics(context: JobContext, domain: str | None) -> str:
    """Count a Domain's statistics again when they describe an older head (or none)."""
    if domain is None:  # pragma: no cover - the rows of this kind are per Domain
        raise ValueError("statistics_recount runs per Domain")
    if not context.store.statistics_behind(domain):
        return "current"
    counted = context.store.recount_statistics(domain)
    return f"recounted at {(counted.as_of or 'the empty head')[:12]}"


def deliver_webhooks(context: JobContext, domain: str | None) -> str:
    """One delivery pass over every pending webhook delivery."""
    raise JobUnavailable(
        "webhook_delivery needs lorebase_store.webhooks.deliver_pending and "
        "lorebase_scribe.webhooks.HttpxSender, which this installation lacks"
    )


def prune_webhook_deliveries(context: JobContext, domain: str | None) -> str:
    """Delete the deliveries older than webhooks.retention_days."""
    raise JobUnavailable(
        "webhook_prune needs lorebase_store.webhooks.prune_deliveries, which this installation "
        "lacks"
    )


KINDS: dict[str, JobKind] = {
    kind.name: kind
    for kind in (
        JobKind("webhook_delivery", False, deliver_webhooks),
        JobKind("statistics_recount", True, recount_statistics),
        JobKind("webhook_prune", False, prune_webhook_deliveries),
    )
}
