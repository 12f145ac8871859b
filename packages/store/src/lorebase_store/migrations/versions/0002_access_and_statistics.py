"""Principals, API keys and grants; statistics of the default branch head.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    op.create_table(
        "principals",
        sa.Column("id", sa.String(length=255), nullable=False),
        sa.Column("type", sa.String(length=16), nullable=False),
        sa.Column("display_name", sa.String(length=255), nullable=False),
        sa.Column("created_at", sa.String(length=32), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_table(
        "api_keys",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("principal_id", sa.String(length=255), nullable=False),
        sa.Column("secret_digest", sa.String(length=64), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("created_at", sa.String(length=32), nullable=False),
        sa.Column("revoked_at", sa.String(length=32), nullable=True),
        sa.ForeignKeyConstraint(["principal_id"], ["principals.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_api_keys_principal", "api_keys", ["principal_id"], unique=False)
    op.create_table(
        "grants",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("principal_id", sa.String(length=255), nullable=False),
        sa.Column("domain", sa.String(length=63), nullable=False),
        sa.Column("branch", sa.String(length=255), nullable=False),
        sa.Column("role", sa.String(length=32), nullable=False),
        sa.Column("kinds", JSON, nullable=True),
        sa.Column("clearances", JSON, nullable=False),
        sa.Column("created_at", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(["principal_id"], ["principals.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_grants_principal", "grants", ["principal_id"], unique=False)
    op.create_table(
        "statistics",
        sa.Column("domain_id", sa.Integer(), nullable=False),
        sa.Column("as_of", sa.String(length=64), nullable=True),
        sa.Column("kinds", JSON, nullable=False),
        sa.Column("counted_at", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(["domain_id"], ["domains.id"]),
        sa.PrimaryKeyConstraint("domain_id"),
    )


def downgrade() -> None:
    op.drop_table("statistics")
    op.drop_index("ix_grants_principal", table_name="grants")
    op.drop_table("grants")
    op.drop_index("ix_api_keys_principal", table_name="api_keys")
    op.drop_table("api_keys")
    op.drop_table("principals")
