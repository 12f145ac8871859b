"""One question asked of Guide: what is asked (`Exploration`), who asks (`Caller`), and the
events the answer streams (`Event`).

Both sides of an exploration use these: `exploration.explore` (the front) and `loop.Run` (the
steps).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Caller", "Event", "Exploration"]

Event = tuple[str, dict[str, Any]]
"""One server-sent event: its name and its data object."""


@dataclass(frozen=True)
class Exploration:
    """One question about a Domain, with the effective budgets of its run."""

    domain: str
    branch: str | None
    question: str
    max_steps: int
    """Effective: min(the request's, guide.agent.max_steps)."""
    budget: int
    """Effective total tokens: min(the request's, guide.agent.max_total_tokens)."""


@dataclass(frozen=True)
class Caller:
    """Who asks: the principal Keeper's whoami answered, and the credential headers forwarded
    verbatim (Authorization, or Keeper's session cookie with X-CSRF-Token; {} anonymous)."""

    principal: str
    headers: Mapping[str, str]
