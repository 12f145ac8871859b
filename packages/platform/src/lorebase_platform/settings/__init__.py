"""Settings: one YAML file plus environment overrides (`LOREBASE__SECTION__KEY`).

`config/lorebase.example.yaml` lists every setting with its default; a test keeps the two in step.
Tests build `Settings(...)` directly instead of changing the environment.

One module per section of the YAML file; import from here (`from lorebase_platform.settings import
KeeperSettings`), not from the modules:

- `loading`: the root `Settings`, `load_settings` (file, environment, overrides) and
  `settings_problems`.
- `base`: the base of every section (unknown keys refused) and `default_data_dir`.
- `store`: `database`, `store` and `import`.
- `keeper`: `keeper` (HTTP, cache, agent writes, operations, trace, rate limits, web app).
- `auth`: `keeper.auth` (authorization, sessions, OIDC, the read audit).
- `read`: `read` (pages, query, traverse, neighborhood, health, search, resolve).
- `agents`: `agents` (the change feed, explanations, context packs).
- `webhooks`, `telemetry`, `scribe`, `herald`, `inference`, `guide`: the sections of those names.
"""

from __future__ import annotations

from lorebase_platform.settings.agents import (
    TRIM_STEPS,
    AgentsSettings,
    ContextSettings,
    ExplainSettings,
    FeedSettings,
)
from lorebase_platform.settings.auth import (
    OIDC_ALGORITHMS,
    AuthMode,
    AuthSettings,
    AuthzSettings,
    OidcGrantSettings,
    OidcSettings,
    ReadAuditSettings,
    SessionSettings,
)
from lorebase_platform.settings.base import default_data_dir
from lorebase_platform.settings.guide import (
    GuideAgentSettings,
    GuideHttpSettings,
    GuideKeeperSettings,
    GuideLimitSettings,
    GuideSettings,
    GuideTraceSettings,
)
from lorebase_platform.settings.herald import (
    HeraldHttpSettings,
    HeraldKeeperSettings,
    HeraldSettings,
    HeraldTraceSettings,
)
from lorebase_platform.settings.inference import (
    EmbeddingSettings,
    InferenceSettings,
    LlmSettings,
    LlmTaskSettings,
    PricePerMillionTokens,
)
from lorebase_platform.settings.keeper import (
    ORIGIN_FORM,
    AgentWritesSettings,
    CacheSettings,
    HttpSettings,
    KeeperSettings,
    OperationsSettings,
    RateBucketSettings,
    RateClassesSettings,
    RateClassOverrides,
    RateLimitSettings,
    TraceSettings,
    WebSettings,
)
from lorebase_platform.settings.loading import (
    CONFIG_ENV,
    Settings,
    load_settings,
    settings_problems,
)
from lorebase_platform.settings.read import (
    AUDIT_PAGE,
    TRACE_SESSIONS_PAGE,
    HealthSettings,
    HistorySettings,
    NeighborhoodSettings,
    PageSettings,
    QuerySettings,
    ReadSettings,
    ResolveMissesSettings,
    ResolveSettings,
    SearchSettings,
    TraverseSettings,
)
from lorebase_platform.settings.scribe import ScribeJobSettings, ScribeJobsSettings, ScribeSettings
from lorebase_platform.settings.store import (
    DatabaseSettings,
    ImportSettings,
    StoreSettings,
    StoreTraverseSettings,
)
from lorebase_platform.settings.telemetry import TelemetrySettings
from lorebase_platform.settings.webhooks import WebhookSettings

__all__ = [
    "AUDIT_PAGE",
    "CONFIG_ENV",
    "OIDC_ALGORITHMS",
    "ORIGIN_FORM",
    "TRACE_SESSIONS_PAGE",
    "TRIM_STEPS",
    "AgentWritesSettings",
    "AgentsSettings",
    "AuthMode",
    "AuthSettings",
    "AuthzSettings",
    "CacheSettings",
    "ContextSettings",
    "DatabaseSettings",
    "EmbeddingSettings",
    "ExplainSettings",
    "FeedSettings",
    "GuideAgentSettings",
    "GuideHttpSettings",
    "GuideKeeperSettings",
    "GuideLimitSettings",
    "GuideSettings",
    "GuideTraceSettings",
    "HealthSettings",
    "HeraldHttpSettings",
    "HeraldKeeperSettings",
    "HeraldSettings",
    "HeraldTraceSettings",
    "HistorySettings",
    "HttpSettings",
    "ImportSettings",
    "InferenceSettings",
    "KeeperSettings",
    "LlmSettings",
    "LlmTaskSettings",
    "NeighborhoodSettings",
    "OidcGrantSettings",
    "OidcSettings",
    "OperationsSettings",
    "PageSettings",
    "PricePerMillionTokens",
    "QuerySettings",
    "RateBucketSettings",
    "RateClassOverrides",
    "RateClassesSettings",
    "RateLimitSettings",
    "ReadAuditSettings",
    "ReadSettings",
    "ResolveMissesSettings",
    "ResolveSettings",
    "ScribeJobSettings",
    "ScribeJobsSettings",
    "ScribeSettings",
    "SearchSettings",
    "SessionSettings",
    "Settings",
    "StoreSettings",
    "StoreTraverseSettings",
    "TelemetrySettings",
    "TraceSettings",
    "TraverseSettings",
    "WebSettings",
    "WebhookSettings",
    "default_data_dir",
    "load_settings",
    "settings_problems",
]
