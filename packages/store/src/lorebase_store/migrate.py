"""Bring a database to the current schema of the store with Alembic."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import sqlalchemy as sa

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).with_name("migrations")


def alembic_config(connection: sa.Connection | None = None) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def upgrade(engine: sa.Engine) -> None:
    """Run every migration not yet applied (a no-op on an up-to-date database).

    Alembic is imported here, when a database is opened, not when the CLI starts.
    """
    from alembic import command
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    with engine.connect() as connection:
        current = MigrationContext.configure(connection).get_current_revision()
        connection.rollback()
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if current == head:
        return
    with engine.begin() as connection:
        command.upgrade(alembic_config(connection), "head")
