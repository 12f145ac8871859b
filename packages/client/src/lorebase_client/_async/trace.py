"""`client.trace`: the agent trace's routes for `AsyncLorebaseClient` (docs/trace.md).

A session is the steps and notes of one session id and one principal: `session` reads the
caller's own unless `actor` names another principal (the `sessions` list names them).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from lorebase_client import routes
from lorebase_client.answers import Answer
from lorebase_client.routes import ApiRequest


class AsyncTraceCalls:
    """The agent trace of `AsyncLorebaseClient` (its `trace` attribute)."""

    def __init__(self, call: Callable[[ApiRequest], Awaitable[Answer]]) -> None:
        self._call = call

    async def add_note(
        self,
        session_id: str,
        text: str,
        *,
        step: int | None = None,
        domain_id: str | None = None,
        path: str | None = None,
    ) -> bool:
        """Add a note (opaque text, such as a model's reasoning) to a session.

        `step` is the step the note is about, `domain_id` the Domain it belongs to (a grant
        there is needed; without one only installation administrators see it besides you).
        `path` is the notes route when Keeper's is elsewhere (`{session}` stands for the
        session id; Guide's guide.trace.notes_path). Returns whether Keeper queued it: False
        when tracing is off or its queue is full.
        """
        request = routes.trace_note(session_id, text, step=step, domain_id=domain_id, path=path)
        answer = await self._call(request)
        return answer.get("recorded") is True

    async def session(self, session_id: str, *, actor: str | None = None) -> Answer:
        """A session's timeline (`steps`, `domains`): yours, or `actor`'s."""
        return await self._call(routes.trace_session(session_id, actor=actor))

    async def sessions(
        self,
        *,
        actor: str | None = None,
        domain_id: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Answer:
        """One page of the sessions you may see, newest first (`sessions`, `next_cursor`)."""
        request = routes.trace_sessions(
            actor=actor, domain_id=domain_id, limit=limit, cursor=cursor
        )
        return await self._call(request)
