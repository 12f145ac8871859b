"""Lorebase Scribe: the background worker (docs/scribe.md).

Scribe runs jobs kept as rows of the store, each taken with a lease, so several Scribes can share
one PostgreSQL and a Scribe that dies loses nothing: webhook deliveries (with its HTTP sender,
`lorebase_scribe.webhooks.HttpxSender`), statistics recounts and the pruning of old deliveries.
"""

from lorebase_scribe.webhooks import HttpxSender, Resolver, parse_retry_after, system_resolver

__all__ = ["HttpxSender", "Resolver", "parse_retry_after", "system_resolver"]
