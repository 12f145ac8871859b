"""What Guide's HTTP layer runs: one exploration of a Domain, as a stream of events.

```python
exploration = Exploration("supply", None, "Which parts have a single supplier?", 6, 20000)
async for name, data in explore(exploration, caller, settings=settings, model=model,
                                embedder=embedder):
    ...  # session, thought, tool_call, tool_result, error, answer, done
```

The events and their members are those of docs/guide.md. The stream always ends with an
`answer` and `done` (an `error` before them when the budget, the time or the model failed);
closing the generator (the client pressed Stop) ends the exploration where it is.
`Exploration`, `Caller` and `Event` are defined in lorebase_guide.question.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator

import httpx
from opentelemetry.trace import Tracer

from lorebase_guide.loop import Run
from lorebase_guide.question import Caller, Event, Exploration
from lorebase_guide.tools import QueryEmbedder
from lorebase_inference import ChatModel
from lorebase_platform.settings import Settings
from lorebase_platform.telemetry import Metrics

__all__ = ["Caller", "Event", "Exploration", "explore"]


async def explore(
    exploration: Exploration,
    caller: Caller,
    *,
    settings: Settings,
    model: ChatModel,
    embedder: QueryEmbedder | None,
    keeper_transport: httpx.AsyncBaseTransport | None = None,
    metrics: Metrics | None = None,
    tracer: Tracer | None = None,
) -> AsyncGenerator[Event, None]:
    """Answer `exploration.question` by reading the Domain with the caller's credential.

    Args:
        exploration: the Domain, branch, question and effective budgets.
        caller: the principal and the credential headers to forward to Keeper.
        settings: guide.* (Keeper's address, budgets, limits, trace) and the rest.
        model: the chat model of guide.agent.task.
        embedder: query vectors for semantic search (None: lexical search only).
        keeper_transport: how to reach Keeper (tests pass a transport; None: the network).
        metrics: where lorebase.guide.explorations, .steps and .tokens are counted.
        tracer: where the guide.model and guide.tool spans go (None: the global tracer).
    """
    run = Run(
        exploration,
        caller,
        settings=settings,
        model=model,
        embedder=embedder,
        keeper_transport=keeper_transport,
        metrics=metrics,
        tracer=tracer,
    )
    try:
        async for event in run.events():
            yield event
    finally:
        await run.aclose()
