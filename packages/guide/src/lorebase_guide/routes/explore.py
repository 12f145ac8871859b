"""POST /explore: an exploration streamed as server-sent events (docs/guide.md)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from lorebase_guide.bodies import ExploreRequest, explore_request, read_json
from lorebase_guide.credentials import presented
from lorebase_guide.event_stream import EventStream
from lorebase_guide.exploration import Caller, Exploration
from lorebase_guide.service import guide_of
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
    guide = guide_of(request)
    settings = guide.settings.guide
    guide.policy.check(request.headers)
    credential = presented(request.headers, settings.http)
    body = explore_request(await read_json(request, settings.http.max_body_bytes), settings.limits)
    principal = await guide.verifier.verify(credential)
    slot = guide.limits.admit_exploration(principal)
    try:
        events = guide.explorer(
            effective(body, settings.agent),
            Caller(principal=principal, headers=dict(credential.headers)),
            settings=guide.settings,
            model=guide.model,
            embedder=guide.embedder,
            keeper_transport=guide.keeper_transport,
        )
    except BaseException:
        slot.release()
        raise
    return EventStream(events, on_close=lambda ending: slot.release())
