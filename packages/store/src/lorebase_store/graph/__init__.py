"""Graph reads: traversals along a path of Relations and neighborhoods of some Records.

`traverse` answers POST /traverse and `neighborhood` answers POST /neighborhood (docs/graph.md);
both take a request parsed by `lorebase_core.graph_requests` and read through a `View`.
"""

from lorebase_store.graph.neighborhood import neighborhood
from lorebase_store.graph.results import (
    GraphLink,
    GraphRecord,
    HopResult,
    NeighborhoodResult,
    TraverseResult,
)
from lorebase_store.graph.traverse import traverse

__all__ = [
    "GraphLink",
    "GraphRecord",
    "HopResult",
    "NeighborhoodResult",
    "TraverseResult",
    "neighborhood",
    "traverse",
]
