"""Lorebase Guide: a read-only exploration agent over Keeper's REST API (docs/guide.md).

Guide answers a question about a Domain by reading it step by step with the caller's own
credential, and embeds query texts for semantic search. It never writes to a Domain, never
holds a credential of its own and reaches Lorebase only through `lorebase_client`.
"""

__all__: list[str] = []
