"""Follow a branch: its event stream (Server-Sent Events) and its polling feed (docs/feed.md)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Header, Query, Request, Response
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from lorebase_core.errors import InvalidInput, Issue, LorebaseError
from lorebase_core.schema import Schema
from lorebase_keeper.feed.stream import FeedState, StreamAnswer, StreamStart, stream
from lorebase_keeper.http.documented import READ_RESPONSES, Responses, read_answer
from lorebase_keeper.http.parameters import listed_names, unknown_names
from lorebase_keeper.http.segments import segment_router
from lorebase_keeper.reads.reading import domain_read, keeper_of, page_limit
from lorebase_keeper.shapes.feed.changes import ChangesAnswer, ChangesAnswerJson
from lorebase_platform.settings import PageSettings

router = segment_router("/api/v1/domains/{domain}/branches/{branch}", "feed", READ_RESPONSES)

KINDS = Annotated[
    list[str] | None,
    Query(
        description="Only Revisions changing these Kinds (and Operation events editing them): "
        "comma-separated, the parameter may be repeated."
    ),
]

_STREAM_ANSWER: Responses = {
    200: {
        "description": "Server-Sent Events: `retry:`, then per event `id:` (its sequence), "
        "`event:` (revision or operation) and `data:` (the event document as compact JSON); "
        "`: keep-alive` comments after agents.feed.heartbeat_s of silence.",
        "content": {"text/event-stream": {"schema": {"type": "string"}}},
    },
    429: {
        "description": "too-many-streams: past agents.feed.max_streams_per_principal or "
        "_per_process; Retry-After says when to try again.",
        "content": {
            "application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}
        },
    },
}


def _kinds(schema: Schema, names: list[str] | None) -> list[str] | None:
    """The Kinds of a `kinds=` filter, each one of the schema (422 unknown-kind otherwise)."""
    if names is None:
        return None
    unknown = unknown_names("kinds", names, schema.kinds, owner=schema.domain.name, noun="Kind")
    if unknown or not names:
        empty = Issue("kinds", f"name at least one Kind: {', '.join(schema.kinds)}", "empty")
        raise InvalidInput("kinds names Kinds the Domain does not have", unknown or [empty])
    return names


@router.get(
    "/changes",
    summary="The Revisions committed on the branch after `since`, oldest first (polling)",
    responses=read_answer(ChangesAnswer),
)
def branch_changes(
    request: Request,
    domain: str,
    branch: str,
    since: str | None = Query(
        None,
        description="A Revision id, unique prefix or tag on the branch's first-parent history: "
        "the events after it. Without it, the latest ones.",
    ),
    kinds: KINDS = None,
    limit: int | None = Query(None, description="Events per page (agents.feed.default_limit)."),
) -> Response:
    with domain_read(request, domain, branch=branch) as read:
        read.require_history()
        feed = read.keeper.settings.agents.feed
        size = page_limit(
            limit, PageSettings(default_limit=feed.default_limit, max_limit=feed.max_limit)
        )
        wanted = _kinds(read.reader.schema, listed_names(kinds))

        def compute(_etag: str) -> ChangesAnswerJson:
            page = read.reader.changes(
                since=since, kinds=wanted, limit=size, max_scan=feed.max_scan
            )
            return {
                **read.stamp(),
                "events": page.events,
                "next_since": page.next_since,
                "more": page.more,
            }

        return read.answer(request, compute)


def _after(header: str | None, query: str | None) -> int | None:
    text = header if header is not None else query
    if text is None:
        return None
    path = "Last-Event-ID" if header is not None else "last_event_id"
    if not text.strip().isdigit():
        raise InvalidInput(
            f"{path} must be the id of an event received (a sequence number)",
            [Issue(path, f"{text[:40]!r} is not a sequence number", "bad-event-id")],
        )
    return int(text.strip())


def _start(
    request: Request, domain: str, branch: str, kinds: list[str] | None, after: int | None
) -> StreamStart:
    with domain_read(request, domain, branch=branch) as read:
        read.require_history()
        wanted = _kinds(read.reader.schema, kinds)
        branch_id = read.reader.view.branch.id
        begin = after if after is not None else read.reader.latest_event_sequence()
        return StreamStart(
            read.principal.id, branch_id, begin, wanted, read.scope, read.reader.schema
        )


def _still_allowed(request: Request, domain: str, branch: str) -> bool:
    """The request's credential and grants, checked again: do they still allow the read?"""
    keeper = keeper_of(request)
    try:
        principal = keeper.authenticator.principal(request)
        principal.require_domain(domain)
        scope = principal.read_scope(
            domain, branch, invisible_kinds=keeper.settings.keeper.auth.authz.invisible_kinds
        )
    except LorebaseError:
        return False
    return scope.history


@router.get(
    "/events",
    summary="Server-Sent Events of the Revisions (and Operation events) committed on the branch",
    responses=_STREAM_ANSWER,
    response_class=StreamingResponse,
)
async def branch_events(
    request: Request,
    domain: str,
    branch: str,
    kinds: KINDS = None,
    last_event_id: str | None = Query(
        None, description="Resume after this event id (as the Last-Event-ID header does)."
    ),
    last_event_id_header: str | None = Header(
        None, alias="Last-Event-ID", description="Resume after this event id."
    ),
) -> Response:
    after = _after(last_event_id_header, last_event_id)
    start = await run_in_threadpool(_start, request, domain, branch, listed_names(kinds), after)
    state: FeedState = request.app.state.feed
    state.slots.acquire(start.principal)
    keeper = keeper_of(request)
    frames = stream(state, keeper.store, start, lambda: _still_allowed(request, domain, branch))
    return StreamAnswer(frames, lambda: state.slots.release(start.principal))
