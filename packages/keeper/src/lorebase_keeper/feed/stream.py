"""The event stream of a branch: Server-Sent Events, bounded, re-authorized, woken by notices.

One `FeedState` per Keeper app (`app.state.feed`) holds the process's `EventNotices` and the
count of open streams. A stream holds no read transaction and no worker thread while it waits:
it awaits the notices, and reads the event table in short transactions on a worker thread.
"""

from __future__ import annotations

import asyncio
import json
import math
import threading
from collections.abc import AsyncIterator, Callable, Collection
from dataclasses import dataclass, field

from starlette.concurrency import run_in_threadpool
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from lorebase_core.access import ReadScope
from lorebase_core.errors import TooManyStreams
from lorebase_core.schema import Schema
from lorebase_core.values import JsonValue
from lorebase_keeper.shapes.common import JsonObject
from lorebase_platform.settings import FeedSettings
from lorebase_store import EventBatch, EventNotices, Store

_BATCH = 100
"""Events read per statement while a stream catches up."""
_FRAMES_KEPT = 1000
"""Rendered revision frames kept for the streams still behind."""


@dataclass
class StreamSlots:
    """Open streams per principal and per process, bounded by the feed settings."""

    per_principal: int
    per_process: int
    retry_after_s: int
    _open: dict[str, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def acquire(self, principal: str) -> None:
        """Take a slot for a principal's stream, or 429 too-many-streams."""
        with self._lock:
            mine = self._open.get(principal, 0)
            if mine >= self.per_principal:
                raise TooManyStreams(
                    f"{principal!r} has {mine} open event streams, the most "
                    "agents.feed.max_streams_per_principal allows: close one first",
                    retry_after_s=self.retry_after_s,
                )
            if sum(self._open.values()) >= self.per_process:
                raise TooManyStreams(
                    "This Keeper serves as many event streams as "
                    "agents.feed.max_streams_per_process allows: try again later",
                    retry_after_s=self.retry_after_s,
                )
            self._open[principal] = mine + 1

    def release(self, principal: str) -> None:
        with self._lock:
            left = self._open.get(principal, 0) - 1
            if left > 0:
                self._open[principal] = left
            else:
                self._open.pop(principal, None)

    def open_streams(self) -> int:
        with self._lock:
            return sum(self._open.values())


@dataclass
class FeedState:
    """What the streams of one Keeper share: the notices, the slots, and the reads in flight,
    so the streams of a branch woken by one commit read its events once, not once each."""

    settings: FeedSettings
    notices: EventNotices
    slots: StreamSlots
    _reads: dict[tuple[int, int, tuple[str, ...] | None], asyncio.Future[EventBatch]] = field(
        default_factory=dict
    )
    _frames: dict[int, str] = field(default_factory=dict)

    async def batch(
        self, store: Store, branch_id: int, after: int, kinds: Collection[str] | None
    ) -> EventBatch:
        """The events of a branch after `after` (`Store.branch_events`), one read for all the
        streams asking the same at the same time."""
        key = (branch_id, after, tuple(sorted(kinds)) if kinds is not None else None)
        found = self._reads.get(key)
        if found is None:
            found = asyncio.ensure_future(
                run_in_threadpool(
                    store.branch_events, branch_id, after=after, kinds=kinds, limit=_BATCH
                )
            )
            self._reads[key] = found
            found.add_done_callback(lambda _done: self._reads.pop(key, None))
        return await asyncio.shield(found)

    def revision_frame(self, event: JsonObject) -> str:
        """The frame of a revision event, rendered once for every stream (nothing in it is
        masked: it names Kinds and keys, which a history reader may read)."""
        sequence = _sequence(event)
        text = self._frames.get(sequence)
        if text is None:
            if len(self._frames) >= _FRAMES_KEPT:
                self._frames.clear()
            text = self._frames[sequence] = frame(event)
        return text

    @classmethod
    def make(cls, settings: FeedSettings, store: Store) -> FeedState:
        retry_after_s = max(1, math.ceil(settings.retry_ms / 1000))
        slots = StreamSlots(
            settings.max_streams_per_principal, settings.max_streams_per_process, retry_after_s
        )
        notices = store.event_notices(poll_interval_s=settings.poll_interval_s)
        return cls(settings, notices, slots)


@dataclass(frozen=True)
class StreamStart:
    """A stream the request may open: where it reads, from which sequence, for whom."""

    principal: str
    branch_id: int
    after: int
    kinds: Collection[str] | None
    scope: ReadScope
    schema: Schema


def frame(event: JsonObject) -> str:
    """One event as SSE: `id:` the sequence, `event: revision` or `operation`, compact JSON."""
    name = "revision" if event.get("type") == "revision.committed" else "operation"
    data = json.dumps(event, separators=(",", ":"), ensure_ascii=False)
    return f"id: {event['sequence']}\nevent: {name}\ndata: {data}\n\n"


def _sequence(event: JsonObject) -> int:
    """An event's sequence (every event of the store has one)."""
    sequence = event["sequence"]
    if not isinstance(sequence, int):
        raise TypeError(f"an event's sequence is a number, not {type(sequence).__name__}")
    return sequence


def _shown(event: JsonObject, start: StreamStart) -> JsonObject:
    """An operation event with the values of its edits the reader may not read as `***`."""
    edits = event.get("edits")
    if not edits or not isinstance(edits, list):
        return event
    listed = [edit for edit in edits if isinstance(edit, dict)]
    masked: list[JsonValue] = list(start.scope.mask_edits(start.schema, listed))
    return {**event, "edits": masked}


async def stream(
    state: FeedState,
    store: Store,
    start: StreamStart,
    still_allowed: Callable[[], bool],
) -> AsyncIterator[str]:
    """The frames of one stream, from `retry:` until max_connection_s, a failed re-authorization
    (`still_allowed` answers False) or the client going away. Its slot is released by the
    `StreamAnswer` that sends it, which runs even when the frames are never asked for."""
    settings = state.settings
    loop = asyncio.get_running_loop()
    opened = quiet_since = loop.time()
    closes = opened + settings.max_connection_s
    next_check = opened + settings.reauthorize_interval_s
    after = start.after
    yield f"retry: {settings.retry_ms}\n\n"
    while loop.time() < closes:
        if loop.time() >= next_check:
            if not await run_in_threadpool(still_allowed):
                return
            next_check = loop.time() + settings.reauthorize_interval_s
        batch = await state.batch(store, start.branch_id, after, start.kinds)
        for event in batch.events:
            if event.get("type") == "revision.committed":
                yield state.revision_frame(event)
            else:
                yield frame(_shown(event, start))
            quiet_since = loop.time()
        if batch.last_sequence != after:  # more may be waiting: read on before waiting
            after = batch.last_sequence
            continue
        until = min(quiet_since + settings.heartbeat_s, closes, next_check)
        await state.notices.wait(after, max(0.0, until - loop.time()), branch_id=start.branch_id)
        if loop.time() - quiet_since >= settings.heartbeat_s:
            yield ": keep-alive\n\n"
            quiet_since = loop.time()


class StreamAnswer(StreamingResponse):
    """The answer of an event stream: its slot is released once the answer is over, however it
    ends (the stream closed, the client gone before or after the first frame, an error)."""

    def __init__(self, frames: AsyncIterator[str], release: Callable[[], None]) -> None:
        super().__init__(
            frames,
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
        self._release = release

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._release()
