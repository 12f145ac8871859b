"""The JSON shapes of Keeper's answers and requests, one module per family.

Each answer has two shapes side by side: the pydantic model `X` describes it (and the request
bodies) in the OpenAPI document, routes declaring it in their decorators; the TypedDict `XJson`
is what routes and the `*_json` helpers build, so mypy checks an answer where it is made. A
TypedDict is a plain dict at runtime: the answers keep their deterministic bytes and ETags.
`tests/test_shapes.py` keeps each `XJson` to the members of its `X`; a TypedDict without the
suffix is a part of answers (`RecordDetails`, the members a flag adds), not a model's mirror.
Members the store or core build (`to_json`) are `JsonObject`s; the request of POST /query is
described in `lorebase_core.query` (`QueryRequest`), whose members its parser reads.
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
