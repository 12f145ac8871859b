"""TEMPORARY stand-in of helper D's module (never committed): the interface of common.md."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from lorebase_inference import ChatModel
from lorebase_inference.embeddings import Embedder
from lorebase_platform.settings import Settings


@dataclass(frozen=True)
class Exploration:
    domain: str
    branch: str | None
    question: str
    max_steps: int
    budget: int


@dataclass(frozen=True)
class Caller:
    principal: str
    headers: Mapping[str, str]


Event = tuple[str, dict[str, Any]]


async def explore(
    exploration: Exploration,
    caller: Caller,
    *,
    settings: Settings,
    model: ChatModel,
    embedder: Embedder | None,
    keeper_transport: httpx.AsyncBaseTransport | None = None,
) -> AsyncIterator[Event]:
    raise NotImplementedError
    yield ("done", {})
