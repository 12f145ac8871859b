"""Errors of Lorebase, shared by every package.

Hierarchy (each HTTP-facing class declares its status, code and title):

    LorebaseError                     500 internal
    ├── BadRequest                    400 bad-request
    │   ├── BadCursor                 400 bad-cursor
    │   └── InvalidInput              422 invalid-input (carries every issue with its path)
    │       ├── InvalidText           422 invalid-text (lone surrogates, NUL, bytes not UTF-8)
    │       ├── SchemaInvalid         422 schema-invalid
    │       ├── ValuesInvalid         422 values-invalid
    │       ├── ImportInvalid         422 import-invalid
    │       └── BranchNameReserved    422 branch-name-reserved (keeper.agent_writes.branch_prefix)
    ├── Unauthorized                  401 unauthorized
    ├── Forbidden                     403 forbidden
    │   ├── KindForbidden             403 kind-forbidden
    │   ├── HistoryForbidden          403 history-forbidden
    │   ├── MergeOutsideScope         403 merge-outside-scope
    │   └── AttributeForbidden        403 attribute-forbidden
    ├── NotFound                      404 not-found
    │   ├── DomainNotFound            404 domain-not-found
    │   ├── BranchNotFound            404 branch-not-found
    │   ├── RevisionNotFound          404 revision-not-found
    │   │   └── TagNotFound           404 tag-not-found
    │   ├── KindNotFound              404 kind-not-found
    │   ├── RelationNotFound          404 relation-not-found
    │   ├── RecordNotFound            404 record-not-found
    │   ├── RevisionNotOnBranch       404 revision-not-on-branch
    │   ├── TraitNotFound             404 trait-not-found
    │   └── AttributeNotFound         404 attribute-not-found
    ├── RequestTimeout                408 request-timeout (a body that did not arrive in time)
    ├── UnsafeSettings                500 unsafe-settings (a process refuses to start with them)
    └── Conflict                      409 conflict
        ├── AlreadyExists             409 already-exists
        │   └── BranchNameTaken       409 branch-name-taken (differs only in case)
        ├── StaleHead                 409 stale-head
        ├── ImportOverwrites          409 import-overwrites (values set since the folder's import)
        └── AmbiguousRevision         409 ambiguous-revision
"""

from __future__ import annotations

from collections.abc import Sequence, Sized
from dataclasses import dataclass
from typing import Any, ClassVar

QUOTED_CHARS = 80
"""Characters of caller text one quote in a message keeps (`quoted`, `shortened`)."""

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


class BadRequest(LorebaseError):
    status = 400
    code = "bad-request"
    title = "Bad request"


class BadCursor(BadRequest):
    code = "bad-cursor"
    title = "Bad cursor"


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


class InvalidText(InvalidInput):
    """Text that is not Unicode a database can store: lone UTF-16 surrogates (`\\ud800`), NUL
    characters (`\\u0000`) or bytes that are not UTF-8, in a body, a path or a query string."""

    code = "invalid-text"
    title = "Invalid text"


class SchemaInvalid(InvalidInput):
    code = "schema-invalid"
    title = "Invalid schema"


class ValuesInvalid(InvalidInput):
    code = "values-invalid"
    title = "Invalid values"


class ImportInvalid(InvalidInput):
    code = "import-invalid"
    title = "Import refused"


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


class KindForbidden(Forbidden):
    """A Kind outside the caller's grant, when keeper.auth.authz.invisible_kinds is off."""

    code = "kind-forbidden"
    title = "Kind not readable"


class MergeOutsideScope(Forbidden):
    """A merge would write Records or Links of Kinds the caller's grants on the target skip."""

    code = "merge-outside-scope"
    title = "The merge reaches beyond your grants"


class HistoryForbidden(Forbidden):
    """History reads need a grant that is not narrowed to Kinds."""

    code = "history-forbidden"
    title = "History not readable"


class AttributeForbidden(Forbidden):
    """A filter, order or group on an Attribute whose values the caller may not read."""

    code = "attribute-forbidden"
    title = "Attribute not readable"


class NotFound(LorebaseError):
    status = 404
    code = "not-found"
    title = "Not found"


