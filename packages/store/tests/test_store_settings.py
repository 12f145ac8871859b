"""The database settings reach the engine the store opens."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa

from lorebase_platform.settings import DatabaseSettings
from lorebase_store.store import Store


def test_from_settings_opens_the_embedded_sqlite_file(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "lorebase.sqlite"
    store = Store.from_settings(DatabaseSettings(sqlite_path=path))
    try:
        assert store.backend == "sqlite"
        assert path.is_file()
    finally:
        store.close()


def test_from_settings_passes_pool_size_and_busy_timeout(database_url: str) -> None:
    settings = DatabaseSettings(url=database_url, pool_size=7, busy_timeout_ms=1234)
    store = Store.from_settings(settings)
    try:
        if store.backend == "sqlite":
            with store.engine.connect() as connection:
                assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() == 1234
        else:
            pool = store.engine.pool
            assert isinstance(pool, sa.QueuePool)
            assert pool.size() == 7
    finally:
        store.close()
