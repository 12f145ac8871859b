"""Rate limits and daily quotas: the primitive Keeper (and later Guide and Herald) limit with.

A caller is a string key (a principal id), a bucket is a string name (`writes`, or
`writes:supply` for a Domain's own limit), a limit is anything shaped like
`RateBucketSettings` (`per_minute`, `burst`, `per_day`). Two limiters answer a `Decision`:

- `RateLimiter`, per process: a token bucket per key and bucket name holding at most `burst`
  tokens, refilled at `per_minute / 60` per second, and a counter per UTC day for `per_day`.
  Thread-safe; it remembers at most `max_tracked` keys, forgetting the least recently seen
  (a forgotten key starts again with a full bucket, so keep the bound generous).
- `WindowLimiter`, shared: fixed one-minute windows (and one-day windows for `per_day`) counted
  by a `WindowCounter`, such as the store's rows on PostgreSQL that several processes share.
  A window allows `per_minute` requests; `burst` does not apply (a fixed window lets a caller
  spend the whole minute's allowance at once).

A request refused by its rate does not count against its daily quota, and a request refused by
its quota takes no token.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol

__all__ = [
    "BucketLimit",
    "Decision",
    "Limiter",
    "RateLimiter",
    "TokenBucket",
    "WindowCounter",
    "WindowLimiter",
    "policy_of",
    "seconds_to_utc_midnight",
]

DAY_S = 86_400
MINUTE_S = 60

Which = Literal["rate", "quota"]


class BucketLimit(Protocol):
    """One limit: `burst` at once, `per_minute` sustained, `per_day` per UTC day (None: none)."""

    @property
    def per_minute(self) -> int: ...

    @property
    def burst(self) -> int: ...

    @property
    def per_day(self) -> int | None: ...


@dataclass(frozen=True, kw_only=True)
class Decision:
    """What a limiter answered for one request.

    Attributes:
        allowed: whether the request may go ahead.
        limit: the limit that decided (requests per minute, or per day for `which="quota"`).
        remaining: requests still allowed now without waiting.
        reset_s: whole seconds until the limit is back to its full allowance.
        retry_after_s: whole seconds to wait before the next request can pass (0: now).
        which: `rate` (per minute) or `quota` (per UTC day).
        policy: the `RateLimit-Policy` header value, e.g. `600;w=60;burst=60`.
    """

    allowed: bool
    limit: int
    remaining: int
    reset_s: int
    retry_after_s: int
    which: Which
    policy: str


class Limiter(Protocol):
    """What Keeper charges each request to: a per-process or a shared limiter."""

    def charge(self, key: str, bucket: str, limit: BucketLimit) -> Decision: ...


class WindowCounter(Protocol):
    """A shared backend: counts requests in fixed windows, one row per key, bucket and period."""

    def increment(self, key: str, bucket: str, period: str, expires_at: float) -> int:
        """Add one request to the window `period` and answer its count, this one included."""
        ...


def policy_of(limit: BucketLimit, *, burst: bool = True) -> str:
    """The `RateLimit-Policy` of `limit`: `600;w=60;burst=60`, with `, 5000;w=86400` for a quota."""
    policy = f"{limit.per_minute};w={MINUTE_S}"
    if burst:
        policy += f";burst={limit.burst}"
    if limit.per_day is not None:
        policy += f", {limit.per_day};w={DAY_S}"
    return policy


def seconds_to_utc_midnight(now: float) -> int:
    """Whole seconds from the epoch time `now` to the next UTC midnight (at least 1)."""
    return max(1, math.ceil(DAY_S - now % DAY_S))


class TokenBucket:
    """`capacity` tokens at most, refilled continuously at `rate_per_s`; starts full."""

    __slots__ = ("capacity", "rate_per_s", "tokens", "updated")

    def __init__(self, capacity: int, rate_per_s: float, now: float) -> None:
        self.capacity = capacity
        self.rate_per_s = rate_per_s
        self.tokens = float(capacity)
        self.updated = now

    def refill(self, now: float) -> None:
        elapsed = max(0.0, now - self.updated)
        self.tokens = min(float(self.capacity), self.tokens + elapsed * self.rate_per_s)
        self.updated = now

    def wait_s(self) -> float:
        """Seconds until one whole token is there (0 when it is)."""
        return 0.0 if self.tokens >= 1 else (1 - self.tokens) / self.rate_per_s

    def full_in_s(self) -> float:
        """Seconds until the bucket is full again."""
        return (self.capacity - self.tokens) / self.rate_per_s


@dataclass
class _DayCount:
    day: int
    count: int = 0


@dataclass
class _State:
    bucket: TokenBucket
    quota: _DayCount


class RateLimiter:
    """Token buckets and daily quotas of one process, per key and bucket name (thread-safe).

    `clock` (monotonic seconds) drives the buckets and `wall` (epoch seconds) the UTC day; tests
    inject both.
    """

    def __init__(
        self,
        *,
        max_tracked: int = 100_000,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.max_tracked = max_tracked
        self.clock = clock
        self.wall = wall
        self._keys: OrderedDict[str, dict[str, _State]] = OrderedDict()
        self._lock = threading.Lock()

    def tracked(self) -> int:
        """How many keys the limiter holds state for."""
        with self._lock:
            return len(self._keys)

    def charge(self, key: str, bucket: str, limit: BucketLimit) -> Decision:
        """Take one token of `key`'s `bucket` (and one of its day's quota) when there is one."""
        now = self.clock()
        wall = self.wall()
        day = int(wall // DAY_S)
        with self._lock:
            state = self._state(key, bucket, limit, now, day)
            tokens = state.bucket
            tokens.refill(now)
            if state.quota.day != day:
                state.quota = _DayCount(day)
            if tokens.tokens < 1:
                return _refused_rate(limit, tokens)
            if limit.per_day is not None and state.quota.count >= limit.per_day:
                return _refused_quota(limit, wall, policy_of(limit))
            tokens.tokens -= 1
            state.quota.count += 1
            remaining = math.floor(tokens.tokens)
            decision = Decision(
                allowed=True,
                limit=limit.per_minute,
                remaining=remaining,
                reset_s=math.ceil(tokens.full_in_s()),
                retry_after_s=math.ceil(tokens.wait_s()),
                which="rate",
                policy=policy_of(limit),
            )
            if limit.per_day is not None and limit.per_day - state.quota.count < remaining:
                decision = _quota_left(
                    limit.per_day - state.quota.count, limit, wall, decision.policy
                )
            return decision

    def _state(self, key: str, bucket: str, limit: BucketLimit, now: float, day: int) -> _State:
        buckets = self._keys.get(key)
        if buckets is None:
            buckets = self._keys[key] = {}
            while len(self._keys) > self.max_tracked:
                self._keys.popitem(last=False)
        else:
            self._keys.move_to_end(key)
        state = buckets.get(bucket)
        rate_per_s = limit.per_minute / MINUTE_S
        if state is None:
            state = buckets[bucket] = _State(
                TokenBucket(limit.burst, rate_per_s, now), _DayCount(day)
            )
        elif (state.bucket.capacity, state.bucket.rate_per_s) != (limit.burst, rate_per_s):
            state.bucket.refill(now)  # settings changed: keep what is left, within the new burst
            state.bucket.capacity = limit.burst
            state.bucket.rate_per_s = rate_per_s
            state.bucket.tokens = min(state.bucket.tokens, float(limit.burst))
        return state


def _refused_rate(limit: BucketLimit, tokens: TokenBucket) -> Decision:
    return Decision(
        allowed=False,
        limit=limit.per_minute,
        remaining=0,
        reset_s=math.ceil(tokens.full_in_s()),
        retry_after_s=max(1, math.ceil(tokens.wait_s())),
        which="rate",
        policy=policy_of(limit),
    )


def _quota_left(left: int, limit: BucketLimit, wall: float, policy: str) -> Decision:
    """An allowed request whose daily quota leaves fewer requests (`left`) than its rate."""
    until = seconds_to_utc_midnight(wall)
    return Decision(
        allowed=True,
        limit=limit.per_day or 0,
        remaining=left,
        reset_s=until,
        retry_after_s=0 if left else until,
        which="quota",
        policy=policy,
    )


def _refused_quota(limit: BucketLimit, wall: float, policy: str) -> Decision:
    until = seconds_to_utc_midnight(wall)
    return Decision(
        allowed=False,
        limit=limit.per_day or 0,
        remaining=0,
        reset_s=until,
        retry_after_s=until,
        which="quota",
        policy=policy,
    )


class WindowLimiter:
    """Fixed windows counted by a shared `WindowCounter`: `per_minute` per epoch minute, and
    `per_day` per UTC day. `wall` (epoch seconds) is injectable for tests."""

    def __init__(self, counter: WindowCounter, *, wall: Callable[[], float] = time.time) -> None:
        self.counter = counter
        self.wall = wall

    def charge(self, key: str, bucket: str, limit: BucketLimit) -> Decision:
        """Count one request in `key`'s current minute (and day); allowed while within both."""
        wall = self.wall()
        minute = int(wall // MINUTE_S)
        minute_reset = max(1, math.ceil((minute + 1) * MINUTE_S - wall))
        policy = policy_of(limit, burst=False)
        count = self.counter.increment(key, bucket, f"m{minute}", (minute + 2) * MINUTE_S)
        allowed = count <= limit.per_minute
        remaining = max(0, limit.per_minute - count)
        decision = Decision(
            allowed=allowed,
            limit=limit.per_minute,
            remaining=remaining,
            reset_s=minute_reset,
            retry_after_s=0 if allowed and remaining else minute_reset,
            which="rate",
            policy=policy,
        )
        if not allowed or limit.per_day is None:
            return decision
        day = int(wall // DAY_S)
        used = self.counter.increment(key, bucket, f"d{day}", (day + 1) * DAY_S + MINUTE_S)
        if used > limit.per_day:
            return _refused_quota(limit, wall, policy)
        if limit.per_day - used < remaining:
            return _quota_left(limit.per_day - used, limit, wall, policy)
        return decision
