"""The trace cap and pruning under concurrency: two OS processes (each with its own Store from the
URL) and two threads, on both backends. The cap holds exactly and steps are numbered without gaps
or repeats."""

from __future__ import annotations

import multiprocessing
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa

from lorebase_core.values import format_datetime
from lorebase_store import Store, TraceStep
from lorebase_store import tables as t
from lorebase_store.testing import write_trace_batches

START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
CAP = 500
PER_WRITER = 400
BATCH = 5


def steps_of(writer: int, count: int = PER_WRITER, session_id: str = "shared") -> list[TraceStep]:
    return [
        TraceStep(
            principal="usr_agent",
            session_id=session_id,
            client="c" * 64,
            domain=None,
            at=format_datetime(START + timedelta(milliseconds=index)),
            tool=f"writer-{writer}",
        )
        for index in range(count)
    ]


def assert_capped(store: Store, results: list[tuple[int, int]]) -> None:
    recorded = sum(r for r, _ in results)
    dropped = sum(d for _, d in results)
    assert (recorded, dropped) == (CAP, 2 * PER_WRITER - CAP)
    session = store.trace_session("usr_agent", "shared")
    assert session is not None
    assert [s.step for s in session.steps] == list(range(1, CAP + 1))
    with store.engine.connect() as connection:
        counted = connection.execute(sa.select(t.agent_trace_sessions.c.steps)).scalar_one()
    assert counted == CAP
    (summary,) = session.domains
    assert (summary.calls, summary.first_step, summary.last_step) == (CAP, 1, CAP)
    assert summary.tools == sorted({s.tool for s in session.steps if s.tool is not None})


def test_the_cap_holds_across_two_processes(database_url: str) -> None:
    store = Store.open(database_url)
    try:
        context = multiprocessing.get_context("spawn")
        start = context.Barrier(2)
        results = context.Queue()
        processes = [
            context.Process(
                target=write_trace_batches,
                args=(database_url, steps_of(writer)),
                kwargs={
                    "batch_size": BATCH,
                    "max_steps_per_session": CAP,
                    "start": start,
                    "results": results,
                },
            )
            for writer in range(2)
        ]
        for process in processes:
            process.start()
        found = [results.get(timeout=240) for _ in processes]
        for process in processes:
            process.join(timeout=60)
            assert process.exitcode == 0
        assert_capped(store, found)
    finally:
        store.close()


def test_the_cap_holds_across_two_threads(database_url: str) -> None:
    stores = [Store.open(database_url) for _ in range(2)]
    barrier = threading.Barrier(2)

    def work(writer: int) -> tuple[int, int]:
        barrier.wait(timeout=60)
        steps = steps_of(writer)
        recorded = dropped = 0
        for offset in range(0, len(steps), BATCH):
            written = stores[writer].write_trace(
                steps[offset : offset + BATCH], max_steps_per_session=CAP, inferred_idle_s=300
            )
            recorded += written.recorded
            dropped += written.session_full
        return recorded, dropped

    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            found = [f.result(timeout=240) for f in [pool.submit(work, i) for i in range(2)]]
        assert_capped(stores[0], found)
    finally:
        for store in stores:
            store.close()


def test_two_pruners_at_once_delete_each_step_once(database_url: str) -> None:
    stores = [Store.open(database_url) for _ in range(2)]
    try:
        for session in range(6):
            steps = steps_of(0, 600, session_id=f"s-{session}")
            stores[0].write_trace(steps, max_steps_per_session=CAP, inferred_idle_s=300)
        total = 6 * CAP
        barrier = threading.Barrier(2)

        def prune(index: int) -> int:
            barrier.wait(timeout=60)
            return stores[index].prune_trace(format_datetime(START + timedelta(hours=1)))

        with ThreadPoolExecutor(max_workers=2) as pool:
            deleted = [f.result(timeout=240) for f in [pool.submit(prune, i) for i in range(2)]]
        assert sum(deleted) == total
        with stores[0].engine.connect() as connection:
            for table in (
                t.agent_trace_steps,
                t.agent_trace_sessions,
                t.agent_trace_session_domains,
            ):
                count = sa.select(sa.func.count()).select_from(table)
                assert connection.execute(count).scalar_one() == 0
    finally:
        for store in stores:
            store.close()


def test_writers_and_a_pruner_at_once_keep_the_counts_right(database_url: str) -> None:
    # batches of several sessions, locked in id order by writers and pruner alike: no deadlock
    stores = [Store.open(database_url) for _ in range(3)]
    bound = format_datetime(START + timedelta(seconds=30))
    barrier = threading.Barrier(3)

    def write(writer: int) -> int:
        barrier.wait(timeout=60)
        recorded = 0
        for batch in range(40):
            steps = [
                TraceStep(
                    principal="usr_agent",
                    session_id=f"s-{(writer + offset) % 6}",
                    client="c" * 64,
                    domain=None,
                    at=format_datetime(START + timedelta(seconds=batch + offset)),
                )
                for offset in range(6)
            ]
            written = stores[writer].write_trace(
                steps, max_steps_per_session=CAP, inferred_idle_s=1
            )
            recorded += written.recorded
        return recorded

    def prune() -> int:
        barrier.wait(timeout=60)
        return sum(stores[2].prune_trace(bound) for _ in range(20))

    try:
        with ThreadPoolExecutor(max_workers=3) as pool:
            writers = [pool.submit(write, index) for index in range(2)]
            pruner = pool.submit(prune)
            recorded = sum(f.result(timeout=240) for f in writers)
            deleted = pruner.result(timeout=240)
        deleted += stores[2].prune_trace(bound)
        with stores[0].engine.connect() as connection:
            left = connection.execute(
                sa.select(sa.func.count()).select_from(t.agent_trace_steps)
            ).scalar_one()
            counted = connection.execute(
                sa.select(sa.func.sum(t.agent_trace_sessions.c.steps))
            ).scalar_one()
            calls = connection.execute(
                sa.select(sa.func.sum(t.agent_trace_session_domains.c.calls))
            ).scalar_one()
        assert recorded == 2 * 40 * 6
        assert left == recorded - deleted == counted == calls
    finally:
        for store in stores:
            store.close()


def test_concurrent_batches_of_one_client_share_one_inferred_session(database_url: str) -> None:
    # two Keepers writing the calls of one client at once: one session, not one each
    stores = [Store.open(database_url) for _ in range(2)]
    barrier = threading.Barrier(2)

    def write(writer: int) -> int:
        barrier.wait(timeout=60)
        recorded = 0
        for batch in range(50):
            steps = [
                TraceStep(
                    principal="usr_agent",
                    session_id=None,
                    client="c" * 64,
                    domain=None,
                    at=format_datetime(START + timedelta(seconds=batch * 2 + writer)),
                )
            ]
            written = stores[writer].write_trace(
                steps, max_steps_per_session=CAP, inferred_idle_s=5
            )
            recorded += written.recorded
        return recorded

    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            recorded = sum(f.result(timeout=240) for f in [pool.submit(write, i) for i in range(2)])
        assert recorded == 100
        with stores[0].engine.connect() as connection:
            sessions = connection.execute(
                sa.select(t.agent_trace_sessions.c.session_id, t.agent_trace_sessions.c.steps)
            ).all()
        assert [steps for _, steps in sessions] == [100]
    finally:
        for store in stores:
            store.close()
