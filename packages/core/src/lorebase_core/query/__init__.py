"""The query DSL of POST /query (docs/query.md): parse and check a query document, page cursors.

Pure: the store runs a parsed `Query` (`lorebase_store.reads.query`), Keeper wires both to the route.
The request document is described once, as pydantic models (`QueryRequest`, its predicates as
`PredicateRequest`, a Relation count as `RelationCountRequest`): the parser reads the members they
declare, and Keeper publishes them in its OpenAPI document.
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
from lorebase_core.query.parse import ascii_lower, parse_query
from lorebase_core.query.request import Predicate as PredicateRequest
from lorebase_core.query.request import QueryRequest
from lorebase_core.query.request import RelationCount as RelationCountRequest

__all__ = [
    "Aggregate",
    "And",
    "Comparison",
    "Metric",
    "Not",
    "Or",
    "OrderKey",
    "Predicate",
    "PredicateRequest",
    "Query",
    "QueryCursor",
    "QueryInvalid",
    "QueryRequest",
    "RelationCount",
    "RelationCountRequest",
    "RelationPredicate",
    "ascii_lower",
    "decode_cursor",
    "encode_cursor",
    "parse_query",
]
