"""Problem documents back into the typed errors of `lorebase_core.errors`.

Keeper answers every error as a problem document (`application/problem+json`) with a stable
`code`. The client raises the `lorebase_core.errors` class declaring that code (a 404
`kind-not-found` raises `KindNotFound`; every code has its class there); a code the client does
not know (a newer Keeper's) raises the class of the status (400 `BadRequest`, 401 `Unauthorized`, 403 `Forbidden`, 404 `NotFound`, 409 `Conflict`,
422 `InvalidInput`, anything else `LorebaseError`). Each raised error carries:

- `response`: the `httpx.Response` (also `response_of(error)`, typed);
- `problem`: the problem document as Keeper sent it, with its own `code` (also `problem_of(error)`);
- `detail`, the document's other members in `extra`, and for `InvalidInput` its `issues`.

Errors the client raises itself, classes of `lorebase_core.errors` too (exported here):

    LorebaseError
    ├── BadRequest
    │   └── InvalidPathSegment   a value that cannot name a path segment (a ValueError too)
    └── UnexpectedAnswer         a success answer that is not what the route answers

Transport failures (connection refused, timeouts) are httpx's own `httpx.TransportError`.
"""

from __future__ import annotations

import functools
from typing import Any

import httpx

from lorebase_core import errors as core_errors
from lorebase_core.errors import (
    BadRequest,
    Conflict,
    Forbidden,
    InvalidInput,
    InvalidPathSegment,
    Issue,
    LorebaseError,
    NotFound,
    Unauthorized,
    UnexpectedAnswer,
)

__all__ = [
    "BY_STATUS",
    "InvalidPathSegment",
    "UnexpectedAnswer",
    "classes_by_code",
    "error_class",
    "error_from_response",
    "problem_of",
    "response_of",
]

BY_STATUS: dict[int, type[LorebaseError]] = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    422: InvalidInput,
}
"""The class raised for a status whose code has no class of its own."""

_STANDARD_MEMBERS = frozenset({"type", "title", "status", "detail", "code", "issues", "instance"})


@functools.cache
def classes_by_code() -> dict[str, type[LorebaseError]]:
    """Every class of `lorebase_core.errors` by its code.

    Only that module counts, so the mapping is the same whatever else the process imported.
    """
    found: dict[str, type[LorebaseError]] = {}
    pending: list[type[LorebaseError]] = [LorebaseError]
    while pending:
        cls = pending.pop()
        if cls.__module__ == core_errors.__name__:
            found.setdefault(cls.code, cls)
        pending.extend(cls.__subclasses__())
    return found


def error_class(code: object, status: int) -> type[LorebaseError]:
    """The class raised for a problem `code` answered with `status`."""
    if isinstance(code, str):
        found = classes_by_code().get(code)
        if found is not None:
            return found
    return BY_STATUS.get(status, LorebaseError)


def error_from_response(response: httpx.Response) -> LorebaseError:
    """The typed error of an error answer, with the response and its problem document attached.

    An answer that is not a problem document (a proxy's HTML page) becomes the class of its
    status, its detail quoting the start of the body.
    """
    problem = _problem_document(response)
    detail = problem.get("detail")
    if not isinstance(detail, str):
        detail = f"{response.request.method} {response.request.url} answered {response.status_code}"
    cls = error_class(problem.get("code"), response.status_code)
    extra = {name: value for name, value in problem.items() if name not in _STANDARD_MEMBERS}
    if "issues" in problem and not issubclass(cls, InvalidInput):
        extra["issues"] = problem["issues"]  # only InvalidInput has a place of its own for them
    error = _instantiate(cls, detail, _issues(problem.get("issues")), extra)
    # lorebase_core cannot know httpx, so its classes do not declare these two attributes.
    error.response = response  # type: ignore[attr-defined]
    error.problem = problem  # type: ignore[attr-defined]
    return error


def response_of(error: BaseException) -> httpx.Response | None:
    """The response a client error came with (None for errors raised before any request)."""
    found = getattr(error, "response", None)
    return found if isinstance(found, httpx.Response) else None


def problem_of(error: BaseException) -> dict[str, Any] | None:
    """The problem document a client error came with, as Keeper sent it."""
    found = getattr(error, "problem", None)
    return found if isinstance(found, dict) else None


def _problem_document(response: httpx.Response) -> dict[str, Any]:
    try:
        document = response.json()
    except ValueError:
        document = None
    if isinstance(document, dict):
        return document
    text = response.text.strip()
    reason = response.reason_phrase or "error"
    detail = (
        f"{response.request.method} {response.request.url} answered {response.status_code} {reason}"
    )
    if text:
        detail += f": {text[:200]!r}"
    return {"status": response.status_code, "title": reason, "detail": detail}


def _issues(raw: object) -> list[Issue]:
    if not isinstance(raw, list):
        return []
    issues = []
    for entry in raw:
        if isinstance(entry, dict):
            issues.append(
                Issue(
                    str(entry.get("path", "")),
                    str(entry.get("message", "")),
                    str(entry.get("code", "invalid")),
                )
            )
    return issues


def _instantiate(
    cls: type[LorebaseError], detail: str, issues: list[Issue], extra: dict[str, Any]
) -> LorebaseError:
    try:
        if issubclass(cls, InvalidInput):
            return cls(detail, issues, **extra)
        return cls(detail, **extra)
    except TypeError:
        # a class whose constructor takes other arguments: its status class still says it all
        fallback = BY_STATUS.get(cls.status, LorebaseError)
        if issubclass(fallback, InvalidInput):
            return fallback(detail, issues, **extra)
        return fallback(detail, **extra)
