"""Creating branches: an overlay reads its base as of the fork, a copy holds full rows."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal

import sqlalchemy as sa

from lorebase_core.errors import AlreadyExists
from lorebase_core.values import format_datetime
from lorebase_store import tables as t
from lorebase_store.domains import check_branch_name
from lorebase_store.engine import inserted_id
from lorebase_store.reads import LINK_IDENTITY, RECORD_IDENTITY, visible_rows
from lorebase_store.results import BranchInfo
from lorebase_store.views import View, load_branch, make_view

BranchMode = Literal["overlay", "copy"]


def create_branch_on(
    connection: sa.Connection,
    domain: str,
    name: str,
    *,
    from_branch: str | None = None,
    at: str | None = None,
    mode: BranchMode = "overlay",
    created_by: str,
    protected: bool = False,
) -> BranchInfo:
    """A branch starting at the head of `from_branch` (or at Revision `at` of it), in a write
    transaction the caller holds."""
    check_branch_name(name)
    view = make_view(connection, domain, from_branch, at)
    existing = connection.execute(
        sa.select(t.branches.c.id).where(
            t.branches.c.domain_id == view.domain.id,
            t.branches.c.name == name,
            t.branches.c.deleted.is_(False),
        )
    ).scalar()
    if existing is not None:
        raise AlreadyExists(f"Branch {name!r} already exists in Domain {domain!r}", branch=name)
    base_id, base_seq = view.segments[0].branch_id, view.segments[0].upto
    branch_id = inserted_id(
        connection.execute(
            t.branches.insert().values(
                domain_id=view.domain.id,
                name=name,
                mode=mode,
                head_seq=0,
                head_revision=view.revision,
                base_branch_id=base_id,
                base_seq=base_seq,
                protected=protected,
                created_at=format_datetime(datetime.now(UTC)),
                created_by=created_by,
                deleted=False,
            )
        )
    )
    if mode == "copy":
        _copy_rows(connection, view, branch_id)
    return load_branch(connection, view.domain, name)


def _copy_rows(connection: sa.Connection, view: View, branch_id: int) -> None:
    for table, identity in ((t.records, RECORD_IDENTITY), (t.links, LINK_IDENTITY)):
        rows_q = visible_rows(table, view.segments, identity, lambda _table: sa.true())
        columns = [
            c.name for c in table.columns if c.name not in {"id", "branch_id", "from_seq", "to_seq"}
        ]
        select = sa.select(
            sa.literal(branch_id), sa.literal(0), *[rows_q.c[name] for name in columns]
        ).where(rows_q.c.deleted.is_(False))
        connection.execute(table.insert().from_select(["branch_id", "from_seq", *columns], select))
