"""Errors of Lorebase, shared by every package: every problem code has its class here.

Hierarchy (each HTTP-facing class declares its status, code and title; a test checks that this
tree names every class of the module, each under its base, and that no package defines a class
of its own):

    LorebaseError                     500 internal
    ├── BadRequest                    400 bad-request
    │   ├── BadCursor                 400 bad-cursor
    │   ├── MalformedJson             400 malformed-json (a body that is not JSON, or too deep)
    │   ├── SecretError               400 secret-unresolved (a `secret://` reference)
    │   ├── InvalidPathSegment        400 invalid-path-segment (the client's; a ValueError too)
    │   ├── BranchesUnrelated         422 branches-unrelated
    │   └── InvalidInput              422 invalid-input (carries every issue with its path)
    │       ├── InvalidText           422 invalid-text (lone surrogates, NUL, bytes not UTF-8)
    │       ├── SchemaInvalid         422 schema-invalid
    │       ├── ValuesInvalid         422 values-invalid
    │       ├── ImportInvalid         422 import-invalid
    │       ├── BranchNameReserved    422 branch-name-reserved (keeper.agent_writes.branch_prefix)
    │       ├── QueryInvalid          422 query-invalid
    │       ├── SearchInvalid         422 search-invalid
    │       ├── GraphRequestInvalid   422 graph-request-invalid
    │       ├── ContextRequestInvalid 422 context-request-invalid
    │       ├── LensUnknown           422 lens_unknown
    │       ├── SemanticUnavailable   422 semantic_unavailable
    │       └── WebhookInvalid        422 webhook-invalid (target, events, branches, clearances)
    ├── Unauthorized                  401 unauthorized
    ├── Forbidden                     403 forbidden
    │   ├── KindForbidden             403 kind-forbidden
    │   ├── HistoryForbidden          403 history-forbidden
    │   ├── MergeOutsideScope         403 merge-outside-scope
    │   ├── AttributeForbidden        403 attribute-forbidden
    │   ├── ClearanceForbidden        403 clearance-forbidden (a webhook clearance not held)
    │   ├── CsrfRejected              403 csrf (a cookie-authenticated unsafe request)
    │   ├── OriginNotAllowed          403 origin_not_allowed (Guide: an Origin not allowed)
    │   └── CrossSiteRefused          403 cross_site (Guide: Sec-Fetch-Site cross-site)
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
    │   ├── AttributeNotFound         404 attribute-not-found
    │   ├── OperationNotFound         404 operation-not-found
    │   ├── ProposalNotFound          404 proposal-not-found
    │   ├── ConflictNotFound          404 conflict-not-found
    │   ├── PrincipalNotFound         404 principal-not-found
    │   ├── KeyNotFound               404 key-not-found
    │   ├── GrantNotFound             404 grant-not-found
    │   ├── TraceSessionNotFound      404 trace-session-not-found (none, or none the caller sees)
    │   ├── WebhookNotFound           404 webhook-not-found
    │   └── DeliveryNotFound          404 delivery-not-found
    ├── MethodNotAllowed              405 method-not-allowed (the answer has an Allow header)
    ├── RequestTimeout                408 request-timeout (a body that did not arrive in time)
    ├── LengthRequired                411 length-required (Guide: a body without Content-Length)
    ├── BodyTooLarge                  413 body-too-large (keeper.max_body_bytes)
    ├── TooManyRequests               429 too-many-requests (the answer has a Retry-After header)
    │   ├── TooManyStreams            429 too-many-streams (agents.feed.max_streams_*)
    │   ├── RateLimited               429 rate-limited (keeper.rate_limits)
    │   ├── QuotaExceeded             429 quota-exceeded (a daily quota of keeper.rate_limits)
    │   ├── CallerRateLimited         429 rate (Guide: guide.limits per minute)
    │   ├── CallerConcurrencyLimited  429 concurrent (Guide: max_concurrent_per_caller)
    │   └── GuideBusy                 429 busy (Guide: max_concurrent, verifications, callers)
    ├── UnsafeSettings                500 unsafe-settings (a process refuses to start with them)
    ├── BackgroundUnavailable         500 background-unavailable (`serve --scribe` without Scribe)
    ├── NotImplementedYet             501 not-implemented (a planned part of the API)
    ├── UnexpectedAnswer              502 unexpected-answer (the client's: not Keeper's answer)
    ├── ModelUnavailable              502 model-unavailable (a chat endpoint failed or is down)
    ├── ModelAnswerInvalid            502 model-answer-invalid (invalid after the repair call)
    ├── IdentityProviderUnavailable   502 identity-provider-unavailable (the OIDC issuer)
    ├── KeeperUnavailable             502 keeper_unavailable (Guide: Keeper did not answer)
    ├── EmbeddingUnavailable          502 embedding-unavailable (no usable embedding model)
    └── Conflict                      409 conflict
        ├── AlreadyExists             409 already-exists
        │   └── BranchNameTaken       409 branch-name-taken (differs only in case)
        ├── StaleHead                 409 stale-head
        ├── ImportOverwrites          409 import-overwrites (values set since the folder's import)
        ├── AmbiguousRevision         409 ambiguous-revision
        ├── ReviewRequired            409 review-required
        ├── IdempotencyKeyReused      409 idempotency-key-reused
        ├── AgentBranchLimit          409 agent-branch-limit
        ├── MergeConflicts            409 merge-conflicts
        ├── MergeBlocked              409 merge-blocked
        ├── SelfApproval              409 self-approval
        ├── ProposalNotOpen           409 proposal-not-open
        ├── ResyncRequired            409 resync-required (a feed `since` that cannot be followed)
        ├── EncryptionKeyRequired     409 encryption_key_required (webhooks.encryption_key)
        └── SignInUnavailable         409 sign-in-unavailable (sessions off, OIDC not set up)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence, Sized
from dataclasses import dataclass
from typing import Any, ClassVar

from lorebase_core.suggestions import hint

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


class MalformedJson(BadRequest):
    """A body that is not JSON, or JSON nested deeper than decoding goes."""

    code = "malformed-json"
    title = "Malformed JSON"


class SecretError(BadRequest):
    """A `secret://` reference that names no readable file or set environment variable."""

    code = "secret-unresolved"
    title = "Secret reference cannot be resolved"


class InvalidPathSegment(BadRequest, ValueError):
    """A value that cannot name a path segment: empty, `.` or `..`. The client raises it before
    any request; it is both a `BadRequest` and a `ValueError`."""

    code = "invalid-path-segment"
    title = "Invalid path segment"


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


class QueryInvalid(InvalidInput):
    """A query document that breaks the rules of the DSL; lists every issue with its JSON path."""

    code = "query-invalid"
    title = "Invalid query"


class SearchInvalid(InvalidInput):
    """A search document that breaks the rules; lists every issue with its JSON path."""

    code = "search-invalid"
    title = "Invalid search"


class GraphRequestInvalid(InvalidInput):
    """A traversal or neighborhood request that breaks the rules of docs/graph.md."""

    code = "graph-request-invalid"
    title = "Invalid graph request"


class ContextRequestInvalid(InvalidInput):
    """A context pack request that breaks the rules of docs/context.md."""

    code = "context-request-invalid"
    title = "Invalid context request"


class LensUnknown(InvalidInput):
    """A lens the schema does not declare, or none of whose Kinds the caller may read."""

    code = "lens_unknown"
    title = "Unknown lens"

    @classmethod
    def named(cls, name: str, domain: str, visible: Iterable[str]) -> LensUnknown:
        """The error of an unknown lens, also of one the caller may not use: `visible` holds
        only the lenses the caller may use, whichever the two it is."""
        return cls(
            f"Lens {quoted(name)} does not exist in Domain {quoted(domain)}"
            + hint(name, visible, "the lenses you may use"),
            [Issue("lens", f"unknown lens {quoted(name)}", "lens_unknown")],
            lens=name,
        )


class SemanticUnavailable(InvalidInput):
    """Semantic or hybrid search on a schema without `search.embedding`."""

    code = "semantic_unavailable"
    title = "Semantic search unavailable"


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

    unknown_name: str | None = None
    """The name a request gave that names nothing, when the error came from `named`."""


class DomainNotFound(NotFound):
    code = "domain-not-found"
    title = "Unknown Domain"

    @classmethod
    def named(cls, name: str, visible: Iterable[str] = ()) -> DomainNotFound:
        """The error of an unknown Domain, also of one the caller may not read: one message, so
        the two answers are the same bytes but for the name. `visible` holds the Domains the
        caller may read (Keeper fills it in when it answers)."""
        error = cls(f"Domain {quoted(name)} does not exist" + hint(name, visible, "Domains"))
        error.unknown_name = name
        return error


class BranchNotFound(NotFound):
    code = "branch-not-found"
    title = "Unknown branch"

    domain: str | None = None

    @classmethod
    def named(cls, name: str, domain: str, visible: Iterable[str] = ()) -> BranchNotFound:
        """The error of an unknown branch; `visible` holds the branches the caller may read
        (Keeper fills it in when it answers)."""
        error = cls(
            f"Branch {quoted(name)} does not exist in Domain {quoted(domain)}"
            + hint(name, visible, "branches")
        )
        error.unknown_name = name
        error.domain = domain
        return error


class RevisionNotFound(NotFound):
    code = "revision-not-found"
    title = "Unknown Revision"


class KindNotFound(NotFound):
    code = "kind-not-found"
    title = "Unknown Kind"

    @classmethod
    def named(cls, name: str, domain: str, visible: Iterable[str] = ()) -> KindNotFound:
        """The error of an unknown Kind, also of an invisible one: `visible` holds the Kinds
        the caller may read (and no other)."""
        error = cls(
            f"Kind {quoted(name)} does not exist in Domain {quoted(domain)}"
            + hint(name, visible, "Kinds")
        )
        error.unknown_name = name
        return error


class RelationNotFound(NotFound):
    code = "relation-not-found"
    title = "Unknown Relation"

    @classmethod
    def named(cls, name: str, domain: str, visible: Iterable[str] = ()) -> RelationNotFound:
        """The error of an unknown Relation, also of one touching an invisible Kind: `visible`
        holds the names (forward and inverse) of the Relations the caller may read."""
        error = cls(
            f"Relation {quoted(name)} does not exist in Domain {quoted(domain)}"
            + hint(name, visible, "Relations")
        )
        error.unknown_name = name
        return error


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

    @classmethod
    def named(cls, name: str, domain: str, visible: Iterable[str] = ()) -> TraitNotFound:
        """The error of an unknown Trait, also of one no readable Kind carries: `visible`
        holds the Traits some Kind the caller may read carries."""
        error = cls(
            f"Trait {quoted(name)} does not exist in Domain {quoted(domain)}"
            + hint(name, visible, "Traits")
        )
        error.unknown_name = name
        return error


class AttributeNotFound(NotFound):
    code = "attribute-not-found"
    title = "Unknown Attribute"


class PrincipalNotFound(NotFound):
    code = "principal-not-found"
    title = "Unknown principal"


class KeyNotFound(NotFound):
    code = "key-not-found"
    title = "Unknown API key"


class GrantNotFound(NotFound):
    code = "grant-not-found"
    title = "Unknown grant"


class TraceSessionNotFound(NotFound):
    """No trace session of that id and principal, or none of whose steps the caller may see:
    both answer the same, so an id says nothing about sessions the caller cannot read."""

    code = "trace-session-not-found"
    title = "Unknown trace session"


class MethodNotAllowed(LorebaseError):
    """A method the route does not take; the answer's `Allow` header lists those it does."""

    status = 405
    code = "method-not-allowed"
    title = "Method Not Allowed"


