"""What a traced read keeps of its request: `capture_query` (docs/trace.md, "What a step holds").

A step's `query` is the structure of what an agent asked (field names, operators, limits, mode,
depth, lens, budget, the traversal spec, the search text) without the values it compared where
they could be data the caller may not see:

- a value compared by an `attr` (or `derived`) predicate, at any depth (`and`, `or`, `not`,
  Relation predicates, context `query` seeds, graph filters) is kept only with
  `capture_filter_values: non_sensitive` on a name `SensitiveNames.keeps_value` accepts; every
  other one is `{"redacted": "<json type>"}`. `capture_literals: true` keeps them all. Outside a
  Domain (`names` None) none is kept, whatever the settings;
- kept values are scalars or lists of scalars, strings cut to `max_text_chars`, lists to
  `max_filter_value_items`; anything else is replaced by its JSON type;
- query vectors become `{"dimension": n}`, cursors are dropped, every string is cut to
  `max_text_chars`; search text (`q`, `search`, `match`, and the `text` of POST /resolve) is
  kept, or only `{"length": n}` with `capture_search_text: false`;
- query parameters follow the same rules: the ones every read shares (branch, at, limit ...)
  are structure, the search text ones are search text, and any other names a field it filters.

The whole capture is bounded by `max_query_bytes` of compact JSON: past it the largest lists
(and objects) are cut and the capture says `"truncated": true`; it never fails.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence

from lorebase_core.values import JsonValue
from lorebase_keeper.shapes.common import JsonObject
from lorebase_keeper.trace.sensitivity import SensitiveNames
from lorebase_platform.settings import TraceSettings

FIELD_MEMBERS = ("attr", "derived")
"""Predicate members that name the field a sibling `value` is compared on."""
COMPARED = frozenset({"value", "values"})
"""Members of a predicate holding what it compares (search text names too, inside one)."""
SEARCH_TEXT = frozenset({"q", "search", "match", "text"})
VECTORS = frozenset({"query_vector", "vector"})
CURSORS = frozenset({"cursor"})
MAX_DEPTH = 64
"""Nesting kept at most; deeper members are replaced by their type (no predicate nests so)."""
STRUCTURAL_PARAMETERS = frozenset(
    {
        "branch",
        "at",
        "limit",
        "format",
        "values",
        "links",
        "lineage",
        "depth",
        "mode",
        "from",
        "to",
        "since",
        "until",
        "kind",
        "relation",
        "lens",
        "coverage",
        "assigned",
    }
)
"""Query parameters that say how to read, not what to match: kept as they are (cut)."""
_FILTER_PARAMETER = re.compile(
    r"^(?:(?:filter|where)(?:\[|\.))?([A-Za-z_][A-Za-z0-9_]*)\]?(?:(?:\.|__|:)[a-z_]+)?$"
)


def capture_query(
    *,
    body: object,
    params: Sequence[tuple[str, str]],
    names: SensitiveNames | None,
    settings: TraceSettings,
) -> JsonObject:
    """`{"body": ..., "params": {...}}` of a traced read (see the module docstring).

    Args:
        body: the parsed JSON body (None for a GET).
        params: the query parameters in request order (a repeated one keeps all its values).
        names: the field names of the read's schemas; None outside a Domain.
        settings: keeper.trace.
    """
    capture = _Capture(names, settings)
    captured: JsonObject = {
        "body": capture.value(body),
        "params": capture.params(params),
    }
    return _bounded(captured, settings.max_query_bytes)


def json_type(value: object) -> str:
    """The JSON type of a value: string, number, boolean, null, array or object."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    return "object"


