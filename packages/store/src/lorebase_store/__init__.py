"""The store: versioned Records and Links of Domains on SQLite or PostgreSQL (docs/storage.md).

This module is the store's public API: other packages import from `lorebase_store` only (an
import-linter contract checks it), and `lorebase_store.testing` holds the helpers for tests.
The parts behind it:

| part | holds |
| --- | --- |
| `store` | `Store`: opens the database and is the way in to every read and write |
| `engine`, `tables`, `migrate`, `migrations/` | engines of both backends, the tables, Alembic |
| `results` | the plain result types reads and commits return |
| `rows`, `clock` | a row as a result type (`from_row`) and a result as a document; now as stored |
| `cursors` | the text of the opaque cursors of the history, trace and audit lists |
| `versioned/` | Domains, branches, the row versions a branch sees (`View`, `Segment`) |
| `commits/` | a change set becomes one Revision: row writes, statistics |
| `reads/` | `Reader`: Records, Links, history, lineage, diff, queries, context reads, resolve |
| `writes/` | `Writes`: executions, task branches, Proposals, merges, the audit log |
| `health/`, `search/`, `graph/` | the health report, search (and the Records whose vectors are due), traversals and neighborhoods |
| `feed/` | following a branch: its events, the polling feed, `EventNotices`, `HeadWatch` |
| `access` | principals, API keys and grants |
| `oidc_identities` | which principal an OIDC issuer's subject is |
| `sessions` | browser sessions: made, looked up by a presented id, touched, revoked, pruned |
| `trace/` | the agent trace (steps, sessions, summaries, pruning) and the read audit |
| `importer` | `lorebase import DIR` |
| `jobs/` | Scribe's jobs: rows taken with a lease (`Jobs`) |
| `webhooks/` | webhooks, their deliveries, the delivery pass (`deliver_pending`) and its `Sender` contract |
| `rate_windows` | request counts in fixed windows that several Keepers share (`RateWindows`) |
| `plans` | the statements a read ran and their EXPLAIN plans (the agent trace's `explain`) |

`Segment`, `fetch_records`, `fetch_links` and `query_sql` are the statements reads issue, exported
for the benchmarks that measure Keeper against them (bench/).
"""

from __future__ import annotations

from lorebase_store.access import (
    KEY_PREFIX,
    PRINCIPAL_ID,
    GrantInfo,
    KeyInfo,
    KeyRevocation,
    NewKey,
    PrincipalInfo,
    PrincipalType,
    api_key_id,
)
from lorebase_store.commits.commit import CommitRequest
from lorebase_store.commits.statistics import KindStatistics, Statistics
from lorebase_store.engine import create_store_engine, sqlite_url
from lorebase_store.feed import ChangesPage, EventBatch, EventNotices, HeadToken, HeadWatch
from lorebase_store.graph import (
    GraphLink,
    GraphRecord,
    HopResult,
    NeighborhoodResult,
    TraverseResult,
)
from lorebase_store.graph.sql import fetch_links, fetch_records
from lorebase_store.health.shapes import (
    DuplicateGroup,
    Duplicates,
    HealthLimits,
    HealthReport,
    KindHealth,
    RelationHealth,
    Violation,
)
from lorebase_store.importer import ImportResult, import_directory
from lorebase_store.jobs import Job, Jobs, JobState
from lorebase_store.oidc_identities import OidcBinding, OidcIdentity
from lorebase_store.plans import collect_statements
from lorebase_store.rate_windows import RateWindows
from lorebase_store.reads.context_reads import SeedVersion
from lorebase_store.reads.history import cursor_revision
from lorebase_store.reads.query import QueryGroup, QueryResult, QueryRow, query_sql
from lorebase_store.reads.reader import Reader
from lorebase_store.reads.resolve_misses import ResolveMiss, record_misses
from lorebase_store.reads.value_index import ValueCounts, ValueIndex
from lorebase_store.results import (
    BranchInfo,
    CommitResult,
    Diff,
    DiffEntry,
    DomainInfo,
    HistoryEntry,
    HistoryPage,
    Lineage,
    LinkVersion,
    Provenance,
    RecordVersion,
    RevisionInfo,
)
from lorebase_store.search import (
    Correction,
    EmbeddingCursor,
    EmbeddingPosition,
    EmbeddingWork,
    RecordText,
    SavedEmbeddings,
    SearchHit,
    SearchResult,
)
from lorebase_store.sessions import NewSession, SessionInfo, SessionMethod
from lorebase_store.store import Store
from lorebase_store.trace.read_audit import AuditItem, AuditPage, ReadAuditEntry
from lorebase_store.trace.steps import (
    SessionVisibility,
    StepType,
    StoredStep,
    TraceSession,
    TraceSessionPage,
    TraceSessionSummary,
    TraceStep,
    TraceWritten,
)
from lorebase_store.versioned.views import Authorize, Segment, View
from lorebase_store.webhooks import (
    DeliveryInfo,
    DeliveryPage,
    DeliveryReport,
    EncryptionKeyInvalid,
    Keyring,
    NewWebhook,
    OutgoingDelivery,
    Sender,
    SendResult,
    WebhookInfo,
    create_webhook,
    delete_webhook,
    deliver_pending,
    fan_out,
    get_webhook,
    list_deliveries,
    list_webhooks,
    prune_deliveries,
    retry_delivery,
    signature,
    update_webhook,
)
from lorebase_store.writes.audit import AuditEntry
from lorebase_store.writes.branches import BranchMode
from lorebase_store.writes.executions import (
    DryRun,
    Executed,
    ExecutionRecord,
    Invocation,
    request_digest,
)
from lorebase_store.writes.ids import new_id
from lorebase_store.writes.merges import ConflictResolution, FoundConflict, MergePlan
from lorebase_store.writes.preparing import PreparedWrite, prepare_write
from lorebase_store.writes.proposals.shapes import (
    Attempt,
    ConflictInfo,
    MergeOutcome,
    ProposalInfo,
    ProposalReach,
    Review,
)
from lorebase_store.writes.writes import (
    BranchMerge,
    Describe,
    Merged,
    Proposed,
    TaskBranch,
    Writes,
)

