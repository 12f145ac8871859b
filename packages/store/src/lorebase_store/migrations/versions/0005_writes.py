"""Writes: Operation executions (idempotency), Proposals, reviews, merge attempts, Conflicts, audit.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

Json = sa.JSON().with_variant(JSONB(), "postgresql")
BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "invocations",
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
    )
    op.create_index(
        "ix_invocations_key",
        "invocations",
        ["domain_id", "principal", "idempotency_key"],
        unique=True,
    )
    op.create_index("ix_invocations_proposal", "invocations", ["proposal_id"])
    op.create_table(
        "proposals",
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
    )
    op.create_index("ix_proposals_status", "proposals", ["domain_id", "status", "id"])
    op.create_index("ix_proposals_source", "proposals", ["source_branch_id", "status"])
    op.create_table(
        "proposal_reviews",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("proposal_id", sa.String(32), sa.ForeignKey("proposals.id"), nullable=False),
        sa.Column("reviewer", sa.String(255), nullable=False),
        sa.Column("verdict", sa.String(16), nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("source_head", sa.String(64), nullable=True),
        sa.Column("created_at", sa.String(32), nullable=False),
    )
    op.create_index("ix_proposal_reviews_proposal", "proposal_reviews", ["proposal_id", "id"])
    op.create_table(
        "merge_attempts",
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
    op.create_table(
        "conflicts",
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
    )
    op.create_index("ix_conflicts_proposal", "conflicts", ["proposal_id", "status", "id"])
    op.create_table(
        "audit_log",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("domain_id", sa.Integer, sa.ForeignKey("domains.id"), nullable=True),
        sa.Column("principal", sa.String(255), nullable=False),
        sa.Column("action", sa.String(63), nullable=False),
        sa.Column("target", sa.String(1024), nullable=False),
        sa.Column("details", Json, nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
    )
    op.create_index("ix_audit_log_domain", "audit_log", ["domain_id", "id"])


def downgrade() -> None:
    for table in (
        "audit_log",
        "conflicts",
        "merge_attempts",
        "proposal_reviews",
        "proposals",
        "invocations",
    ):
        op.drop_table(table)
