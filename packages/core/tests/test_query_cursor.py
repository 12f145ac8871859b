"""Page cursors of POST /query: opaque, bound to one query, refused when forged or foreign."""

from __future__ import annotations

import base64
import json

import pytest

from lorebase_core.errors import BadCursor
from lorebase_core.query import QueryCursor, decode_cursor, encode_cursor
from lorebase_core.query.cursor import MAX_OFFSET

DIGEST = "ab" * 32
OTHER_DIGEST = "cd" * 32
REVISION = "f4d229169a37fa73e83df368ea2c035fead80d809b908cf236c013a0dd23066b"


def forge(document: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(document).encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    ("revision", "offset"),
    [
        pytest.param(REVISION, 100, id="revision"),
        pytest.param(None, 0, id="empty-branch"),
        pytest.param(REVISION, MAX_OFFSET, id="largest-offset"),
    ],
)
def test_a_cursor_round_trips(revision: str | None, offset: int) -> None:
    text = encode_cursor(revision, offset, DIGEST)
    assert decode_cursor(text, DIGEST) == QueryCursor(revision, offset)


def test_a_cursor_is_opaque_url_safe_text() -> None:
    text = encode_cursor(REVISION, 100, DIGEST)
    assert text.isascii()
    assert not set(text) & set("+/=?&%")
    assert REVISION not in text


def test_a_cursor_is_deterministic() -> None:
    assert encode_cursor(REVISION, 5, DIGEST) == encode_cursor(REVISION, 5, DIGEST)
    assert encode_cursor(REVISION, 5, DIGEST) != encode_cursor(REVISION, 6, DIGEST)


def test_a_cursor_of_another_query_is_refused() -> None:
    text = encode_cursor(REVISION, 100, DIGEST)
    with pytest.raises(BadCursor, match="another query") as caught:
        decode_cursor(text, OTHER_DIGEST)
    assert caught.value.status == 400
    assert caught.value.to_problem()["code"] == "bad-cursor"


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("", id="empty"),
        pytest.param("not a cursor!", id="not-base64"),
        pytest.param(base64.urlsafe_b64encode(b"\xff\xfe").decode(), id="not-utf8"),
        pytest.param(forge("text"), id="not-an-object"),
        pytest.param(forge([1, 2]), id="a-list"),
        pytest.param(forge({"o": 1, "q": DIGEST[:16]}), id="missing-revision"),
        pytest.param(forge({"o": 1, "q": DIGEST[:16], "r": None, "x": 1}), id="extra-member"),
        pytest.param(forge({"o": -1, "q": DIGEST[:16], "r": None}), id="negative-offset"),
        pytest.param(forge({"o": MAX_OFFSET + 1, "q": DIGEST[:16], "r": None}), id="huge-offset"),
        pytest.param(forge({"o": True, "q": DIGEST[:16], "r": None}), id="boolean-offset"),
        pytest.param(forge({"o": "5", "q": DIGEST[:16], "r": None}), id="text-offset"),
        pytest.param(forge({"o": 5, "q": 7, "r": None}), id="digest-not-text"),
        pytest.param(forge({"o": 5, "q": DIGEST[:16], "r": 7}), id="revision-not-text"),
    ],
)
def test_garbage_is_a_bad_cursor(text: str) -> None:
    with pytest.raises(BadCursor):
        decode_cursor(text, DIGEST)


def test_a_forged_cursor_with_the_right_shape_is_read() -> None:
    text = forge({"o": 7, "q": DIGEST[:16], "r": REVISION})
    assert decode_cursor(text, DIGEST) == QueryCursor(REVISION, 7)
