"""guide: the exploration assistant (docs/guide.md)."""

from __future__ import annotations

from pydantic import Field

from lorebase_platform.settings.base import Section


class GuideKeeperSettings(Section):
    """The Keeper Guide reads, always with the caller's own credential."""

    base_url: str = Field(
        default="http://127.0.0.1:8080", description="Keeper's address (http://host:port)."
    )
    timeout_s: float = Field(default=30.0, gt=0, description="Seconds one Keeper request may take.")


class GuideHttpSettings(Section):
    """Guide's HTTP server, its origins and who may call it."""

    host: str = Field(default="127.0.0.1", description="Address Guide listens on.")
    port: int = Field(default=8091, ge=0, le=65535, description="Port Guide listens on.")
    allowed_origins: list[str] = Field(
        default_factory=list,
        description="Origins browsers may call Guide from (also the CORS allow-list); empty: "
        "default_origins.",
    )
    default_origins: list[str] = Field(
        default_factory=list,
        description="Origins used while allowed_origins is empty (a warning is logged at start).",
    )
    allow_anonymous: bool = Field(
        default=False,
        description="Take requests without a credential (only for a Keeper in auth mode none).",
    )
    session_cookie: str = Field(
        default="lorebase_session",
        pattern=r"^[A-Za-z0-9_-]{1,64}$",
        description="Name of Keeper's session cookie (keeper.auth.sessions.cookie_name); with "
        "cookie_secure the browser holds __Host-<name>.",
    )
    max_body_bytes: int = Field(
        default=16384, ge=256, description="Largest request body (413 above it)."
    )


class GuideAgentSettings(Section):
    """One exploration's budgets."""

    task: str = Field(
        default="explore", description="Task of inference.llm whose endpoint Guide uses."
    )
    max_steps: int = Field(
        default=8, ge=1, le=64, description="Tool calls; then one last turn to answer."
    )
    max_stale_steps: int = Field(
        default=2,
        ge=0,
        description="Fruitless steps in a row (a repeated call, or the same tool again returning "
        "no Record not returned before), after which the next turn is the last (0: no limit).",
    )
    max_tokens_per_call: int = Field(
        default=1024,
        ge=16,
        description="Completion cap of one model call, never above what remains of the total "
        "after the estimated input.",
    )
    max_total_tokens: int = Field(
        default=40000, ge=256, description="Input plus output tokens of one exploration."
    )
    timeout_s: float = Field(
        default=120.0,
        gt=0,
        description="Wall clock of one exploration, model calls and Keeper reads alike.",
    )


class GuideLimitSettings(Section):
    """Rate, concurrency and size limits of Guide (per process)."""

    explorations_per_minute: int = Field(default=6, ge=1, description="Per credential.")
    max_concurrent_per_caller: int = Field(default=1, ge=1, description="Per credential.")
    max_concurrent: int = Field(default=4, ge=1, description="Explorations at once per process.")
    embeds_per_minute: int = Field(default=120, ge=1, description="Per credential.")
    max_concurrent_verifications: int = Field(
        default=16, ge=1, description="Credential checks with Keeper at once (then 429 busy)."
    )
    max_tracked_callers: int = Field(
        default=10000, ge=1, description="Callers the rate windows hold at most."
    )
    max_question_chars: int = Field(default=1000, ge=1, description="Longest question.")
    max_embed_chars: int = Field(default=2000, ge=1, description="Longest text of POST /embed.")
    max_result_chars: int = Field(
        default=6000, ge=200, description="Longest tool result shown to the model."
    )
    max_value_chars: int = Field(
        default=300, ge=10, description="Longest value in a tool result (cut with an ellipsis)."
    )
    max_items: int = Field(default=20, ge=1, description="Records or Links per tool result.")
    max_depth: int = Field(default=2, ge=1, description="Deepest traversal or neighborhood.")
    max_nodes: int = Field(default=50, ge=1, description="Most nodes of a neighborhood.")
    max_context_tokens: int = Field(
        default=1500, ge=100, description="Budget of a context pack a tool asks for."
    )


class GuideTraceSettings(Section):
    """What Guide tells Keeper's agent trace; the defaults equal keeper.trace's."""

    enabled: bool = Field(
        default=True, description="Send the trace headers and post notes; false: neither."
    )
    notes: bool = Field(
        default=True, description="Post the model's reasoning notes (headers are sent anyway)."
    )
    session_header: str = Field(default="X-Lorebase-Session", description="Session header.")
    trace_header: str = Field(default="X-Lorebase-Trace", description="Opt-in header (on).")
    tool_header: str = Field(default="X-Lorebase-Tool", description="Tool header (guide.<tool>).")
    notes_path: str = Field(
        default="/api/v1/trace/sessions/{session}/notes", description="Keeper's notes route."
    )
    max_note_chars: int = Field(
        default=4000, ge=1, description="Longest note (keeper.trace.max_note_chars)."
    )


class GuideSettings(Section):
    """guide: the exploration assistant (docs/guide.md)."""

    keeper: GuideKeeperSettings = Field(
        default_factory=GuideKeeperSettings, description="The Keeper Guide reads."
    )
    http: GuideHttpSettings = Field(
        default_factory=GuideHttpSettings, description="Guide's HTTP server."
    )
    agent: GuideAgentSettings = Field(
        default_factory=GuideAgentSettings, description="Budgets of one exploration."
    )
    limits: GuideLimitSettings = Field(
        default_factory=GuideLimitSettings, description="Rate, concurrency and size limits."
    )
    trace: GuideTraceSettings = Field(
        default_factory=GuideTraceSettings, description="The agent trace."
    )
    data_dir: str = Field(
        default="~/.local/state/lorebase/guide", description="Where Guide keeps its files."
    )
    mode_memory_file: str = Field(
        default="structured_output_modes.json",
        description="Remembered structured-output modes (relative to data_dir).",
    )
