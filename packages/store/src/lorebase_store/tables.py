"""The tables of the store (docs/storage.md explains the model). SQLAlchemy Core only.

Records and Links are kept as row versions valid for a range of their branch's commit sequence:
`from_seq <= seq < to_seq` (`to_seq` NULL at the head). A partial unique index on `to_seq IS NULL`
makes head reads one index probe; a read at an older Revision is the same query with a bound.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB

metadata = sa.MetaData()
Json = sa.JSON().with_variant(JSONB(), "postgresql")
BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _version_columns() -> list[sa.Column[Any]]:
    """What a Record or Link version holds after its identity: the range of its branch's
    commit sequence it is valid for, the Revision that wrote it, and its content."""
    return [
        sa.Column("from_seq", sa.Integer, nullable=False),
        sa.Column("to_seq", sa.Integer, nullable=True),
        sa.Column("revision_pk", sa.BigInteger, nullable=False),
        sa.Column("deleted", sa.Boolean, nullable=False),
        sa.Column("values_json", Json, nullable=False),
        sa.Column("provenance_json", Json, nullable=False),
    ]


def _version_indexes(table: str, *identity: str) -> list[sa.Index]:
    """`ix_<table>_version` (one version per identity and `from_seq`), `ix_<table>_head` (the
    partial unique index on `to_seq IS NULL`) and `ix_<table>_changes` (what a commit wrote)."""
    return [
        sa.Index(f"ix_{table}_version", *identity, "from_seq", unique=True),
        sa.Index(
            f"ix_{table}_head",
            *identity,
            unique=True,
            sqlite_where=sa.text("to_seq IS NULL"),
            postgresql_where=sa.text("to_seq IS NULL"),
        ),
        sa.Index(f"ix_{table}_changes", "branch_id", "from_seq"),
    ]


domains = sa.Table(
    "domains",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("name", sa.String(63), nullable=False, unique=True),
    sa.Column("default_branch", sa.String(255), nullable=False),
    sa.Column("created_at", sa.String(32), nullable=False),
    sa.Column("created_by", sa.String(255), nullable=False),
    sa.Column("settings", Json, nullable=False),
)

schemas = sa.Table(
    "schemas",
    metadata,
    sa.Column("digest", sa.String(64), primary_key=True),
    sa.Column("document", Json, nullable=False),
    sa.Column("source", sa.Text, nullable=False),
)

branches = sa.Table(
    "branches",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("domain_id", sa.Integer, sa.ForeignKey("domains.id"), nullable=False),
    sa.Column("name", sa.String(255), nullable=False),
    sa.Column("mode", sa.String(16), nullable=False),
    sa.Column("head_seq", sa.Integer, nullable=False),
    sa.Column("head_revision", sa.String(64), nullable=True),
    sa.Column("base_branch_id", sa.Integer, sa.ForeignKey("branches.id"), nullable=True),
    sa.Column("base_seq", sa.Integer, nullable=True),
    sa.Column("protected", sa.Boolean, nullable=False),
    sa.Column("created_at", sa.String(32), nullable=False),
    sa.Column("created_by", sa.String(255), nullable=False),
    sa.Column("deleted", sa.Boolean, nullable=False),
    sa.Index(
        "ix_branches_live_name",
        "domain_id",
        "name",
        unique=True,
        sqlite_where=sa.text("deleted = 0"),
        postgresql_where=sa.text("deleted = false"),
    ),
)

revisions = sa.Table(
    "revisions",
    metadata,
    sa.Column("pk", BigId, primary_key=True, autoincrement=True),
    sa.Column("id", sa.String(64), nullable=False, unique=True),
    sa.Column("domain_id", sa.Integer, sa.ForeignKey("domains.id"), nullable=False),
    sa.Column("branch_id", sa.Integer, sa.ForeignKey("branches.id"), nullable=False),
    sa.Column("seq", sa.Integer, nullable=False),
    sa.Column("parents", Json, nullable=False),
    sa.Column("generation", sa.Integer, nullable=False),
    sa.Column("stats", Json, nullable=False),
    sa.Column("origin_type", sa.String(32), nullable=False),
    sa.Column("origin_ref", sa.String(255), nullable=True),
    sa.Column("author", sa.String(255), nullable=False),
    sa.Column("message", sa.Text, nullable=False),
    sa.Column("created_at", sa.String(32), nullable=False),
    sa.Column("schema_digest", sa.String(64), sa.ForeignKey("schemas.digest"), nullable=False),
    sa.UniqueConstraint("branch_id", "seq", name="uq_revisions_branch_seq"),
    sa.Index("ix_revisions_domain_id", "domain_id", "id"),
)

tags = sa.Table(
    "tags",
    metadata,
    sa.Column("domain_id", sa.Integer, sa.ForeignKey("domains.id"), primary_key=True),
    sa.Column("name", sa.String(255), primary_key=True),
    sa.Column("revision_id", sa.String(64), nullable=False),
    sa.Column("message", sa.Text, nullable=False),
    sa.Column("created_at", sa.String(32), nullable=False),
    sa.Column("created_by", sa.String(255), nullable=False),
)

records = sa.Table(
    "records",
    metadata,
    sa.Column("id", BigId, primary_key=True, autoincrement=True),
    sa.Column("branch_id", sa.Integer, nullable=False),
    sa.Column("kind", sa.String(63), nullable=False),
    sa.Column("record_key", sa.String(1024), nullable=False),
    *_version_columns(),
    *_version_indexes("records", "branch_id", "kind", "record_key"),
)

links = sa.Table(
    "links",
    metadata,
    sa.Column("id", BigId, primary_key=True, autoincrement=True),
    sa.Column("branch_id", sa.Integer, nullable=False),
    sa.Column("relation", sa.String(63), nullable=False),
    sa.Column("from_key", sa.String(1024), nullable=False),
    sa.Column("to_key", sa.String(1024), nullable=False),
    *_version_columns(),
    *_version_indexes("links", "branch_id", "relation", "from_key", "to_key"),
    sa.Index("ix_links_inverse", "branch_id", "relation", "to_key"),
)

events = sa.Table(
    "events",
    metadata,
    sa.Column("sequence", BigId, primary_key=True, autoincrement=True),
    sa.Column("domain_id", sa.Integer, sa.ForeignKey("domains.id"), nullable=False),
    sa.Column("branch_id", sa.Integer, sa.ForeignKey("branches.id"), nullable=False),
    sa.Column("type", sa.String(63), nullable=False),
    sa.Column("revision_id", sa.String(64), nullable=True),
    sa.Column("created_at", sa.String(32), nullable=False),
    sa.Column("payload", Json, nullable=False),
    sa.Index("ix_events_domain", "domain_id", "sequence"),
    sa.Index("ix_events_branch", "branch_id", "sequence"),
)

# -- who may do what (docs/auth.md) ------------------------------------------------------------

principals = sa.Table(
    "principals",
    metadata,
    sa.Column("id", sa.String(255), primary_key=True),
    sa.Column("type", sa.String(16), nullable=False),
    sa.Column("display_name", sa.String(255), nullable=False),
    sa.Column("created_at", sa.String(32), nullable=False),
)

api_keys = sa.Table(
    "api_keys",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("principal_id", sa.String(255), sa.ForeignKey("principals.id"), nullable=False),
    sa.Column("secret_digest", sa.String(64), nullable=False),
    sa.Column("description", sa.Text, nullable=False),
    sa.Column("created_at", sa.String(32), nullable=False),
    sa.Column("revoked_at", sa.String(32), nullable=True),
    sa.Index("ix_api_keys_principal", "principal_id"),
)

grants = sa.Table(
    "grants",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("principal_id", sa.String(255), sa.ForeignKey("principals.id"), nullable=False),
    sa.Column("domain", sa.String(63), nullable=False),
    sa.Column("branch", sa.String(255), nullable=False),
    sa.Column("role", sa.String(32), nullable=False),
    sa.Column("kinds", Json, nullable=True),
    sa.Column("clearances", Json, nullable=False),
    sa.Column("created_at", sa.String(32), nullable=False),
    sa.Index("ix_grants_principal", "principal_id"),
)

# -- browser sessions, OIDC identities and shared rate windows (docs/auth.md) ---------------

auth_sessions = sa.Table(
    "auth_sessions",
    metadata,
    # SHA-256 of the session id: the id itself is only in the browser's cookie
    sa.Column("id_digest", sa.String(64), primary_key=True),
    sa.Column("principal_id", sa.String(255), sa.ForeignKey("principals.id"), nullable=False),
    # how the session signed in: api_key (key_id names the key) or oidc
    sa.Column("method", sa.String(16), nullable=False),
    sa.Column("key_id", sa.String(32), nullable=True),
    # what an OIDC sign-in's claims give beyond the principal (its groups); never a token
    sa.Column("claims", Json, nullable=False),
    sa.Column("created_at", sa.String(32), nullable=False),
    sa.Column("last_seen_at", sa.String(32), nullable=False),
    sa.Column("expires_at", sa.String(32), nullable=False),
    sa.Column("revoked_at", sa.String(32), nullable=True),
    sa.Index("ix_auth_sessions_principal", "principal_id", "created_at"),
    sa.Index("ix_auth_sessions_key", "key_id"),
)

oidc_identities = sa.Table(
    "oidc_identities",
    metadata,
    sa.Column("issuer", sa.String(1024), primary_key=True),
    sa.Column("subject", sa.String(255), primary_key=True),
    sa.Column("principal_id", sa.String(255), sa.ForeignKey("principals.id"), nullable=False),
    sa.Column("created_at", sa.String(32), nullable=False),
    sa.Column("last_seen_at", sa.String(32), nullable=False),
    sa.Index("ix_oidc_identities_principal", "principal_id", unique=True),
)

rate_windows = sa.Table(
    "rate_windows",
    metadata,
    sa.Column("principal_id", sa.String(255), primary_key=True),
    # reads, writes, search or context, with the Domain of a per-Domain limit (class:domain)
    sa.Column("bucket", sa.String(127), primary_key=True),
    # the window: m<epoch minute> or d<epoch day>
    sa.Column("period", sa.String(32), primary_key=True),
    sa.Column("count", sa.Integer, nullable=False),
    sa.Column("expires_at", sa.Float, nullable=False),
    sa.Index("ix_rate_windows_expires", "expires_at"),
)

# -- statistics of the default branch head (coverage blocks) -----------------------------------

statistics = sa.Table(
    "statistics",
    metadata,
    sa.Column("domain_id", sa.Integer, sa.ForeignKey("domains.id"), primary_key=True),
    sa.Column("as_of", sa.String(64), nullable=True),
    sa.Column("kinds", Json, nullable=False),
    sa.Column("counted_at", sa.String(32), nullable=False),
)

# -- typed heads of the default branch (docs/storage.md, "Typed heads") ------------------------

# per Domain and Kind, the table holding the typed values of the default branch's head (its name
# and layout digest; the tables themselves are made per schema by commits.typed_heads)
typed_heads = sa.Table(
    "typed_heads",
    metadata,
    sa.Column("domain_id", sa.Integer, sa.ForeignKey("domains.id"), primary_key=True),
    sa.Column("kind", sa.String(63), primary_key=True),
    sa.Column("branch_id", sa.Integer, nullable=False),
    sa.Column("table_name", sa.String(63), nullable=False),
    sa.Column("layout", sa.String(64), nullable=False),
)

# -- the words of questions nothing resolved (POST /resolve, record_misses) -------------------

resolve_misses = sa.Table(
    "resolve_misses",
    metadata,
    sa.Column("domain_id", sa.Integer, sa.ForeignKey("domains.id"), primary_key=True),
    sa.Column("phrase", sa.String(255), primary_key=True),
    sa.Column("count", sa.Integer, nullable=False),
    sa.Column("first_seen_at", sa.String(32), nullable=False),
    sa.Column("last_seen_at", sa.String(32), nullable=False),
    # expired phrases are deleted by one range of it (read.resolve.misses.retention_days)
    sa.Index("ix_resolve_misses_last_seen", "last_seen_at"),
)

resolve_miss_quotas = sa.Table(
    "resolve_miss_quotas",
    metadata,
    # phrases recorded per principal and UTC day (read.resolve.misses.max_per_principal_per_day)
    sa.Column("principal_id", sa.String(255), primary_key=True),
    sa.Column("day", sa.String(10), primary_key=True),
    sa.Column("recorded", sa.Integer, nullable=False),
    sa.Index("ix_resolve_miss_quotas_day", "day"),
)

# -- search (docs/search.md): documents and vocabulary per branch, vectors per Record ----------

search_documents = sa.Table(
    "search_documents",
    metadata,
    sa.Column("id", BigId, primary_key=True, autoincrement=True),
    sa.Column("branch_id", sa.Integer, nullable=False),
    sa.Column("kind", sa.String(63), nullable=False),
    sa.Column("record_key", sa.String(1024), nullable=False),
    sa.Column("deleted", sa.Boolean, nullable=False),
    sa.Column("title", sa.Text, nullable=False),
    sa.Column("body", sa.Text, nullable=False),
    sa.Index("ix_search_documents_record", "branch_id", "kind", "record_key", unique=True),
)

search_terms = sa.Table(
    "search_terms",
    metadata,
    sa.Column("branch_id", sa.Integer, primary_key=True),
    sa.Column("term", sa.String(255), primary_key=True),
    sa.Column("documents", sa.Integer, nullable=False),
)

record_vectors = sa.Table(
    "record_vectors",
    metadata,
    sa.Column("domain_id", sa.Integer, sa.ForeignKey("domains.id"), primary_key=True),
    sa.Column("kind", sa.String(63), primary_key=True),
    sa.Column("record_key", sa.String(1024), primary_key=True),
    sa.Column("model", sa.String(255), primary_key=True),
    sa.Column("dimensions", sa.Integer, nullable=False),
    sa.Column("vector", Json, nullable=False),
    sa.Column("updated_at", sa.String(32), nullable=False),
    sa.Column("updated_by", sa.String(255), nullable=False),
)

# where Scribe's record_embeddings job stands per Domain: the last (from_seq, kind, key) of the
# default branch's head rows whose vector it stored (0, "", "": a backfill), and what it read them
# under (docs/scribe.md)
embedding_cursors = sa.Table(
    "embedding_cursors",
    metadata,
    sa.Column("domain_id", sa.Integer, sa.ForeignKey("domains.id"), primary_key=True),
    sa.Column("model", sa.String(255), nullable=False),
    sa.Column("branch_id", sa.Integer, nullable=False),
    sa.Column("schema_digest", sa.String(64), nullable=False),
    sa.Column("seq", sa.Integer, nullable=False),
    sa.Column("kind", sa.String(63), nullable=False),
    sa.Column("record_key", sa.String(1024), nullable=False),
    # when the last backfill (a pass over every Record of the head) finished; NULL during one
    sa.Column("backfilled_at", sa.String(32), nullable=True),
    sa.Column("updated_at", sa.String(32), nullable=False),
)

# -- writes (docs/writes.md): executions, Proposals, reviews, merges, Conflicts, audit -----------

invocations = sa.Table(
    "invocations",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("domain_id", sa.Integer, sa.ForeignKey("domains.id"), nullable=False),
    sa.Column("operation", sa.String(63), nullable=False),
    sa.Column("principal", sa.String(255), nullable=False),
    sa.Column("idempotency_key", sa.String(255), nullable=True),
    sa.Column("request_digest", sa.String(64), nullable=False),
    sa.Column("branch", sa.String(255), nullable=False),
    sa.Column("target", sa.String(255), nullable=True),
    sa.Column("revision", sa.String(64), nullable=True),
    sa.Column("proposal_id", sa.String(32), nullable=True),
    sa.Column("parameters", Json, nullable=False),
    sa.Column("edits", Json, nullable=False),
    sa.Column("pending_events", Json, nullable=False),
    sa.Column("result", Json, nullable=False),
    sa.Column("created_at", sa.String(32), nullable=False),
    sa.Index("ix_invocations_key", "domain_id", "principal", "idempotency_key", unique=True),
    sa.Index("ix_invocations_proposal", "proposal_id"),
)

proposals = sa.Table(
    "proposals",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("domain_id", sa.Integer, sa.ForeignKey("domains.id"), nullable=False),
    sa.Column("title", sa.Text, nullable=False),
    sa.Column("description", sa.Text, nullable=False),
    sa.Column("intent", sa.Text, nullable=True),
    sa.Column("task", sa.String(255), nullable=True),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("source_branch", sa.String(255), nullable=False),
    sa.Column("source_branch_id", sa.Integer, sa.ForeignKey("branches.id"), nullable=False),
    sa.Column("target_branch", sa.String(255), nullable=False),
    sa.Column("target_branch_id", sa.Integer, sa.ForeignKey("branches.id"), nullable=False),
    sa.Column("policy_review", sa.Boolean, nullable=False),
    sa.Column("executions", Json, nullable=False),
    sa.Column("created_by", sa.String(255), nullable=False),
    sa.Column("created_at", sa.String(32), nullable=False),
    sa.Column("updated_at", sa.String(32), nullable=False),
    sa.Column("merged_revision", sa.String(64), nullable=True),
    sa.Column("merged_by", sa.String(255), nullable=True),
    sa.Column("merged_at", sa.String(32), nullable=True),
    sa.Column("closed_by", sa.String(255), nullable=True),
    sa.Column("closed_at", sa.String(32), nullable=True),
    sa.Column("last_attempt_id", sa.String(32), nullable=True),
    sa.Index("ix_proposals_status", "domain_id", "status", "id"),
    sa.Index("ix_proposals_source", "source_branch_id", "status"),
)

proposal_reviews = sa.Table(
    "proposal_reviews",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("proposal_id", sa.String(32), sa.ForeignKey("proposals.id"), nullable=False),
    sa.Column("reviewer", sa.String(255), nullable=False),
    sa.Column("verdict", sa.String(16), nullable=False),
    sa.Column("body", sa.Text, nullable=False),
    sa.Column("source_head", sa.String(64), nullable=True),
    sa.Column("created_at", sa.String(32), nullable=False),
    sa.Index("ix_proposal_reviews_proposal", "proposal_id", "id"),
)

merge_attempts = sa.Table(
    "merge_attempts",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("domain_id", sa.Integer, sa.ForeignKey("domains.id"), nullable=False),
    sa.Column("proposal_id", sa.String(32), nullable=True),
    sa.Column("source_branch_id", sa.Integer, nullable=False),
    sa.Column("target_branch_id", sa.Integer, nullable=False),
    sa.Column("source_head", sa.String(64), nullable=True),
    sa.Column("target_head", sa.String(64), nullable=True),
    sa.Column("base_revision", sa.String(64), nullable=True),
    sa.Column("result", sa.String(16), nullable=False),
    sa.Column("open_conflicts", sa.Integer, nullable=False),
    sa.Column("resolved_conflicts", sa.Integer, nullable=False),
    sa.Column("counts", Json, nullable=False),
    sa.Column("created_by", sa.String(255), nullable=False),
    sa.Column("created_at", sa.String(32), nullable=False),
)

conflicts = sa.Table(
    "conflicts",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("domain_id", sa.Integer, sa.ForeignKey("domains.id"), nullable=False),
    sa.Column("proposal_id", sa.String(32), nullable=False),
    sa.Column("attempt_id", sa.String(32), nullable=False),
    sa.Column("entity", sa.String(8), nullable=False),
    sa.Column("ref", sa.String(2200), nullable=False),
    sa.Column("attribute", sa.String(63), nullable=False),
    sa.Column("code", sa.String(32), nullable=False),
    sa.Column("base", Json, nullable=True),
    sa.Column("source", Json, nullable=True),
    sa.Column("target", Json, nullable=True),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("resolution", sa.String(16), nullable=True),
    sa.Column("value", Json, nullable=True),
    sa.Column("resolved_by", sa.String(255), nullable=True),
    sa.Column("resolved_at", sa.String(32), nullable=True),
    sa.Index("ix_conflicts_proposal", "proposal_id", "status", "id"),
)

audit_log = sa.Table(
    "audit_log",
    metadata,
    sa.Column("id", BigId, primary_key=True, autoincrement=True),
    sa.Column("domain_id", sa.Integer, sa.ForeignKey("domains.id"), nullable=True),
    sa.Column("principal", sa.String(255), nullable=False),
    sa.Column("action", sa.String(63), nullable=False),
    sa.Column("target", sa.String(1024), nullable=False),
    sa.Column("details", Json, nullable=False),
    sa.Column("created_at", sa.String(32), nullable=False),
    sa.Index("ix_audit_log_domain", "domain_id", "id"),
)

# -- the agent trace and the read audit (docs/trace.md) ------------------------------------------
# Written off the request path in batches. A session id names one session per principal; the
# session row counts its steps (the cap, raised under its row lock) and the summaries per Domain
# are what sessions are listed from, never the steps.

agent_trace_sessions = sa.Table(
    "agent_trace_sessions",
    metadata,
    sa.Column("id", BigId, primary_key=True, autoincrement=True),
    sa.Column("session_id", sa.String(128), nullable=False),
    sa.Column("principal", sa.String(255), nullable=False),
    sa.Column("inferred", sa.Boolean, nullable=False),
    # inferred sessions: the digest of principal, credential fingerprint and User-Agent
    sa.Column("client", sa.String(64), nullable=True),
    sa.Column("steps", sa.Integer, nullable=False),
    sa.Column("first_at", sa.String(32), nullable=False),
    sa.Column("last_at", sa.String(32), nullable=False),
    sa.Index("ix_agent_trace_sessions_id", "principal", "session_id", unique=True),
    sa.Index("ix_agent_trace_sessions_client", "principal", "client", "last_at"),
)

agent_trace_steps = sa.Table(
    "agent_trace_steps",
    metadata,
    sa.Column("seq", BigId, primary_key=True, autoincrement=True),
    sa.Column("session_row", BigId, sa.ForeignKey("agent_trace_sessions.id"), nullable=False),
    sa.Column("domain_id", sa.Integer, sa.ForeignKey("domains.id"), nullable=True),
    sa.Column("step", sa.Integer, nullable=False),
    sa.Column("type", sa.String(8), nullable=False),
    sa.Column("at", sa.String(32), nullable=False),
    sa.Column("tool", sa.String(255), nullable=True),
    sa.Column("method", sa.String(8), nullable=True),
    sa.Column("route", sa.String(512), nullable=True),
    sa.Column("status", sa.Integer, nullable=True),
    sa.Column("latency_ms", sa.Float, nullable=True),
    sa.Column("cache", sa.String(16), nullable=True),
    sa.Column("query", Json, nullable=True),
    sa.Column("result", Json, nullable=True),
    sa.Column("refs", Json, nullable=True),
    sa.Column("explain", Json, nullable=True),
    sa.Column("proposal_id", sa.String(64), nullable=True),
    sa.Column("note", sa.Text, nullable=True),
    sa.Column("note_step", sa.Integer, nullable=True),
    sa.Column("trace_id", sa.String(32), nullable=True),
    sa.Index("ix_agent_trace_steps_session", "session_row", "step"),
    sa.Index("ix_agent_trace_steps_at", "at"),
)

agent_trace_session_domains = sa.Table(
    "agent_trace_session_domains",
    metadata,
    sa.Column("id", BigId, primary_key=True, autoincrement=True),
    sa.Column("session_row", BigId, sa.ForeignKey("agent_trace_sessions.id"), nullable=False),
    # NULL: the steps outside a Domain (and notes without one)
    sa.Column("domain_id", sa.Integer, sa.ForeignKey("domains.id"), nullable=True),
    sa.Column("session_id", sa.String(128), nullable=False),
    sa.Column("principal", sa.String(255), nullable=False),
    sa.Column("inferred", sa.Boolean, nullable=False),
    sa.Column("first_at", sa.String(32), nullable=False),
    sa.Column("last_at", sa.String(32), nullable=False),
    sa.Column("first_step", sa.Integer, nullable=False),
    sa.Column("last_step", sa.Integer, nullable=False),
    sa.Column("calls", sa.Integer, nullable=False),
    sa.Column("notes", sa.Integer, nullable=False),
    sa.Column("tools", Json, nullable=False),
    sa.Column("proposals", Json, nullable=False),
    sa.Index("ix_agent_trace_session_domains_session", "session_row", "domain_id"),
    sa.Index("ix_agent_trace_session_domains_principal", "principal", "last_at", "id"),
    sa.Index("ix_agent_trace_session_domains_domain", "domain_id", "last_at", "id"),
)

read_audit = sa.Table(
    "read_audit",
    metadata,
    sa.Column("id", BigId, primary_key=True, autoincrement=True),
    sa.Column("domain_id", sa.Integer, sa.ForeignKey("domains.id"), nullable=True),
    sa.Column("principal", sa.String(255), nullable=False),
    sa.Column("route", sa.String(512), nullable=False),
    sa.Column("branch", sa.String(255), nullable=True),
    sa.Column("revision", sa.String(64), nullable=True),
    sa.Column("refs", Json, nullable=False),
    sa.Column("status", sa.Integer, nullable=False),
    sa.Column("created_at", sa.String(32), nullable=False),
    sa.Index("ix_read_audit_domain", "domain_id", "id"),
    sa.Index("ix_read_audit_created", "created_at"),
)

# -- webhooks and their deliveries (docs/feed.md) ------------------------------------------------

webhooks = sa.Table(
    "webhooks",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("domain_id", sa.Integer, sa.ForeignKey("domains.id"), nullable=False),
    sa.Column("url", sa.String(2048), nullable=False),
    sa.Column("events", Json, nullable=False),
    sa.Column("branches", Json, nullable=False),
    sa.Column("clearances", Json, nullable=False),
    # the SHA-256 digest of the secret that signs deliveries: sealed (AES-256-GCM) under
    # webhooks.encryption_key, or unsealed where webhooks.allow_unsealed_keys allowed it
    sa.Column("signing_key", sa.Text, nullable=False),
    sa.Column("enabled", sa.Boolean, nullable=False),
    sa.Column("disabled_reason", sa.String(1000), nullable=True),
    # the last event sequence turned into deliveries of this webhook
    sa.Column("cursor", BigId, nullable=False),
    sa.Column("created_by", sa.String(255), nullable=False),
    sa.Column("created_at", sa.String(32), nullable=False),
    sa.Column("updated_at", sa.String(32), nullable=False),
    sa.Index("ix_webhooks_domain", "domain_id", "id"),
)

webhook_deliveries = sa.Table(
    "webhook_deliveries",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("webhook_id", sa.String(32), sa.ForeignKey("webhooks.id"), nullable=False),
    sa.Column("sequence", BigId, nullable=False),
    sa.Column("event_type", sa.String(63), nullable=False),
    # pending | delivered | dead
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("attempts", sa.Integer, nullable=False),
    sa.Column("next_attempt_at", sa.String(32), nullable=False),
    # a pass that took the delivery holds it until then
    sa.Column("lease_until", sa.String(32), nullable=True),
    sa.Column("last_status", sa.Integer, nullable=True),
    sa.Column("last_error", sa.String(1000), nullable=True),
    sa.Column("created_at", sa.String(32), nullable=False),
    sa.Column("finished_at", sa.String(32), nullable=True),
    sa.Index("ix_webhook_deliveries_event", "webhook_id", "sequence", unique=True),
    sa.Index("ix_webhook_deliveries_due", "status", "next_attempt_at"),
    sa.Index("ix_webhook_deliveries_finished", "status", "finished_at"),
)

# -- Scribe's jobs (docs/scribe.md) --------------------------------------------------------------

scribe_jobs = sa.Table(
    "scribe_jobs",
    metadata,
    sa.Column("id", BigId, primary_key=True, autoincrement=True),
    sa.Column("kind", sa.String(64), nullable=False),
    # the Domain the job works on; NULL for a job over the whole store
    sa.Column("domain_id", sa.Integer, sa.ForeignKey("domains.id"), nullable=True),
    sa.Column("due_at", sa.String(32), nullable=False),
    sa.Column("lease_owner", sa.String(255), nullable=True),
    sa.Column("lease_expires_at", sa.String(32), nullable=True),
    sa.Column("attempts", sa.Integer, nullable=False),
    sa.Column("last_error", sa.String(1000), nullable=True),
    sa.Column("last_run_at", sa.String(32), nullable=True),
    sa.Index("ix_scribe_jobs_kind", "kind", "domain_id", unique=True),
    sa.Index("ix_scribe_jobs_due", "due_at"),
)
