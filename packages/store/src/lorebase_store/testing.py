"""Helpers for tests that commit to a store (Lorebase's own and those of code built on it)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa

from lorebase_core.changes import Change, Origin
from lorebase_store.commits.commit import CommitRequest
from lorebase_store.reads.history import encode_cursor
from lorebase_store.results import HistoryPage, Lineage, LinkVersion, RecordVersion, RevisionInfo
from lorebase_store.store import Store

TEST_ORIGIN = Origin("operation", "test")


def change_request(
    message: str = "test change",
    *,
    domain: str = "supply",
    branch: str | None = None,
    author: str = "usr_tester",
    origin: Origin = TEST_ORIGIN,
    **options: Any,
) -> CommitRequest:
    """A CommitRequest for a test's change set (origin: an Operation by default)."""
    return CommitRequest(
        domain=domain, branch=branch, author=author, message=message, origin=origin, **options
    )


def commit_changes(store: Store, changes: Iterable[Change], **options: Any) -> RevisionInfo:
    """Commit `changes` and return the Revision they made (there must be one)."""
    result = store.commit(change_request(**options), changes)
    assert result.revision is not None, "the changes made no Revision"
    return result.revision


# -- one read each, in its own read transaction (what a test checks after a write) ---------------
def read_record(
    store: Store,
    domain: str,
    kind: str,
    key: str,
    *,
    branch: str | None = None,
    at: str | None = None,
) -> RecordVersion | None:
    """The visible version of one Record (None: it does not exist there)."""
    with store.reader(domain, branch=branch, at=at) as reader:
        return reader.get_record(kind, key)


def read_records(
    store: Store,
    domain: str,
    kind: str,
    *,
    branch: str | None = None,
    at: str | None = None,
    limit: int = 100,
    after_key: str | None = None,
) -> list[RecordVersion]:
    """The Records of a Kind in key order."""
    with store.reader(domain, branch=branch, at=at) as reader:
        return reader.records(kind, limit=limit, after_key=after_key)


def read_count(
    store: Store, domain: str, kind: str, *, branch: str | None = None, at: str | None = None
) -> int:
    """How many Records of a Kind there are."""
    with store.reader(domain, branch=branch, at=at) as reader:
        return reader.count(kind)


def read_links(
    store: Store,
    domain: str,
    relation: str,
    *,
    from_key: str | None = None,
    to_key: str | None = None,
    branch: str | None = None,
    at: str | None = None,
    limit: int = 1000,
) -> list[LinkVersion]:
    """The Links of a Relation, optionally from or to one key."""
    with store.reader(domain, branch=branch, at=at) as reader:
        return reader.links(relation, from_key=from_key, to_key=to_key, limit=limit)


def read_history(
    store: Store,
    domain: str,
    kind: str,
    key: str,
    *,
    branch: str | None = None,
    at: str | None = None,
    limit: int = 50,
    cursor: str | None = None,
    with_values: bool = False,
) -> HistoryPage:
    """One page of a Record's history, newest first."""
    with store.reader(domain, branch=branch, at=at) as reader:
        return reader.history(kind, key, limit=limit, cursor=cursor, with_values=with_values)


def read_lineage(
    store: Store,
    domain: str,
    kind: str,
    key: str,
    *,
    branch: str | None = None,
    at: str | None = None,
    count_max: int = 1000,
) -> Lineage:
    """Where each Attribute value of a Record came from."""
    with store.reader(domain, branch=branch, at=at) as reader:
        return reader.lineage(kind, key, count_max=count_max)


def history_cursor(ref: str, position: int, revision: str | None) -> str:
    """A history cursor as the store writes them (for tests that forge one)."""
    return encode_cursor(ref, position, revision)


@contextmanager
def statements_run(store: Store) -> Iterator[list[str]]:
    """The SQL statements the store's engine runs meanwhile (to bound what a request costs)."""
    seen: list[str] = []

    def count(
        _connection: Any, _cursor: Any, statement: str, _parameters: Any, *_rest: Any
    ) -> None:
        seen.append(statement)

    sa.event.listen(store.engine, "before_cursor_execute", count)
    try:
        yield seen
    finally:
        sa.event.remove(store.engine, "before_cursor_execute", count)


def write_trace_batches(
    url: str,
    steps: list[Any],
    *,
    batch_size: int,
    max_steps_per_session: int,
    start: Any,
    results: Any,
) -> None:
    """Write `steps` in batches from a Store of its own (a process of a concurrency test).

    It waits at the `start` barrier, then puts `(recorded, session_full)` on `results`; a
    module-level function so that multiprocessing's spawn context can start it.
    """
    store = Store.open(url)
    try:
        start.wait(timeout=60)
        recorded = dropped = 0
        for offset in range(0, len(steps), batch_size):
            written = store.write_trace(
                steps[offset : offset + batch_size],
                max_steps_per_session=max_steps_per_session,
                inferred_idle_s=300.0,
            )
            recorded += written.recorded
            dropped += written.session_full
        results.put((recorded, dropped))
    finally:
        store.close()


def trace_consistency(store: Store) -> dict[str, int]:
    """Check every trace session row against its steps and summaries; steps per session id.

    Each session row counts its steps, numbered 1..n, and its summaries add up to them. Tests
    of a Keeper killed mid-batch or of concurrent writers use it: nothing half-written stays.
    """
    from lorebase_store import tables as t

    counts: dict[str, int] = {}
    with store.engine.connect() as connection:
        sessions = connection.execute(sa.select(t.agent_trace_sessions)).mappings().all()
        for session in sessions:
            numbers = (
                connection.execute(
                    sa.select(t.agent_trace_steps.c.step)
                    .where(t.agent_trace_steps.c.session_row == session["id"])
                    .order_by(t.agent_trace_steps.c.step)
                )
                .scalars()
                .all()
            )
            assert list(numbers) == list(range(1, len(numbers) + 1)), session["session_id"]
            assert session["steps"] == len(numbers), session["session_id"]
            summaries = connection.execute(
                sa.select(
                    t.agent_trace_session_domains.c.calls, t.agent_trace_session_domains.c.notes
                ).where(t.agent_trace_session_domains.c.session_row == session["id"])
            ).all()
            assert sum(row.calls + row.notes for row in summaries) == len(numbers)
            counts[session["session_id"]] = counts.get(session["session_id"], 0) + len(numbers)
    return counts


def age_session(store: Store, session_id: str, **ages: timedelta) -> None:
    """Move stamps of a browser session into the past (`last_seen_at=timedelta(hours=9)`), so
    that expiry is tested without waiting."""
    from lorebase_core.sessions import session_digest
    from lorebase_core.values import format_datetime
    from lorebase_store import tables as t

    now = datetime.now(UTC)
    with store.engine.begin() as connection:
        connection.execute(
            t.auth_sessions.update()
            .where(t.auth_sessions.c.id_digest == session_digest(session_id))
            .values({column: format_datetime(now - age) for column, age in ages.items()})
        )


def session_rows(store: Store) -> list[dict[str, Any]]:
    """Every row of auth_sessions (revoked and expired ones too)."""
    from lorebase_store import tables as t

    with store.engine.connect() as connection:
        return [dict(row) for row in connection.execute(sa.select(t.auth_sessions)).mappings()]


def every_row(store: Store) -> dict[str, list[str]]:
    """Every row of every table, to show that a refused request wrote nothing anywhere."""
    from lorebase_store import tables as t

    with store.engine.connect() as connection:
        return {
            table.name: sorted(repr(tuple(row)) for row in connection.execute(sa.select(table)))
            for table in t.metadata.sorted_tables
        }
