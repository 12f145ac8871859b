"""Browser sessions, OIDC identities and shared rate-limit windows (docs/auth.md).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

Json = sa.JSON().with_variant(JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "auth_sessions",
        sa.Column("id_digest", sa.String(length=64), primary_key=True),
        sa.Column(
            "principal_id", sa.String(length=255), sa.ForeignKey("principals.id"), nullable=False
        ),
        sa.Column("method", sa.String(length=16), nullable=False),
        sa.Column("key_id", sa.String(length=32), nullable=True),
        sa.Column("claims", Json, nullable=False),
        sa.Column("created_at", sa.String(length=32), nullable=False),
        sa.Column("last_seen_at", sa.String(length=32), nullable=False),
        sa.Column("expires_at", sa.String(length=32), nullable=False),
        sa.Column("revoked_at", sa.String(length=32), nullable=True),
    )
    op.create_index("ix_auth_sessions_principal", "auth_sessions", ["principal_id", "created_at"])
    op.create_index("ix_auth_sessions_key", "auth_sessions", ["key_id"])
    op.create_table(
        "oidc_identities",
        sa.Column("issuer", sa.String(length=1024), primary_key=True),
        sa.Column("subject", sa.String(length=255), primary_key=True),
        sa.Column(
            "principal_id", sa.String(length=255), sa.ForeignKey("principals.id"), nullable=False
        ),
        sa.Column("created_at", sa.String(length=32), nullable=False),
        sa.Column("last_seen_at", sa.String(length=32), nullable=False),
    )
    op.create_index(
        "ix_oidc_identities_principal", "oidc_identities", ["principal_id"], unique=True
    )
    op.create_table(
        "rate_windows",
        sa.Column("principal_id", sa.String(length=255), primary_key=True),
        sa.Column("bucket", sa.String(length=127), primary_key=True),
        sa.Column("period", sa.String(length=32), primary_key=True),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("expires_at", sa.Float(), nullable=False),
    )
    op.create_index("ix_rate_windows_expires", "rate_windows", ["expires_at"])


def downgrade() -> None:
    op.drop_index("ix_rate_windows_expires", table_name="rate_windows")
    op.drop_table("rate_windows")
    op.drop_index("ix_oidc_identities_principal", table_name="oidc_identities")
    op.drop_table("oidc_identities")
    op.drop_index("ix_auth_sessions_key", table_name="auth_sessions")
    op.drop_index("ix_auth_sessions_principal", table_name="auth_sessions")
    op.drop_table("auth_sessions")
