"""The options every server-side command shares: the settings file and the database."""

from __future__ import annotations

from pathlib import Path

import click

from lorebase_platform.settings import Settings, load_settings

config_option = click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Settings file (default: $LOREBASE_CONFIG).",
)
database_option = click.option(
    "--database",
    "database_url",
    default=None,
    metavar="URL",
    help="Database URL (sqlite:///PATH or postgresql://...); overrides database.url.",
)


def command_settings(config_file: Path | None, database_url: str | None) -> Settings:
    settings = load_settings(config_file)
    if database_url:
        settings.database.url = database_url
    return settings
