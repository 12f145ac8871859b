"""Scribe's jobs as rows with leases: scheduling, taking, expiry, failures (both backends)."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest

from lorebase_store import Store
from lorebase_store import tables as t

KINDS = {"statistics_recount": True, "webhook_delivery": False, "webhook_prune": False}
T0 = datetime(2026, 12, 2, 1, 0, 0, tzinfo=UTC)


def later(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def test_schedule_makes_one_row_per_kind_and_per_domain_once(library: Store) -> None:
    assert library.jobs.schedule(KINDS, now=T0) == 3
    assert library.jobs.schedule(KINDS, now=later(5)) == 0  # rows already there stay as they are
    states = library.jobs.states()
    assert [(state.kind, state.domain) for state in states] == [
        ("statistics_recount", "library"),
        ("webhook_delivery", None),
        ("webhook_prune", None),
    ]
    assert {state.due_at for state in states} == {"2026-12-02T01:00:00.000000Z"}


def test_a_leased_job_is_not_taken_again_until_its_lease_expires(library: Store) -> None:
    library.jobs.schedule({"webhook_delivery": False}, now=T0)
    first = library.jobs.take("scribe-a", ["webhook_delivery"], lease_s=60, now=T0)
    assert first is not None
    assert first.domain is None
    assert first.attempts == 0
    assert library.jobs.take("scribe-b", ["webhook_delivery"], lease_s=60, now=later(59)) is None
    taken_over = library.jobs.take("scribe-b", ["webhook_delivery"], lease_s=60, now=later(61))
    assert taken_over is not None
    assert taken_over.id == first.id
    # the first Scribe outlived its lease: its finish changes nothing
    assert library.jobs.finish(first, interval_s=5, now=later(62)) is False
    assert library.jobs.states()[0].lease_owner == "scribe-b"
    assert library.jobs.finish(taken_over, interval_s=5, now=later(63)) is True
    state = library.jobs.states()[0]
    assert state.lease_owner is None
    assert state.last_run_at == "2026-12-02T01:01:03.000000Z"
    assert state.due_at == "2026-12-02T01:01:08.000000Z"
    assert library.jobs.take("scribe-a", ["webhook_delivery"], lease_s=60, now=later(67)) is None
    assert library.jobs.take("scribe-a", ["webhook_delivery"], lease_s=60, now=later(68))


def test_only_the_kinds_asked_for_are_taken(library: Store) -> None:
    library.jobs.schedule(KINDS, now=T0)
    job = library.jobs.take("scribe-a", ["statistics_recount"], lease_s=60, now=T0)
    assert job is not None
    assert (job.kind, job.domain) == ("statistics_recount", "library")
    assert library.jobs.take("scribe-a", ["statistics_recount"], lease_s=60, now=T0) is None


def test_a_failing_job_records_its_error_and_comes_back(library: Store) -> None:
    jobs = library.jobs
    jobs.schedule({"webhook_prune": False}, now=T0)
    moment = T0
    for attempt in range(1, 4):
        job = jobs.take("scribe-a", ["webhook_prune"], lease_s=60, now=moment)
        assert job is not None
        assert job.attempts == attempt - 1
        assert jobs.fail(job, "Boom: no table", retry_s=10, max_attempts=3, wait_s=600, now=moment)
        state = jobs.states()[0]
        assert (state.attempts, state.last_error, state.lease_owner) == (
            attempt,
            "Boom: no table",
            None,
        )
        moment += timedelta(seconds=10)
    # three failures in a row: it waits wait_s, not retry_s
    assert (
        jobs.take("scribe-a", ["webhook_prune"], lease_s=60, now=moment + timedelta(0, 500)) is None
    )
    job = jobs.take("scribe-a", ["webhook_prune"], lease_s=60, now=moment + timedelta(0, 600))
    assert job is not None
    assert job.attempts == 3
    assert jobs.finish(job, interval_s=60, now=moment + timedelta(0, 600))
    state = jobs.states()[0]
    assert (state.attempts, state.last_error) == (0, None)


def test_a_long_error_is_cut_to_the_column(library: Store) -> None:
    library.jobs.schedule({"webhook_prune": False}, now=T0)
    job = library.jobs.take("scribe-a", ["webhook_prune"], lease_s=60, now=T0)
    assert job is not None
    library.jobs.fail(job, "x" * 5000, retry_s=1, max_attempts=5, wait_s=60, now=T0)
    assert library.jobs.states()[0].last_error == "x" * 1000


def test_make_due_wakes_healthy_rows_only(library: Store) -> None:
    jobs = library.jobs
    jobs.schedule({"webhook_delivery": False, "webhook_prune": False}, now=T0)
    for kind in ("webhook_delivery", "webhook_prune"):
        job = jobs.take("scribe-a", [kind], lease_s=60, now=T0)
        assert job is not None
        if kind == "webhook_delivery":
            jobs.finish(job, interval_s=300, now=T0)
        else:
            jobs.fail(job, "Boom", retry_s=300, max_attempts=5, wait_s=600, now=T0)
    assert jobs.make_due("webhook_delivery", now=later(1)) == 1
    assert jobs.make_due("webhook_prune", now=later(1)) == 0  # a failing job keeps its wait
    assert jobs.take("scribe-a", ["webhook_delivery", "webhook_prune"], lease_s=60, now=later(1))
    assert jobs.take("scribe-a", ["webhook_prune"], lease_s=60, now=later(1)) is None


def test_two_scribes_never_hold_one_job_at_once(library: Store, database_url: str) -> None:
    kinds = {"one": False, "two": False, "three": False}
    library.jobs.schedule(kinds)
    held: dict[int, str] = {}
    taken: list[tuple[str, int]] = []
    overlaps: list[int] = []
    guard = threading.Lock()

    def scribe(owner: str) -> None:
        other = Store.open(database_url)
        try:
            for _ in range(40):
                job = other.jobs.take(owner, list(kinds), lease_s=60)
                if job is None:
                    continue
                with guard:
                    if job.id in held:
                        overlaps.append(job.id)
                    held[job.id] = owner
                    taken.append((owner, job.id))
                with guard:
                    del held[job.id]  # before the row is released: another may take it then
                assert other.jobs.finish(job, interval_s=0)
        finally:
            other.close()

    threads = [threading.Thread(target=scribe, args=(f"scribe-{n}",)) for n in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)
    assert overlaps == []
    assert len(taken) >= 40  # each Scribe found a job at least half of the time
    assert all(state.lease_owner is None for state in library.jobs.states())


def test_statistics_behind_says_when_a_recount_would_change_them(library: Store) -> None:
    assert library.statistics_behind("library") is False  # the import counted them
    with library.engine.begin() as connection:
        connection.execute(t.statistics.update().values(as_of="0" * 64))
    assert library.statistics_behind("library") is True
    library.recount_statistics("library")
    assert library.statistics_behind("library") is False


@pytest.mark.parametrize("kinds", [pytest.param([], id="no-kinds")])
def test_taking_no_kinds_takes_nothing(library: Store, kinds: list[str]) -> None:
    library.jobs.schedule(KINDS, now=T0)
    assert library.jobs.take("scribe-a", kinds, lease_s=60, now=T0) is None


def test_newest_event_is_where_a_commit_watch_starts(library: Store) -> None:
    events = library.events("library", limit=1000)
    assert library.jobs.newest_event() == max(event["sequence"] for event in events) > 0