class RequestTimeout(LorebaseError):
    """The request body did not arrive within keeper.http.body_timeout_s; the connection closes."""

    status = 408
    code = "request-timeout"
    title = "Request timeout"


class BodyTooLarge(LorebaseError):
    """A request body over keeper.max_body_bytes."""

    status = 413
    code = "body-too-large"
    title = "Request body too large"


class TooManyRequests(LorebaseError):
    """Too much at once from one caller: the answer says when to try again.

    `retry_after_s` (whole seconds, at least 1) becomes the answer's `Retry-After` header and the
    problem's `retry_after_s` member.
    """

    status = 429
    code = "too-many-requests"
    title = "Too many requests"

    def __init__(self, detail: str, *, retry_after_s: int = 1, **extra: Any) -> None:
        super().__init__(detail, retry_after_s=max(1, int(retry_after_s)), **extra)
        self.retry_after_s = max(1, int(retry_after_s))


class TooManyStreams(TooManyRequests):
    """More open event streams than agents.feed.max_streams_per_principal or _per_process."""

    code = "too-many-streams"
    title = "Too many open event streams"


class UnsafeSettings(LorebaseError):
    """Settings a process refuses to start with, because they would expose it (say how to fix)."""

    status = 500
    code = "unsafe-settings"
    title = "Unsafe settings"


