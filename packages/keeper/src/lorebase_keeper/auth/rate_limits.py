"""Keeper's rate limits and quotas per principal and class (keeper.rate_limits, docs/auth.md).

Each request is charged once, when its principal is first known: `Authenticator.principal`, the
one place every route asks, calls `RequestLimits.charge`, which marks the request's scope so
that later asks (the error handlers, the event stream's re-checks) do not charge it again.
An unauthenticated request (401) is never charged: its principal is unknown.

The class comes from the route (`routes/rate_classes.py`), the limit from
keeper.rate_limits.classes, or from keeper.rate_limits.domains.<domain> for the Domain the path
names (that Domain's own bucket, `writes:supply`). Mode `process` counts with token buckets in
this process; mode `shared` with fixed one-minute windows in PostgreSQL (`RateWindows`), which
every Keeper on that database shares. `RateLimitHeaders` puts what the charge decided on the
answer: `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset`, `RateLimit-Policy`.
"""

from __future__ import annotations

import re

from fastapi import Request
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lorebase_core.errors import QuotaExceeded, RateLimited, UnsafeSettings
from lorebase_keeper.auth.rate_classes import RATE_CLASSES, RateClass
from lorebase_platform.rate_limits import Decision, Limiter, RateLimiter, WindowLimiter
from lorebase_platform.settings import RateBucketSettings, RateLimitSettings
from lorebase_store import RateWindows, Store

RATE_CHARGED = "lorebase.rate_charged"
"""Scope key: the request was charged (or needs no charge); later asks do not charge again."""
RATE_DECISION = "lorebase.rate_decision"
"""Scope key: the `Decision` of the request's charge, for `RateLimitHeaders`."""

_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_CONVERTER = re.compile(r"\{(\w+):\w+\}")


def route_key(scope: Scope) -> str | None:
    """`METHOD /template` of the route that matched (`GET /api/v1/domains/{domain}/schema`)."""
    path = getattr(scope.get("route"), "path", None)
    if not isinstance(path, str):
        return None
    method = str(scope.get("method", "GET")).upper()
    template = _CONVERTER.sub(r"{\1}", path)
    return f"{'GET' if method == 'HEAD' else method} {template}"


def rate_class(scope: Scope) -> RateClass | None:
    """The class a request is charged in (None: not limited)."""
    key = route_key(scope)
    if key is not None and key in RATE_CLASSES:
        return RATE_CLASSES[key]
    # a route missing from the table (a test keeps this from happening): by its method
    return "reads" if str(scope.get("method", "GET")).upper() in _SAFE_METHODS else "writes"


class RequestLimits:
    """Charges requests to the limiter of keeper.rate_limits.mode.

    Raises:
        UnsafeSettings: mode `shared` on a SQLite store (one process's database).
    """

    def __init__(
        self, settings: RateLimitSettings, store: Store, *, limiter: Limiter | None = None
    ) -> None:
        self.settings = settings
        self.limiter: Limiter | None = None
        if not settings.enabled:
            return
        if limiter is not None:
            self.limiter = limiter
        elif settings.mode == "shared":
            if store.backend == "sqlite":
                raise UnsafeSettings(
                    "keeper.rate_limits.mode 'shared' needs PostgreSQL (Keepers share its "
                    "rate_windows rows); this store is SQLite, which one process uses: set "
                    "keeper.rate_limits.mode to 'process'"
                )
            self.limiter = WindowLimiter(RateWindows(store.engine))
        else:
            self.limiter = RateLimiter(max_tracked=settings.max_tracked_principals)

    def limit_of(self, rate: RateClass, domain: str | None) -> tuple[str, RateBucketSettings, str]:
        """The bucket name, limit and setting path of class `rate` in `domain`."""
        overrides = self.settings.domains.get(domain) if domain is not None else None
        own = getattr(overrides, rate) if overrides is not None else None
        if isinstance(own, RateBucketSettings) and domain is not None:
            return f"{rate}:{domain}", own, f"keeper.rate_limits.domains.{domain}.{rate}"
        limit: RateBucketSettings = getattr(self.settings.classes, rate)
        return rate, limit, f"keeper.rate_limits.classes.{rate}"

    def charge(self, request: Request, principal_id: str) -> None:
        """Charge the request to `principal_id`, once; refuse it past its limit.

        Raises:
            RateLimited: the class's bucket (or minute window) is empty.
            QuotaExceeded: the class's daily quota is used up.
        """
        scope = request.scope
        if self.limiter is None or scope.get(RATE_CHARGED):
            return
        scope[RATE_CHARGED] = True
        rate = rate_class(scope)
        if rate is None:
            return
        domain = request.path_params.get("domain")
        bucket, limit, setting = self.limit_of(rate, domain if isinstance(domain, str) else None)
        decision = self.limiter.charge(principal_id, bucket, limit)
        scope[RATE_DECISION] = decision
        if decision.allowed:
            return
        members = {"class": rate, "limit": decision.limit}
        if decision.which == "quota":
            raise QuotaExceeded(
                f"The daily quota of {rate} requests ({decision.limit} per UTC day, "
                f"{setting}.per_day) is used up for this principal: it renews at 00:00 UTC, "
                f"in {decision.retry_after_s} s",
                retry_after_s=decision.retry_after_s,
                **members,
            )
        raise RateLimited(
            f"Too many {rate} requests from this principal ({limit.per_minute} per minute, "
            f"bursts of {limit.burst}, {setting}): retry after {decision.retry_after_s} s",
            retry_after_s=decision.retry_after_s,
            **members,
        )


def rate_headers(decision: Decision) -> dict[str, str]:
    """The `RateLimit-*` headers of a charge's decision."""
    return {
        "RateLimit-Limit": str(decision.limit),
        "RateLimit-Remaining": str(decision.remaining),
        "RateLimit-Reset": str(decision.reset_s),
        "RateLimit-Policy": decision.policy,
    }


class RateLimitHeaders:
    """Pure ASGI middleware: an answer carries the `RateLimit-*` headers its charge left in the
    scope (on success and on 429 alike; requests not limited carry none)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def marked(message: Message) -> None:
            if message["type"] == "http.response.start":
                decision = scope.get(RATE_DECISION)
                if isinstance(decision, Decision):
                    headers = MutableHeaders(scope=message)
                    for name, value in rate_headers(decision).items():
                        headers[name] = value
            await send(message)

        await self.app(scope, receive, marked)
