"""The root `Settings` and how it is read: init arguments, then the environment, then the YAML
file named by `load_settings` or $LOREBASE_CONFIG."""

from __future__ import annotations

import os
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from pydantic import AliasChoices, Field, ValidationError
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    YamlConfigSettingsSource,
)

from lorebase_platform.settings.agents import AgentsSettings
from lorebase_platform.settings.base import section
from lorebase_platform.settings.guide import GuideSettings
from lorebase_platform.settings.herald import HeraldSettings
from lorebase_platform.settings.inference import InferenceSettings
from lorebase_platform.settings.keeper import KeeperSettings
from lorebase_platform.settings.read import ReadSettings
from lorebase_platform.settings.scribe import ScribeSettings
from lorebase_platform.settings.store import DatabaseSettings, ImportSettings, StoreSettings
from lorebase_platform.settings.telemetry import TelemetrySettings
from lorebase_platform.settings.webhooks import WebhookSettings

CONFIG_ENV = "LOREBASE_CONFIG"


_config_file: ContextVar[Path | None] = ContextVar("lorebase_config_file", default=None)


class Settings(BaseSettings):
    """Every setting of Lorebase, by section."""

    model_config = SettingsConfigDict(
        env_prefix="LOREBASE__", env_nested_delimiter="__", extra="forbid"
    )

    database: DatabaseSettings = section(DatabaseSettings, "Where the data lives.")
    keeper: KeeperSettings = section(KeeperSettings, "The REST server.")
    # `import` is a Python keyword: the field is `imports`, the YAML section `import`. An alias
    # turns off the env prefix, so the environment name is given with it.
    imports: ImportSettings = Field(
        default_factory=ImportSettings,
        validation_alias=AliasChoices("import", "LOREBASE__IMPORT"),
        serialization_alias="import",
        description="lorebase import.",
    )
    agents: AgentsSettings = section(AgentsSettings, "Agent-facing reads.")
    read: ReadSettings = section(ReadSettings, "Limits of reads.")
    store: StoreSettings = section(StoreSettings, "The store.")
    telemetry: TelemetrySettings = section(TelemetrySettings, "Metrics export (OpenTelemetry).")
    herald: HeraldSettings = section(HeraldSettings, "Herald: Lorebase over MCP.")
    inference: InferenceSettings = section(
        InferenceSettings, "Chat and embedding models (the example agent, Guide, Scribe)."
    )
    webhooks: WebhookSettings = section(WebhookSettings, "Webhooks and their delivery.")
    scribe: ScribeSettings = section(ScribeSettings, "Scribe, the background worker.")
    guide: GuideSettings = section(GuideSettings, "Guide, the exploration assistant.")

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
