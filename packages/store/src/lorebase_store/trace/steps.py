"""What the agent trace writes and reads back: steps, sessions and their summaries per Domain.

Keeper's recorder queues `TraceStep`s and writes them in batches (`Store.write_trace`); reads
give `StoredStep`s (a session's timeline) and `TraceSessionSummary`s (the session list, one row
per session and Domain). Field names of `to_json()` are the spec's (docs/trace.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

StepType = Literal["call", "note"]


@dataclass(frozen=True, kw_only=True)
class StepDetails:
    """What a call step records of its request (a note step: its text and the step it is about)."""

    tool: str | None = None
    method: str | None = None
    route: str | None = None
    status: int | None = None
    latency_ms: float | None = None
    cache: str | None = None
    query: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    refs: list[dict[str, Any]] | None = None
    explain: list[dict[str, Any]] | None = None
    proposal_id: str | None = None
    note: str | None = None
    note_step: int | None = None
    trace_id: str | None = None

    def details(self) -> dict[str, Any]:
        """These fields by name, in the order above (a step's row and its document)."""
        return {
            "tool": self.tool,
            "method": self.method,
            "route": self.route,
            "status": self.status,
            "latency_ms": self.latency_ms,
            "cache": self.cache,
            "query": self.query,
            "result": self.result,
            "refs": self.refs,
            "explain": self.explain,
            "proposal_id": self.proposal_id,
            "note": self.note,
            "note_step": self.note_step,
            "trace_id": self.trace_id,
        }


@dataclass(frozen=True, kw_only=True)
class TraceStep(StepDetails):
    """One traced request (or note) as Keeper's recorder queues it.

    `session_id` None puts the step in the inferred session of `client` (a digest of principal,
    credential fingerprint and User-Agent). `domain` is a Domain name; a name the store does not
    know is stored as no Domain.
    """

    principal: str
    session_id: str | None
    client: str
    domain: str | None
    at: str
    type: StepType = "call"


@dataclass(frozen=True, kw_only=True)
class TraceWritten:
    """What one batch wrote: `session_full` steps were dropped at the session's cap."""

    recorded: int
    session_full: int


@dataclass(frozen=True, kw_only=True)
class StoredStep(StepDetails):
    """A step read back, numbered within its session (`step`) and in write order (`seq`)."""

    step: int
    at: str
    seq: int
    type: StepType
    domain: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "at": self.at,
            "seq": self.seq,
            "type": self.type,
            **self.details(),
            "domain_id": self.domain,
        }


@dataclass(frozen=True, kw_only=True)
class TraceSessionSummary:
    """One session's steps in one Domain (`domain` None: outside any Domain)."""

    session_id: str
    principal: str
    inferred: bool
    domain: str | None
    first_at: str
    last_at: str
    first_step: int
    last_step: int
    calls: int
    notes: int
    tools: list[str] = field(default_factory=list)
    proposals: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "principal": self.principal,
            "inferred": self.inferred,
            "domain_id": self.domain,
            "first_at": self.first_at,
            "last_at": self.last_at,
            "first_step": self.first_step,
            "last_step": self.last_step,
            "calls": self.calls,
            "notes": self.notes,
            "tools": list(self.tools),
            "proposals": list(self.proposals),
        }


@dataclass(frozen=True, kw_only=True)
class TraceSessionPage:
    sessions: list[TraceSessionSummary]
    next_cursor: str | None


@dataclass(frozen=True, kw_only=True)
class SessionVisibility:
    """Which summaries a lister may see; Keeper decides it from the lister's grants.

    `own`'s summaries always show; other principals' only in the Domains of `others_in` (None:
    every Domain) and, with `others_outside` (installation administrators), those outside any
    Domain.
    """

    own: str
    others_in: frozenset[str] | None
    others_outside: bool


@dataclass(frozen=True, kw_only=True)
class TraceSession:
    """A session's timeline: its steps by `step` and its summaries per Domain."""

    session_id: str
    principal: str
    inferred: bool
    first_at: str
    last_at: str
    steps: list[StoredStep]
    domains: list[TraceSessionSummary]

    def to_json(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "principal": self.principal,
            "inferred": self.inferred,
            "first_at": self.first_at,
            "last_at": self.last_at,
            "steps": [step.to_json() for step in self.steps],
            "domains": [summary.to_json() for summary in self.domains],
        }
