"""Creating Domains and naming branches."""

from __future__ import annotations

import re
from typing import Any

import sqlalchemy as sa

from lorebase_core.errors import AlreadyExists, BadRequest
from lorebase_core.schema import Schema
from lorebase_store import tables as t
from lorebase_store.clock import now_stamp
from lorebase_store.commits.typed_heads import create_typed_heads
from lorebase_store.engine import inserted_id
from lorebase_store.results import DomainInfo
from lorebase_store.versioned.schemas import save_schema
from lorebase_store.versioned.views import load_domain

BRANCH_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,254}$")


def check_branch_name(name: str) -> None:
    """Branch and tag names: letters, digits and `. _ / -`, no `..`, no empty path segment."""
    if not BRANCH_NAME.match(name) or ".." in name or name.endswith("/") or "//" in name:
        raise BadRequest(
            f"{name!r} is not a branch or tag name: use letters, digits and . _ / -, "
            "start with a letter or digit, and no '..' or empty segments"
        )


def insert_domain(
    connection: sa.Connection,
    schema: Schema,
    *,
    created_by: str,
    default_branch: str = "main",
    settings: dict[str, Any] | None = None,
    created_at: str | None = None,
) -> DomainInfo:
    """A new Domain with its default branch (protected, empty until its first commit)."""
    check_branch_name(default_branch)
    exists = connection.execute(
        sa.select(t.domains.c.id).where(t.domains.c.name == schema.domain.name)
    ).scalar()
    if exists is not None:
        raise AlreadyExists(f"Domain {schema.domain.name!r} already exists")
    at = created_at or now_stamp()
    save_schema(connection, schema)
    domain_id = inserted_id(
        connection.execute(
            t.domains.insert().values(
                name=schema.domain.name,
                default_branch=default_branch,
                created_at=at,
                created_by=created_by,
                settings={**(settings or {}), "initial_schema": schema.digest},
            )
        )
    )
    connection.execute(
        t.branches.insert().values(
            domain_id=domain_id,
            name=default_branch,
            mode="copy",
            head_seq=0,
            head_revision=None,
            base_branch_id=None,
            base_seq=None,
            protected=True,
            created_at=at,
            created_by=created_by,
            deleted=False,
        )
    )
    branch_id = connection.execute(
        sa.select(t.branches.c.id).where(
            t.branches.c.domain_id == domain_id, t.branches.c.name == default_branch
        )
    ).scalar_one()
    create_typed_heads(connection, branch_id, schema)
    return load_domain(connection, schema.domain.name)
