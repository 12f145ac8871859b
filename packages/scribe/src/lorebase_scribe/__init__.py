"""Lorebase Scribe: the background worker (docs/scribe.md).

Scribe runs jobs kept as rows of the store, each taken with a lease, so several Scribes can share
one PostgreSQL and a Scribe that dies loses nothing: webhook deliveries (with its HTTP sender,
`lorebase_scribe.webhooks.HttpxSender`), Record embeddings (`embed_domain`), statistics
recounts and the pruning of old deliveries.

| part | holds |
| --- | --- |
| `runner` | `Scribe`: `run_once`, `run`, `request_stop`; one log line per job run |
| `jobs` | what each kind of job does (`KINDS`), and what a run works with (`JobContext`) |
| `embedding` | `embed_domain`: a Domain's Records changed since its cursor (or all) embedded |
| `webhooks`, `addresses` | `HttpxSender`: one delivery attempt over HTTP, with the target rules |
| `cli` | the console script `lorebase-scribe run [--once]`, `lorebase-scribe embed --domain D` |
| `background` | Scribe on a thread of Keeper (`lorebase serve --scribe`, entry point) |
"""

from lorebase_scribe.background import BackgroundScribe, start
from lorebase_scribe.embedding import EmbeddingReport, embed_domain
from lorebase_scribe.jobs import KINDS, JobContext, JobKind, LazyEmbedder, RunReport
from lorebase_scribe.runner import JobOutcome, Scribe, default_worker_id, error_text
from lorebase_scribe.webhooks import HttpxSender, Resolver, parse_retry_after, system_resolver

__all__ = [
    "KINDS",
    "BackgroundScribe",
    "EmbeddingReport",
    "HttpxSender",
    "JobContext",
    "JobKind",
    "JobOutcome",
    "LazyEmbedder",
    "Resolver",
    "RunReport",
    "Scribe",
    "default_worker_id",
    "embed_domain",
    "error_text",
    "parse_retry_after",
    "start",
    "system_resolver",
]