class BackgroundUnavailable(LorebaseError):
    """Background work asked for (`lorebase serve --scribe`) whose package is not installed."""

    status = 500
    code = "background-unavailable"
    title = "Background work unavailable"


class NotImplementedYet(LorebaseError):
    """A part of the API that is planned and not built: 501, naming the missing piece."""

    status = 501
    code = "not-implemented"
    title = "Not implemented yet"


class UnexpectedAnswer(LorebaseError):
    """A success answer the client cannot read (not JSON, say): is the base URL Keeper's?"""

    status = 502
    code = "unexpected-answer"
    title = "Unexpected answer"


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
    def named(cls, name: str, domain: str, visible: Iterable[str] = ()) -> OperationNotFound:
        """The error of an unknown Operation, also of one the caller's grants make invisible:
        `visible` holds the Operations whose Kinds the caller may read (and no other)."""
        error = cls(
            f"Operation {quoted(name)} does not exist in Domain {quoted(domain)}"
            + hint(name, visible, "Operations"),
            operation=name,
        )
        error.unknown_name = name
        return error


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


class ResyncRequired(Conflict):
    """A feed position that cannot be followed: take a new context pack, follow from its revision.

    A `since` off the first-parent history of the branch, or more than agents.feed.max_scan
    Revisions behind its head.
    """

    code = "resync-required"
    title = "Take a new context pack"


