"""Guide's tool catalogue: reads only, each through the exploration's `AsyncLorebaseClient`.

The catalogue is closed: `TOOLS` names every tool, and a name not in it is refused before
anything is done. Arguments are checked before a request (`args`), results are bounded by
guide.limits (`shaping`).
"""

from __future__ import annotations

from lorebase_guide.tools.base import ArgsInvalid, QueryEmbedder, ToolContext, ToolResult, ToolRun
from lorebase_guide.tools.graph import neighborhood, traverse
from lorebase_guide.tools.names import DomainNames, RelationEnd
from lorebase_guide.tools.reads import (
    FIRST_QUERY,
    context_pack,
    query,
    resolve,
    resolve_first,
    schema,
    search,
)
from lorebase_guide.tools.records import get, history, lineage, links

__all__ = [
    "FIRST_QUERY",
    "TOOLS",
    "ArgsInvalid",
    "DomainNames",
    "QueryEmbedder",
    "RelationEnd",
    "ToolContext",
    "ToolResult",
    "ToolRun",
    "resolve_first",
]

TOOLS: dict[str, ToolRun] = {
    "schema": schema,
    "resolve": resolve,
    "search": search,
    "query": query,
    "get": get,
    "links": links,
    "neighborhood": neighborhood,
    "traverse": traverse,
    "history": history,
    "lineage": lineage,
    "context": context_pack,
}
"""Every tool by name, in the order the prompt lists them."""
