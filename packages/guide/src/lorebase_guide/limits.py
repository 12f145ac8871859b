"""Guide's limits per caller and per process (docs/guide.md, "Budgets and limits").

Keyed on the principal Keeper reported, so several keys of one principal share them; only
verified callers ever enter. Each caller has a sliding one-minute window per endpoint
(explorations_per_minute, embeds_per_minute) and a count of running explorations
(max_concurrent_per_caller); the process has max_concurrent exploration slots. The table of
callers holds at most max_tracked_callers: a caller idle for a minute (and running nothing) makes
room for a new one, and while every entry was active in the last minute a new caller is refused
with 429 busy, so a flood of principals cannot wipe the windows of the others.

One event loop owns a `CallerLimits`: the checks and the counting happen without an await in
between, so they need no lock.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from lorebase_core.errors import CallerConcurrencyLimited, CallerRateLimited, GuideBusy
from lorebase_platform.settings import GuideLimitSettings

Endpoint = Literal["explore", "embed"]

WINDOW_S = 60.0
SLOT_RETRY_AFTER_S = 5
"""Retry-After of a refusal for want of an exploration slot: one may free at any moment, but an
exploration takes seconds, so asking again at once is no use."""


@dataclass
class _Caller:
    last_seen: float
    running: int = 0
    windows: dict[Endpoint, deque[float]] = field(default_factory=dict)


class Slot:
    """One running exploration's share of the limits; `release` gives it back (once)."""

    def __init__(self, limits: CallerLimits, principal: str) -> None:
        self._limits = limits
        self._principal = principal
        self.released = False

    def release(self) -> None:
        if self.released:
            return
        self.released = True
        self._limits._release(self._principal)


class CallerLimits:
    """The rate windows, caller slots and process slots of one Guide."""

    def __init__(
        self, settings: GuideLimitSettings, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.settings = settings
        self.clock = clock
        self.running = 0
        self._callers: OrderedDict[str, _Caller] = OrderedDict()

    def tracked(self) -> int:
        """Callers the table holds."""
        return len(self._callers)

    def running_of(self, principal: str) -> int:
        found = self._callers.get(principal)
        return 0 if found is None else found.running

    def admit_exploration(self, principal: str) -> Slot:
        """Take an exploration slot of `principal` and count it in its window, or refuse (429
        busy, concurrent or rate)."""
        settings = self.settings
        if self.running >= settings.max_concurrent:
            raise GuideBusy(
                f"Guide runs {self.running} explorations, as many as guide.limits."
                "max_concurrent allows: try again shortly",
                retry_after_s=SLOT_RETRY_AFTER_S,
            )
        now = self.clock()
        caller = self._caller(principal, now)
        if caller.running >= settings.max_concurrent_per_caller:
            raise CallerConcurrencyLimited(
                f"You run {caller.running} exploration(s) already, as many as guide.limits."
                "max_concurrent_per_caller allows: wait for it to end, or stop it",
                retry_after_s=SLOT_RETRY_AFTER_S,
            )
        self._charge(caller, "explore", settings.explorations_per_minute, now)
        caller.running += 1
        self.running += 1
        return Slot(self, principal)

    def admit_embed(self, principal: str) -> None:
        """Count one embedding of `principal`, or refuse (429 busy or rate)."""
        now = self.clock()
        caller = self._caller(principal, now)
        self._charge(caller, "embed", self.settings.embeds_per_minute, now)

    def _caller(self, principal: str, now: float) -> _Caller:
        found = self._callers.get(principal)
        if found is not None:
            found.last_seen = now
            self._callers.move_to_end(principal)
            return found
        if len(self._callers) >= self.settings.max_tracked_callers:
            self._make_room(now)
        made = self._callers[principal] = _Caller(last_seen=now)
        return made

    def _make_room(self, now: float) -> None:
        """Forget one caller idle for a minute and running nothing, or refuse (busy)."""
        for principal, caller in self._callers.items():
            if caller.last_seen > now - WINDOW_S:
                break  # ordered by last_seen: every later caller is more recent
            if caller.running == 0:
                del self._callers[principal]
                return
        oldest = next(iter(self._callers.values()))
        raise GuideBusy(
            f"Guide tracks {len(self._callers)} callers active in the last minute, as many "
            "as guide.limits.max_tracked_callers allows: try again shortly",
            retry_after_s=max(1, math.ceil(oldest.last_seen + WINDOW_S - now)),
        )

    def _charge(self, caller: _Caller, endpoint: Endpoint, per_minute: int, now: float) -> None:
        window = caller.windows.setdefault(endpoint, deque())
        while window and window[0] <= now - WINDOW_S:
            window.popleft()
        if len(window) >= per_minute:
            setting = "explorations_per_minute" if endpoint == "explore" else "embeds_per_minute"
            raise CallerRateLimited(
                f"You made {len(window)} {endpoint} requests in the last minute, as many as "
                f"guide.limits.{setting} allows: try again later",
                retry_after_s=max(1, math.ceil(window[0] + WINDOW_S - now)),
            )
        window.append(now)

    def _release(self, principal: str) -> None:
        self.running = max(0, self.running - 1)
        found = self._callers.get(principal)
        if found is not None:
            found.running = max(0, found.running - 1)
