"""Checks of tool arguments before any request: refs, Kinds, Relations, texts, numbers.

Each check raises `ArgsInvalid` with a message for the model that names the valid choices.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lorebase_guide.tools.base import ArgsInvalid
from lorebase_guide.tools.names import DomainNames

__all__ = ["allowed", "kind_arg", "ref_arg", "refs_arg", "relation_arg", "text_arg", "whole"]

MAX_TEXT_CHARS = 500
MAX_REFS = 10


def allowed(args: Mapping[str, Any], names: set[str], tool: str) -> None:
    """Refuse members other than `names`."""
    unknown = sorted(set(args) - names)
    if unknown:
        raise ArgsInvalid(
            f"{tool} takes no argument {', '.join(map(repr, unknown))}; its arguments are "
            + ", ".join(sorted(names))
        )


def text_arg(args: Mapping[str, Any], name: str, *, required: bool = True) -> str | None:
    value = args.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ArgsInvalid(f"{name} must be a non-empty text")
    if len(value) > MAX_TEXT_CHARS:
        raise ArgsInvalid(f"{name} is longer than {MAX_TEXT_CHARS} characters")
    return value.strip()


def whole(args: Mapping[str, Any], name: str, low: int, high: int) -> int | None:
    value = args.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ArgsInvalid(f"{name} must be a whole number from {low} to {high}")
    return value


def kind_arg(names: DomainNames, value: Any, what: str = "kind") -> str:
    if not isinstance(value, str) or value not in names.kinds:
        raise ArgsInvalid(f"{what} {value!r} is not a Kind of this Domain; {names.kinds_hint()}")
    return value


def ref_arg(names: DomainNames, value: Any, what: str = "ref") -> tuple[str, str]:
    """A `Kind/key` ref: its Kind and key."""
    if not isinstance(value, str) or "/" not in value:
        raise ArgsInvalid(f"{what} must be a Record ref Kind/key (Supplier/S-1001 style)")
    kind, _, key = value.partition("/")
    kind_arg(names, kind, f"the Kind of {what}")
    if not key.strip() or key in (".", "..") or len(key) > 200:
        raise ArgsInvalid(f"{what} {value!r} has no valid key after the Kind")
    return kind, key


def refs_arg(names: DomainNames, value: Any, what: str = "refs") -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or len(value) > MAX_REFS:
        raise ArgsInvalid(f"{what} must be a list of 1 to {MAX_REFS} Record refs Kind/key")
    refs = []
    for item in value:
        kind, key = ref_arg(names, item, what)
        refs.append(f"{kind}/{key}")
    return refs


def relation_arg(names: DomainNames, kind: str | None, value: Any, what: str = "relation") -> str:
    """A Relation name readable from `kind` (any Kind when None)."""
    end = names.relations.get(value) if isinstance(value, str) else None
    if end is None or (kind is not None and end.from_kind != kind):
        if kind is None:
            valid = ", ".join(sorted(names.relations))
            raise ArgsInvalid(f"{what} {value!r} is not a Relation; valid Relations: {valid}")
        raise ArgsInvalid(f"{what} {value!r} is not a Relation of {kind}; {names.kind_hint(kind)}")
    return end.name
