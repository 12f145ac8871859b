"""keeper: the REST server (HTTP limits, cache, agent writes, trace, rate limits, the web app).

keeper.auth is in `auth`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator

from lorebase_platform.settings.auth import AuthSettings
from lorebase_platform.settings.base import Section, count, flag, listen_port, seconds, section

ORIGIN_FORM = re.compile(
    r"https?://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)(:[0-9]{1,5})?"
)
"""An origin as browsers send it: scheme://host[:port], nothing after."""


class TraceSettings(Section):
    """keeper.trace: the agent trace (docs/trace.md)."""

    enabled: bool = flag(False, "Record traces (needs the database section).")
    trace_all: bool = flag(False, "Trace every authenticated request except the web app's own.")
    allow_header_opt_in: bool = flag(
        True, "A request opts in with the opt-in header (on or debug)."
    )
    principals: list[str] = Field(
        default_factory=list, description="Principals whose every request is traced."
    )
    api_keys: list[str] = Field(
        default_factory=list,
        description="API key ids (the 12 hex digits after lbk_) whose every request is traced.",
    )
    session_header: str = Field(
        default="X-Lorebase-Session", description="Header naming the agent's session."
    )
    tool_header: str = Field(
        default="X-Lorebase-Tool", description="Header naming the tool that made the call."
    )
    opt_in_header: str = Field(
        default="X-Lorebase-Trace",
        description="Header opting a request in: on, or debug to add query plans.",
    )
    client_header: str = Field(
        default="X-Lorebase-Client", description="Header marking the web app's requests."
    )
    web_client: str = Field(default="web", description="Value of client_header of the web app.")
    include_web: bool = flag(False, "Let trace_all trace the web app's requests too.")
    capture_filter_values: Literal["non_sensitive", "none"] = Field(
        default="non_sensitive",
        description="Filter values kept: on fields not sensitive, or none.",
    )
    max_filter_value_items: int = count(20, "Items kept of a list compared by a filter.", ge=0)
    capture_literals: bool = flag(False, "Keep every filter value, sensitive ones included.")
    capture_search_text: bool = flag(
        True, "Keep search text; false keeps only its length and drops corrections."
    )
    max_query_bytes: int = count(16384, "Largest request body recorded as a step's query.", ge=0)
    max_text_chars: int = count(500, "Strings of a recorded query are cut to this length.")
    max_response_bytes: int = count(
        1_048_576, "Larger answers are recorded without counts and refs.", ge=0
    )
    max_refs: int = count(500, "Refs kept per step.", ge=0)
    max_note_chars: int = count(4000, "Longest note.")
    max_steps_per_session: int = count(
        2000, "Steps kept per session and principal; later ones are dropped."
    )
    inferred_session_idle_s: float = seconds(
        300, "Gap after which calls without a session id start a new inferred session."
    )
    retention_days: int = count(7, "Steps older than this are deleted every prune_interval_s.")
    prune_interval_s: float = seconds(3600, "Seconds between two prunings of old steps.")
    queue_size: int = count(10000, "Steps waiting to be written; past it they are dropped.")
    batch_size: int = count(200, "Steps written per transaction.")
    flush_interval_s: float = seconds(1.0, "Longest wait before queued steps are written.")
    write_timeout_s: float = seconds(
        5.0, "A batch not written within this time is dropped (write_failed)."
    )


class RateBucketSettings(Section):
    """One class's limit: a token bucket of `burst` refilled at `per_minute`, and a daily quota."""

    per_minute: int = count(600, "Requests per minute, sustained.")
    burst: int = count(120, "Requests allowed at once.")
    per_day: int | None = Field(
        default=None, ge=1, description="Requests per UTC day (null: no daily quota)."
    )


def _bucket(per_minute: int, burst: int) -> RateBucketSettings:
    return Field(
        default_factory=lambda: RateBucketSettings(per_minute=per_minute, burst=burst),
        description=f"{per_minute} per minute, bursts of {burst}.",
    )


