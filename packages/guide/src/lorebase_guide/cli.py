"""`lorebase-guide`: serve Guide, and clear its remembered structured-output modes."""

from __future__ import annotations

import logging
from pathlib import Path

import click
import uvicorn

from lorebase_core.errors import LorebaseError
from lorebase_platform.settings import Settings, load_settings

CONFIG_OPTION = click.option(
    "--config",
    "config_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="YAML configuration file (default: $LOREBASE_CONFIG, else the defaults).",
)


def _settings(config_file: Path | None) -> Settings:
    try:
        return load_settings(config_file)
    except LorebaseError as error:
        raise click.ClickException(error.detail) from None
    except ValueError as error:  # pydantic's ValidationError: a setting out of bounds
        raise click.ClickException(f"invalid settings: {error}") from None


@click.group()
def main() -> None:
    """Lorebase Guide: a read-only exploration agent over Keeper's API (docs/guide.md)."""


@main.command()
@CONFIG_OPTION
@click.option("--host", default=None, help="Address to listen on (default: guide.http.host).")
@click.option(
    "--port", type=int, default=None, help="Port to listen on (default: guide.http.port)."
)
def serve(config_file: Path | None, host: str | None, port: int | None) -> None:
    """Serve POST /explore, POST /embed, GET /healthz and GET /readyz."""
    from lorebase_guide.app import create_app

    settings = _settings(config_file)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    app = create_app(settings)
    http = settings.guide.http
    # Guide's own access log (lorebase_guide.access) names the route, never the raw path:
    # uvicorn's would repeat query strings.
    uvicorn.run(
        app,
        host=host or http.host,
        port=http.port if port is None else port,
        access_log=False,
        log_level="info",
    )


@main.group()
def modes() -> None:
    """The structured-output modes Guide remembers per model endpoint."""


@modes.command("clear")
@CONFIG_OPTION
def clear(config_file: Path | None) -> None:
    """Delete every remembered mode (guide.data_dir / guide.mode_memory_file)."""
    from lorebase_inference import clear_modes

    settings = _settings(config_file)
    path = Path(settings.guide.data_dir).expanduser() / settings.guide.mode_memory_file
    removed = clear_modes(path)
    click.echo(f"cleared {removed} remembered mode(s) in {path}")