class EncryptionKeyRequired(Conflict):
    """A webhook cannot be created without webhooks.encryption_key (or allow_unsealed_keys)."""

    code = "encryption_key_required"
    title = "Webhook encryption key required"


class WebhookNotFound(NotFound):
    code = "webhook-not-found"
    title = "Webhook not found"


class DeliveryNotFound(NotFound):
    code = "delivery-not-found"
    title = "Delivery not found"


class WebhookInvalid(InvalidInput):
    """A webhook's target, events, branches or clearances that cannot be accepted."""

    code = "webhook-invalid"
    title = "Webhook invalid"


class ClearanceForbidden(Forbidden):
    """A webhook clearance (pii, ...) whose read permission the caller lacks on the whole Domain."""

    code = "clearance-forbidden"
    title = "Clearance not held"


class BranchesUnrelated(BadRequest):
    status = 422
    code = "branches-unrelated"
    title = "The branches share no history"


# inference


class ModelUnavailable(LorebaseError):
    """A chat endpoint that could not answer: down, too slow, or answering an error status.

    The detail names the endpoint's host and model and what happened, never its key or a prompt.
    """

    status = 502
    code = "model-unavailable"
    title = "Model unavailable"


class ModelAnswerInvalid(LorebaseError):
    """A model's answer that did not match the requested JSON schema, even after one repair call.

    The detail names the first few schema problems by path (`/steps/0/tool: ...`, `/: not json`).
    `prompt_tokens` and `completion_tokens` are what the failed calls used (both answered, so
    both are paid for); they are attributes, not members of the problem document.
    """

    status = 502
    code = "model-answer-invalid"
    title = "Model answer invalid"

    def __init__(
        self, detail: str, *, prompt_tokens: int = 0, completion_tokens: int = 0, **extra: Any
    ) -> None:
        super().__init__(detail, **extra)
        self.prompt_tokens = prompt_tokens
        self.completion_tokens = completion_tokens


