"""The limiter primitive: token buckets with an injected clock, daily quotas, the LRU bound."""

from __future__ import annotations

import threading

import pytest

from lorebase_platform import RateLimiter
from lorebase_platform.rate_limits import policy_of, seconds_to_utc_midnight
from lorebase_platform.settings import RateBucketSettings

NOON = 20_000 * 86_400 + 12 * 3600  # an epoch time at 12:00 UTC


class Clock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def limiter(clock: Clock, wall: Clock | None = None, **options: int) -> RateLimiter:
    return RateLimiter(clock=clock, wall=wall or Clock(NOON), **options)


def test_a_bucket_allows_its_burst_then_refills_at_per_minute_over_60() -> None:
    clock = Clock()
    limits = limiter(clock)
    limit = RateBucketSettings(per_minute=60, burst=3)  # one token a second
    answers = [limits.charge("usr_a", "reads", limit) for _ in range(4)]
    assert [answer.allowed for answer in answers] == [True, True, True, False]
    assert [answer.remaining for answer in answers] == [2, 1, 0, 0]
    assert answers[0].limit == 60
    assert answers[0].policy == "60;w=60;burst=3"
    # two tokens are missing: full in 2 s; refused: one token in 1 s
    assert (answers[0].reset_s, answers[0].retry_after_s) == (1, 0)
    assert (answers[3].reset_s, answers[3].retry_after_s, answers[3].which) == (3, 1, "rate")

    clock.now += 0.5  # half a token: still refused, and the refusal took nothing
    refused = limits.charge("usr_a", "reads", limit)
    assert (refused.allowed, refused.retry_after_s) == (False, 1)
    clock.now += 0.5
    assert limits.charge("usr_a", "reads", limit).allowed
    assert not limits.charge("usr_a", "reads", limit).allowed

    clock.now += 3600  # a long pause refills to the burst, never beyond
    assert [limits.charge("usr_a", "reads", limit).allowed for _ in range(4)] == [
        True,
        True,
        True,
        False,
    ]


def test_fractional_refill_rates_wait_the_exact_time() -> None:
    clock = Clock()
    limits = limiter(clock)
    limit = RateBucketSettings(per_minute=6, burst=1)  # one token every 10 s
    assert limits.charge("usr_a", "writes", limit).allowed
    refused = limits.charge("usr_a", "writes", limit)
    assert (refused.retry_after_s, refused.reset_s) == (10, 10)
    clock.now += 9.9
    assert not limits.charge("usr_a", "writes", limit).allowed
    clock.now += 0.1
    assert limits.charge("usr_a", "writes", limit).allowed


def test_keys_and_buckets_are_independent() -> None:
    limits = limiter(Clock())
    limit = RateBucketSettings(per_minute=60, burst=1)
    assert limits.charge("usr_a", "reads", limit).allowed
    assert not limits.charge("usr_a", "reads", limit).allowed
    assert limits.charge("usr_a", "writes", limit).allowed
    assert limits.charge("usr_a", "reads:supply", limit).allowed
    assert limits.charge("usr_b", "reads", limit).allowed


def test_the_daily_quota_counts_allowed_requests_and_renews_at_utc_midnight() -> None:
    clock = Clock()
    wall = Clock(NOON)
    limits = limiter(clock, wall)
    limit = RateBucketSettings(per_minute=60, burst=2, per_day=3)
    first = limits.charge("usr_a", "search", limit)
    assert (first.allowed, first.remaining, first.which) == (True, 1, "rate")
    assert first.policy == "60;w=60;burst=2, 3;w=86400"
    second = limits.charge("usr_a", "search", limit)
    assert (second.allowed, second.remaining) == (True, 0)
    assert not limits.charge("usr_a", "search", limit).allowed  # the bucket, not the quota
    clock.now += 10
    third = limits.charge("usr_a", "search", limit)
    # one request of the day left, fewer than the bucket holds: the answer names the quota
    assert (third.allowed, third.which, third.limit, third.remaining) == (True, "quota", 3, 0)
    assert third.reset_s == 12 * 3600
    clock.now += 10
    refused = limits.charge("usr_a", "search", limit)
    assert (refused.allowed, refused.which, refused.limit) == (False, "quota", 3)
    assert refused.retry_after_s == 12 * 3600
    wall.now = NOON + 12 * 3600  # midnight UTC: a new day
    assert limits.charge("usr_a", "search", limit).allowed


def test_a_quota_refusal_takes_no_token() -> None:
    clock = Clock()
    limits = limiter(clock)
    limit = RateBucketSettings(per_minute=60, burst=5, per_day=1)
    assert limits.charge("usr_a", "reads", limit).allowed
    for _ in range(10):
        assert limits.charge("usr_a", "reads", limit).which == "quota"
    looser = RateBucketSettings(per_minute=60, burst=5, per_day=100)
    assert limits.charge("usr_a", "reads", looser).remaining == 3  # 5 - 1 - this one


def test_the_least_recently_seen_principals_are_forgotten_past_the_bound() -> None:
    limits = limiter(Clock(), max_tracked=2)
    limit = RateBucketSettings(per_minute=60, burst=1)
    assert limits.charge("usr_a", "reads", limit).allowed
    assert limits.charge("usr_b", "reads", limit).allowed
    assert not limits.charge("usr_a", "reads", limit).allowed  # usr_a is now the most recent
    assert limits.charge("usr_c", "reads", limit).allowed  # usr_b goes
    assert limits.tracked() == 2
    assert not limits.charge("usr_a", "reads", limit).allowed, "usr_a was kept"
    assert limits.charge("usr_b", "reads", limit).allowed, "usr_b starts again"


def test_concurrent_callers_get_no_more_than_the_burst() -> None:
    limits = limiter(Clock())  # the clock stands still: no refill
    limit = RateBucketSettings(per_minute=60, burst=25)
    allowed: list[bool] = []
    start = threading.Barrier(8)

    def caller() -> None:
        start.wait()
        for _ in range(20):
            allowed.append(limits.charge("usr_a", "reads", limit).allowed)

    threads = [threading.Thread(target=caller) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(allowed) == 160
    assert sum(allowed) == 25


@pytest.mark.parametrize(
    ("now", "expected"),
    [
        pytest.param(NOON, 43_200, id="noon"),
        pytest.param(20_000 * 86_400, 86_400, id="midnight"),
        pytest.param(20_001 * 86_400 - 0.5, 1, id="just-before"),
    ],
)
def test_seconds_to_utc_midnight(now: float, expected: int) -> None:
    assert seconds_to_utc_midnight(now) == expected


def test_a_policy_without_burst_for_fixed_windows() -> None:
    limit = RateBucketSettings(per_minute=600, burst=60)
    assert policy_of(limit) == "600;w=60;burst=60"
    assert policy_of(limit, burst=False) == "600;w=60"
