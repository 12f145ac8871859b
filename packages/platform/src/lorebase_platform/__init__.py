"""Lorebase platform: settings, secret references, logging, problem documents, rate limits."""

from lorebase_platform.problems import PROBLEM_CONTENT_TYPE, problem, problem_document
from lorebase_platform.rate_limits import (
    BucketLimit,
    Decision,
    Limiter,
    RateLimiter,
    WindowCounter,
    WindowLimiter,
)
from lorebase_platform.secrets import resolve_secret
from lorebase_platform.settings import Settings, load_settings

__all__ = [
    "PROBLEM_CONTENT_TYPE",
    "BucketLimit",
    "Decision",
    "Limiter",
    "RateLimiter",
    "Settings",
    "WindowCounter",
    "WindowLimiter",
    "load_settings",
    "problem",
    "problem_document",
    "resolve_secret",
]
