"""Webhooks, their deliveries and Scribe's jobs (docs/feed.md, docs/scribe.md).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

Json = sa.JSON().with_variant(JSONB(), "postgresql")
BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "webhooks",
        sa.Column("id", sa.String(length=32), primary_key=True),
        sa.Column("domain_id", sa.Integer(), sa.ForeignKey("domains.id"), nullable=False),
        sa.Column("url", sa.String(length=2048), nullable=False),
        sa.Column("events", Json, nullable=False),
        sa.Column("branches", Json, nullable=False),
        sa.Column("clearances", Json, nullable=False),
        sa.Column("signing_key", sa.Text(), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("disabled_reason", sa.String(length=1000), nullable=True),
        sa.Column("cursor", BigId, nullable=False),
        sa.Column("created_by", sa.String(length=255), nullable=False),
        sa.Column("created_at", sa.String(length=32), nullable=False),
        sa.Column("updated_at", sa.String(length=32), nullable=False),
    )
    op.create_index("ix_webhooks_domain", "webhooks", ["domain_id", "id"])
    op.create_table(
        "webhook_deliveries",
        sa.Column("id", sa.String(length=32), primary_key=True),
        sa.Column("webhook_id", sa.String(length=32), sa.ForeignKey("webhooks.id"), nullable=False),
        sa.Column("sequence", BigId, nullable=False),
        sa.Column("event_type", sa.String(length=63), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.String(length=32), nullable=False),
        sa.Column("lease_until", sa.String(length=32), nullable=True),
        sa.Column("last_status", sa.Integer(), nullable=True),
        sa.Column("last_error", sa.String(length=1000), nullable=True),
        sa.Column("created_at", sa.String(length=32), nullable=False),
        sa.Column("finished_at", sa.String(length=32), nullable=True),
    )
    op.create_index(
        "ix_webhook_deliveries_event", "webhook_deliveries", ["webhook_id", "sequence"], unique=True
    )
    op.create_index(
        "ix_webhook_deliveries_due", "webhook_deliveries", ["status", "next_attempt_at"]
    )
    op.create_index(
        "ix_webhook_deliveries_finished", "webhook_deliveries", ["status", "finished_at"]
    )
    op.create_table(
        "scribe_jobs",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("kind", sa.String(length=64), nullable=False),
        sa.Column("domain_id", sa.Integer(), sa.ForeignKey("domains.id"), nullable=True),
        sa.Column("due_at", sa.String(length=32), nullable=False),
        sa.Column("lease_owner", sa.String(length=255), nullable=True),
        sa.Column("lease_expires_at", sa.String(length=32), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.String(length=1000), nullable=True),
        sa.Column("last_run_at", sa.String(length=32), nullable=True),
    )
    op.create_index("ix_scribe_jobs_kind", "scribe_jobs", ["kind", "domain_id"], unique=True)
    op.create_index("ix_scribe_jobs_due", "scribe_jobs", ["due_at"])


def downgrade() -> None:
    op.drop_table("scribe_jobs")
    op.drop_table("webhook_deliveries")
    op.drop_table("webhooks")
