"""Lorebase Guide: a read-only exploration agent over Keeper's REST API (docs/guide.md).

Guide answers a question about a Domain by reading it step by step with the caller's own
credential, and embeds query texts for semantic search. It never writes to a Domain, never
holds a credential of its own and reaches Lorebase only through `lorebase_client`.

`explore(exploration, caller, settings=..., model=..., embedder=...)` runs one exploration
as a stream of events (lorebase_guide.exploration).
"""

from lorebase_guide.exploration import Caller, Event, Exploration, explore
from lorebase_guide.prompt import NOT_FOUND
from lorebase_guide.tools import TOOLS, QueryEmbedder

__all__ = ["NOT_FOUND", "TOOLS", "Caller", "Event", "Exploration", "QueryEmbedder", "explore"]
