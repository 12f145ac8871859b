"""Which browser pages may call Guide: guide.http.allowed_origins, also the CORS allow-list.

A request with an `Origin` not in the list is refused (403 origin_not_allowed), and so is one a
browser marks `Sec-Fetch-Site: cross-site` without naming an Origin (403 cross_site). Requests
without either header (the CLI, scripts, server-to-server) are not browser requests and pass.
While allowed_origins is empty, guide.http.default_origins applies (the compose file's web
origins), and Guide logs a warning at start.

Allowed origins get CORS headers on every answer (problems included, so the page can read a
429's reason and its Retry-After), and preflights (OPTIONS) are answered here.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

from lorebase_core.errors import CrossSiteRefused, OriginNotAllowed
from lorebase_core.sessions import CSRF_HEADER
from lorebase_platform.settings import GuideHttpSettings

logger = logging.getLogger("lorebase_guide.origins")

ALLOWED_METHODS = "GET, POST, OPTIONS"
ALLOWED_HEADERS = f"Authorization, Content-Type, {CSRF_HEADER}, traceparent, tracestate"
EXPOSED_HEADERS = "Retry-After"
PREFLIGHT_MAX_AGE_S = 600


def normalized(origin: str) -> str:
    """`origin` as compared: lower case, without a trailing slash."""
    return origin.strip().rstrip("/").lower()


class OriginPolicy:
    """The origins of one Guide, and the CORS headers they get."""

    def __init__(self, origins: Sequence[str]) -> None:
        self.origins = frozenset(normalized(origin) for origin in origins if origin.strip())

    @classmethod
    def of(cls, settings: GuideHttpSettings) -> OriginPolicy:
        """allowed_origins, or default_origins while it is empty (with a warning)."""
        if settings.allowed_origins:
            return cls(settings.allowed_origins)
        logger.warning(
            "guide.http.allowed_origins is empty: browsers may call Guide from the %d "
            "origin(s) of guide.http.default_origins only; set allowed_origins to the web "
            "app's origin",
            len(settings.default_origins),
        )
        return cls(settings.default_origins)

    def allows(self, origin: str) -> bool:
        return normalized(origin) in self.origins

    def check(self, headers: Mapping[str, str]) -> None:
        """Refuse a browser request from an origin that is not allowed (403)."""
        origin = headers.get("origin")
        if origin is not None:
            if not self.allows(origin):
                raise OriginNotAllowed(
                    "This page's origin may not call Guide: add it to "
                    "guide.http.allowed_origins (the web app's origin)"
                )
            return
        if headers.get("sec-fetch-site", "").strip().lower() == "cross-site":
            raise CrossSiteRefused(
                "A cross-site request without an Origin header is refused: call Guide from "
                "an origin in guide.http.allowed_origins"
            )

    def cors_headers(self, headers: Mapping[str, str]) -> dict[str, str]:
        """The CORS headers of an answer to `headers`' request ({} for other origins)."""
        origin = headers.get("origin")
        if origin is None or not self.allows(origin):
            return {}
        return {
            "Access-Control-Allow-Origin": origin,
            "Access-Control-Allow-Credentials": "true",
            "Access-Control-Expose-Headers": EXPOSED_HEADERS,
            "Vary": "Origin",
        }

    def preflight_headers(self, headers: Mapping[str, str]) -> dict[str, str]:
        """The headers of a successful preflight (the origin is checked before)."""
        return {
            **self.cors_headers(headers),
            "Access-Control-Allow-Methods": ALLOWED_METHODS,
            "Access-Control-Allow-Headers": ALLOWED_HEADERS,
            "Access-Control-Max-Age": str(PREFLIGHT_MAX_AGE_S),
        }
