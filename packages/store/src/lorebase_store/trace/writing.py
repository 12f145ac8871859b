"""Writing a batch of steps: one transaction, the cap counted under each session row's lock.

Per (principal, session) the session row is created if needed and locked before its count is
read: PostgreSQL `INSERT ... ON CONFLICT DO NOTHING` then `SELECT ... FOR UPDATE` (rows locked in
id order, so two writers, or a writer and the pruner, never wait on each other in a circle);
SQLite holds its write lock from the transaction's first statement. Inferred sessions of one
client are placed under an advisory lock of that client on PostgreSQL, so two Keepers do not
start two sessions for calls that belong in one.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from lorebase_store import tables as t
from lorebase_store.engine import is_sqlite
from lorebase_store.trace.domain_names import domain_ids
from lorebase_store.trace.inferred import Window, place
from lorebase_store.trace.moments import moment, shifted, stored
from lorebase_store.trace.steps import TraceStep, TraceWritten

S = t.agent_trace_sessions
SUMMARIES = t.agent_trace_session_domains
SessionKey = tuple[str, str]  # (principal, session_id)


@dataclass
class _Session:
    """The steps of one batch that go to one session, by their index in the batch."""

    principal: str
    session_id: str
    inferred: bool
    client: str | None
    indexes: list[int] = field(default_factory=list)


def write_trace(
    connection: sa.Connection,
    steps: Sequence[TraceStep],
    *,
    max_steps_per_session: int,
    inferred_idle_s: float,
) -> TraceWritten:
    """Write `steps` (queue order); steps past a session's cap are dropped and counted."""
    if not steps or max_steps_per_session < 1:
        return TraceWritten(recorded=0, session_full=len(steps))
    # time stamps in the stored form from here on: min and max of the strings are the instants'
    steps = [replace(step, at=stored(step.at)) for step in steps]
    sessions = _explicit_sessions(steps)
    sessions.update(_inferred_sessions(connection, steps, timedelta(seconds=inferred_idle_s)))
    rows = _lock_sessions(connection, steps, sessions)
    domains = domain_ids(connection, (step.domain for step in steps))
    summaries = _summaries_of(connection, [row["id"] for row in rows.values()])
    last_numbers: dict[int, int] = defaultdict(int)
    for summary in summaries.values():
        row_id = summary["session_row"]
        last_numbers[row_id] = max(last_numbers[row_id], summary["last_step"])
    written: list[tuple[int, dict[str, Any]]] = []
    numbered: dict[int, list[tuple[int, TraceStep]]] = defaultdict(list)
    dropped = 0
    for key in sorted(sessions, key=lambda k: rows[k]["id"]):
        session, row = sessions[key], rows[key]
        kept = _kept(session, row, max_steps_per_session)
        dropped += len(session.indexes) - len(kept)
        if not kept:
            continue
        # after the count: the pruner lowers the count, never the numbers still kept
        last = max(row["steps"], last_numbers[row["id"]])
        for number, index in enumerate(kept, start=last + 1):
            numbered[row["id"]].append((number, steps[index]))
            written.append((index, _step_row(row["id"], number, steps[index], domains)))
        ats = [steps[index].at for index in kept]
        connection.execute(
            S.update()
            .where(S.c.id == row["id"])
            .values(
                steps=row["steps"] + len(kept),
                first_at=min(row["first_at"], *ats),
                last_at=max(row["last_at"], *ats),
            )
        )
    if written:
        written.sort(key=lambda pair: pair[0])  # seq in queue order
        connection.execute(t.agent_trace_steps.insert(), [values for _, values in written])
        _summarize(connection, numbered, rows, summaries, domains)
    return TraceWritten(recorded=len(written), session_full=dropped)


def _kept(session: _Session, row: dict[str, Any], max_steps_per_session: int) -> list[int]:
    """The steps of the batch that fit in the session, the first ones in queue order."""
    if row["inferred"] != session.inferred:
        # an explicit id naming an inferred session (or the reverse) never joins it
        return []
    return session.indexes[: max(0, max_steps_per_session - row["steps"])]


def _explicit_sessions(steps: Sequence[TraceStep]) -> dict[SessionKey, _Session]:
    sessions: dict[SessionKey, _Session] = {}
    for index, step in enumerate(steps):
        if step.session_id is None:
            continue
        key = (step.principal, step.session_id)
        if key not in sessions:
            sessions[key] = _Session(step.principal, step.session_id, False, None)
        sessions[key].indexes.append(index)
    return sessions


def _inferred_sessions(
    connection: sa.Connection, steps: Sequence[TraceStep], idle: timedelta
) -> dict[SessionKey, _Session]:
    """Place the steps without a session id in the sessions of their clients."""
    by_client: dict[tuple[str, str], list[int]] = defaultdict(list)
    for index, step in enumerate(steps):
        if step.session_id is None:
            by_client[(step.principal, step.client)].append(index)
    sessions: dict[SessionKey, _Session] = {}
    for principal, client in sorted(by_client):
        indexes = by_client[(principal, client)]
        if not is_sqlite(connection):
            connection.execute(
                sa.select(sa.func.pg_advisory_xact_lock(_client_lock(principal, client)))
            )
        ats = [steps[index].at for index in indexes]
        windows = _windows(connection, principal, client, min(ats), max(ats), idle)
        placed = place(windows, [moment(at) for at in ats], idle)
        for index, window in zip(indexes, placed, strict=True):
            key = (principal, window.session_id)
            if key not in sessions:
                sessions[key] = _Session(principal, window.session_id, True, client)
            sessions[key].indexes.append(index)
    return sessions


