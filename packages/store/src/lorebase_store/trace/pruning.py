"""Deleting old steps (keeper.trace.retention_days) in chunks, and the session rows with them.

Each chunk is one transaction: it takes up to `CHUNK` steps older than the bound (on PostgreSQL
`FOR UPDATE SKIP LOCKED`, so two pruners take different chunks), locks their session rows in id
order like the writer, deletes the steps, lowers the session counts by what it deleted and
recomputes their summaries from the steps left; rows left empty are deleted.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import sqlalchemy as sa

from lorebase_store import tables as t
from lorebase_store.engine import is_sqlite
from lorebase_store.trace.moments import stored

CHUNK = 1000
SESSIONS = t.agent_trace_sessions
STEPS = t.agent_trace_steps
SUMMARIES = t.agent_trace_session_domains


def prune_chunk(connection: sa.Connection, older_than: str, chunk: int = CHUNK) -> int | None:
    """Delete one chunk of steps with `at < older_than`: how many, None when none was left."""
    bound = stored(older_than)
    candidates = sa.select(STEPS.c.seq, STEPS.c.session_row).where(STEPS.c.at < bound)
    candidates = candidates.order_by(STEPS.c.seq).limit(chunk)
    if not is_sqlite(connection):
        candidates = candidates.with_for_update(skip_locked=True)
    found = connection.execute(candidates).all()
    if not found:
        return None
    deleted: dict[int, int] = defaultdict(int)
    for row in found:
        deleted[row.session_row] += 1
    sessions = {
        row["id"]: dict(row)
        for row in connection.execute(
            sa.select(SESSIONS)
            .where(SESSIONS.c.id.in_(sorted(deleted)))
            .order_by(SESSIONS.c.id)
            .with_for_update()
        ).mappings()
    }
    connection.execute(STEPS.delete().where(STEPS.c.seq.in_([row.seq for row in found])))
    for session_row in sorted(deleted):
        _lower(connection, sessions[session_row], deleted[session_row])
    return len(found)


def _lower(connection: sa.Connection, session: dict[str, Any], deleted: int) -> None:
    """Lower a session by `deleted` steps; recompute its summaries from the steps it keeps."""
    left = (
        connection.execute(
            sa.select(
                STEPS.c.step,
                STEPS.c.at,
                STEPS.c.type,
                STEPS.c.domain_id,
                STEPS.c.tool,
                STEPS.c.proposal_id,
            )
            .where(STEPS.c.session_row == session["id"])
            .order_by(STEPS.c.step)
        )
        .mappings()
        .all()
    )
    summaries = {
        row["domain_id"]: row["id"]
        for row in connection.execute(
            sa.select(SUMMARIES.c.id, SUMMARIES.c.domain_id).where(
                SUMMARIES.c.session_row == session["id"]
            )
        ).mappings()
    }
    groups: dict[int | None, list[Any]] = defaultdict(list)
    for row in left:
        groups[row["domain_id"]].append(row)
    for domain_id, summary_id in summaries.items():
        if domain_id not in groups:
            connection.execute(SUMMARIES.delete().where(SUMMARIES.c.id == summary_id))
        else:
            connection.execute(
                SUMMARIES.update()
                .where(SUMMARIES.c.id == summary_id)
                .values(**_summary_of(groups[domain_id]))
            )
    if not left:
        connection.execute(SESSIONS.delete().where(SESSIONS.c.id == session["id"]))
        return
    ats = [row["at"] for row in left]
    connection.execute(
        SESSIONS.update()
        .where(SESSIONS.c.id == session["id"])
        .values(
            steps=max(0, session["steps"] - deleted),
            first_at=min(ats),
            last_at=max(ats),
        )
    )


def _summary_of(steps: list[Any]) -> dict[str, Any]:
    proposals: list[str] = []
    for row in steps:
        if row["proposal_id"] is not None and row["proposal_id"] not in proposals:
            proposals.append(row["proposal_id"])
    calls = sum(1 for row in steps if row["type"] == "call")
    ats = [row["at"] for row in steps]
    return {
        "first_at": min(ats),
        "last_at": max(ats),
        "first_step": steps[0]["step"],
        "last_step": steps[-1]["step"],
        "calls": calls,
        "notes": len(steps) - calls,
        "tools": sorted({row["tool"] for row in steps if row["tool"] is not None}),
        "proposals": proposals,
    }
