"""Initial store tables: Domains, schemas, branches, Revisions, tags, versioned Records and Links, events.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:

    op.create_table(
        "domains",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("name", sa.String(length=63), nullable=False),
        sa.Column("default_branch", sa.String(length=255), nullable=False),
        sa.Column("created_at", sa.String(length=32), nullable=False),
        sa.Column("created_by", sa.String(length=255), nullable=False),
        sa.Column(
            "settings",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
    )
    op.create_table(
        "links",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("branch_id", sa.Integer(), nullable=False),
        sa.Column("relation", sa.String(length=63), nullable=False),
        sa.Column("from_key", sa.String(length=1024), nullable=False),
        sa.Column("to_key", sa.String(length=1024), nullable=False),
        sa.Column("from_seq", sa.Integer(), nullable=False),
        sa.Column("to_seq", sa.Integer(), nullable=True),
        sa.Column("revision_pk", sa.BigInteger(), nullable=False),
        sa.Column("deleted", sa.Boolean(), nullable=False),
        sa.Column(
            "values_json",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column(
            "provenance_json",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("links", schema=None) as batch_op:
        batch_op.create_index("ix_links_changes", ["branch_id", "from_seq"], unique=False)
        batch_op.create_index(
            "ix_links_head",
            ["branch_id", "relation", "from_key", "to_key"],
            unique=True,
            sqlite_where=sa.text("to_seq IS NULL"),
            postgresql_where=sa.text("to_seq IS NULL"),
        )
        batch_op.create_index("ix_links_inverse", ["branch_id", "relation", "to_key"], unique=False)
        batch_op.create_index(
            "ix_links_version",
            ["branch_id", "relation", "from_key", "to_key", "from_seq"],
            unique=True,
        )

    op.create_table(
        "records",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("branch_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=63), nullable=False),
        sa.Column("record_key", sa.String(length=1024), nullable=False),
        sa.Column("from_seq", sa.Integer(), nullable=False),
        sa.Column("to_seq", sa.Integer(), nullable=True),
        sa.Column("revision_pk", sa.BigInteger(), nullable=False),
        sa.Column("deleted", sa.Boolean(), nullable=False),
        sa.Column(
            "values_json",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column(
            "provenance_json",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("records", schema=None) as batch_op:
        batch_op.create_index("ix_records_changes", ["branch_id", "from_seq"], unique=False)
        batch_op.create_index(
            "ix_records_head",
            ["branch_id", "kind", "record_key"],
            unique=True,
            sqlite_where=sa.text("to_seq IS NULL"),
            postgresql_where=sa.text("to_seq IS NULL"),
        )
        batch_op.create_index(
            "ix_records_version", ["branch_id", "kind", "record_key", "from_seq"], unique=True
        )

    op.create_table(
        "schemas",
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column(
            "document",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("source", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("digest"),
    )
    op.create_table(
        "branches",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("domain_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("mode", sa.String(length=16), nullable=False),
        sa.Column("head_seq", sa.Integer(), nullable=False),
        sa.Column("head_revision", sa.String(length=64), nullable=True),
        sa.Column("base_branch_id", sa.Integer(), nullable=True),
        sa.Column("base_seq", sa.Integer(), nullable=True),
        sa.Column("protected", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.String(length=32), nullable=False),
        sa.Column("created_by", sa.String(length=255), nullable=False),
        sa.Column("deleted", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["base_branch_id"],
            ["branches.id"],
        ),
        sa.ForeignKeyConstraint(
            ["domain_id"],
            ["domains.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("branches", schema=None) as batch_op:
        batch_op.create_index(
            "ix_branches_live_name",
            ["domain_id", "name"],
            unique=True,
            sqlite_where=sa.text("deleted = 0"),
            postgresql_where=sa.text("deleted = false"),
        )

    op.create_table(
        "tags",
        sa.Column("domain_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("revision_id", sa.String(length=64), nullable=False),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("created_at", sa.String(length=32), nullable=False),
        sa.Column("created_by", sa.String(length=255), nullable=False),
        sa.ForeignKeyConstraint(
            ["domain_id"],
            ["domains.id"],
        ),
        sa.PrimaryKeyConstraint("domain_id", "name"),
    )
    op.create_table(
        "events",
        sa.Column(
            "sequence",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("domain_id", sa.Integer(), nullable=False),
        sa.Column("branch_id", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(length=63), nullable=False),
        sa.Column("revision_id", sa.String(length=64), nullable=True),
        sa.Column("created_at", sa.String(length=32), nullable=False),
        sa.Column(
            "payload",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["branch_id"],
            ["branches.id"],
        ),
        sa.ForeignKeyConstraint(
            ["domain_id"],
            ["domains.id"],
        ),
        sa.PrimaryKeyConstraint("sequence"),
    )
    with op.batch_alter_table("events", schema=None) as batch_op:
        batch_op.create_index("ix_events_branch", ["branch_id", "sequence"], unique=False)
        batch_op.create_index("ix_events_domain", ["domain_id", "sequence"], unique=False)

    op.create_table(
        "revisions",
        sa.Column(
            "pk",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("domain_id", sa.Integer(), nullable=False),
        sa.Column("branch_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column(
            "parents",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("generation", sa.Integer(), nullable=False),
        sa.Column(
            "stats",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("origin_type", sa.String(length=32), nullable=False),
        sa.Column("origin_ref", sa.String(length=255), nullable=True),
        sa.Column("author", sa.String(length=255), nullable=False),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("created_at", sa.String(length=32), nullable=False),
        sa.Column("schema_digest", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(
            ["branch_id"],
            ["branches.id"],
        ),
        sa.ForeignKeyConstraint(
            ["domain_id"],
            ["domains.id"],
        ),
        sa.ForeignKeyConstraint(
            ["schema_digest"],
            ["schemas.digest"],
        ),
        sa.PrimaryKeyConstraint("pk"),
        sa.UniqueConstraint("branch_id", "seq", name="uq_revisions_branch_seq"),
        sa.UniqueConstraint("id"),
    )
    with op.batch_alter_table("revisions", schema=None) as batch_op:
        batch_op.create_index("ix_revisions_domain_id", ["domain_id", "id"], unique=False)


def downgrade() -> None:

    with op.batch_alter_table("revisions", schema=None) as batch_op:
        batch_op.drop_index("ix_revisions_domain_id")

    op.drop_table("revisions")
    with op.batch_alter_table("events", schema=None) as batch_op:
        batch_op.drop_index("ix_events_domain")
        batch_op.drop_index("ix_events_branch")

    op.drop_table("events")
    op.drop_table("tags")
    with op.batch_alter_table("branches", schema=None) as batch_op:
        batch_op.drop_index(
            "ix_branches_live_name",
            sqlite_where=sa.text("deleted = 0"),
            postgresql_where=sa.text("deleted = false"),
        )

    op.drop_table("branches")
    op.drop_table("schemas")
    with op.batch_alter_table("records", schema=None) as batch_op:
        batch_op.drop_index("ix_records_version")
        batch_op.drop_index(
            "ix_records_head",
            sqlite_where=sa.text("to_seq IS NULL"),
            postgresql_where=sa.text("to_seq IS NULL"),
        )
        batch_op.drop_index("ix_records_changes")

    op.drop_table("records")
    with op.batch_alter_table("links", schema=None) as batch_op:
        batch_op.drop_index("ix_links_version")
        batch_op.drop_index("ix_links_inverse")
        batch_op.drop_index(
            "ix_links_head",
            sqlite_where=sa.text("to_seq IS NULL"),
            postgresql_where=sa.text("to_seq IS NULL"),
        )
        batch_op.drop_index("ix_links_changes")

    op.drop_table("links")
    op.drop_table("domains")