__all__ = [
    "KEY_PREFIX",
    "PRINCIPAL_ID",
    "Attempt",
    "AuditEntry",
    "AuditItem",
    "AuditPage",
    "Authorize",
    "BranchInfo",
    "BranchMerge",
    "BranchMode",
    "ChangesPage",
    "CommitRequest",
    "CommitResult",
    "ConflictInfo",
    "ConflictResolution",
    "Correction",
    "DeliveryInfo",
    "DeliveryPage",
    "DeliveryReport",
    "Describe",
    "Diff",
    "DiffEntry",
    "DomainInfo",
    "DryRun",
    "DuplicateGroup",
    "Duplicates",
    "EmbeddingCursor",
    "EmbeddingPosition",
    "EmbeddingWork",
    "EncryptionKeyInvalid",
    "EventBatch",
    "EventNotices",
    "Executed",
    "ExecutionRecord",
    "FoundConflict",
    "GrantInfo",
    "GraphLink",
    "GraphRecord",
    "HeadToken",
    "HeadWatch",
    "HealthLimits",
    "HealthReport",
    "HistoryEntry",
    "HistoryPage",
    "HopResult",
    "ImportResult",
    "Invocation",
    "Job",
    "JobState",
    "Jobs",
    "KeyInfo",
    "KeyRevocation",
    "Keyring",
    "KindHealth",
    "KindStatistics",
    "Lineage",
    "LinkVersion",
    "MergeOutcome",
    "MergePlan",
    "Merged",
    "NeighborhoodResult",
    "NewKey",
    "NewSession",
    "NewWebhook",
    "OidcBinding",
    "OidcIdentity",
    "OutgoingDelivery",
    "PreparedWrite",
    "PrincipalInfo",
    "PrincipalType",
    "ProposalInfo",
    "ProposalReach",
    "Proposed",
    "Provenance",
    "QueryGroup",
    "QueryResult",
    "QueryRow",
    "RateWindows",
    "ReadAuditEntry",
    "Reader",
    "RecordText",
    "RecordVersion",
    "RelationHealth",
    "ResolveMiss",
    "Review",
    "RevisionInfo",
    "SavedEmbeddings",
    "SearchHit",
    "SearchResult",
    "SeedVersion",
    "Segment",
    "SendResult",
    "Sender",
    "SessionInfo",
    "SessionMethod",
    "SessionVisibility",
    "Statistics",
    "StepType",
    "Store",
    "StoredStep",
    "TaskBranch",
    "TraceSession",
    "TraceSessionPage",
    "TraceSessionSummary",
    "TraceStep",
    "TraceWritten",
    "TraverseResult",
    "ValueCounts",
    "ValueIndex",
    "View",
    "Violation",
    "WebhookInfo",
    "Writes",
    "api_key_id",
    "collect_statements",
    "create_store_engine",
    "create_webhook",
    "cursor_revision",
    "delete_webhook",
    "deliver_pending",
    "fan_out",
    "fetch_links",
    "fetch_records",
    "get_webhook",
    "import_directory",
    "list_deliveries",
    "list_webhooks",
    "new_id",
    "prepare_write",
    "prune_deliveries",
    "query_sql",
    "record_misses",
    "request_digest",
    "retry_delivery",
    "signature",
    "sqlite_url",
    "update_webhook",
]
