"""agents: agent-facing reads, the change feed, explanations and context packs."""

from __future__ import annotations

from pydantic import Field

from lorebase_platform.settings.base import Section

TRIM_STEPS = (
    "lineage",
    "recent_changes",
    "far_neighbor_values",
    "far_neighbors",
    "schema_descriptions",
    "near_neighbor_values",
    "near_neighbors",
    "schema",
)


class ContextSettings(Section):
    default_budget_tokens: int = Field(
        default=2000,
        ge=1,
        description="Token budget of a context pack when the request names none.",
    )
    max_budget_tokens: int = Field(
        default=32000, ge=1, description="Largest budget served (larger ones are capped)."
    )
    chars_per_token: float = Field(
        default=4.0, gt=0, description="Characters per estimated token (ceil(chars / this))."
    )
    default_depth: int = Field(default=1, ge=0, description="Neighborhood depth by default.")
    max_depth: int = Field(default=3, ge=0, description="Largest depth served (capped past it).")
    max_seeds: int = Field(default=20, ge=1, description="Seed Records a pack may name.")
    max_neighbors: int = Field(
        default=200, ge=0, description="Neighbors a pack holds before the graph is capped."
    )
    max_links: int = Field(
        default=500, ge=0, description="Links a pack holds before the graph is capped."
    )
    recent_changes: int = Field(
        default=20, ge=0, description="Recent changes listed before any trimming."
    )
    trim_order: list[str] = Field(
        default_factory=lambda: list(TRIM_STEPS),
        description="The order in which an over-budget pack is trimmed.",
    )


class FeedSettings(Section):
    """agents.feed: the event stream and the polling feed of a branch (docs/feed.md)."""

    changed_keys_max: int = Field(
        default=100,
        ge=0,
        description="Changed Record keys listed in one revision event (keys_truncated past it).",
    )
    poll_interval_s: float = Field(
        default=1.0,
        gt=0,
        le=60,
        description="How often open streams and Scribe look at the event table on SQLite "
        "(and on PostgreSQL as the fallback of LISTEN/NOTIFY).",
    )
    heartbeat_s: float = Field(
        default=15.0, gt=0, le=300, description="A keep-alive comment after this much silence."
    )
    max_connection_s: float = Field(
        default=3600.0,
        gt=0,
        description="A stream is closed after this long; clients reconnect with Last-Event-ID.",
    )
    reauthorize_interval_s: float = Field(
        default=60.0,
        gt=0,
        description="How often an open stream checks its credential and grants again.",
    )
    retry_ms: int = Field(
        default=3000, ge=0, description="The `retry:` a stream sends: clients wait this long."
    )
    default_limit: int = Field(
        default=50, ge=1, description="Events of a changes page when the request names no limit."
    )
    max_limit: int = Field(default=500, ge=1, description="Largest changes page.")
    max_scan: int = Field(
        default=10_000,
        ge=1,
        description="A `since` further behind the head than this many first-parent Revisions "
        "answers 409 resync-required.",
    )
    max_streams_per_principal: int = Field(
        default=10, ge=1, description="Open event streams of one principal (429 past it)."
    )
    max_streams_per_process: int = Field(
        default=1000, ge=1, description="Open event streams of one Keeper process (429 past it)."
    )


class ExplainSettings(Section):
    max_links: int = Field(
        default=50, ge=0, description="Links an explanation lists per Relation (links_truncated)."
    )


class AgentsSettings(Section):
    feed: FeedSettings = Field(
        default_factory=FeedSettings, description="The change feed and its events."
    )
    explain: ExplainSettings = Field(
        default_factory=ExplainSettings, description="GET .../explain."
    )
    context: ContextSettings = Field(
        default_factory=ContextSettings, description="POST /context: context packs."
    )
