"""Herald's tools, by family: finding (reads.py), one Record (records.py), the graph and its
Revisions (graph.py), writes through Operations and Proposals (writes.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lorebase_herald.tools import graph, reads, records, writes

if TYPE_CHECKING:
    from lorebase_herald.server import Herald

READ_TOOLS = (
    "lorebase_schema",
    "lorebase_context",
    "lorebase_search",
    "lorebase_resolve",
    "lorebase_query",
    "lorebase_record",
    "lorebase_links",
    "lorebase_traverse",
    "lorebase_neighborhood",
    "lorebase_history",
    "lorebase_lineage",
    "lorebase_explain",
    "lorebase_health",
    "lorebase_diff",
    "lorebase_changes",
)
WRITE_TOOLS = ("lorebase_operations", "lorebase_execute", "lorebase_proposal")
"""Left out of the catalogue when herald.read_only is on."""


def register(herald: Herald) -> None:
    """Add the catalogue to `herald.mcp`: the reads, and the writes unless read-only."""
    reads.register(herald)
    records.register(herald)
    graph.register(herald)
    if not herald.read_only:
        writes.register(herald)


__all__ = ["READ_TOOLS", "WRITE_TOOLS", "register"]
