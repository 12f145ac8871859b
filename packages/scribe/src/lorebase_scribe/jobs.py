"""What each kind of job does: one run of it, for one Domain or for the whole store.

| kind | per Domain | runs |
| --- | --- | --- |
| `webhook_delivery` | no | one delivery pass: `lorebase_store.webhooks.deliver_pending` with `HttpxSender` |
| `statistics_recount` | yes | `Store.recount_statistics`, only when coverage would say `approximate` |
| `webhook_prune` | no | `prune_deliveries`: delivered and dead deliveries past webhooks.retention_days |
| `record_embeddings` | yes | `embed_domain`: vectors of the Records the default branch changed (or all: a backfill) |

A run answers a short summary for the log (counts and Revisions, never a value) or raises; the
runner records the failure on the job's row. A run that stopped with work left (a backfill
longer than one run's budget) answers a `RunReport` with `more`: its job comes due again at once.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from lorebase_inference import Embedder, embedder_for
from lorebase_platform.settings import ScribeJobSettings, Settings
from lorebase_scribe.embedding import embed_domain
from lorebase_scribe.webhooks import HttpxSender
from lorebase_store import DeliveryReport, Store, deliver_pending, prune_deliveries

EMBEDDING_BUDGET_S = 10.0
"""How long one record_embeddings run embeds before it leaves the rest to the next run."""


class LazyEmbedder:
    """The Embedder of inference.embeddings, made on first use and kept (the local model is
    loaded once per process); `close` releases it."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings.inference.embeddings
        self._embedder: Embedder | None = None
        self._lock = threading.Lock()

    def __call__(self) -> Embedder:
        with self._lock:
            if self._embedder is None:
                self._embedder = embedder_for(self._settings)
            return self._embedder

    def close(self) -> None:
        with self._lock:
            embedder, self._embedder = self._embedder, None
        if embedder is not None:
            embedder.close()


@dataclass(frozen=True)
class JobContext:
    """What a run of a job works with: the store, the settings tree and the embedding model."""

    store: Store
    settings: Settings
    embedder: LazyEmbedder = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "embedder", LazyEmbedder(self.settings))

    def close(self) -> None:
        """Release what runs made (the embedding model's connections)."""
        self.embedder.close()


@dataclass(frozen=True)
class RunReport:
    """What a run answers when its summary is not all: `more` says it stopped with work left,
    so its job is due again at once rather than after its interval."""

    summary: str
    more: bool = False


JobRun = Callable[[JobContext, str | None], str | RunReport]


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


def record_embeddings(context: JobContext, domain: str | None) -> RunReport:
    """Embed the Records a Domain's default branch changed since its cursor (or backfill)."""
    if domain is None:  # pragma: no cover - the rows of this kind are per Domain
        raise ValueError("record_embeddings runs per Domain")
    report = embed_domain(
        context.store,
        context.embedder,
        context.settings.inference.embeddings,
        domain,
        budget_s=EMBEDDING_BUDGET_S,
    )
    return RunReport(report.summary(), more=not report.done)


KINDS: dict[str, JobKind] = {
    kind.name: kind
    for kind in (
        JobKind("webhook_delivery", False, deliver_webhooks),
        JobKind("statistics_recount", True, recount_statistics),
        JobKind("webhook_prune", False, prune_webhook_deliveries),
        JobKind("record_embeddings", True, record_embeddings),
    )
}
