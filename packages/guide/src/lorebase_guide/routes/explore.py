"""POST /explore: an exploration streamed as server-sent events (docs/guide.md)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from lorebase_guide.bodies import ExploreRequest, explore_request
from lorebase_guide.event_stream import EventStream
from lorebase_guide.question import Caller, Exploration
from lorebase_guide.routes.checks import checked
from lorebase_platform.settings import GuideAgentSettings


def effective(body: ExploreRequest, agent: GuideAgentSettings) -> Exploration:
    """The exploration asked for, its budgets only ever lowered by the request."""
    return Exploration(
        domain=body.domain,
        branch=body.branch,
        question=body.question,
        max_steps=min(body.max_steps or agent.max_steps, agent.max_steps),
        budget=min(body.budget or agent.max_total_tokens, agent.max_total_tokens),
    )


async def explore(request: Request) -> Response:
    """Checks in the order of docs/guide.md ("Order of the checks"): the origin, the
    credential's shape, the body, the credential with Keeper, the limits; then the stream."""
    passed = await checked(request, explore_request)
    guide = passed.guide
    slot = guide.limits.admit_exploration(passed.principal)
    try:
        events = guide.explorer(
            effective(passed.body, guide.settings.guide.agent),
            Caller(principal=passed.principal, headers=dict(passed.credential.headers)),
            settings=guide.settings,
            model=guide.model,
            embedder=guide.embedder,
            keeper_transport=guide.keeper_transport,
            metrics=guide.telemetry.metrics,
            tracer=guide.telemetry.tracer,
        )
    except BaseException:
        slot.release()
        raise
    return EventStream(events, on_close=lambda ending: slot.release())
