"""Problem documents (RFC 9457) for errors that reach a caller."""

from __future__ import annotations

import json
import math
from typing import Any

from lorebase_core.errors import Issue, LorebaseError, capped

PROBLEM_CONTENT_TYPE = "application/problem+json"

RENDERED_CHARS = 2000
"""Longest string a problem document renders: messages quote caller text shortened already
(`lorebase_core.errors.quoted`); this bound holds for any path that does not."""


def problem_document(error: LorebaseError, *, instance: str | None = None) -> dict[str, Any]:
    document = error.to_problem()
    if instance is not None:
        document["instance"] = instance
    return document


def problem(
    status: int,
    code: str,
    title: str,
    detail: str,
    *,
    issues: list[Issue] | None = None,
    instance: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A problem document for an error that has no `LorebaseError` class (framework errors)."""
    document: dict[str, Any] = {
        "type": f"https://lorebase.dev/problems/{code}",
        "title": title,
        "status": status,
        "detail": detail,
        "code": code,
        **extra,
    }
    if issues is not None:
        document["issues"] = [issue.to_json() for issue in capped(issues)]
    if instance is not None:
        document["instance"] = instance
    return document


def printable(value: Any) -> Any:
    """`value` with every string made encodable and bounded: lone surrogates become U+FFFD,
    strings past `RENDERED_CHARS` are cut (`…` and their length).

    Problem documents repeat what the caller sent (names, keys, paths); whatever that held,
    the document must still render, and small. Numbers that JSON cannot write (NaN, infinities)
    and values that are not JSON become their text.
    """
    if isinstance(value, str):
        if len(value) > RENDERED_CHARS:
            value = f"{value[:RENDERED_CHARS]}… ({len(value)} characters)"
        try:
            value.encode()
        except UnicodeEncodeError:
            return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        return value
    if isinstance(value, dict):
        return {str(printable(name)): printable(member) for name, member in value.items()}
    if isinstance(value, list | tuple):
        return [printable(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if value is None or isinstance(value, bool | int | float):
        return value
    return printable(str(value))


def render_problem(document: dict[str, Any]) -> bytes:
    """The UTF-8 JSON of a problem document; it cannot fail on what the document quotes."""
    return json.dumps(printable(document), ensure_ascii=False, separators=(",", ":")).encode()
