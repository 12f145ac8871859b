"""Where a read looks: a branch at a sequence, as the chain of branch segments it sees.

An overlay branch stores only the rows it changed; everything else is read from its base as of the
fork point, and so on down the chain. A copy branch holds full rows and has one segment. A `View`
lists those segments, nearest first; `visible` and `not_shadowed` turn them into SQL conditions.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from lorebase_core.errors import (
    AmbiguousRevision,
    BranchNotFound,
    DomainNotFound,
    Forbidden,
    RevisionNotFound,
    RevisionNotOnBranch,
    quoted,
)
from lorebase_store import tables as t
from lorebase_store.results import BranchInfo, DomainInfo, RevisionInfo
from lorebase_store.rows import from_row

_HEX = re.compile(r"^[0-9a-f]{4,64}$")


@dataclass(frozen=True)
class Segment:
    branch_id: int
    upto: int
    at_head: bool


@dataclass(frozen=True, kw_only=True)
class View:
    domain: DomainInfo
    branch: BranchInfo
    seq: int
    revision: str | None
    segments: tuple[Segment, ...]
    history: tuple[Segment, ...]
    """The first-parent history up to the view (see `ancestry`): what history and log read."""

    @property
    def at_head(self) -> bool:
        return self.segments[0].at_head


_DOMAIN = sa.select(t.domains).where(t.domains.c.name == sa.bindparam("name"))
_BRANCH = sa.select(t.branches).where(
    t.branches.c.domain_id == sa.bindparam("domain_id"),
    t.branches.c.name == sa.bindparam("name"),
    t.branches.c.deleted.is_(False),
)


def load_domain(connection: sa.Connection, name: str) -> DomainInfo:
    row = connection.execute(_DOMAIN, {"name": name}).mappings().first()
    if row is None:
        raise DomainNotFound.named(name)
    return _domain_info(row)


def _domain_info(row: Any) -> DomainInfo:
    return from_row(DomainInfo, row, settings=dict(row["settings"]))


def _branch_info(connection: sa.Connection, domain: DomainInfo, row: Any) -> BranchInfo:
    base_name = base_revision = None
    if row["base_branch_id"] is not None:
        base = connection.execute(
            sa.select(t.branches.c.name).where(t.branches.c.id == row["base_branch_id"])
        ).scalar_one()
        base_name = base
        base_revision = revision_at(connection, row["base_branch_id"], row["base_seq"])
    return from_row(
        BranchInfo, row, domain=domain.name, base_branch=base_name, base_revision=base_revision
    )


def load_branch(connection: sa.Connection, domain: DomainInfo, name: str) -> BranchInfo:
    row = connection.execute(_BRANCH, {"domain_id": domain.id, "name": name}).mappings().first()
    if row is None:
        raise BranchNotFound.named(name, domain.name)
    return _branch_info(connection, domain, row)


def branch_by_id(connection: sa.Connection, domain: DomainInfo, branch_id: int) -> BranchInfo:
    """A branch by its id, deleted or not (merge bases, Proposals)."""
    row = (
        connection.execute(sa.select(t.branches).where(t.branches.c.id == branch_id))
        .mappings()
        .one()
    )
    return _branch_info(connection, domain, row)


def list_branches(connection: sa.Connection, domain: DomainInfo) -> list[BranchInfo]:
    rows = (
        connection.execute(
            sa.select(t.branches)
            .where(t.branches.c.domain_id == domain.id, t.branches.c.deleted.is_(False))
            .order_by(t.branches.c.name)
        )
        .mappings()
        .all()
    )
    return [_branch_info(connection, domain, row) for row in rows]


def revision_at(connection: sa.Connection, branch_id: int, seq: int) -> str | None:
    """The Revision a branch had at a sequence (for seq 0 of a branch: its fork Revision)."""
    while True:
        found = connection.execute(
            sa.select(t.revisions.c.id).where(
                t.revisions.c.branch_id == branch_id, t.revisions.c.seq == seq
            )
        ).scalar()
        if found is not None or seq > 0:
            return found
        base = connection.execute(
            sa.select(t.branches.c.base_branch_id, t.branches.c.base_seq).where(
                t.branches.c.id == branch_id
            )
        ).first()
        if base is None or base.base_branch_id is None:
            return None
        branch_id, seq = base.base_branch_id, base.base_seq


def segments(connection: sa.Connection, branch: BranchInfo, seq: int) -> tuple[Segment, ...]:
    """The segments a read sees: the branch, then an overlay's bases down to a full copy."""
    return _chain(connection, branch, seq, through_copies=False)


