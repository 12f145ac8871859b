"""The text of an opaque cursor: a compact JSON document in unpadded URL-safe base64.

What a cursor's document holds, and how a list answers one it did not issue, are the list's
(`reads.history`, `trace.keyset`).
"""

from __future__ import annotations

import base64
import json
from typing import Any


def cursor_text(document: dict[str, Any]) -> str:
    """The cursor of `document` (compact JSON, members in the order given)."""
    text = json.dumps(document, separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def cursor_document(cursor: str) -> Any:
    """The JSON a cursor holds (any JSON value); ValueError when the text is not a cursor."""
    padded = cursor + "=" * (-len(cursor) % 4)
    return json.loads(base64.urlsafe_b64decode(padded.encode()))
