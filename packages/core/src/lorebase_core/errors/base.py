"""The base of every error, the generic class of each status, issues and quoting.

Every class defined in this package (`lorebase_core.errors.*`) reports `lorebase_core.errors` as
its module (`LorebaseError.__init_subclass__`): the package is one registry, whichever module of
it a class lives in.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence, Sized
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from lorebase_core.suggestions import hint

QUOTED_CHARS = 80
"""Characters of caller text one quote in a message keeps (`quoted`, `shortened`)."""


REGISTRY = "lorebase_core.errors"
"""The module every error class reports as its own (`__module__`), wherever in it it is defined."""

MAX_ISSUES = 50
"""Issues one problem document lists; a last issue says how many more were left out."""


def shortened(text: str, limit: int = QUOTED_CHARS) -> str:
    """`text` cut to `limit` characters with `…` when longer (issue paths naming members)."""
    return text if len(text) <= limit else f"{text[: max(limit, 0)]}…"


def quoted(value: object, limit: int = QUOTED_CHARS) -> str:
    """`value` quoted as `!r` does, shortened past `limit` characters, with its length.

    Messages quote what the caller sent (names, keys, lists); a name of 100,000 characters must
    not make an answer of 100 kB: `quoted("a" * 100_000)` is `'aaaa…' (100000 characters)` and a
    long list `[1, 1, …] (20000 items)`.
    """
    if isinstance(value, str):
        if len(value) <= limit:
            return repr(value)
        head = repr(value[:limit])
        return f"{head[:-1]}…{head[-1]} ({len(value)} characters)"
    text = repr(value)
    if len(text) <= limit:
        return text
    size = f"{len(value)} items" if isinstance(value, Sized) else f"{len(text)} characters"
    return f"{shortened(text, limit)} ({size})"


@dataclass(frozen=True, order=True)
class Issue:
    """One problem found in some input, located by a path.

    `path` is a dotted path inside a document (`kinds.Supplier.key`) or, for data files,
    `file:line` followed by the Attribute (`data/Supplier.csv:12 risk_score`).
    """

    path: str
    message: str
    code: str = "invalid"

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message

    def to_json(self) -> dict[str, str]:
        return {"path": self.path, "message": self.message, "code": self.code}


def capped(issues: Sequence[Issue], limit: int = MAX_ISSUES) -> list[Issue]:
    """The first `limit` issues, then one saying how many more were left out.

    A body of 20,000 bad items must not answer 20,000 issues: the caller fixes these and sends
    again. The exception keeps every issue (the CLI prints them all).
    """
    if len(issues) <= limit:
        return list(issues)
    left_out = len(issues) - limit
    return [
        *issues[:limit],
        Issue(
            "",
            f"{left_out} more issue(s) left out: fix the ones listed and send again",
            "more-issues",
        ),
    ]


class LorebaseError(Exception):
    """Base of every error Lorebase raises on purpose."""

    status: ClassVar[int] = 500
    code: ClassVar[str] = "internal"
    title: ClassVar[str] = "Internal error"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__module__.startswith(f"{REGISTRY}."):
            # One registry: the client and its tests find the classes by this module name.
            cls.__module__ = REGISTRY

    def __init__(self, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        self.extra = extra

    def to_problem(self) -> dict[str, Any]:
        """The problem document (RFC 9457) of this error, without `instance`."""
        problem: dict[str, Any] = {
            "type": f"https://lorebase.dev/problems/{self.code}",
            "title": self.title,
            "status": self.status,
            "detail": self.detail,
            "code": self.code,
        }
        problem.update(self.extra)
        return problem


LorebaseError.__module__ = REGISTRY


class BadRequest(LorebaseError):
    status = 400
    code = "bad-request"
    title = "Bad request"


class InvalidInput(BadRequest):
    """Input that was understood but breaks rules; lists every issue."""

    status = 422
    code = "invalid-input"
    title = "Invalid input"

    def __init__(self, detail: str, issues: list[Issue], **extra: Any) -> None:
        super().__init__(detail, **extra)
        self.issues = sorted(set(issues), key=_issue_order)

    def to_problem(self) -> dict[str, Any]:
        problem = super().to_problem()
        problem["issues"] = [issue.to_json() for issue in capped(self.issues)]
        return problem

    def __str__(self) -> str:
        lines = [self.detail, *(f"  {issue}" for issue in self.issues)]
        return "\n".join(lines)


def _issue_order(issue: Issue) -> tuple[str, str, str]:
    return (issue.path, issue.code, issue.message)


class Unauthorized(LorebaseError):
    """No credential, or one Keeper does not accept."""

    status = 401
    code = "unauthorized"
    title = "Unauthorized"


class Forbidden(LorebaseError):
    """The caller is known but lacks the permission the request needs."""

    status = 403
    code = "forbidden"
    title = "Forbidden"


class NotFound(LorebaseError):
    status = 404
    code = "not-found"
    title = "Not found"

    unknown_name: str | None = None
    """The name a request gave that names nothing, when the error came from `named`."""

    @classmethod
    def _named(
        cls,
        noun: str,
        name: str,
        domain: str | None,
        visible: Iterable[str],
        listed: str,
        **extra: Any,
    ) -> Self:
        """The error of `name`, a `noun` that does not exist (in `domain`), with the closest
        names of `visible` (called `listed` in the message) as a hint."""
        where = "" if domain is None else f" in Domain {quoted(domain)}"
        detail = f"{noun} {quoted(name)} does not exist{where}" + hint(name, visible, listed)
        error = cls(detail, **extra)
        error.unknown_name = name
        return error


class TooManyRequests(LorebaseError):
    """Too much at once from one caller: the answer says when to try again.

    `retry_after_s` (whole seconds, at least 1) becomes the answer's `Retry-After` header and the
    problem's `retry_after_s` member.
    """

    status = 429
    code = "too-many-requests"
    title = "Too many requests"

    def __init__(self, detail: str, *, retry_after_s: int = 1, **extra: Any) -> None:
        seconds = max(1, int(retry_after_s))
        super().__init__(detail, retry_after_s=seconds, **extra)
        self.retry_after_s = seconds


class Conflict(LorebaseError):
    status = 409
    code = "conflict"
    title = "Conflict"


class AlreadyExists(Conflict):
    code = "already-exists"
    title = "Already exists"