def ancestry(connection: sa.Connection, branch: BranchInfo, seq: int) -> tuple[Segment, ...]:
    """The first-parent history of a branch at a sequence, nearest first.

    Its own commits, then its base's up to the fork, and so on to the Domain's first Revision,
    whatever the modes: a copy branch's history goes on in the branch it was copied from.
    """
    return _chain(connection, branch, seq, through_copies=True)


def _chain(
    connection: sa.Connection, branch: BranchInfo, seq: int, *, through_copies: bool
) -> tuple[Segment, ...]:
    chain = [Segment(branch.id, seq, seq == branch.head_seq)]
    mode, base_id, base_seq = branch.mode, branch.base_branch_id, branch.base_seq
    while base_id is not None and base_seq is not None and (through_copies or mode == "overlay"):
        chain.append(Segment(base_id, base_seq, False))
        row = connection.execute(
            sa.select(t.branches.c.mode, t.branches.c.base_branch_id, t.branches.c.base_seq).where(
                t.branches.c.id == base_id
            )
        ).one()
        mode, base_id, base_seq = row.mode, row.base_branch_id, row.base_seq
    return tuple(chain)


def revision_segments(connection: sa.Connection, revision: RevisionInfo) -> tuple[Segment, ...]:
    """The segments of the branch a Revision was committed on, at that Revision."""
    return segments(connection, _revision_branch(connection, revision), revision.seq)


def revision_ancestry(connection: sa.Connection, revision: RevisionInfo) -> tuple[Segment, ...]:
    """The first-parent history up to a Revision."""
    return ancestry(connection, _revision_branch(connection, revision), revision.seq)


def _revision_branch(connection: sa.Connection, revision: RevisionInfo) -> BranchInfo:
    row = (
        connection.execute(sa.select(t.branches).where(t.branches.c.id == revision.branch_id))
        .mappings()
        .one()
    )
    domain_name = connection.execute(
        sa.select(t.domains.c.name).where(t.domains.c.id == row["domain_id"])
    ).scalar_one()
    return _branch_info(connection, load_domain(connection, domain_name), row)


def revision_info(connection: sa.Connection, row: Any) -> RevisionInfo:
    """A Revision from its row (with `branch_name` when the query joined it)."""
    branch_name = (
        row.get("branch_name")
        or connection.execute(
            sa.select(t.branches.c.name).where(t.branches.c.id == row["branch_id"])
        ).scalar_one()
    )
    return from_row(
        RevisionInfo,
        row,
        branch=branch_name,
        parents=list(row["parents"]),
        stats=dict(row["stats"]),
    )


# Revisions with the name of their branch, which `revision_info` then needs not look up.
REVISION_ROWS = sa.select(t.revisions, t.branches.c.name.label("branch_name")).join_from(
    t.revisions, t.branches, t.branches.c.id == t.revisions.c.branch_id
)
_REVISION_BY_ID = REVISION_ROWS.where(
    t.revisions.c.domain_id == sa.bindparam("domain_id"), t.revisions.c.id == sa.bindparam("id")
)


def revisions_by_pk(connection: sa.Connection, pks: Iterable[int]) -> dict[int, RevisionInfo]:
    """Revisions by their row key, in one statement."""
    wanted = sorted(set(pks))
    if not wanted:
        return {}
    rows = connection.execute(REVISION_ROWS.where(t.revisions.c.pk.in_(wanted))).mappings().all()
    return {row["pk"]: revision_info(connection, row) for row in rows}


Authorize = Callable[[str], None]
"""Raises (`Forbidden`) when the caller may not read the branch of that name."""

Visible = Callable[[RevisionInfo], bool]
"""Whether the caller may name a Revision; the others answer as if they did not exist."""

_PREFIX_CANDIDATES = 1000
"""How many Revisions starting with a prefix are weighed when some may be invisible."""


