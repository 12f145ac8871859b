"""The record_embeddings job's work for one Domain: embed what changed, store the vectors.

`embed_domain` reads the Records of the Domain's default branch whose vectors are due (those
changed since the Domain's embedding cursor, or all of them: a backfill, see
`lorebase_store.search.embedding_cursor`), in pages of inference.embeddings.batch_size, embeds
each page's texts (mode `document`, so with document_prefix) and stores its vectors under the
model's name, deleted Records' vectors dropped, with the cursor's move in the same transaction.
A run stops after `budget_s` (the rest is for the next run, which starts where this one
stopped), so a large backfill never holds a lease for long.

A Domain is embedded only when its schema's search.embedding names the model of
inference.embeddings (and its dimensions); otherwise it is skipped and the report says why. The
embedding model is loaded on first need: a Domain without work never loads it.

Nothing here logs or reports a text, a value or a vector: a report holds counts and names.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from lorebase_inference import Embedder
from lorebase_platform.settings import EmbeddingSettings
from lorebase_store import EmbeddingWork, Store

UPDATED_BY = "scribe"
"""Who vectors stored by Scribe are `updated_by`."""


@dataclass(frozen=True, kw_only=True)
class EmbeddingReport:
    """What one `embed_domain` run did for a Domain.

    Attributes:
        domain: the Domain.
        skipped: why nothing was embedded (the schema names another model, or none); None
            when the Domain was looked at.
        embedded: vectors stored.
        dropped: vectors removed (their Records were deleted, or their Kind is gone).
        pages: pages written.
        backfill: whether the run was (part of) a backfill: every Record of the head.
        backfilled: whether a backfill ended in this run.
        remaining: Records still due when the run stopped.
        done: whether nothing was due when the run stopped.
    """

    domain: str
    skipped: str | None = None
    embedded: int = 0
    dropped: int = 0
    pages: int = 0
    backfill: bool = False
    backfilled: bool = False
    remaining: int = 0
    done: bool = True

    def summary(self) -> str:
        """The report in a few words, for the log and `lorebase-scribe` (counts only)."""
        if self.skipped is not None:
            return f"skipped: {self.skipped}"
        if not self.pages:
            return "nothing due"
        words = [f"embedded {self.embedded}", f"dropped {self.dropped}"]
        if self.backfilled:
            words.append("backfill done")
        elif self.backfill:
            words.append(f"backfill: {self.remaining} to go")
        elif self.remaining:
            words.append(f"{self.remaining} to go")
        return ", ".join(words)


def embed_domain(
    store: Store,
    embedder: Callable[[], Embedder],
    settings: EmbeddingSettings,
    domain: str,
    *,
    budget_s: float | None = None,
) -> EmbeddingReport:
    """Embed the Records of `domain` whose vectors are due, for at most `budget_s` (None: until
    none is due); `embedder` gives the model, called only when there is something to embed.

    Raises:
        EmbeddingUnavailable: the model cannot be loaded or reached (nothing of the page is
            written; the next run tries it again).
        Conflict: another Scribe moved the Domain's cursor during the run.
    """
    deadline = None if budget_s is None else time.monotonic() + budget_s
    work = _page(store, settings, domain)
    reason = _skip_reason(work, settings)
    if reason is not None:
        return EmbeddingReport(domain=domain, skipped=reason)
    embedded = dropped = pages = 0
    backfill = work.backfill
    backfilled = False
    while True:
        if work.records or work.backfill:  # a backfill of an empty head still records its end
            vectors = _vectors(embedder, work)
            saved = store.save_embeddings(work, settings.model, vectors, updated_by=UPDATED_BY)
            embedded += saved.stored
            dropped += saved.dropped
            backfilled = backfilled or saved.backfilled
            pages += 1
        if work.done or (deadline is not None and time.monotonic() >= deadline):
            break
        work = _page(store, settings, domain)
        if _skip_reason(work, settings) is not None:  # the schema changed during the run
            break
        backfill = backfill or work.backfill
    return EmbeddingReport(
        domain=domain,
        embedded=embedded,
        dropped=dropped,
        pages=pages,
        backfill=backfill,
        backfilled=backfilled,
        remaining=work.remaining,
        done=work.done,
    )


def _page(store: Store, settings: EmbeddingSettings, domain: str) -> EmbeddingWork:
    return store.embedding_work(
        domain, model=settings.model, dimensions=settings.dimensions, limit=settings.batch_size
    )


def _skip_reason(work: EmbeddingWork, settings: EmbeddingSettings) -> str | None:
    if work.matches:
        return None
    if work.schema_model is None:
        return "the schema names no search.embedding"
    return (
        f"the schema's search.embedding is {work.schema_model!r} ({work.schema_dimensions} "
        f"dimensions), inference.embeddings is {settings.model!r} ({settings.dimensions})"
    )


def _vectors(embedder: Callable[[], Embedder], work: EmbeddingWork) -> list[list[float] | None]:
    """One vector per Record of the page, None for those whose vector goes."""
    texts = [record.text for record in work.records if record.text is not None]
    made = iter(embedder().embed_sync(texts, "document") if texts else [])
    return [None if record.text is None else next(made) for record in work.records]
