"""agents: agent-facing reads, the change feed, explanations and context packs."""

from __future__ import annotations

from pydantic import Field

from lorebase_platform.settings.base import Section, count, seconds, section

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
    default_budget_tokens: int = count(
        2000, "Token budget of a context pack when the request names none."
    )
    max_budget_tokens: int = count(32000, "Largest budget served (larger ones are capped).")
    chars_per_token: float = Field(
        default=4.0, gt=0, description="Characters per estimated token (ceil(chars / this))."
    )
    default_depth: int = count(1, "Neighborhood depth by default.", ge=0)
    max_depth: int = count(3, "Largest depth served (capped past it).", ge=0)
    max_seeds: int = count(20, "Seed Records a pack may name.")
    max_neighbors: int = count(200, "Neighbors a pack holds before the graph is capped.", ge=0)
    max_links: int = count(500, "Links a pack holds before the graph is capped.", ge=0)
    recent_changes: int = count(20, "Recent changes listed before any trimming.", ge=0)
    trim_order: list[str] = Field(
        default_factory=lambda: list(TRIM_STEPS),
        description="The order in which an over-budget pack is trimmed.",
    )


class FeedSettings(Section):
    """agents.feed: the event stream and the polling feed of a branch (docs/feed.md)."""

    changed_keys_max: int = count(
        100, "Changed Record keys listed in one revision event (keys_truncated past it).", ge=0
    )
    poll_interval_s: float = seconds(
        1.0,
        "How often open streams and Scribe look at the event table on SQLite "
        "(and on PostgreSQL as the fallback of LISTEN/NOTIFY).",
        le=60,
    )
    heartbeat_s: float = seconds(15.0, "A keep-alive comment after this much silence.", le=300)
    max_connection_s: float = seconds(
        3600.0, "A stream is closed after this long; clients reconnect with Last-Event-ID."
    )
    reauthorize_interval_s: float = seconds(
        60.0, "How often an open stream checks its credential and grants again."
    )
    retry_ms: int = Field(
        default=3000, ge=0, description="The `retry:` a stream sends: clients wait this long."
    )
    default_limit: int = count(50, "Events of a changes page when the request names no limit.")
    max_limit: int = count(500, "Largest changes page.")
    max_scan: int = count(
        10_000,
        "A `since` further behind the head than this many first-parent Revisions "
        "answers 409 resync-required.",
    )
    max_streams_per_principal: int = count(10, "Open event streams of one principal (429 past it).")
    max_streams_per_process: int = count(
        1000, "Open event streams of one Keeper process (429 past it)."
    )


class ExplainSettings(Section):
    max_links: int = count(50, "Links an explanation lists per Relation (links_truncated).", ge=0)


class AgentsSettings(Section):
    feed: FeedSettings = section(FeedSettings, "The change feed and its events.")
    explain: ExplainSettings = section(ExplainSettings, "GET .../explain.")
    context: ContextSettings = section(ContextSettings, "POST /context: context packs.")