def resolve_revision(
    connection: sa.Connection, domain: DomainInfo, text: str, visible: Visible | None = None
) -> RevisionInfo:
    """A Revision by full id, tag or unique prefix (at least 4 hex digits).

    With `visible`, the Revisions it refuses are left out, as if they did not exist: they are
    never found, and a prefix is ambiguous only among the others.
    """

    def shown(row: Any) -> RevisionInfo | None:
        if row is None:
            return None
        found = revision_info(connection, row)
        return found if visible is None or visible(found) else None

    query = REVISION_ROWS.where(t.revisions.c.domain_id == domain.id)
    revision = shown(
        connection.execute(_REVISION_BY_ID, {"domain_id": domain.id, "id": text}).mappings().first()
    )
    if revision is None:
        tagged = connection.execute(
            sa.select(t.tags.c.revision_id).where(
                t.tags.c.domain_id == domain.id, t.tags.c.name == text
            )
        ).scalar()
        if tagged is not None:
            revision = shown(
                connection.execute(query.where(t.revisions.c.id == tagged)).mappings().first()
            )
    if revision is None and _HEX.match(text):
        limit = 2 if visible is None else _PREFIX_CANDIDATES
        rows = (
            connection.execute(query.where(t.revisions.c.id.startswith(text)).limit(limit))
            .mappings()
            .all()
        )
        found = [candidate for candidate in map(shown, rows) if candidate is not None]
        if len(found) > 1:
            raise AmbiguousRevision(
                f"{quoted(text)} is the start of more than one Revision; give more digits"
            )
        revision = found[0] if found else None
    if revision is None:
        raise RevisionNotFound(
            f"No Revision, tag or unique Revision prefix {quoted(text)} in Domain {quoted(domain.name)}"
        )
    return revision


def position_in(history: tuple[Segment, ...], revision: RevisionInfo) -> int | None:
    """The index of the segment of a first-parent history holding a Revision (None: not in it)."""
    for index, segment in enumerate(history):
        if revision.branch_id == segment.branch_id and revision.seq <= segment.upto:
            return index
    return None


def visible_from(history: tuple[Segment, ...], authorize: Authorize | None) -> Visible | None:
    """The Revisions a reader of a branch may name: those of its history and of the branches
    `authorize` allows (None: every Revision)."""
    if authorize is None:
        return None

    def visible(revision: RevisionInfo) -> bool:
        if position_in(history, revision) is not None:
            return True
        try:
            authorize(revision.branch)
        except Forbidden:
            return False
        return True

    return visible


_DOMAIN_AND_BRANCH = (
    sa.select(
        *(column.label(f"domain_{column.name}") for column in t.domains.columns),
        *(column.label(f"branch_{column.name}") for column in t.branches.columns),
    )
    .select_from(
        t.domains.outerjoin(
            t.branches,
            sa.and_(
                t.branches.c.domain_id == t.domains.c.id,
                t.branches.c.name
                == sa.func.coalesce(
                    sa.bindparam("branch", type_=sa.String), t.domains.c.default_branch
                ),
                t.branches.c.deleted.is_(False),
            ),
        )
    )
    .where(t.domains.c.name == sa.bindparam("domain"))
)


@dataclass(frozen=True)
class Head:
    """What a commit needs of its branch's head Revision (its parent)."""

    id: str
    generation: int
    schema_digest: str


_HEAD_COLUMNS = (
    t.revisions.c.generation.label("head_generation"),
    t.revisions.c.schema_digest.label("head_schema_digest"),
)
_HEAD_JOIN = t.revisions.c.id == t.branches.c.head_revision
_DOMAIN_BRANCH_AND_HEAD = _DOMAIN_AND_BRANCH.add_columns(*_HEAD_COLUMNS).outerjoin(
    t.revisions, _HEAD_JOIN
)
_LOCKED_BRANCH_AND_HEAD = (
    sa.select(t.branches, *_HEAD_COLUMNS)
    .select_from(t.branches.outerjoin(t.revisions, _HEAD_JOIN))
    .where(t.branches.c.id == sa.bindparam("id"))
    .with_for_update(of=t.branches)
)


def _head(row: Any, head_revision: str | None) -> Head | None:
    if head_revision is None:
        return None
    return Head(head_revision, row["head_generation"], row["head_schema_digest"])


def load_domain_and_branch(
    connection: sa.Connection, domain_name: str, branch_name: str | None
) -> tuple[DomainInfo, BranchInfo]:
    """A Domain and one of its branches (default: the Domain's) in one statement."""
    return _domain_and_branch(connection, _DOMAIN_AND_BRANCH, domain_name, branch_name)[:2]


def load_commit_target(
    connection: sa.Connection, domain_name: str, branch_name: str | None
) -> tuple[DomainInfo, BranchInfo, Head | None]:
    """`load_domain_and_branch` and the branch's head Revision, in one statement."""
    domain, branch, row = _domain_and_branch(
        connection, _DOMAIN_BRANCH_AND_HEAD, domain_name, branch_name
    )
    return domain, branch, _head(row, branch.head_revision)


