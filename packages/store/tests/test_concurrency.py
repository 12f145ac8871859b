"""Concurrent commits: all succeed, one after another, in a straight chain and in event order."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import pytest

from lorebase_core.changes import Origin, UpsertRecord
from lorebase_core.errors import StaleHead
from lorebase_store.commits.commit import CommitRequest
from lorebase_store.results import CommitResult, RevisionInfo
from lorebase_store.store import Store
from lorebase_store.testing import read_record

DOMAIN = "supply"
THREADS = 8
COMMITS_PER_THREAD = 5
SHARING = [pytest.param(False, id="a-store-per-thread"), pytest.param(True, id="one-shared-store")]
T = TypeVar("T")


def run_in_threads(count: int, work: Callable[[int, threading.Barrier], T]) -> list[T]:
    """Run `work(index, barrier)` in `count` threads that start together; re-raise any error."""
    barrier = threading.Barrier(count)
    with ThreadPoolExecutor(max_workers=count) as pool:
        futures = [pool.submit(work, index, barrier) for index in range(count)]
        return [future.result(timeout=300) for future in futures]


def part_of(thread: int) -> str:
    return f"P-{10011 + thread}"


def chain_of(store: Store, branch: str | None = None) -> list[RevisionInfo]:
    """A branch's first-parent Revisions, oldest first."""
    return list(reversed(store.log(DOMAIN, branch=branch, limit=10_000)))


def assert_straight_chain(chain: list[RevisionInfo]) -> None:
    for parent, child in itertools.pairwise(chain):
        assert child.parents == [parent.id], f"{child.message} does not follow {parent.message}"
        assert child.generation == parent.generation + 1


@pytest.mark.parametrize("shared", SHARING)
def test_concurrent_commits_to_one_branch_all_succeed_in_order(
    supply: Store, database_url: str, shared: bool
) -> None:
    before = chain_of(supply)

    def work(thread: int, barrier: threading.Barrier) -> list[CommitResult]:
        store = supply if shared else Store.open(database_url)
        try:
            barrier.wait(timeout=60)
            results = []
            for number in range(COMMITS_PER_THREAD):
                results.append(
                    store.commit(
                        CommitRequest(
                            domain=DOMAIN,
                            branch=None,
                            author=f"usr_thread_{thread}",
                            message=f"thread {thread} commit {number}",
                            origin=Origin("operation", "test"),
                        ),
                        [UpsertRecord("Part", part_of(thread), {"unit_cost": f"{number + 1}.00"})],
                    )
                )
            return results
        finally:
            if not shared:
                store.close()

    per_thread = run_in_threads(THREADS, work)
    total = THREADS * COMMITS_PER_THREAD
    results = [result for results in per_thread for result in results]
    assert all(result.revision is not None for result in results)
    assert len({result.revision.id for result in results if result.revision}) == total

    head = supply.branch(DOMAIN, "main")
    chain = chain_of(supply)
    assert len(chain) == len(before) + total
    assert chain[: len(before)] == before
    assert chain[-1].id == head.head_revision
    assert chain[-1].generation == len(before) + total
    assert_straight_chain(chain)

    # each thread's commits landed in the order it made them, each on the head it found
    position = {revision.id: index for index, revision in enumerate(chain)}
    for results_of_thread in per_thread:
        indexes = [position[result.revision.id] for result in results_of_thread if result.revision]
        assert indexes == sorted(indexes)
    for thread in range(THREADS):
        record = read_record(supply, DOMAIN, "Part", part_of(thread))
        assert record is not None
        assert record.values["unit_cost"] == f"{COMMITS_PER_THREAD}.00"

    # one event per commit, with sequences that strictly increase in commit order
    events = supply.events(DOMAIN, limit=1000)
    assert [event["revision"] for event in events] == [revision.id for revision in chain]
    sequences = [event["sequence"] for event in events]
    assert all(earlier < later for earlier, later in itertools.pairwise(sequences))
    by_revision = {
        result.revision.id: result.event_sequence for result in results if result.revision
    }
    assert [by_revision[revision.id] for revision in chain[len(before) :]] == sequences[
        len(before) :
    ]


@pytest.mark.parametrize("shared", SHARING)
def test_concurrent_commits_expecting_the_same_head_let_exactly_one_through(
    supply: Store, database_url: str, shared: bool
) -> None:
    expected = supply.branch(DOMAIN, "main").head_revision

    def work(thread: int, barrier: threading.Barrier) -> str:
        store = supply if shared else Store.open(database_url)
        try:
            barrier.wait(timeout=60)
            store.commit(
                CommitRequest(
                    domain=DOMAIN,
                    branch=None,
                    author=f"usr_thread_{thread}",
                    message=f"thread {thread}",
                    origin=Origin("operation", "test"),
                    expected_head=expected,
                ),
                [UpsertRecord("Part", part_of(thread), {"unit_cost": "7.00"})],
            )
        except StaleHead:
            return "stale"
        finally:
            if not shared:
                store.close()
        return "committed"

    outcomes = run_in_threads(THREADS, work)
    assert sorted(outcomes) == ["committed"] + ["stale"] * (THREADS - 1)
    [winner] = [thread for thread, outcome in enumerate(outcomes) if outcome == "committed"]
    head = supply.log(DOMAIN, limit=1)[0]
    assert (head.parents, head.message) == ([expected], f"thread {winner}")
    assert len(supply.events(DOMAIN)) == 5


def test_concurrent_commits_on_different_branches_keep_each_chain_straight(
    supply: Store, database_url: str
) -> None:
    fork = chain_of(supply)
    branches = [f"draft-{index}" for index in range(4)]
    for name in branches:
        supply.create_branch(DOMAIN, name, created_by="usr_tester")

    def work(index: int, barrier: threading.Barrier) -> None:
        store = Store.open(database_url)
        try:
            barrier.wait(timeout=60)
            for number in range(COMMITS_PER_THREAD):
                store.commit(
                    CommitRequest(
                        domain=DOMAIN,
                        branch=branches[index],
                        author="usr_tester",
                        message=f"{branches[index]} commit {number}",
                        origin=Origin("operation", "test"),
                    ),
                    [UpsertRecord("Part", "P-10001", {"unit_cost": f"{index}.{number}0"})],
                )
        finally:
            store.close()

    run_in_threads(len(branches), work)
    for index, name in enumerate(branches):
        chain = chain_of(supply, name)
        assert chain[: len(fork)] == fork
        assert [revision.branch for revision in chain[len(fork) :]] == [name] * COMMITS_PER_THREAD
        assert_straight_chain(chain)
        record = read_record(supply, DOMAIN, "Part", "P-10001", branch=name)
        assert record is not None
        assert record.values["unit_cost"] == f"{index}.{COMMITS_PER_THREAD - 1}0"
    assert chain_of(supply) == fork
    sequences = [event["sequence"] for event in supply.events(DOMAIN, limit=1000)]
    assert sequences == sorted(set(sequences))
    assert len(sequences) == len(fork) + len(branches) * COMMITS_PER_THREAD
