"""The agent trace: notes, the sessions list and a session's timeline (docs/trace.md)."""

from __future__ import annotations

from typing import Literal, TypedDict

from pydantic import BaseModel, ConfigDict, Field

from lorebase_keeper.shapes.common import JsonObject, Shape


class NoteRequest(BaseModel):
    """The body of POST /trace/sessions/{session_id}/notes: opaque text about the session."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(
        min_length=1, description="The note, at most keeper.trace.max_note_chars characters."
    )
    step: int | None = Field(default=None, ge=1, description="The step the note is about.")
    domain_id: str | None = Field(
        default=None,
        description="The Domain the note belongs to (a grant there is needed); without it only "
        "installation administrators see the note besides its author.",
    )


class NoteRecorded(Shape):
    recorded: bool = Field(description="false: tracing is off, or the queue refused the note.")


class NoteRecordedJson(TypedDict):
    recorded: bool


class TraceStepShape(Shape):
    """One step of a timeline: a call Keeper answered, or a note."""

    step: int = Field(description="Position in the session's timeline.")
    at: str = Field(description="When the request started.")
    seq: int = Field(description="Write order.")
    type: Literal["call", "note"]
    domain_id: str | None = Field(description="The Domain; null outside a Domain.")
    tool: str | None = Field(description="The tool header.")
    method: str | None
    route: str | None = Field(description="The route template, values unexpanded.")
    status: int | None
    latency_ms: float | None
    cache: str | None = Field(description="hit, miss, bypass or not_modified.")
    query: dict[str, object] | None = Field(description="Reads: body and params, as captured.")
    result: dict[str, object] | None = Field(description="Reads: counts, mode, corrections ...")
    refs: list[dict[str, object]] | None = Field(
        description="Records and Links the answer touched."
    )
    explain: list[dict[str, object]] | None = Field(description="Query plan summaries (debug).")
    proposal_id: str | None = Field(description="Writes: the Proposal the answer names.")
    note: str | None = Field(description="Notes: the text.")
    note_step: int | None = Field(description="Notes: the step the note is about.")
    trace_id: str | None = Field(description="The trace id of the request's traceparent.")
    withheld: bool = Field(
        description="true: what another principal typed (query, corrections, note text) is "
        "left out for this reader, who lacks Domain-wide data.read or a clearance."
    )


class TraceSessionSummaryShape(Shape):
    """A session's steps in one Domain (domain_id null: outside a Domain)."""

    session_id: str
    principal: str
    inferred: bool = Field(description="Grouped by Keeper: the request named no session.")
    domain_id: str | None
    first_at: str
    last_at: str
    first_step: int
    last_step: int
    calls: int
    notes: int
    tools: list[str]
    proposals: list[str]


class TraceSessionsPage(Shape):
    sessions: list[TraceSessionSummaryShape] = Field(description="Newest last step first.")
    next_cursor: str | None


class TraceSessionsPageJson(TypedDict):
    sessions: list[JsonObject]
    next_cursor: str | None


class TraceSessionAnswer(Shape):
    """A session's timeline, as far as the caller may see it."""

    session_id: str
    principal: str
    inferred: bool
    first_at: str
    last_at: str
    steps: list[TraceStepShape]
    domains: list[TraceSessionSummaryShape]


class TraceSessionAnswerJson(TypedDict):
    session_id: str
    principal: str
    inferred: bool
    first_at: str
    last_at: str
    steps: list[dict[str, object]]  # `TraceStepShape`s: the store's steps as the reader sees them
    domains: list[JsonObject]
