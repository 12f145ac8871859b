"""Opaque cursors of the list routes: a key to continue after, bound to the list it came from."""

from __future__ import annotations

import base64
import json

from lorebase_core.errors import BadCursor


def encode_cursor(list_name: str, after: str) -> str:
    raw = json.dumps({"l": list_name, "a": after}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(list_name: str, cursor: str | None) -> str | None:
    """The key to continue after (None without a cursor); 400 bad-cursor for a foreign one."""
    if cursor is None:
        return None
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        document = json.loads(base64.urlsafe_b64decode(padded.encode()))
        after = document["a"]
        valid = document["l"] == list_name and isinstance(after, str)
    except (ValueError, KeyError, TypeError):
        valid = False
    if not valid:
        raise BadCursor(f"cursor {cursor!r} was not issued for this list; start without it")
    return str(after)
