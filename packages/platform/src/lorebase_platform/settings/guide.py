"""guide: the exploration assistant (docs/guide.md)."""

from __future__ import annotations

from pydantic import Field

from lorebase_platform.settings.base import Section, count, flag, listen_port, seconds, section


class GuideKeeperSettings(Section):
    """The Keeper Guide reads, always with the caller's own credential."""

    base_url: str = Field(
        default="http://127.0.0.1:8080", description="Keeper's address (http://host:port)."
    )
    timeout_s: float = seconds(30.0, "Seconds one Keeper request may take.")


class GuideHttpSettings(Section):
    """Guide's HTTP server, its origins and who may call it."""

    host: str = Field(default="127.0.0.1", description="Address Guide listens on.")
    port: int = listen_port(8091, "Port Guide listens on.")
    allowed_origins: list[str] = Field(
        default_factory=list,
        description="Origins browsers may call Guide from (also the CORS allow-list); empty: "
        "default_origins.",
    )
    default_origins: list[str] = Field(
        default_factory=list,
        description="Origins used while allowed_origins is empty (a warning is logged at start).",
    )
    allow_anonymous: bool = flag(
        False, "Take requests without a credential (only for a Keeper in auth mode none)."
    )
    session_cookie: str = Field(
        default="lorebase_session",
        pattern=r"^[A-Za-z0-9_-]{1,64}$",
        description="Name of Keeper's session cookie (keeper.auth.sessions.cookie_name); with "
        "cookie_secure the browser holds __Host-<name>.",
    )
    max_body_bytes: int = count(16384, "Largest request body (413 above it).", ge=256)


class GuideAgentSettings(Section):
    """One exploration's budgets."""

    task: str = Field(
        default="explore", description="Task of inference.llm whose endpoint Guide uses."
    )
    max_steps: int = count(8, "Tool calls; then one last turn to answer.", le=64)
    max_stale_steps: int = count(
        2,
        "Fruitless steps in a row (a repeated call, or the same tool again returning "
        "no Record not returned before), after which the next turn is the last (0: no limit).",
        ge=0,
    )
    max_tokens_per_call: int = count(
        1024,
        "Completion cap of one model call, never above what remains of the total "
        "after the estimated input.",
        ge=16,
    )
    max_total_tokens: int = count(40000, "Input plus output tokens of one exploration.", ge=256)
    timeout_s: float = seconds(
        120.0, "Wall clock of one exploration, model calls and Keeper reads alike."
    )


class GuideLimitSettings(Section):
    """Rate, concurrency and size limits of Guide (per process)."""

    explorations_per_minute: int = count(6, "Per credential.")
    max_concurrent_per_caller: int = count(1, "Per credential.")
    max_concurrent: int = count(4, "Explorations at once per process.")
    embeds_per_minute: int = count(120, "Per credential.")
    max_concurrent_verifications: int = count(
        16, "Credential checks with Keeper at once (then 429 busy)."
    )
    max_tracked_callers: int = count(10000, "Callers the rate windows hold at most.")
    max_question_chars: int = count(1000, "Longest question.")
    max_embed_chars: int = count(2000, "Longest text of POST /embed.")
    max_result_chars: int = count(6000, "Longest tool result shown to the model.", ge=200)
    max_value_chars: int = count(
        300, "Longest value in a tool result (cut with an ellipsis).", ge=10
    )
    max_items: int = count(20, "Records or Links per tool result.")
    max_depth: int = count(2, "Deepest traversal or neighborhood.")
    max_nodes: int = count(50, "Most nodes of a neighborhood.")
    max_context_tokens: int = count(1500, "Budget of a context pack a tool asks for.", ge=100)


class GuideTraceSettings(Section):
    """What Guide tells Keeper's agent trace; the defaults equal keeper.trace's."""

    enabled: bool = flag(True, "Send the trace headers and post notes; false: neither.")
    notes: bool = flag(True, "Post the model's reasoning notes (headers are sent anyway).")
    session_header: str = Field(default="X-Lorebase-Session", description="Session header.")
    trace_header: str = Field(default="X-Lorebase-Trace", description="Opt-in header (on).")
    tool_header: str = Field(default="X-Lorebase-Tool", description="Tool header (guide.<tool>).")
    notes_path: str = Field(
        default="/api/v1/trace/sessions/{session}/notes", description="Keeper's notes route."
    )
    max_note_chars: int = count(4000, "Longest note (keeper.trace.max_note_chars).")


class GuideSettings(Section):
    """guide: the exploration assistant (docs/guide.md)."""

    keeper: GuideKeeperSettings = section(GuideKeeperSettings, "The Keeper Guide reads.")
    http: GuideHttpSettings = section(GuideHttpSettings, "Guide's HTTP server.")
    agent: GuideAgentSettings = section(GuideAgentSettings, "Budgets of one exploration.")
    limits: GuideLimitSettings = section(GuideLimitSettings, "Rate, concurrency and size limits.")
    trace: GuideTraceSettings = section(GuideTraceSettings, "The agent trace.")
    data_dir: str = Field(
        default="~/.local/state/lorebase/guide", description="Where Guide keeps its files."
    )
    mode_memory_file: str = Field(
        default="structured_output_modes.json",
        description="Remembered structured-output modes (relative to data_dir).",
    )
