"""Creating branches: an overlay reads its base as of the fork, a copy holds full rows.

Branch names are unique per Domain regardless of case (`Main` beside `main` is refused), and the
names under the prefix of task branches are created only by the agent flow. Both rules hold in
the transaction that inserts the branch, under a lock of the Domain's row, so two concurrent
creations cannot both pass them.
"""

from __future__ import annotations

from typing import Literal

import sqlalchemy as sa

from lorebase_core.errors import (
    AlreadyExists,
    BranchNameReserved,
    BranchNameTaken,
    BranchNotFound,
    Issue,
)
from lorebase_store import tables as t
from lorebase_store.clock import now_stamp
from lorebase_store.engine import inserted_id
from lorebase_store.reads.records import LINK_IDENTITY, RECORD_IDENTITY, visible_rows
from lorebase_store.results import BranchInfo, DomainInfo
from lorebase_store.versioned.domains import check_branch_name
from lorebase_store.versioned.views import View, load_branch, make_view

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
    reserved_prefix: str | None = None,
) -> BranchInfo:
    """A branch starting at the head of `from_branch` (or at Revision `at` of it), in a write
    transaction the caller holds.

    `reserved_prefix` (the task branches' `keeper.agent_writes.branch_prefix`) refuses the names
    under it, in any case; the agent flow, which makes those branches, passes none.
    """
    check_branch_name(name)
    if reserved_prefix and name.lower().startswith(reserved_prefix.lower()):
        raise BranchNameReserved(
            f"Branch names under {reserved_prefix!r} are reserved for the task branches of the "
            "agent flow (keeper.agent_writes.branch_prefix): execute an Operation with a task "
            "to get one, or choose another name",
            [Issue("name", f"starts with the reserved prefix {reserved_prefix!r}", "reserved")],
            branch=name,
            reserved_prefix=reserved_prefix,
        )
    view = make_view(connection, domain, from_branch, at)
    _refuse_taken(connection, view.domain.id, domain, name)
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
                created_at=now_stamp(),
                created_by=created_by,
                deleted=False,
            )
        )
    )
    if mode == "copy":
        _copy_rows(connection, view, branch_id)
    return load_branch(connection, view.domain, name)


def find_branch(connection: sa.Connection, domain: DomainInfo, name: str) -> BranchInfo | None:
    """The live branch `name` of a Domain, or None: one branch by name, not a list of all."""
    try:
        return load_branch(connection, domain, name)
    except BranchNotFound:
        return None


def branches_held(
    connection: sa.Connection, domain: DomainInfo, prefix: str, created_by: str
) -> list[str]:
    """The names of the live branches under `prefix` that `created_by` made, sorted."""
    pattern = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    found = connection.execute(
        sa.select(t.branches.c.name).where(
            t.branches.c.domain_id == domain.id,
            t.branches.c.deleted.is_(False),
            t.branches.c.created_by == created_by,
            t.branches.c.name.like(pattern, escape="\\"),
        )
    ).scalars()
    # SQLite's LIKE ignores case: the prefix is compared again here
    return sorted(name for name in found if name.startswith(prefix))


def _refuse_taken(connection: sa.Connection, domain_id: int, domain: str, name: str) -> None:
    """AlreadyExists for a live branch of that name, BranchNameTaken for one differing in case."""
    # PostgreSQL: one branch creation (and commit) of a Domain at a time, so that the check below
    # and the INSERT after it see the same branches; SQLite's write lock does this already.
    connection.execute(
        sa.select(t.domains.c.id).where(t.domains.c.id == domain_id).with_for_update()
    )
    found = connection.execute(
        sa.select(t.branches.c.name)
        .where(
            t.branches.c.domain_id == domain_id,
            sa.func.lower(t.branches.c.name) == name.lower(),
            t.branches.c.deleted.is_(False),
        )
        .order_by(t.branches.c.name)
    ).scalars()
    existing = list(found)
    if name in existing:
        raise AlreadyExists(f"Branch {name!r} already exists in Domain {domain!r}", branch=name)
    if existing:
        other = existing[0]
        raise BranchNameTaken(
            f"Branch {other!r} already exists in Domain {domain!r} and differs from {name!r} "
            "only in case: branch names are unique regardless of case; use that branch or "
            "another name",
            branch=name,
            existing=other,
        )


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
