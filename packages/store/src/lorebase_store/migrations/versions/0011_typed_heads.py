"""Typed heads: the default branch's head of each Kind in typed columns (docs/storage.md).

Creates the registry `typed_heads` and builds the table of every Kind of every Domain from the
head rows of its default branch (`commits.typed_heads.rebuild_all`: one INSERT ... SELECT per Kind).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "typed_heads",
        sa.Column("domain_id", sa.Integer(), sa.ForeignKey("domains.id"), primary_key=True),
        sa.Column("kind", sa.String(length=63), primary_key=True),
        sa.Column("branch_id", sa.Integer(), nullable=False),
        sa.Column("table_name", sa.String(length=63), nullable=False),
        sa.Column("layout", sa.String(length=64), nullable=False),
    )
    from lorebase_store.commits.typed_heads import rebuild_all

    rebuild_all(op.get_bind())


def downgrade() -> None:
    connection = op.get_bind()
    names = connection.execute(sa.text("SELECT table_name FROM typed_heads")).scalars().all()
    for name in names:
        connection.execute(sa.text(f'DROP TABLE IF EXISTS "{name}"'))
    op.drop_table("typed_heads")
