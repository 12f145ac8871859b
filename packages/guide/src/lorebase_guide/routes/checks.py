"""The checks each POST route makes before its work, in the order of docs/guide.md ("Order of
the checks"): the origin, the credential's shape, the body, the credential with Keeper. The
limits come after, each route its own."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from starlette.requests import Request

from lorebase_guide.bodies import read_json
from lorebase_guide.credentials import Presented, presented
from lorebase_guide.service import Guide, guide_of
from lorebase_platform.settings import GuideLimitSettings

__all__ = ["Checked", "checked"]

B = TypeVar("B")


@dataclass(frozen=True)
class Checked(Generic[B]):
    """A request that passed the checks: the app's state, its body, who sent it."""

    guide: Guide
    body: B
    credential: Presented
    principal: str
    """The principal Keeper's whoami answered for `credential`."""


async def checked(
    request: Request, body_of: Callable[[object, GuideLimitSettings], B]
) -> Checked[B]:
    """`request` checked, its JSON body read by `body_of` (`explore_request`, `embed_request`)."""
    guide = guide_of(request)
    settings = guide.settings.guide
    guide.policy.check(request.headers)
    credential = presented(request.headers, settings.http)
    body = body_of(await read_json(request, settings.http.max_body_bytes), settings.limits)
    principal = await guide.verifier.verify(credential)
    return Checked(guide, body, credential, principal)
