"""database, store and import: where the data lives and how the store walks and loads it."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from lorebase_platform.secrets import resolve_secret
from lorebase_platform.settings.base import Section, count, default_data_dir, section


class DatabaseSettings(Section):
    url: str | None = Field(
        default=None,
        description="SQLAlchemy URL of the database (postgresql://...), or a secret:// reference to one. "
        "Empty: the embedded SQLite database at sqlite_path.",
    )
    sqlite_path: Path = Field(
        default_factory=lambda: default_data_dir() / "lorebase.sqlite",
        description="File of the embedded SQLite database, used when url is empty.",
    )
    pool_size: int = count(5, "Connections kept open per process (PostgreSQL).", le=100)
    busy_timeout_ms: int = Field(
        default=30000, ge=0, description="How long a SQLite writer waits for the write lock."
    )

    def resolved_url(self) -> str:
        if self.url:
            return resolve_secret(self.url)
        return f"sqlite:///{self.sqlite_path.expanduser()}"


class StoreTraverseSettings(Section):
    max_fanout: int = count(
        1000, "Links followed from one Record per hop in traversals and neighborhoods."
    )


class StoreSettings(Section):
    traverse: StoreTraverseSettings = section(StoreTraverseSettings, "Graph walks in the store.")


class ImportSettings(Section):
    batch_size: int = count(1000, "Rows validated and written per batch.", le=100_000)
    max_issues: int = count(1000, "Problems collected before an import stops looking for more.")
