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

The classes live in one module per family; import them from here (`from lorebase_core.errors
import StaleHead`). Each reports `lorebase_core.errors` as its module, so this package is the one
registry the client reads (`lorebase_client.errors.classes_by_code`):

- `base`: `LorebaseError`, the generic class of each status (`BadRequest`, `InvalidInput`,
  `Unauthorized`, `Forbidden`, `NotFound`, `Conflict`, `AlreadyExists`, `TooManyRequests`),
  `Issue`, `capped`, `quoted` and `shortened`;
- `protocol`: requests that cannot be read as sent (cursor, JSON, text, method, size, time);
- `auth`: grants, keys, sessions, OIDC and rate limits;
- `lookups`: names that name nothing (Domain, branch, Revision, Kind, Relation, Record ...);
- `query`: read requests that break their rules (query, search, graph, context, lens);
- `writes`: schemas, values, imports, branches and Operation executions;
- `proposals`: Proposals, reviews, Conflicts and merges;
- `feed`: the change feed, webhooks and the agent trace;
- `services`: unusable settings and unavailable services (models, embeddings);
- `guide`: Guide's own answers.
"""

from __future__ import annotations

from lorebase_core.errors.auth import (
    AttributeForbidden,
    CsrfRejected,
    GrantNotFound,
    HistoryForbidden,
    IdentityProviderUnavailable,
    KeyNotFound,
    KindForbidden,
    MergeOutsideScope,
    PrincipalNotFound,
    QuotaExceeded,
    RateLimited,
    SignInUnavailable,
)
from lorebase_core.errors.base import (
    MAX_ISSUES,
    QUOTED_CHARS,
    AlreadyExists,
    BadRequest,
    Conflict,
    Forbidden,
    InvalidInput,
    Issue,
    LorebaseError,
    NotFound,
    TooManyRequests,
    Unauthorized,
    capped,
    quoted,
    shortened,
)
from lorebase_core.errors.feed import (
    ClearanceForbidden,
    DeliveryNotFound,
    EncryptionKeyRequired,
    ResyncRequired,
    TooManyStreams,
    TraceSessionNotFound,
    WebhookInvalid,
    WebhookNotFound,
)
from lorebase_core.errors.guide import (
    CallerConcurrencyLimited,
    CallerRateLimited,
    CrossSiteRefused,
    GuideBusy,
    KeeperUnavailable,
    LengthRequired,
    OriginNotAllowed,
)
from lorebase_core.errors.lookups import (
    AmbiguousRevision,
    AttributeNotFound,
    BranchNotFound,
    DomainNotFound,
    KindNotFound,
    RecordNotFound,
    RelationNotFound,
    RevisionNotFound,
    RevisionNotOnBranch,
    TagNotFound,
    TraitNotFound,
)
from lorebase_core.errors.proposals import (
    ConflictNotFound,
    MergeBlocked,
    MergeConflicts,
    ProposalNotFound,
    ProposalNotOpen,
    ReviewRequired,
    SelfApproval,
)
from lorebase_core.errors.protocol import (
    BadCursor,
    BodyTooLarge,
    InvalidPathSegment,
    InvalidText,
    MalformedJson,
    MethodNotAllowed,
    NotImplementedYet,
    RequestTimeout,
    UnexpectedAnswer,
)
from lorebase_core.errors.query import (
    ContextRequestInvalid,
    GraphRequestInvalid,
    LensUnknown,
    QueryInvalid,
    SearchInvalid,
    SemanticUnavailable,
)
from lorebase_core.errors.services import (
    BackgroundUnavailable,
    EmbeddingUnavailable,
    ModelAnswerInvalid,
    ModelUnavailable,
    SecretError,
    UnsafeSettings,
)
from lorebase_core.errors.writes import (
    AgentBranchLimit,
    BranchesUnrelated,
    BranchNameReserved,
    BranchNameTaken,
    IdempotencyKeyReused,
    ImportInvalid,
    ImportOverwrites,
    OperationNotFound,
    SchemaInvalid,
    StaleHead,
    ValuesInvalid,
)

__all__ = [
    "MAX_ISSUES",
    "QUOTED_CHARS",
    "AgentBranchLimit",
    "AlreadyExists",
    "AmbiguousRevision",
    "AttributeForbidden",
    "AttributeNotFound",
    "BackgroundUnavailable",
    "BadCursor",
    "BadRequest",
    "BodyTooLarge",
    "BranchNameReserved",
    "BranchNameTaken",
    "BranchNotFound",
    "BranchesUnrelated",
    "CallerConcurrencyLimited",
    "CallerRateLimited",
    "ClearanceForbidden",
    "Conflict",
    "ConflictNotFound",
    "ContextRequestInvalid",
    "CrossSiteRefused",
    "CsrfRejected",
    "DeliveryNotFound",
    "DomainNotFound",
    "EmbeddingUnavailable",
    "EncryptionKeyRequired",
    "Forbidden",
    "GrantNotFound",
    "GraphRequestInvalid",
    "GuideBusy",
    "HistoryForbidden",
    "IdempotencyKeyReused",
    "IdentityProviderUnavailable",
    "ImportInvalid",
    "ImportOverwrites",
    "InvalidInput",
    "InvalidPathSegment",
    "InvalidText",
    "Issue",
    "KeeperUnavailable",
    "KeyNotFound",
    "KindForbidden",
    "KindNotFound",
    "LengthRequired",
    "LensUnknown",
    "LorebaseError",
    "MalformedJson",
    "MergeBlocked",
    "MergeConflicts",
    "MergeOutsideScope",
    "MethodNotAllowed",
    "ModelAnswerInvalid",
    "ModelUnavailable",
    "NotFound",
    "NotImplementedYet",
    "OperationNotFound",
    "OriginNotAllowed",
    "PrincipalNotFound",
    "ProposalNotFound",
    "ProposalNotOpen",
    "QueryInvalid",
    "QuotaExceeded",
    "RateLimited",
    "RecordNotFound",
    "RelationNotFound",
    "RequestTimeout",
    "ResyncRequired",
    "ReviewRequired",
    "RevisionNotFound",
    "RevisionNotOnBranch",
    "SchemaInvalid",
    "SearchInvalid",
    "SecretError",
    "SelfApproval",
    "SemanticUnavailable",
    "SignInUnavailable",
    "StaleHead",
    "TagNotFound",
    "TooManyRequests",
    "TooManyStreams",
    "TraceSessionNotFound",
    "TraitNotFound",
    "Unauthorized",
    "UnexpectedAnswer",
    "UnsafeSettings",
    "ValuesInvalid",
    "WebhookInvalid",
    "WebhookNotFound",
    "capped",
    "quoted",
    "shortened",
]
