"""Problem documents (RFC 9457) for errors that reach a caller."""

from __future__ import annotations

from typing import Any

from lorebase_core.errors import Issue, LorebaseError

PROBLEM_CONTENT_TYPE = "application/problem+json"


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
        document["issues"] = [issue.to_json() for issue in issues]
    if instance is not None:
        document["instance"] = instance
    return document