class CsrfRejected(Forbidden):
    """An unsafe request authenticated by a session cookie without the session's X-CSRF-Token.

    The token is in GET /api/v1/auth/session (`csrf_token`); send it as `X-CSRF-Token`.
    """

    code = "csrf"
    title = "CSRF token missing or wrong"


class RateLimited(TooManyRequests):
    """More requests of one class (reads, writes, search, context) than keeper.rate_limits allow."""

    code = "rate-limited"
    title = "Rate limit reached"


class QuotaExceeded(TooManyRequests):
    """A principal's daily quota of one class (keeper.rate_limits ... per_day) is used up."""

    code = "quota-exceeded"
    title = "Daily quota used up"


class IdentityProviderUnavailable(LorebaseError):
    """The OIDC issuer's discovery document, signing keys or token endpoint could not be read.

    The detail names the issuer and what happened, never a token, code or client secret.
    """

    status = 502
    code = "identity-provider-unavailable"
    title = "Identity provider unavailable"


class SignInUnavailable(Conflict):
    """A sign-in this Keeper is not set up for: sessions off, or OIDC without keeper.auth.oidc."""

    code = "sign-in-unavailable"
    title = "Sign-in not available"


class OriginNotAllowed(Forbidden):
    """Guide: a browser request whose Origin is not in guide.http.allowed_origins."""

    code = "origin_not_allowed"
    title = "Origin not allowed"


class CrossSiteRefused(Forbidden):
    """Guide: a request marked Sec-Fetch-Site: cross-site that names no allowed Origin."""

    code = "cross_site"
    title = "Cross-site request refused"


class LengthRequired(LorebaseError):
    """Guide: a request body sent without Content-Length (chunked), which Guide does not take."""

    status = 411
    code = "length-required"
    title = "Content-Length required"


class CallerRateLimited(TooManyRequests):
    """Guide: more explorations or embeddings per minute than guide.limits allow a caller."""

    code = "rate"
    title = "Rate limit reached"


class CallerConcurrencyLimited(TooManyRequests):
    """Guide: the caller already runs guide.limits.max_concurrent_per_caller explorations."""

    code = "concurrent"
    title = "Too many explorations at once"


class GuideBusy(TooManyRequests):
    """Guide: every exploration slot, credential check or caller window is taken."""

    code = "busy"
    title = "Guide is busy"


class KeeperUnavailable(LorebaseError):
    """Guide: Keeper could not be reached or answered an error where it must not.

    The detail names Keeper's address and what happened, never a credential.
    """

    status = 502
    code = "keeper_unavailable"
    title = "Keeper unavailable"


class EmbeddingUnavailable(LorebaseError):
    """No usable embedding model: the bundled one missing, or the endpoint failed or is down.

    The detail names the model (and the endpoint's host) and what happened, never a text.
    """

    status = 502
    code = "embedding-unavailable"
    title = "Embedding model unavailable"
