"""Paths of Keeper's routes, with every value that names a segment percent-encoded.

Kinds, keys, Relations, branches and tags are values, not path syntax: each one is encoded with
`quote(value, safe="")`, so `/`, `?`, `#`, `%`, spaces and non-ASCII letters reach Keeper as one
segment. Empty, `.` and `..` segments are refused before anything is sent: URL normalization
would drop or fold them and the request would name another resource (design.md, HTTP conventions).
"""

from __future__ import annotations

from urllib.parse import quote

from lorebase_core.errors import InvalidPathSegment

API_PREFIX = "/api/v1"


def segment(value: str, what: str) -> str:
    """`value` percent-encoded as one path segment.

    Args:
        value: a Kind, key, Relation, branch, tag or Domain name, as stored.
        what: what the value names, for the error message (`"key"`, `"branch"`).

    Raises:
        InvalidPathSegment: `value` is empty, `.` or `..`.
    """
    if value in ("", ".", ".."):
        raise InvalidPathSegment(
            f"{what} {value!r} cannot be sent as a path segment: "
            "empty, '.' and '..' segments are refused (they would name another resource)",
            what=what,
        )
    return quote(value, safe="")


def api_path(*parts: str) -> str:
    """`/api/v1/<parts...>`: the parts are path text already (encode values with `segment`)."""
    return "/".join((API_PREFIX, *parts))


def domain_path(domain: str, *parts: str) -> str:
    """`/api/v1/domains/<domain>/<parts...>`, the Domain encoded; `parts` are path text."""
    return api_path("domains", segment(domain, "Domain"), *parts)


def record_path(domain: str, kind: str, key: str, *parts: str) -> str:
    """The path of one Record (`.../kinds/<kind>/records/<key>`) and what follows it."""
    return domain_path(
        domain, "kinds", segment(kind, "Kind"), "records", segment(key, "key"), *parts
    )
