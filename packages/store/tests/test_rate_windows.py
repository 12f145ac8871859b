"""Shared rate windows: counted by one upsert each, exact under concurrent callers, pruned."""

from __future__ import annotations

import threading

from lorebase_platform import WindowLimiter
from lorebase_platform.settings import RateBucketSettings
from lorebase_store import RateWindows, Store

MINUTE = 29_000_000  # an epoch minute
START = MINUTE * 60.0 + 15  # 15 s into it, at 15 s past the minute (not at midnight)


class Wall:
    def __init__(self, now: float = START) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_each_increment_counts_one_in_its_own_window(store: Store) -> None:
    windows = RateWindows(store.engine)
    assert [windows.increment("usr_a", "reads", "m1", 100.0) for _ in range(3)] == [1, 2, 3]
    assert windows.increment("usr_a", "reads", "m2", 100.0) == 1
    assert windows.increment("usr_a", "writes", "m1", 100.0) == 1
    assert windows.increment("usr_b", "reads", "m1", 100.0) == 1
    assert windows.count("usr_a", "reads", "m1") == 3
    assert windows.count("usr_a", "reads", "m9") == 0


def test_concurrent_increments_see_distinct_counts(store: Store) -> None:
    # a window still current: the first increment's prune must not delete it from under the
    # other callers (with an expired one, counts restarted at 1 whenever it came late)
    windows = RateWindows(store.engine, wall=Wall(50.0))
    counts: list[int] = []
    start = threading.Barrier(4)

    def caller() -> None:
        start.wait()
        for _ in range(10):
            counts.append(windows.increment("usr_a", "reads", "m1", 100.0))

    threads = [threading.Thread(target=caller) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(counts) == list(range(1, 41))


def test_expired_windows_are_pruned_in_bounded_batches(store: Store) -> None:
    windows = RateWindows(store.engine, prune_batch=2, wall=Wall(1000.0))
    for period in ("m1", "m2", "m3"):
        windows.increment("usr_a", "reads", period, 500.0)  # expired
    windows.increment("usr_a", "reads", "m4", 2000.0)  # still current
    assert windows.prune() == 2
    assert windows.prune() == 1
    assert windows.prune() == 0
    assert windows.count("usr_a", "reads", "m4") == 1


def test_an_increment_prunes_now_and_then(store: Store) -> None:
    wall = Wall(1000.0)
    windows = RateWindows(store.engine, prune_interval_s=60, wall=wall)
    windows.increment("usr_a", "reads", "old", 1500.0)
    wall.now = 2000.0  # "old" has expired, and a prune is due
    windows.increment("usr_a", "reads", "new", 3000.0)
    assert windows.count("usr_a", "reads", "old") == 0
    windows.increment("usr_a", "reads", "older", 2010.0)
    wall.now = 2050.0  # expired, but the last prune was under a minute ago
    windows.increment("usr_a", "reads", "new", 3000.0)
    assert windows.count("usr_a", "reads", "older") == 1


def test_fixed_windows_allow_per_minute_and_ignore_burst(store: Store) -> None:
    wall = Wall()
    limiter = WindowLimiter(RateWindows(store.engine, wall=wall), wall=wall)
    limit = RateBucketSettings(per_minute=3, burst=1)
    answers = [limiter.charge("usr_a", "writes", limit) for _ in range(4)]
    assert [answer.allowed for answer in answers] == [True, True, True, False]
    assert [answer.remaining for answer in answers] == [2, 1, 0, 0]
    assert answers[0].policy == "3;w=60"
    assert (answers[3].reset_s, answers[3].retry_after_s, answers[3].which) == (45, 45, "rate")
    wall.now += 45  # the next minute
    assert limiter.charge("usr_a", "writes", limit).allowed


def test_fixed_windows_count_a_daily_quota(store: Store) -> None:
    wall = Wall()
    limiter = WindowLimiter(RateWindows(store.engine, wall=wall), wall=wall)
    limit = RateBucketSettings(per_minute=2, burst=1, per_day=3)
    assert limiter.charge("usr_a", "search", limit).allowed
    assert limiter.charge("usr_a", "search", limit).allowed
    assert not limiter.charge("usr_a", "search", limit).allowed  # the minute's, not counted
    wall.now += 60
    last = limiter.charge("usr_a", "search", limit)
    assert (last.allowed, last.which, last.remaining) == (True, "quota", 0)
    refused = limiter.charge("usr_a", "search", limit)
    assert (refused.allowed, refused.which, refused.limit) == (False, "quota", 3)
    assert refused.retry_after_s > 60
