"""One model step: the JSON schema it answers with, and the step read from its answer.

Each model call answers one JSON object `{"thought", "action", "args"}`. The schema is as
constraining as the Domain allows, for small models (llama.cpp enforces it as a grammar):
`action` is one of the tool names or `answer`; `args` is one of the argument shapes of the
tools, with the Domain's Kind, Relation and lens names as enums and refs as `Kind/key`
patterns. The answer states the facts it read before its text and its verdict (`found`). The
last turn of an exploration may only answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lorebase_guide.tools import TOOLS, DomainNames

__all__ = ["ANSWER", "STEP_NAME", "Step", "step_schema"]

STEP_NAME = "explore_step"
ANSWER = "answer"
_THOUGHT_CHARS = 400
_KEY_CHARS = "[A-Za-z0-9._:-]+"


def _string_enum(values: list[str]) -> dict[str, Any]:
    return {"type": "string", "enum": values} if values else {"type": "string"}


def _ref(names: DomainNames) -> dict[str, Any]:
    kinds = "|".join(sorted(names.kinds)) or "[A-Z][A-Za-z0-9_]*"
    return {"type": "string", "pattern": f"^({kinds})/{_KEY_CHARS}$"}


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def tool_args(
    names: DomainNames, max_depth: int, max_items: int, ready: range = range(0)
) -> dict[str, dict[str, Any]]:
    """The argument schema of each tool, by name; `query` takes `{"suggestion": n}` only for
    the n in `ready` (resolve's ready queries not run yet)."""
    kinds = _string_enum(sorted(names.kinds))
    relations = _string_enum(sorted(names.relations))
    ref = _ref(names)
    refs = {"type": "array", "items": ref, "minItems": 1, "maxItems": 10}
    text = {"type": "string", "minLength": 1, "maxLength": 500}
    limit = {"type": "integer", "minimum": 1, "maximum": max_items}
    written = _object(
        {
            "kind": kinds,
            "where": {"type": "object"},
            "select": {"type": "array", "items": {"type": "string"}},
            "aggregate": {"type": "object"},
            "order_by": {"type": "array", "items": {"type": "object"}},
            "limit": limit,
        },
        ["kind"],
    )
    numbers = {"type": "integer", "minimum": ready.start, "maximum": ready.stop - 1}
    query = (
        {"anyOf": [_object({"suggestion": numbers}, ["suggestion"]), written]} if ready else written
    )
    context: dict[str, Any] = {"refs": refs, "search": text}
    if names.lenses:
        context["lens"] = _string_enum(names.lenses)
    return {
        "schema": _object({"kinds": {"type": "array", "items": kinds}}, []),
        "resolve": _object({"text": text}, ["text"]),
        "search": _object({"text": text, "kinds": {"type": "array", "items": kinds}}, ["text"]),
        "query": query,
        "get": _object({"ref": ref}, ["ref"]),
        "links": _object({"ref": ref, "relation": relations}, ["ref", "relation"]),
        "neighborhood": _object(
            {
                "refs": refs,
                "depth": {"type": "integer", "minimum": 1, "maximum": max_depth},
                "relations": {"type": "array", "items": relations},
            },
            ["refs"],
        ),
        "traverse": _object(
            {"start": refs, "path": {"type": "array", "items": relations, "minItems": 1}},
            ["start", "path"],
        ),
        "history": _object({"ref": ref, "limit": limit}, ["ref"]),
        "lineage": _object({"ref": ref}, ["ref"]),
        "context": _object(context, []),
    }


def answer_args(names: DomainNames) -> dict[str, Any]:
    """The arguments of the answer: the facts read, the answer, its citations, the verdict."""
    return _object(
        {
            "facts": {
                "type": "array",
                "items": {"type": "string", "maxLength": 300},
                "maxItems": 12,
                "description": "The facts the tools returned that answer the question, each "
                "with its Record ref.",
            },
            "answer": {"type": "string", "maxLength": 2000},
            "citations": {"type": "array", "items": _ref(names), "maxItems": 30},
            "found": {"type": "boolean"},
        },
        ["facts", "answer", "citations", "found"],
    )


def step_schema(
    names: DomainNames, *, last: bool, max_depth: int, max_items: int, ready: range = range(0)
) -> dict[str, Any]:
    """The schema of one step; the `last` step may only answer."""
    thought = {"type": "string", "maxLength": _THOUGHT_CHARS}
    if last:
        return _object(
            {
                "thought": thought,
                "action": {"type": "string", "enum": [ANSWER]},
                "args": answer_args(names),
            },
            ["thought", "action", "args"],
        )
    shapes = tool_args(names, max_depth, max_items, ready)
    usable = [
        name
        for name in TOOLS
        if name in shapes and (names.relations or name not in ("links", "traverse"))
    ]
    return _object(
        {
            "thought": thought,
            "action": {"type": "string", "enum": [*usable, ANSWER]},
            "args": {"anyOf": [*(shapes[name] for name in usable), answer_args(names)]},
        },
        ["thought", "action", "args"],
    )


@dataclass(frozen=True)
class Step:
    """A model step read from an answer valid against `step_schema`."""

    thought: str
    action: str
    args: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, value: Mapping[str, Any]) -> Step:
        args = value.get("args")
        return cls(
            thought=str(value.get("thought") or "").strip(),
            action=str(value.get("action") or "").strip(),
            args=dict(args) if isinstance(args, Mapping) else {},
        )