def _client_lock(principal: str, client: str) -> int:
    digest = hashlib.sha256(f"lorebase-trace\n{principal}\n{client}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def _windows(
    connection: sa.Connection, principal: str, client: str, first: str, last: str, idle: timedelta
) -> list[Window]:
    """The client's inferred sessions that may hold a moment between `first` and `last`."""
    rows = connection.execute(
        sa.select(S.c.id, S.c.session_id, S.c.first_at, S.c.last_at).where(
            S.c.principal == principal,
            S.c.client == client,
            S.c.inferred.is_(True),
            S.c.last_at >= shifted(first, -idle),
            S.c.first_at <= shifted(last, idle),
        )
    )
    return [
        Window(
            session_id=row.session_id,
            row=row.id,
            first=moment(row.first_at),
            last=moment(row.last_at),
        )
        for row in rows
    ]


def _lock_sessions(
    connection: sa.Connection, steps: Sequence[TraceStep], sessions: dict[SessionKey, _Session]
) -> dict[SessionKey, dict[str, Any]]:
    """Every session row of the batch, created when missing and locked, by session key.

    A row the pruner deletes between its creation and its lock is created again.
    """
    rows: dict[SessionKey, dict[str, Any]] = {}
    missing = sorted(sessions)
    while missing:
        for key in missing:
            session = sessions[key]
            at = steps[session.indexes[0]].at
            connection.execute(
                _insert_ignoring_conflict(connection).values(
                    session_id=session.session_id,
                    principal=session.principal,
                    inferred=session.inferred,
                    client=session.client,
                    steps=0,
                    first_at=at,
                    last_at=at,
                )
            )
        ids = connection.execute(
            sa.select(S.c.id).where(
                sa.or_(*(sa.and_(S.c.principal == p, S.c.session_id == s) for p, s in missing))
            )
        ).scalars()
        locked = connection.execute(
            sa.select(S).where(S.c.id.in_(list(ids))).order_by(S.c.id).with_for_update()
        ).mappings()
        for row in locked:
            rows[(row["principal"], row["session_id"])] = dict(row)
        missing = [key for key in missing if key not in rows]
    return rows


def _insert_ignoring_conflict(connection: sa.Connection) -> Any:
    if is_sqlite(connection):
        return sqlite.insert(S).on_conflict_do_nothing(index_elements=["principal", "session_id"])
    return postgresql.insert(S).on_conflict_do_nothing(index_elements=["principal", "session_id"])


def _step_row(
    session_row: int, number: int, step: TraceStep, domains: dict[str, int]
) -> dict[str, Any]:
    return {
        "session_row": session_row,
        "domain_id": domains.get(step.domain) if step.domain is not None else None,
        "step": number,
        "type": step.type,
        "at": step.at,
        **step.details(),
    }


def _summarize(
    connection: sa.Connection,
    numbered: dict[int, list[tuple[int, TraceStep]]],
    rows: dict[SessionKey, dict[str, Any]],
    existing: dict[tuple[int, int | None], dict[str, Any]],
    domains: dict[str, int],
) -> None:
    """Fold the steps written into the summaries per session and Domain (under the row lock)."""
    by_row = {row["id"]: row for row in rows.values()}
    groups: dict[tuple[int, int | None], list[tuple[int, TraceStep]]] = defaultdict(list)
    for session_row, written in numbered.items():
        for number, step in written:
            domain_id = domains.get(step.domain) if step.domain is not None else None
            groups[(session_row, domain_id)].append((number, step))
    for (session_row, domain_id), written in sorted(groups.items(), key=_group_order):
        summary = existing.get((session_row, domain_id))
        values = _folded(summary, written)
        if summary is not None:
            connection.execute(
                SUMMARIES.update().where(SUMMARIES.c.id == summary["id"]).values(**values)
            )
            continue
        session = by_row[session_row]
        connection.execute(
            SUMMARIES.insert().values(
                session_row=session_row,
                domain_id=domain_id,
                session_id=session["session_id"],
                principal=session["principal"],
                inferred=session["inferred"],
                **values,
            )
        )


def _summaries_of(
    connection: sa.Connection, session_rows: list[int]
) -> dict[tuple[int, int | None], dict[str, Any]]:
    """The summary rows of locked sessions, by (session row, Domain id)."""
    return {
        (row["session_row"], row["domain_id"]): dict(row)
        for row in connection.execute(
            sa.select(SUMMARIES).where(SUMMARIES.c.session_row.in_(sorted(session_rows)))
        ).mappings()
    }


def _group_order(item: tuple[tuple[int, int | None], Any]) -> tuple[int, int]:
    (session_row, domain_id), _ = item
    return (session_row, -1 if domain_id is None else domain_id)


def _folded(summary: dict[str, Any] | None, written: list[tuple[int, TraceStep]]) -> dict[str, Any]:
    numbers = [number for number, _ in written]
    ats = [step.at for _, step in written]
    tools = {step.tool for _, step in written if step.tool is not None}
    proposals = list(summary["proposals"]) if summary else []
    for _, step in written:
        if step.proposal_id is not None and step.proposal_id not in proposals:
            proposals.append(step.proposal_id)
    calls = sum(1 for _, step in written if step.type == "call")
    notes = len(written) - calls
    if summary is None:
        return {
            "first_at": min(ats),
            "last_at": max(ats),
            "first_step": min(numbers),
            "last_step": max(numbers),
            "calls": calls,
            "notes": notes,
            "tools": sorted(tools),
            "proposals": proposals,
        }
    return {
        "first_at": min(summary["first_at"], *ats),
        "last_at": max(summary["last_at"], *ats),
        "first_step": min(summary["first_step"], *numbers),
        "last_step": max(summary["last_step"], *numbers),
        "calls": summary["calls"] + calls,
        "notes": summary["notes"] + notes,
        "tools": sorted(tools | set(summary["tools"])),
        "proposals": proposals,
    }