class DomainNotFound(NotFound):
    code = "domain-not-found"
    title = "Unknown Domain"

    @classmethod
    def named(cls, name: str) -> DomainNotFound:
        """The error of an unknown Domain, also of one the caller may not read: one message, so
        the two answers are the same bytes but for the name."""
        return cls(f"Domain {quoted(name)} does not exist")


class BranchNotFound(NotFound):
    code = "branch-not-found"
    title = "Unknown branch"


class RevisionNotFound(NotFound):
    code = "revision-not-found"
    title = "Unknown Revision"


class KindNotFound(NotFound):
    code = "kind-not-found"
    title = "Unknown Kind"


class RelationNotFound(NotFound):
    code = "relation-not-found"
    title = "Unknown Relation"


class RecordNotFound(NotFound):
    code = "record-not-found"
    title = "Unknown Record"


class RevisionNotOnBranch(NotFound):
    code = "revision-not-on-branch"
    title = "Revision not on this branch"


class TagNotFound(RevisionNotFound):
    code = "tag-not-found"
    title = "Unknown tag"


class TraitNotFound(NotFound):
    code = "trait-not-found"
    title = "Unknown Trait"


class AttributeNotFound(NotFound):
    code = "attribute-not-found"
    title = "Unknown Attribute"


class RequestTimeout(LorebaseError):
    """The request body did not arrive within keeper.http.body_timeout_s; the connection closes."""

    status = 408
    code = "request-timeout"
    title = "Request timeout"


class UnsafeSettings(LorebaseError):
    """Settings a process refuses to start with, because they would expose it (say how to fix)."""

    status = 500
    code = "unsafe-settings"
    title = "Unsafe settings"


class Conflict(LorebaseError):
    status = 409
    code = "conflict"
    title = "Conflict"


class AlreadyExists(Conflict):
    code = "already-exists"
    title = "Already exists"


class StaleHead(Conflict):
    code = "stale-head"
    title = "Stale head"


class ImportOverwrites(Conflict):
    """Importing a folder again would replace values that Operations or merges set since.

    `overwrites` lists each (ref, attribute, current, imported, revision, origin); importing
    with `overwrite` writes them anyway.
    """

    code = "import-overwrites"
    title = "Import would overwrite later changes"


class AmbiguousRevision(Conflict):
    code = "ambiguous-revision"
    title = "Ambiguous Revision prefix"


class BranchNameReserved(InvalidInput):
    """A branch name under the prefix of task branches, which only the agent flow creates."""

    code = "branch-name-reserved"
    title = "Branch name reserved"


class BranchNameTaken(AlreadyExists):
    """A live branch has the same name but for case (`Main` beside `main`)."""

    code = "branch-name-taken"
    title = "Branch name taken"


# -- writes (docs/writes.md) --------------------------------------------------------------------


class OperationNotFound(NotFound):
    code = "operation-not-found"
    title = "Unknown Operation"

    @classmethod
    def named(cls, name: str, domain: str) -> OperationNotFound:
        """The error of an unknown Operation, also of one the caller's grants make invisible."""
        return cls(
            f"Operation {quoted(name)} does not exist in Domain {quoted(domain)}", operation=name
        )


class ProposalNotFound(NotFound):
    code = "proposal-not-found"
    title = "Unknown Proposal"


class ConflictNotFound(NotFound):
    code = "conflict-not-found"
    title = "Unknown Conflict"


class ReviewRequired(Conflict):
    code = "review-required"
    title = "Review required"


class IdempotencyKeyReused(Conflict):
    code = "idempotency-key-reused"
    title = "Idempotency key used for another request"


class AgentBranchLimit(Conflict):
    code = "agent-branch-limit"
    title = "Too many task branches"


class MergeConflicts(Conflict):
    code = "merge-conflicts"
    title = "The merge meets Conflicts"


class MergeBlocked(Conflict):
    code = "merge-blocked"
    title = "The Proposal cannot merge yet"


class SelfApproval(Conflict):
    code = "self-approval"
    title = "Authors do not approve their own Proposals"


class ProposalNotOpen(Conflict):
    code = "proposal-not-open"
    title = "The Proposal is not open"


class BranchesUnrelated(BadRequest):
    status = 422
    code = "branches-unrelated"
    title = "The branches share no history"
