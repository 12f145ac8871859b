"""The JSON shapes of Keeper's answers and requests, one module per family.

The `*_json` helpers build the answers; the pydantic models of each module describe them (and
the request bodies) in the OpenAPI document. Routes declare them in their decorators, so the
answers keep their deterministic bytes.
"""

from lorebase_keeper.shapes.reads.records import lineage_json, link_json, record_json, title_of
from lorebase_keeper.shapes.reads.schema import kind_json, relation_json, schema_json

__all__ = [
    "kind_json",
    "lineage_json",
    "link_json",
    "record_json",
    "relation_json",
    "schema_json",
    "title_of",
]
