"""The agent trace (sessions, steps, summaries per Domain) and the read audit (docs/trace.md).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

Json = sa.JSON().with_variant(JSONB(), "postgresql")
BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "agent_trace_sessions",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("session_id", sa.String(length=128), nullable=False),
        sa.Column("principal", sa.String(length=255), nullable=False),
        sa.Column("inferred", sa.Boolean(), nullable=False),
        sa.Column("client", sa.String(length=64), nullable=True),
        sa.Column("steps", sa.Integer(), nullable=False),
        sa.Column("first_at", sa.String(length=32), nullable=False),
        sa.Column("last_at", sa.String(length=32), nullable=False),
    )
    op.create_index(
        "ix_agent_trace_sessions_id",
        "agent_trace_sessions",
        ["principal", "session_id"],
        unique=True,
    )
    op.create_index(
        "ix_agent_trace_sessions_client",
        "agent_trace_sessions",
        ["principal", "client", "last_at"],
    )
    op.create_table(
        "agent_trace_steps",
        sa.Column("seq", BigId, primary_key=True, autoincrement=True),
        sa.Column("session_row", BigId, sa.ForeignKey("agent_trace_sessions.id"), nullable=False),
        sa.Column("domain_id", sa.Integer(), sa.ForeignKey("domains.id"), nullable=True),
        sa.Column("step", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(length=8), nullable=False),
        sa.Column("at", sa.String(length=32), nullable=False),
        sa.Column("tool", sa.String(length=255), nullable=True),
        sa.Column("method", sa.String(length=8), nullable=True),
        sa.Column("route", sa.String(length=512), nullable=True),
        sa.Column("status", sa.Integer(), nullable=True),
        sa.Column("latency_ms", sa.Float(), nullable=True),
        sa.Column("cache", sa.String(length=16), nullable=True),
        sa.Column("query", Json, nullable=True),
        sa.Column("result", Json, nullable=True),
        sa.Column("refs", Json, nullable=True),
        sa.Column("explain", Json, nullable=True),
        sa.Column("proposal_id", sa.String(length=64), nullable=True),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("note_step", sa.Integer(), nullable=True),
        sa.Column("trace_id", sa.String(length=32), nullable=True),
    )
    op.create_index("ix_agent_trace_steps_session", "agent_trace_steps", ["session_row", "step"])
    op.create_index("ix_agent_trace_steps_at", "agent_trace_steps", ["at"])
    op.create_table(
        "agent_trace_session_domains",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("session_row", BigId, sa.ForeignKey("agent_trace_sessions.id"), nullable=False),
        sa.Column("domain_id", sa.Integer(), sa.ForeignKey("domains.id"), nullable=True),
        sa.Column("session_id", sa.String(length=128), nullable=False),
        sa.Column("principal", sa.String(length=255), nullable=False),
        sa.Column("inferred", sa.Boolean(), nullable=False),
        sa.Column("first_at", sa.String(length=32), nullable=False),
        sa.Column("last_at", sa.String(length=32), nullable=False),
        sa.Column("first_step", sa.Integer(), nullable=False),
        sa.Column("last_step", sa.Integer(), nullable=False),
        sa.Column("calls", sa.Integer(), nullable=False),
        sa.Column("notes", sa.Integer(), nullable=False),
        sa.Column("tools", Json, nullable=False),
        sa.Column("proposals", Json, nullable=False),
    )
    op.create_index(
        "ix_agent_trace_session_domains_session",
        "agent_trace_session_domains",
        ["session_row", "domain_id"],
    )
    op.create_index(
        "ix_agent_trace_session_domains_principal",
        "agent_trace_session_domains",
        ["principal", "last_at", "id"],
    )
    op.create_index(
        "ix_agent_trace_session_domains_domain",
        "agent_trace_session_domains",
        ["domain_id", "last_at", "id"],
    )
    op.create_table(
        "read_audit",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("domain_id", sa.Integer(), sa.ForeignKey("domains.id"), nullable=True),
        sa.Column("principal", sa.String(length=255), nullable=False),
        sa.Column("route", sa.String(length=512), nullable=False),
        sa.Column("branch", sa.String(length=255), nullable=True),
        sa.Column("revision", sa.String(length=64), nullable=True),
        sa.Column("refs", Json, nullable=False),
        sa.Column("status", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.String(length=32), nullable=False),
    )
    op.create_index("ix_read_audit_domain", "read_audit", ["domain_id", "id"])
    op.create_index("ix_read_audit_created", "read_audit", ["created_at"])


def downgrade() -> None:
    op.drop_table("read_audit")
    op.drop_table("agent_trace_session_domains")
    op.drop_table("agent_trace_steps")
    op.drop_table("agent_trace_sessions")