def lock_commit_target(
    connection: sa.Connection, domain: DomainInfo, branch_id: int
) -> tuple[BranchInfo, Head | None]:
    """PostgreSQL: the branch row locked (FOR UPDATE) and read again with its head Revision."""
    row = connection.execute(_LOCKED_BRANCH_AND_HEAD, {"id": branch_id}).mappings().one()
    branch = _branch_info(connection, domain, row)
    return branch, _head(row, branch.head_revision)


def _domain_and_branch(
    connection: sa.Connection, statement: sa.Select[Any], domain_name: str, branch_name: str | None
) -> tuple[DomainInfo, BranchInfo, Any]:
    row = (
        connection.execute(statement, {"domain": domain_name, "branch": branch_name})
        .mappings()
        .first()
    )
    if row is None:
        raise DomainNotFound.named(domain_name)
    domain_row = {
        name.removeprefix("domain_"): value
        for name, value in row.items()
        if name.startswith("domain_")
    }
    domain = _domain_info(domain_row)
    if row["branch_id"] is None:
        name = branch_name or domain.default_branch
        raise BranchNotFound.named(name, domain.name)
    branch_row = {
        name.removeprefix("branch_"): value
        for name, value in row.items()
        if name.startswith("branch_")
    }
    return domain, _branch_info(connection, domain, branch_row), row


def _read_at(
    connection: sa.Connection,
    branch: BranchInfo,
    history: tuple[Segment, ...],
    revision: RevisionInfo,
) -> tuple[tuple[Segment, ...], tuple[Segment, ...]]:
    """The segments that read `branch` at a Revision of its history, and the history up to it."""
    index = position_in(history, revision)
    if index is None:
        raise RevisionNotOnBranch(
            f"Revision {revision.id[:12]} is not in the history of branch {quoted(branch.name)}",
            revision=revision.id,
            branch=branch.name,
        )
    if index == 0:
        chain = segments(connection, branch, revision.seq)
    else:  # the Revision is in a base's history: read that branch at it
        chain = revision_segments(connection, revision)
    nearest = Segment(history[index].branch_id, revision.seq, chain[0].at_head)
    return chain, (nearest, *history[index + 1 :])


def make_view(
    connection: sa.Connection,
    domain_name: str,
    branch_name: str | None = None,
    at: str | None = None,
    *,
    authorize: Authorize | None = None,
) -> View:
    """The View of a read: a branch (default: the Domain's) at its head or at Revision `at`.

    `authorize` is called with the branch name before `at` is looked up, so that a Revision is
    resolved for readers of the branch only; a Revision outside the branch's history that lies
    on a branch `authorize` refuses answers like an unknown one (`visible_from`).
    """
    domain, branch = load_domain_and_branch(connection, domain_name, branch_name)
    if authorize is not None:
        authorize(branch.name)
    history = ancestry(connection, branch, branch.head_seq)
    if at is None:
        seq, revision_id = branch.head_seq, branch.head_revision
        chain = segments(connection, branch, seq)
    else:
        revision = resolve_revision(connection, domain, at, visible_from(history, authorize))
        seq, revision_id = revision.seq, revision.id
        chain, history = _read_at(connection, branch, history, revision)
    return View(
        domain=domain,
        branch=branch,
        seq=seq,
        revision=revision_id,
        segments=chain,
        history=history,
    )


def visible(table: sa.Table, segment: Segment) -> sa.ColumnElement[bool]:
    """Rows of `table` that a segment sees: its branch's versions valid at its sequence."""
    condition = table.c.branch_id == segment.branch_id
    if segment.at_head:
        return sa.and_(condition, table.c.to_seq.is_(None))
    return sa.and_(
        condition,
        table.c.from_seq <= segment.upto,
        sa.or_(table.c.to_seq.is_(None), table.c.to_seq > segment.upto),
    )


def not_shadowed(
    table: sa.Table,
    outer: sa.Table | sa.Alias,
    nearer: tuple[Segment, ...],
    identity: tuple[str, ...],
) -> sa.ColumnElement[bool]:
    """No nearer segment has touched the row's Record or Link by its bound."""
    conditions = []
    for segment in nearer:
        inner = table.alias()
        match = [inner.c[column] == outer.c[column] for column in identity]
        conditions.append(
            ~sa.exists().where(
                inner.c.branch_id == segment.branch_id, inner.c.from_seq <= segment.upto, *match
            )
        )
    return sa.and_(sa.true(), *conditions)
