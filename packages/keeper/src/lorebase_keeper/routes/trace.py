"""The agent trace: notes, the sessions list and a session's timeline (docs/trace.md).

What a caller sees of other principals' sessions is decided in `trace.visibility`; a session the
caller sees nothing of answers exactly like one that does not exist.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Annotated

from fastapi import Query, Request, Response

from lorebase_core.errors import InvalidInput, Issue, TraceSessionNotFound, quoted
from lorebase_core.values import format_datetime
from lorebase_keeper.http.documented import UNSTAMPED_READ_RESPONSES, WRITE_RESPONSES, answer
from lorebase_keeper.http.parameters import CURSOR, LIMIT
from lorebase_keeper.http.segments import segment_router
from lorebase_keeper.reads.answers import plain
from lorebase_keeper.reads.reading import caller_of, page_limit, require_known_domain
from lorebase_keeper.shapes.trace import (
    NoteRecorded,
    NoteRecordedJson,
    NoteRequest,
    TraceSessionAnswer,
    TraceSessionAnswerJson,
    TraceSessionsPage,
    TraceSessionsPageJson,
)
from lorebase_keeper.trace.decision import SESSION_ID
from lorebase_keeper.trace.middleware import client_digest
from lorebase_keeper.trace.visibility import TraceSight, session_visibility
from lorebase_platform.settings import TRACE_SESSIONS_PAGE
from lorebase_store import TraceStep

router = segment_router("/api/v1/trace", "trace")

ACTOR = Annotated[
    str | None,
    Query(description="Another principal's session (the sessions list names them)."),
]


def _session_id(session_id: str) -> str:
    if SESSION_ID.fullmatch(session_id) is None:
        raise InvalidInput(
            "A session id is 1 to 128 characters of A-Z a-z 0-9 . _ : -",
            [Issue("session_id", f"{quoted(session_id)} is not a session id", "bad-value")],
        )
    return session_id


@router.post(
    "/sessions/{session_id}/notes",
    summary="Add a note (an agent's reasoning) to a trace session",
    status_code=202,
    responses={**WRITE_RESPONSES, **answer(NoteRecorded, 202, "Queued, or not (recorded).")},
)
def add_note(request: Request, session_id: str, body: NoteRequest) -> Response:
    keeper, principal = caller_of(request)
    _session_id(session_id)
    settings = keeper.settings.keeper.trace
    if len(body.text) > settings.max_note_chars:
        raise InvalidInput(
            f"A note holds at most {settings.max_note_chars} characters",
            [
                Issue(
                    "text",
                    f"{len(body.text)} characters, more than {settings.max_note_chars}",
                    "too-long",
                )
            ],
        )
    if body.domain_id is not None:
        require_known_domain(keeper, principal, body.domain_id)
    recorder = keeper.recorder
    recorded = recorder.enabled and recorder.submit(
        TraceStep(
            type="note",
            principal=principal.id,
            session_id=session_id,
            client=client_digest(principal, request.scope),
            domain=body.domain_id,
            at=format_datetime(datetime.now(UTC)),
            note=body.text,
            note_step=body.step,
        )
    )
    noted: NoteRecordedJson = {"recorded": recorded}
    return plain(noted, status=202)


@router.get(
    "/sessions",
    summary="Trace sessions the caller may see, newest first",
    responses={**UNSTAMPED_READ_RESPONSES, **answer(TraceSessionsPage)},
)
def trace_sessions(
    request: Request,
    actor: ACTOR = None,
    domain_id: Annotated[
        str | None, Query(description="Only the sessions' steps in this Domain.")
    ] = None,
    limit: LIMIT = None,
    cursor: CURSOR = None,
) -> Response:
    keeper, principal = caller_of(request)
    if domain_id is not None:
        require_known_domain(keeper, principal, domain_id)
    size = page_limit(limit, TRACE_SESSIONS_PAGE)

    def domains() -> Iterable[str]:
        return [info.name for info in keeper.store.domains()]

    page = keeper.store.trace_sessions(
        visibility=session_visibility(principal, domains),
        actor=actor,
        domain=domain_id,
        limit=size,
        cursor=cursor,
    )
    listed: TraceSessionsPageJson = {
        "sessions": [summary.to_json() for summary in page.sessions],
        "next_cursor": page.next_cursor,
    }
    return plain(listed)


@router.get(
    "/sessions/{session_id}",
    summary="A trace session's timeline (the caller's, or actor's)",
    responses={**UNSTAMPED_READ_RESPONSES, **answer(TraceSessionAnswer)},
)
def trace_session(request: Request, session_id: str, actor: ACTOR = None) -> Response:
    keeper, principal = caller_of(request)
    _session_id(session_id)
    owner = actor or principal.id
    found = keeper.store.trace_session(owner, session_id)
    sight = TraceSight(principal, owner)
    steps = sight.steps(step.to_json() for step in found.steps) if found is not None else []
    if found is None or not steps:
        raise TraceSessionNotFound(
            f"No trace session {quoted(session_id)} of {quoted(owner)} that you may see"
        )
    summaries = [
        summary.to_json() for summary in found.domains if sight.shows_domain(summary.domain)
    ]
    # time stamps do not sort as text within a second (`...:00Z` > `...:00.5Z`)
    times = sorted((str(step["at"]) for step in steps), key=datetime.fromisoformat)
    everything = len(steps) == len(found.steps)
    timeline: TraceSessionAnswerJson = {
        "session_id": found.session_id,
        "principal": found.principal,
        "inferred": found.inferred,
        # what the caller cannot see does not widen the times it is shown
        "first_at": found.first_at if everything else times[0],
        "last_at": found.last_at if everything else times[-1],
        "steps": steps,
        "domains": summaries,
    }
    return plain(timeline)
