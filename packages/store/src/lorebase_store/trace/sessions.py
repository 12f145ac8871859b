"""Reading the trace: the session list (from the summaries only) and one session's timeline."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from lorebase_store import tables as t
from lorebase_store.rows import from_row
from lorebase_store.trace.domain_names import domain_ids, domain_names
from lorebase_store.trace.keyset import check_limit, decode_keyset, encode_keyset
from lorebase_store.trace.moments import shown
from lorebase_store.trace.steps import (
    SessionVisibility,
    StoredStep,
    TraceSession,
    TraceSessionPage,
    TraceSessionSummary,
)

SUMMARIES = t.agent_trace_session_domains
STEPS = t.agent_trace_steps
LIST = "trace sessions"


def trace_sessions(
    connection: sa.Connection,
    *,
    visibility: SessionVisibility,
    actor: str | None,
    domain: str | None,
    limit: int,
    cursor: str | None,
) -> TraceSessionPage:
    """Summaries the lister may see, newest `last_at` first (then newest row), `limit` a page."""
    check_limit(limit)
    conditions: list[sa.ColumnElement[bool]] = [_visible(connection, visibility)]
    if actor is not None:
        conditions.append(SUMMARIES.c.principal == actor)
    if domain is not None:
        found = domain_ids(connection, [domain])
        if domain not in found:
            return TraceSessionPage(sessions=[], next_cursor=None)
        conditions.append(SUMMARIES.c.domain_id == found[domain])
    if cursor is not None:
        last_at, row_id = decode_keyset(LIST, cursor, (str, int))
        conditions.append(
            sa.or_(
                SUMMARIES.c.last_at < last_at,
                sa.and_(SUMMARIES.c.last_at == last_at, SUMMARIES.c.id < row_id),
            )
        )
    rows = (
        connection.execute(
            sa.select(SUMMARIES)
            .where(*conditions)
            .order_by(SUMMARIES.c.last_at.desc(), SUMMARIES.c.id.desc())
            .limit(limit + 1)
        )
        .mappings()
        .all()
    )
    page = rows[:limit]
    names = domain_names(connection, (row["domain_id"] for row in page))
    next_cursor = None
    if len(rows) > limit:
        next_cursor = encode_keyset(LIST, [page[-1]["last_at"], page[-1]["id"]])
    return TraceSessionPage(
        sessions=[_summary(row, names) for row in page], next_cursor=next_cursor
    )


def _visible(connection: sa.Connection, visibility: SessionVisibility) -> sa.ColumnElement[bool]:
    """Own summaries, others' in the Domains allowed, others' outside any Domain if allowed."""
    others: list[sa.ColumnElement[bool]] = []
    if visibility.others_in is None:
        others.append(SUMMARIES.c.domain_id.is_not(None))
    elif visibility.others_in:
        ids = sorted(domain_ids(connection, visibility.others_in).values())
        if ids:
            others.append(SUMMARIES.c.domain_id.in_(ids))
    if visibility.others_outside:
        others.append(SUMMARIES.c.domain_id.is_(None))
    own = SUMMARIES.c.principal == visibility.own
    if not others:
        return own
    return sa.or_(own, sa.or_(*others))


def _domain_name(row: Any, names: dict[int, str]) -> str | None:
    return names.get(row["domain_id"]) if row["domain_id"] is not None else None


def _summary(row: Any, names: dict[int, str]) -> TraceSessionSummary:
    return from_row(
        TraceSessionSummary,
        row,
        inferred=bool(row["inferred"]),
        domain=_domain_name(row, names),
        first_at=shown(row["first_at"]),
        last_at=shown(row["last_at"]),
        tools=list(row["tools"]),
        proposals=list(row["proposals"]),
    )


def trace_session(
    connection: sa.Connection, principal: str, session_id: str
) -> TraceSession | None:
    """The timeline of `principal`'s session `session_id` (None: no such session)."""
    sessions = t.agent_trace_sessions
    found = sa.select(sessions).where(
        sessions.c.principal == principal, sessions.c.session_id == session_id
    )
    session = connection.execute(found).mappings().first()
    if session is None:
        return None
    steps_q = sa.select(STEPS).where(STEPS.c.session_row == session["id"]).order_by(STEPS.c.step)
    steps = connection.execute(steps_q).mappings().all()
    summaries_q = (
        sa.select(SUMMARIES)
        .where(SUMMARIES.c.session_row == session["id"])
        .order_by(SUMMARIES.c.first_step)
    )
    summaries = connection.execute(summaries_q).mappings().all()
    names = domain_names(
        connection, [*(row["domain_id"] for row in steps), *(r["domain_id"] for r in summaries)]
    )
    return TraceSession(
        session_id=session["session_id"],
        principal=session["principal"],
        inferred=bool(session["inferred"]),
        first_at=shown(session["first_at"]),
        last_at=shown(session["last_at"]),
        steps=[_stored_step(row, names) for row in steps],
        domains=[_summary(row, names) for row in summaries],
    )


def _stored_step(row: Any, names: dict[int, str]) -> StoredStep:
    return from_row(StoredStep, row, at=shown(row["at"]), domain=_domain_name(row, names))