class RateClassesSettings(Section):
    reads: RateBucketSettings = _bucket(6000, 600)
    writes: RateBucketSettings = _bucket(600, 60)
    search: RateBucketSettings = _bucket(1200, 120)
    context: RateBucketSettings = _bucket(1200, 120)


class RateClassOverrides(Section):
    """A Domain's own limits of some classes (the others keep keeper.rate_limits.classes)."""

    reads: RateBucketSettings | None = None
    writes: RateBucketSettings | None = None
    search: RateBucketSettings | None = None
    context: RateBucketSettings | None = None


class RateLimitSettings(Section):
    """keeper.rate_limits: per principal and class (reads, writes, search, context)."""

    enabled: bool = flag(True, "Whether requests are limited at all.")
    mode: Literal["process", "shared"] = Field(
        default="process",
        description="process: each Keeper counts alone; shared: Keepers on one PostgreSQL share "
        "fixed one-minute windows (one row per principal, class and window).",
    )
    classes: RateClassesSettings = section(RateClassesSettings, "Limits of each class.")
    domains: dict[str, RateClassOverrides] = Field(
        default_factory=dict, description="Per Domain: limits that replace a class's defaults."
    )
    max_tracked_principals: int = count(
        100_000, "Principals one process keeps buckets for; the least recently seen go first."
    )


class WebSettings(Section):
    """keeper.web: the web app's files, served at / when dist names a build."""

    dist: Path | None = Field(
        default=None, description="Directory of the web app's build (index.html and assets)."
    )
    guide_url: str | None = Field(
        default=None,
        pattern=r"^(https?://[^/?#\s]+|/([^/?#\s][^?#\s]*)?)$",
        description="Where the web app asks Guide (Explore): an origin (http://127.0.0.1:8091) "
        "or a path on Keeper's origin behind a proxy (/guide); null hides Explore. An origin is "
        "added to the app's Content-Security-Policy connect-src.",
    )
    sign_in: Literal["session", "token"] = Field(
        default="session",
        description="How the web app signs in with an API key: session (a session cookie, "
        "keeper.auth.sessions) or token (the key kept in the page's memory). Auth mode none "
        "needs no sign-in; without sessions the app uses token.",
    )
    mock: bool = flag(
        False,
        "The web app plays scripted explorations in Explore instead of calling "
        "Guide (a look at the panel without a model).",
    )


class CacheSettings(Section):
    max_entries: int = count(4096, "Answers kept per process, keyed by Revision (0: none).", ge=0)
    max_entry_bytes: int = count(1_048_576, "Larger answers are not kept.", ge=0)
    fast_path: bool = flag(
        True,
        "Answer a repeated read (and its 304) from memory, without a worker thread "
        "or a read transaction, while nothing has been written since it was read (docs/api.md, "
        "'Fast answers').",
    )


class AgentWritesSettings(Section):
    """Task branches and automatic Proposals for agents (agents.md section 4).

    A Domain overrides any of these with its own `agent_writes` setting.
    """

    enabled: bool = flag(True, "Whether a task opens the agent flow at all.")
    principal_types: list[str] = Field(
        default_factory=lambda: ["service"],
        description="Principal types that count as agents (auto_propose applies to them).",
    )
    auto_propose: bool = flag(True, "Agents with a task get a task branch and a Proposal.")
    auto_merge: bool = flag(False, "Ask for an immediate merge when the request does not say.")
    allowed_roles_for_auto_merge: list[str] = Field(
        default_factory=list,
        description="Roles (on the task branch) whose automatic merges are honored; none by default.",
    )
    max_open_branches_per_principal: int = count(
        10, "Task branches one principal may hold (409 agent-branch-limit)."
    )
    branch_prefix: str = Field(
        default="agent/",
        min_length=1,
        description="Task branches are <prefix><principal>/<task>; the names under it are "
        "reserved for them (POST /branches answers 422 branch-name-reserved).",
    )
    branch_mode: Literal["overlay", "copy"] = Field(
        default="overlay", description="overlay stores only changed rows; copy stores full rows."
    )
    delete_branch_on_merge: bool = flag(
        True, "Delete a task branch when its Proposal is merged or closed."
    )
    max_task_length: int = count(64, "Longest task slug (after normalization).", le=200)
    title_template: str = Field(
        default="Agent {principal}: {task}",
        description="Title of an automatic Proposal ({principal}, {task}).",
    )
    summary_parameter_values: bool = flag(
        True, "List parameter values in the description (false: names only)."
    )
    summary_value_chars: int = count(
        80, "Characters of one parameter value in the description.", ge=8
    )
    max_summary_operations: int = count(
        50, "Executions listed in a description (the rest counted)."
    )


