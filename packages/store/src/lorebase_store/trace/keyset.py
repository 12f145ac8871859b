"""Opaque keyset cursors of the trace and audit lists: the sort key of the last row of a page."""

from __future__ import annotations

from typing import Any

from lorebase_core.errors import BadCursor, BadRequest, quoted
from lorebase_store.cursors import cursor_document, cursor_text


def check_limit(limit: int) -> None:
    """A page holds at least one row (Keeper bounds the maximum from settings)."""
    if limit < 1:
        raise BadRequest(f"limit must be at least 1, not {limit}")


def encode_keyset(list_name: str, key: list[Any]) -> str:
    """A cursor continuing `list_name` after the row whose sort key is `key`."""
    return cursor_text({"l": list_name, "k": key})


def decode_keyset(list_name: str, cursor: str, types: tuple[type, ...]) -> list[Any]:
    """The sort key a cursor of `list_name` continues after; BadCursor for any other text."""
    invalid = BadCursor(f"cursor {quoted(cursor)} is not one this server issued for {list_name}")
    try:
        document = cursor_document(cursor)
    except ValueError:
        raise invalid from None
    if not isinstance(document, dict) or document.get("l") != list_name:
        raise invalid
    key = document.get("k")
    if (
        not isinstance(key, list)
        or len(key) != len(types)
        or not all(type(part) is kind for part, kind in zip(key, types, strict=True))
    ):
        raise invalid
    return key
