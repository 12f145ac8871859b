"""Lorebase platform: settings, secret references, logging and problem documents."""

from lorebase_platform.problems import PROBLEM_CONTENT_TYPE, problem, problem_document
from lorebase_platform.secrets import resolve_secret
from lorebase_platform.settings import Settings, load_settings

__all__ = [
    "PROBLEM_CONTENT_TYPE",
    "Settings",
    "load_settings",
    "problem",
    "problem_document",
    "resolve_secret",
]
