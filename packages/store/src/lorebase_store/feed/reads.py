"""The events of a branch: after a sequence (the stream) and by first-parent Revision (polling).

An event document is the stored payload with its `sequence` first: for a Revision the members
`sequence, type, domain, branch, revision, parents, generation, author, message, origin, stats,
created_at, kinds, relations, schema_changed, keys, keys_truncated`; for an Operation's side
effect those of `writes.executions.write_operation_events`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from lorebase_core.errors import ResyncRequired
from lorebase_store import tables as t
from lorebase_store.versioned.views import (
    Authorize,
    View,
    position_in,
    resolve_revision,
    visible_from,
)

REVISION_EVENT = "revision.committed"
_CHUNK = 200
"""Revisions read per statement while a page is filled."""

_RESYNC = "take a new context pack and follow the branch from its revision"


@dataclass(frozen=True)
class EventBatch:
    """Events of a branch after a sequence, and the last sequence looked at (filtered or not)."""

    events: list[dict[str, Any]]
    last_sequence: int


@dataclass(frozen=True)
class ChangesPage:
    """A page of the polling feed: revision events oldest first, where to continue, whether the
    page was cut (`more`: ask again with `next_since` at once)."""

    events: list[dict[str, Any]]
    next_since: str | None
    more: bool


REVISION_MEMBERS = (
    "type",
    "domain",
    "branch",
    "revision",
    "parents",
    "generation",
    "author",
    "message",
    "origin",
    "stats",
    "created_at",
    "kinds",
    "relations",
    "schema_changed",
    "keys",
    "keys_truncated",
)
"""The members of a revision event after `sequence`, in the order the stream sends them."""


def document(sequence: int, payload: Mapping[str, Any]) -> dict[str, Any]:
    """The event document: `sequence` first, then the stored payload (a revision event's
    members in `REVISION_MEMBERS` order: PostgreSQL's jsonb does not keep the order written)."""
    if payload.get("type") == REVISION_EVENT:
        ordered = {name: payload[name] for name in REVISION_MEMBERS if name in payload}
        return {"sequence": sequence, **ordered, **dict(payload)}
    return {"sequence": sequence, **dict(payload)}


def passes(event: Mapping[str, Any], kinds: Collection[str] | None) -> bool:
    """Whether an event survives a `kinds=` filter: a Revision changing one of the Kinds, an
    Operation event with an edit of one of them."""
    if kinds is None:
        return True
    if event.get("type") == REVISION_EVENT:
        return any(kind in kinds for kind in event.get("kinds") or {})
    return any(edit.get("kind") in kinds for edit in event.get("edits") or [])


def latest_sequence(connection: sa.Connection, branch_id: int) -> int:
    """The sequence of the newest event of a branch (0 before its first one)."""
    found = connection.execute(
        sa.select(sa.func.max(t.events.c.sequence)).where(t.events.c.branch_id == branch_id)
    ).scalar()
    return int(found or 0)


def branch_events(
    connection: sa.Connection,
    branch_id: int,
    *,
    after: int,
    kinds: Collection[str] | None = None,
    limit: int = 100,
) -> EventBatch:
    """The events of a branch after sequence `after`, oldest first: at most `limit` are looked
    at, and those the `kinds` filter keeps are returned."""
    rows = connection.execute(
        sa.select(t.events.c.sequence, t.events.c.payload)
        .where(t.events.c.branch_id == branch_id, t.events.c.sequence > after)
        .order_by(t.events.c.sequence)
        .limit(limit)
    ).all()
    events = [document(row.sequence, row.payload) for row in rows]
    last = rows[-1].sequence if rows else after
    return EventBatch([event for event in events if passes(event, kinds)], int(last))


@dataclass(frozen=True)
class _Range:
    branch_id: int
    above: int
    upto: int


def _count(connection: sa.Connection, ranges: list[_Range]) -> int:
    total = 0
    for part in ranges:
        total += connection.execute(
            sa.select(sa.func.count())
            .select_from(t.revisions)
            .where(
                t.revisions.c.branch_id == part.branch_id,
                t.revisions.c.seq > part.above,
                t.revisions.c.seq <= part.upto,
            )
        ).scalar_one()
    return total


def _scan(
    connection: sa.Connection, ranges: list[_Range], *, newest_first: bool
) -> Iterator[dict[str, Any]]:
    """The revision events of the Revisions in `ranges` (given in the order to read them)."""
    for part in ranges:
        above, upto = part.above, part.upto
        while above < upto:
            seq = t.revisions.c.seq
            rows = connection.execute(
                sa.select(seq, t.events.c.sequence, t.events.c.payload)
                .select_from(t.revisions.join(t.events, t.events.c.revision_id == t.revisions.c.id))
                .where(
                    t.revisions.c.branch_id == part.branch_id,
                    seq > above,
                    seq <= upto,
                    t.events.c.type == REVISION_EVENT,
                )
                .order_by(seq.desc() if newest_first else seq)
                .limit(_CHUNK)
            ).all()
            if not rows:
                break
            for row in rows:
                yield document(row.sequence, row.payload)
            if newest_first:
                upto = rows[-1].seq - 1
            else:
                above = rows[-1].seq


def changes(
    connection: sa.Connection,
    view: View,
    *,
    since: str | None,
    kinds: Collection[str] | None,
    limit: int,
    max_scan: int,
    authorize: Authorize | None = None,
) -> ChangesPage:
    """The revision events of the first-parent Revisions of the view's branch after `since`
    (a Revision id, unique prefix or tag), oldest first; without `since` the latest ones.

    Raises:
        ResyncRequired: `since` is not on the branch's first-parent history, or more than
            `max_scan` Revisions behind its head.
        RevisionNotFound: no such Revision the caller may name.
    """
    history = view.history
    if since is None:
        ranges = [_Range(segment.branch_id, 0, segment.upto) for segment in history]
        latest: list[dict[str, Any]] = []
        for scanned, event in enumerate(_scan(connection, ranges, newest_first=True)):
            if scanned >= max_scan or len(latest) >= limit:
                break
            if passes(event, kinds):
                latest.append(event)
        return ChangesPage(latest[::-1], view.revision, False)
    revision = resolve_revision(connection, view.domain, since, visible_from(history, authorize))
    index = position_in(history, revision)
    if index is None:
        raise ResyncRequired(
            f"Revision {revision.id[:12]} is not on the first-parent history of branch "
            f"{view.branch.name!r}: {_RESYNC}",
            since=revision.id,
        )
    ranges = [
        _Range(segment.branch_id, revision.seq if position == index else 0, segment.upto)
        for position, segment in reversed(list(enumerate(history[: index + 1])))
    ]
    behind = _count(connection, ranges)
    if behind > max_scan:
        raise ResyncRequired(
            f"Revision {revision.id[:12]} is {behind} Revisions behind the head of branch "
            f"{view.branch.name!r}, more than agents.feed.max_scan ({max_scan}): {_RESYNC}",
            since=revision.id,
        )
    found: list[dict[str, Any]] = []
    last = revision.id
    for event in _scan(connection, ranges, newest_first=False):
        if len(found) >= limit:
            return ChangesPage(found, last, True)
        last = str(event["revision"])
        if passes(event, kinds):
            found.append(event)
    return ChangesPage(found, last, False)
