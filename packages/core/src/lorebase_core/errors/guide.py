"""Guide's own answers: origins, body framing, its rate and concurrency limits, Keeper down."""

from __future__ import annotations

from lorebase_core.errors.base import Forbidden, LorebaseError, TooManyRequests


class OriginNotAllowed(Forbidden):
    """Guide: a browser request whose Origin is not in guide.http.allowed_origins."""

    code = "origin_not_allowed"
    title = "Origin not allowed"


class CrossSiteRefused(Forbidden):
    """Guide: a request marked Sec-Fetch-Site: cross-site that names no allowed Origin."""

    code = "cross_site"
    title = "Cross-site request refused"


class LengthRequired(LorebaseError):
    """Guide: a request body sent without Content-Length (chunked), which Guide does not take."""

    status = 411
    code = "length-required"
    title = "Content-Length required"


class CallerRateLimited(TooManyRequests):
    """Guide: more explorations or embeddings per minute than guide.limits allow a caller."""

    code = "rate"
    title = "Rate limit reached"


class CallerConcurrencyLimited(TooManyRequests):
    """Guide: the caller already runs guide.limits.max_concurrent_per_caller explorations."""

    code = "concurrent"
    title = "Too many explorations at once"


class GuideBusy(TooManyRequests):
    """Guide: every exploration slot, credential check or caller window is taken."""

    code = "busy"
    title = "Guide is busy"


class KeeperUnavailable(LorebaseError):
    """Guide: Keeper could not be reached or answered an error where it must not.

    The detail names Keeper's address and what happened, never a credential.
    """

    status = 502
    code = "keeper_unavailable"
    title = "Keeper unavailable"
