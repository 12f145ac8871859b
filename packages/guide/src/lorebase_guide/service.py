"""The state of one Guide app: its settings, checks, limits, models and telemetry."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Protocol

import httpx
from opentelemetry.trace import Tracer
from starlette.requests import Request

from lorebase_core.errors import EmbeddingUnavailable
from lorebase_guide.limits import CallerLimits
from lorebase_guide.origins import OriginPolicy
from lorebase_guide.question import Caller, Event, Exploration
from lorebase_guide.telemetry import GuideTelemetry
from lorebase_guide.tools import QueryEmbedder
from lorebase_guide.verification import Verifier
from lorebase_inference import ChatModel, Embedder
from lorebase_platform.settings import Settings
from lorebase_platform.telemetry import Metrics

logger = logging.getLogger("lorebase_guide.service")


class Explorer(Protocol):
    """What POST /explore runs: `lorebase_guide.exploration.explore`'s signature."""

    def __call__(
        self,
        exploration: Exploration,
        caller: Caller,
        *,
        settings: Settings,
        model: ChatModel,
        embedder: QueryEmbedder | None,
        keeper_transport: httpx.AsyncBaseTransport | None = None,
        metrics: Metrics | None = None,
        tracer: Tracer | None = None,
    ) -> AsyncIterator[Event]: ...


@dataclass
class Guide:
    """Everything the routes of one app share (`request.app.state.guide`)."""

    settings: Settings
    policy: OriginPolicy
    verifier: Verifier
    limits: CallerLimits
    telemetry: GuideTelemetry
    model: ChatModel
    embedder: Embedder | None
    explorer: Explorer
    keeper_transport: httpx.AsyncBaseTransport | None = None

    def usable_embedder(self) -> Embedder:
        """The embedding model, or 502 embedding-unavailable when none could be made."""
        if self.embedder is None:
            raise EmbeddingUnavailable(
                "Guide has no usable embedding model: check inference.embeddings (the bundled "
                "model's packages, or the endpoint's base_url)"
            )
        return self.embedder

    async def aclose(self) -> None:
        await self.verifier.aclose()
        await self.model.aclose()
        if self.embedder is not None:
            self.embedder.close()
        self.telemetry.shutdown()


def guide_of(request: Request) -> Guide:
    guide = request.app.state.guide
    assert isinstance(guide, Guide)
    return guide
