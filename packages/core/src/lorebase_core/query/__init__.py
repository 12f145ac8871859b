"""The query DSL of POST /query (docs/query.md): parse and check a query document, page cursors.

Pure: the store runs a parsed `Query` (`lorebase_store.reads.query`), Keeper wires both to the route.
"""

from lorebase_core.errors import QueryInvalid
from lorebase_core.query.cursor import QueryCursor, decode_cursor, encode_cursor
from lorebase_core.query.model import (
    Aggregate,
    And,
    Comparison,
    Metric,
    Not,
    Or,
    OrderKey,
    Predicate,
    Query,
    RelationCount,
    RelationPredicate,
)
from lorebase_core.query.parse import parse_query

__all__ = [
    "Aggregate",
    "And",
    "Comparison",
    "Metric",
    "Not",
    "Or",
    "OrderKey",
    "Predicate",
    "Query",
    "QueryCursor",
    "QueryInvalid",
    "RelationCount",
    "RelationPredicate",
    "decode_cursor",
    "encode_cursor",
    "parse_query",
]
