"""What every tool shares: its context (the exploration's client and limits) and its result."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from lorebase_client import AsyncLorebaseClient
from lorebase_guide.tools.names import DomainNames
from lorebase_guide.tools.shaping import bounded
from lorebase_platform.settings import GuideLimitSettings

__all__ = ["ArgsInvalid", "QueryEmbedder", "ToolContext", "ToolResult", "ToolRun", "read_result"]


class QueryEmbedder(Protocol):
    """What the tools need of `lorebase_inference.Embedder`: its model name and query vectors."""

    @property
    def model(self) -> str: ...

    async def embed(
        self, texts: Sequence[str], mode: Literal["query", "document"]
    ) -> list[list[float]]: ...


@dataclass
class ToolContext:
    """One exploration's reads: the client (with the caller's credential), Domain and limits."""

    client: AsyncLorebaseClient
    domain: str
    branch: str | None
    limits: GuideLimitSettings
    names: DomainNames
    embedder: QueryEmbedder | None = None
    suggestions: list[dict[str, Any]] = field(default_factory=list)
    """The queries resolve suggested for the question, numbered from 1 for the query tool."""
    ready: range = range(0)
    """The numbers of `suggestions` the model may still ask for (all but the first once the
    first step ran it)."""


@dataclass(frozen=True)
class ToolResult:
    """What a tool read: `text` for the model, `summary` for the event, the refs it returned.

    `ok` is False for a refused or failed read (the text says why, with the valid names after a
    miss); such a result has no refs.
    """

    ok: bool
    summary: str
    text: str
    refs: frozenset[str] = frozenset()


def read_result(
    context: ToolContext, summary: str, lines: Iterable[str], refs: Iterable[str] = ()
) -> ToolResult:
    """A read that succeeded: its `lines` as one text cut to max_result_chars, and its refs."""
    return ToolResult(True, summary, bounded("\n".join(lines), context.limits), frozenset(refs))


class ArgsInvalid(Exception):
    """Arguments a tool refuses before any request; the message is for the model."""


ToolRun = Callable[[ToolContext, Mapping[str, Any]], Awaitable[ToolResult]]
