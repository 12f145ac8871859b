"""Bounds on resolve misses: an index to delete expired phrases, a daily count per principal.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_resolve_misses_last_seen", "resolve_misses", ["last_seen_at"])
    op.create_table(
        "resolve_miss_quotas",
        sa.Column("principal_id", sa.String(length=255), nullable=False),
        sa.Column("day", sa.String(length=10), nullable=False),
        sa.Column("recorded", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("principal_id", "day"),
    )
    op.create_index("ix_resolve_miss_quotas_day", "resolve_miss_quotas", ["day"])


def downgrade() -> None:
    op.drop_index("ix_resolve_miss_quotas_day", table_name="resolve_miss_quotas")
    op.drop_table("resolve_miss_quotas")
    op.drop_index("ix_resolve_misses_last_seen", table_name="resolve_misses")
