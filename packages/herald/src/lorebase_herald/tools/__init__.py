"""Herald's tools, by family: finding (reads.py), one Record (records.py), the graph and its
Revisions (graph.py), writes through Operations and Proposals (writes.py).

Each tool is a module-level function declared in its family's `TOOLS` table (tools/base.py);
it reaches its Herald through the request (`base.run`), never through the server module.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer

from lorebase_herald.tools import graph, reads, records, writes

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


def register(server: MCPServer[Any], *, read_only: bool) -> None:
    """Add the catalogue to `server`: the reads, and the writes unless `read_only`."""
    families = [reads.TOOLS, records.TOOLS, graph.TOOLS]
    if not read_only:
        families.append(writes.TOOLS)
    for family in families:
        family.register(server)


__all__ = ["READ_TOOLS", "WRITE_TOOLS", "register"]
