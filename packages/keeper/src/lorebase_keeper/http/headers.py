"""Headers as ASGI gives them: a list of (lower-case name, value) byte pairs."""

from __future__ import annotations

Headers = list[tuple[bytes, bytes]]


def header(headers: Headers, name: bytes) -> bytes | None:
    """The first value of a header (`name` in lower case), as ASGI gives them."""
    for key, value in headers:
        if key == name:
            return value
    return None
