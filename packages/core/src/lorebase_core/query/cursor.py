"""Page cursors of POST /query: opaque text naming a Revision, an offset and the query they page.

A cursor is url-safe base64 (without padding) of compact JSON `{"o": offset, "q": digest, "r":
revision}`. Keeper reads the next page at the cursor's Revision, so that the pages of one query
stay consistent while the branch moves on; a cursor made for another query is refused.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass

from lorebase_core.errors import BadCursor
from lorebase_core.schema.document import canonical_json

MAX_OFFSET = 2**31 - 1
"""The largest offset a cursor may carry (a 32-bit SQL integer)."""
_DIGEST_CHARS = 16
"""The cursor keeps the first 16 hex digits of the query digest: enough to tell queries apart."""


@dataclass(frozen=True)
class QueryCursor:
    """Where the next page starts: the Revision read and the number of items before it."""

    revision: str | None
    offset: int


def encode_cursor(revision: str | None, offset: int, query_digest: str) -> str:
    """The cursor of the page starting at `offset` of a query (`Query.digest()`) at `revision`."""
    document = {"o": offset, "q": query_digest[:_DIGEST_CHARS], "r": revision}
    return base64.urlsafe_b64encode(canonical_json(document).encode()).decode().rstrip("=")


def decode_cursor(text: str, query_digest: str) -> QueryCursor:
    """The cursor `text` made by `encode_cursor` for the query with digest `query_digest`.

    Raises:
        BadCursor: text that is not a cursor, a negative offset, or a cursor of another query.
    """
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        document = json.loads(raw.decode())
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise BadCursor(_NOT_A_CURSOR) from None
    if not isinstance(document, dict) or set(document) != {"o", "q", "r"}:
        raise BadCursor(_NOT_A_CURSOR)
    offset, digest, revision = document["o"], document["q"], document["r"]
    if not isinstance(offset, int) or isinstance(offset, bool) or not 0 <= offset <= MAX_OFFSET:
        raise BadCursor(_NOT_A_CURSOR)
    if not isinstance(digest, str) or not (revision is None or isinstance(revision, str)):
        raise BadCursor(_NOT_A_CURSOR)
    if digest != query_digest[:_DIGEST_CHARS]:
        raise BadCursor(
            "This cursor belongs to another query; send it with the query it came from, "
            "or drop it to start from the first page"
        )
    return QueryCursor(revision, offset)


_NOT_A_CURSOR = "Not a cursor of POST /query; send next_cursor of an earlier answer as it came"
