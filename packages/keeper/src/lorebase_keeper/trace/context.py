"""What a traced request learns on its way through Keeper, for the step it becomes.

The trace middleware puts a `StepContext` in a context variable for a traced request only; the
parts of Keeper that know something the step needs (the caller, the Domain and Revision read,
whether the answer cache answered, the schemas whose tags decide which filter values are kept)
fill it in through `current_step()`. For an untraced request `current_step()` is None and they
do nothing else. Routes run in a thread pool with a copy of the context, so they see the same
object.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from lorebase_core.schema import Schema
    from lorebase_keeper.auth.authz import Principal

CacheStatus = Literal["hit", "miss", "bypass", "not_modified"]


@dataclass
class StepContext:
    """Filled in while a traced request runs; read by the middleware once it has answered."""

    debug: bool = False
    """`X-Lorebase-Trace: debug`: record query plans if the caller holds trace.explain."""
    principal: Principal | None = None
    domain: str | None = None
    branch: str | None = None
    revision: str | None = None
    cache: CacheStatus = "bypass"
    schemas: list[Schema] = field(default_factory=list)
    """The schema read and the default branch's: their tags decide which values are kept."""
    statements: list[tuple[str, object]] | None = None
    """With debug and trace.explain: the SELECT statements the read ran, for EXPLAIN."""


_current: ContextVar[StepContext | None] = ContextVar("lorebase_trace_step", default=None)


def current_step() -> StepContext | None:
    """The step of the traced request under way, or None."""
    return _current.get()


def begin_step(context: StepContext | None) -> object:
    """Make `context` the current step; the token resets it (`end_step`)."""
    return _current.set(context)


def end_step(token: object) -> None:
    _current.reset(token)  # type: ignore[arg-type]