class _Capture:
    def __init__(self, names: SensitiveNames | None, settings: TraceSettings) -> None:
        self.names = names
        self.settings = settings

    # -- structure ------------------------------------------------------------------------------
    def value(self, value: object, depth: int = 0) -> JsonValue:
        if isinstance(value, Mapping | list | tuple) and depth >= MAX_DEPTH:
            return {"redacted": json_type(value)}
        if isinstance(value, Mapping):
            return self.mapping(value, depth)
        if isinstance(value, list | tuple):
            return [self.value(item, depth + 1) for item in value]
        if isinstance(value, str):
            return self.cut(value)
        if _is_scalar(value):
            return _scalar(value)
        return {"redacted": json_type(value)}

    def mapping(self, document: Mapping[object, object], depth: int) -> JsonObject:
        field = _field_of(document)
        compared = any(member in document for member in FIELD_MEMBERS)
        counted = not compared and "op" in document  # `{"rel": ..., "count": {"op", "value"}}`
        kept: JsonObject = {}
        for raw_name, member in document.items():
            name = str(raw_name)
            if name in CURSORS:
                continue
            shown = self.cut(name)
            if name in VECTORS:
                kept[shown] = self.vector(member)
            elif compared and (name in COMPARED or name in SEARCH_TEXT):
                kept[shown] = self.compared(field, member)
            elif name == "value" and counted:  # a number of Links, not a value
                kept[shown] = (
                    _scalar(member) if _is_number(member) else {"redacted": json_type(member)}
                )
            elif name in SEARCH_TEXT and isinstance(member, str):
                kept[shown] = self.search_text(member)
            else:
                kept[shown] = self.value(member, depth + 1)
        return kept

    def cut(self, text: str) -> str:
        return text[: self.settings.max_text_chars]

    def vector(self, vector: object) -> JsonObject:
        if isinstance(vector, list | tuple):
            return {"dimension": len(vector)}
        return {"redacted": json_type(vector)}

    def search_text(self, text: str) -> JsonValue:
        return self.cut(text) if self.settings.capture_search_text else {"length": len(text)}

    # -- compared values ------------------------------------------------------------------------
    def keeps(self, field: str | None) -> bool:
        if self.names is None or field is None:
            return False
        if self.settings.capture_literals:
            return True
        return self.settings.capture_filter_values == "non_sensitive" and self.names.keeps_value(
            field
        )

    def compared(self, field: str | None, value: object) -> JsonValue:
        if not self.keeps(field):
            return {"redacted": json_type(value)}
        if isinstance(value, str):
            return self.cut(value)
        if _is_scalar(value):
            return _scalar(value)
        if isinstance(value, list | tuple) and all(_is_scalar(item) for item in value):
            return [
                self.cut(item) if isinstance(item, str) else _scalar(item)
                for item in value[: self.settings.max_filter_value_items]
            ]
        return {"redacted": json_type(value)}

    # -- query parameters -----------------------------------------------------------------------
    def params(self, params: Sequence[tuple[str, str]]) -> JsonObject:
        kept: JsonObject = {}
        for name, value in params:
            if name in CURSORS:
                continue
            if name in SEARCH_TEXT:
                shown: JsonValue = self.search_text(value)
            elif name in STRUCTURAL_PARAMETERS:
                shown = self.cut(value)
            else:
                match = _FILTER_PARAMETER.match(name)
                shown = self.compared(match.group(1) if match else None, value)
            key = self.cut(name)
            if key in kept:
                earlier = kept[key]
                kept[key] = [*earlier, shown] if isinstance(earlier, list) else [earlier, shown]
            else:
                kept[key] = shown
        return kept


def _field_of(document: Mapping[object, object]) -> str | None:
    for member in FIELD_MEMBERS:
        name = document.get(member)
        if isinstance(name, str):
            return name
    return None


def _is_scalar(value: object) -> bool:
    """A JSON scalar every database stores (NaN and infinities are not JSON: PostgreSQL refuses
    them in jsonb), so they are replaced by their type."""
    if isinstance(value, float):
        return math.isfinite(value)
    return value is None or isinstance(value, str | bool | int)


def _scalar(value: object) -> JsonValue:
    """A value `_is_scalar` accepted, as the JSON scalar it is."""
    return value if value is None or isinstance(value, str | bool | int | float) else None


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and _is_scalar(value)


# -- the bound ----------------------------------------------------------------------------------
def _size(value: JsonValue) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def _bounded(captured: JsonObject, max_bytes: int) -> JsonObject:
    """`captured` cut to `max_bytes` of compact JSON: the largest container loses the second
    half of its items (at least one) until it fits or nothing is left to cut."""
    if _size(captured) <= max_bytes:
        return captured
    captured["truncated"] = True
    while _size(captured) > max_bytes:
        largest = _largest_container(captured)
        if largest is None:
            break
        if isinstance(largest, list):
            del largest[len(largest) // 2 :]
        else:
            for name in list(largest)[len(largest) // 2 :]:
                del largest[name]
    return captured


def _largest_container(captured: JsonObject) -> list[JsonValue] | JsonObject | None:
    """The non-empty list under `body` or `params` whose JSON is the largest; an object only
    when no list is left (cutting lists keeps the shape of the request)."""
    lists: list[list[JsonValue]] = []
    objects: list[JsonObject] = []
    pending: list[JsonValue] = [captured["body"], captured["params"]]
    while pending:
        node = pending.pop()
        if isinstance(node, list) and node:
            lists.append(node)
            pending.extend(node)
        elif isinstance(node, dict) and node:
            objects.append(node)
            pending.extend(node.values())
    candidates: Sequence[list[JsonValue] | JsonObject] = lists or objects
    return max(candidates, key=_size, default=None)
