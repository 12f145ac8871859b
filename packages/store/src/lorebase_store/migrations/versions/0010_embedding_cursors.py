"""Where Scribe's record_embeddings job stands per Domain (docs/scribe.md).

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "embedding_cursors",
        sa.Column("domain_id", sa.Integer(), sa.ForeignKey("domains.id"), primary_key=True),
        sa.Column("model", sa.String(length=255), nullable=False),
        sa.Column("branch_id", sa.Integer(), nullable=False),
        sa.Column("schema_digest", sa.String(length=64), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=63), nullable=False),
        sa.Column("record_key", sa.String(length=1024), nullable=False),
        sa.Column("backfilled_at", sa.String(length=32), nullable=True),
        sa.Column("updated_at", sa.String(length=32), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("embedding_cursors")
