"""What each kind of job does: one run of it, for one Domain or for the whole store.

| kind | per Domain | runs |
| --- | --- | --- |
| `webhook_delivery` | no | one delivery pass: `lorebase_store.webhooks.deliver_pending` with `HttpxSender` |
| `statistics_recount` | yes | `Store.recount_statistics`, only when coverage would say `approximate` |
| `webhook_prune` | no | `prune_deliveries`: delivered and dead deliveries past webhooks.retention_days |

A run answers a short summary for the log (counts and Revisions, never a value) or raises; the
runner records the failure on the job's row.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from lorebase_platform.settings import ScribeJobSettings, Settings
from lorebase_scribe.webhooks import HttpxSender
from lorebase_store import DeliveryReport, Store, deliver_pending, prune_deliveries


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
    """One delivery pass over every pending webhook delivery (keys re-sealed, events fanned out)."""
    report = asyncio.run(_deliver(context))
    counts = {
        "fanned out": report.fanned_out,
        "delivered": report.delivered,
        "retried": report.retried,
        "dead": report.dead,
        "not reached": report.not_reached,
        "unsigned": report.unsigned,
        "resealed": report.resealed,
        "webhooks disabled": len(report.disabled),
    }
    return ", ".join(f"{name} {count}" for name, count in counts.items() if count) or "nothing due"


async def _deliver(context: JobContext) -> DeliveryReport:
    settings = context.settings.webhooks
    async with HttpxSender(settings) as sender:
        return await deliver_pending(context.store, sender, settings)


def prune_webhook_deliveries(context: JobContext, domain: str | None) -> str:
    """Delete the delivered and dead deliveries older than webhooks.retention_days."""
    deleted = prune_deliveries(context.store, context.settings.webhooks)
    return f"deleted {deleted} deliveries"


KINDS: dict[str, JobKind] = {
    kind.name: kind
    for kind in (
        JobKind("webhook_delivery", False, deliver_webhooks),
        JobKind("statistics_recount", True, recount_statistics),
        JobKind("webhook_prune", False, prune_webhook_deliveries),
    )
}
