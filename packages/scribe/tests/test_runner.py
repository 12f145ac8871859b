"""The runner: a pass runs every due job once, failures are recorded, `run` stops when asked."""

from __future__ import annotations

import logging
import threading
import time

import pytest

from lorebase_core.changes import UpsertRecord
from lorebase_platform.settings import Settings
from lorebase_scribe import KINDS, JobContext, JobKind, Scribe
from lorebase_store import Store, create_store_engine
from lorebase_store import tables as t
from lorebase_store.testing import commit_changes


def scribe_settings(**jobs: bool) -> Settings:
    """Settings with only the jobs named enabled (the others off)."""
    settings = Settings()
    for name in KINDS:
        getattr(settings.scribe.jobs, name).enabled = jobs.get(name, False)
    settings.scribe.idle_sleep_s = 0.05
    return settings


def make_behind(store: Store, domain: str) -> None:
    """Statistics that describe no head: coverage of the domain reads `approximate`."""
    with store.engine.begin() as connection:
        connection.execute(t.statistics.update().values(as_of="0" * 64))


def test_a_pass_recounts_statistics_that_are_behind_and_only_those(library: Store) -> None:
    make_behind(library, "library")
    scribe = Scribe(library, scribe_settings(statistics_recount=True))
    [outcome] = scribe.run_once()
    assert (outcome.kind, outcome.domain, outcome.outcome) == (
        "statistics_recount",
        "library",
        "done",
    )
    assert outcome.summary.startswith("recounted at ")
    assert library.statistics_behind("library") is False
    assert scribe.run_once() == []  # due again only after its interval
    library.jobs.make_due("statistics_recount")
    [again] = scribe.run_once()
    assert again.summary == "current"  # nothing to count: the statistics describe the head


def test_a_commit_after_statistics_fell_behind_is_counted_by_the_next_pass(
    library: Store,
) -> None:
    make_behind(library, "library")
    added = UpsertRecord("Author", "A-999", {"name": "Scribe Test"})
    head = commit_changes(library, [added], domain="library")
    assert library.statistics_behind("library") is True
    Scribe(library, scribe_settings(statistics_recount=True)).run_once()
    assert library.statistics_behind("library") is False
    with library.reader("library") as reader:
        counted = reader.statistics()
    assert counted is not None
    assert counted.as_of == head.id


def test_a_failing_job_is_recorded_without_its_message_and_comes_back(
    library: Store, caplog: pytest.LogCaptureFixture
) -> None:
    def failing(_context: JobContext, _domain: str | None) -> str:
        raise KeyError("a value that must not be kept")

    kinds = {"webhook_prune": JobKind("webhook_prune", False, failing)}
    settings = scribe_settings(webhook_prune=True)
    settings.scribe.jobs.webhook_prune.interval_s = 0.01
    scribe = Scribe(library, settings, kinds=kinds)
    with caplog.at_level(logging.INFO, logger="lorebase.scribe"):
        [outcome] = scribe.run_once()
    assert outcome.outcome == "failed"
    assert outcome.summary.startswith("KeyError at test_runner.py:")
    [state] = library.jobs.states()
    assert (state.attempts, state.last_error) == (1, outcome.summary)
    assert "must not be kept" not in caplog.text
    assert "job webhook_prune domain=- outcome=failed" in caplog.text
    time.sleep(0.02)  # the job's interval: it is due again
    [second] = scribe.run_once()
    assert second.outcome == "failed"
    assert library.jobs.states()[0].attempts == 2


def test_a_delivery_pass_with_nothing_to_deliver_is_done(library: Store) -> None:
    [outcome] = Scribe(library, scribe_settings(webhook_delivery=True)).run_once()
    assert (outcome.kind, outcome.outcome, outcome.summary) == (
        "webhook_delivery",
        "done",
        "nothing due",
    )


def test_a_prune_pass_is_done(library: Store) -> None:
    [outcome] = Scribe(library, scribe_settings(webhook_prune=True)).run_once()
    assert (outcome.outcome, outcome.summary) == ("done", "deleted 0 deliveries")


def last_run(store: Store, kind: str) -> str | None:
    runs = [state.last_run_at for state in store.jobs.states() if state.kind == kind]
    return runs[0] if runs else None  # None too before the first pass made the row


def test_a_commit_wakes_an_idle_scribe_for_its_deliveries(library: Store) -> None:
    settings = scribe_settings(webhook_delivery=True)
    settings.scribe.idle_sleep_s = 60
    settings.scribe.jobs.webhook_delivery.interval_s = 3600
    settings.agents.feed.poll_interval_s = 0.05
    scribe = Scribe(library, settings)
    worker = threading.Thread(target=scribe.run)
    worker.start()
    try:
        deadline = time.monotonic() + 20
        while (first := last_run(library, "webhook_delivery")) is None:
            assert time.monotonic() < deadline, "the first pass did not run"
            time.sleep(0.02)
        added = UpsertRecord("Author", "A-998", {"name": "Woken Author"})
        commit_changes(library, [added], domain="library")
        # neither the interval (an hour) nor the idle wait (a minute) can run it within 20 s
        while last_run(library, "webhook_delivery") == first:
            assert time.monotonic() < deadline + 20, "the commit did not wake Scribe"
            time.sleep(0.02)
    finally:
        scribe.request_stop()
        worker.join(10)
    assert not worker.is_alive()


def test_disabled_jobs_get_no_rows(library: Store) -> None:
    assert Scribe(library, scribe_settings()).run_once() == []
    assert library.jobs.states() == []


def test_run_stops_when_asked_after_the_running_job(library: Store) -> None:
    started = threading.Event()
    release = threading.Event()
    finished: list[str] = []

    def slow(_context: JobContext, _domain: str | None) -> str:
        started.set()
        release.wait(10)
        finished.append("done")
        return "done"

    kinds = {"webhook_prune": JobKind("webhook_prune", False, slow)}
    scribe = Scribe(library, scribe_settings(webhook_prune=True), kinds=kinds)
    worker = threading.Thread(target=scribe.run)
    worker.start()
    assert started.wait(10)
    scribe.request_stop()
    release.set()
    worker.join(10)
    assert not worker.is_alive()
    assert finished == ["done"]
    [state] = library.jobs.states()
    assert state.lease_owner is None  # finished and released, not abandoned
    assert state.last_run_at is not None


def test_an_idle_run_stops_at_once(library: Store) -> None:
    settings = scribe_settings()
    settings.scribe.idle_sleep_s = 60
    scribe = Scribe(library, settings)
    worker = threading.Thread(target=scribe.run)
    worker.start()
    scribe.request_stop()
    worker.join(5)
    assert not worker.is_alive()


def test_a_store_that_cannot_be_reached_ends_the_pass_not_the_scribe(
    caplog: pytest.LogCaptureFixture,
) -> None:
    unreachable = Store(create_store_engine("postgresql://nobody@127.0.0.1:1/nothing"))
    settings = scribe_settings(statistics_recount=True)
    scribe = Scribe(unreachable, settings)
    worker = threading.Thread(target=scribe.run)
    with caplog.at_level(logging.WARNING, logger="lorebase.scribe"):
        worker.start()
        deadline = time.monotonic() + 20
        while caplog.text.count("pass failed") < 2:  # it went on after the first failure
            assert time.monotonic() < deadline, caplog.text
            time.sleep(0.02)
        scribe.request_stop()
        worker.join(10)
    assert not worker.is_alive()
    assert "OperationalError" in caplog.text
    unreachable.close()
