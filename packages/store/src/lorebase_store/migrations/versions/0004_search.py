"""Search: documents and vocabulary per branch (FTS5 / pg_trgm), vectors per Record.

The index of the Records already stored is built here, from each branch's head versions.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")
BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "search_documents",
        sa.Column("id", BIG_ID, autoincrement=True, nullable=False),
        sa.Column("branch_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=63), nullable=False),
        sa.Column("record_key", sa.String(length=1024), nullable=False),
        sa.Column("deleted", sa.Boolean(), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        "ix_search_documents_record",
        "search_documents",
        ["branch_id", "kind", "record_key"],
        unique=True,
    )
    op.create_table(
        "search_terms",
        sa.Column("branch_id", sa.Integer(), nullable=False),
        sa.Column("term", sa.String(length=255), nullable=False),
        sa.Column("documents", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("branch_id", "term"),
    )
    op.create_table(
        "record_vectors",
        sa.Column("domain_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=63), nullable=False),
        sa.Column("record_key", sa.String(length=1024), nullable=False),
        sa.Column("model", sa.String(length=255), nullable=False),
        sa.Column("dimensions", sa.Integer(), nullable=False),
        sa.Column("vector", JSON, nullable=False),
        sa.Column("updated_at", sa.String(length=32), nullable=False),
        sa.Column("updated_by", sa.String(length=255), nullable=False),
        sa.ForeignKeyConstraint(["domain_id"], ["domains.id"]),
        sa.PrimaryKeyConstraint("domain_id", "kind", "record_key", "model"),
    )
    from lorebase_store.search.index import create_backend_objects, rebuild_index

    connection = op.get_bind()
    create_backend_objects(connection)
    rebuild_index(connection)


def downgrade() -> None:
    from lorebase_store.search.index import drop_backend_objects

    drop_backend_objects(op.get_bind())
    op.drop_table("record_vectors")
    op.drop_table("search_terms")
    op.drop_index("ix_search_documents_record", table_name="search_documents")
    op.drop_table("search_documents")