class OperationsSettings(Section):
    required_approvals: int = count(1, "Approvals a Proposal into a protected branch needs.", ge=0)
    side_effect_max_edits: int = count(
        50, "Edits listed in one operation event (edits_truncated).", ge=0
    )
    max_message_chars: int = count(2000, "Longest message of an execution or a merge.")
    max_intent_chars: int = count(2000, "Longest intent of an agent write.")


class HttpSettings(Section):
    """How long Keeper's HTTP server waits for a client, and how many it serves (docs/api.md)."""

    keep_alive_s: int = Field(
        default=5,
        ge=1,
        le=300,
        description="Seconds an idle connection (new, or after an answer) stays open waiting for "
        "a request.",
    )
    header_timeout_s: float = seconds(
        5.0,
        "Seconds from the first byte of a request until its headers are complete "
        "(408, then the connection closes).",
        le=300,
    )
    body_timeout_s: float = seconds(
        10.0,
        "Seconds from the end of the headers until the whole body has arrived "
        "(408 request-timeout, then the connection closes).",
        le=3600,
    )
    max_connections: int = count(
        1000, "Connections and requests served at once; a request past it is answered 503."
    )
    allowed_origins: list[str] = Field(
        default_factory=list,
        description="Origins (scheme://host[:port]) whose browser pages may call the API across "
        "origins (CORS); none by default.",
    )
    forwarded_allow_ips: list[str] = Field(
        default_factory=lambda: ["127.0.0.1"],
        description="Addresses of reverse proxies whose X-Forwarded-For and X-Forwarded-Proto "
        "Keeper trusts (uvicorn's forwarded_allow_ips; * trusts every client).",
    )

    @field_validator("allowed_origins")
    @classmethod
    def _origins_have_their_form(cls, origins: list[str]) -> list[str]:
        for origin in origins:
            if ORIGIN_FORM.fullmatch(origin) is None:
                raise ValueError(
                    f"{origin!r} is not an origin: write scheme://host[:port] (http or https, "
                    "no path, no trailing slash, no *), for example https://lore.example.com"
                )
        return origins


class KeeperSettings(Section):
    host: str = Field(default="127.0.0.1", description="Address Keeper listens on.")
    port: int = listen_port(8080, "Port Keeper listens on.")
    max_body_bytes: int = count(1_048_576, "Largest request body accepted (413 past it).", ge=1024)
    auth: AuthSettings = section(AuthSettings, "Authentication.")
    http: HttpSettings = section(HttpSettings, "Timeouts and connection limits of HTTP.")
    cache: CacheSettings = section(CacheSettings, "The answer cache (keyed by Revision).")
    agent_writes: AgentWritesSettings = section(
        AgentWritesSettings, "Agent task branches and Proposals."
    )
    operations: OperationsSettings = section(
        OperationsSettings, "Operation executions and Proposals."
    )
    trace: TraceSettings = section(TraceSettings, "The agent trace.")
    rate_limits: RateLimitSettings = section(
        RateLimitSettings, "Rate limits and quotas per principal."
    )
    web: WebSettings = section(WebSettings, "The web app's files.")
