"""`lorebase-guide`: serve Guide, and clear its remembered structured-output modes."""

from __future__ import annotations

import asyncio
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
@click.option(
    "--when-model",
    is_flag=True,
    help="Start only when the chat model of guide.agent.task answers GET /models; otherwise "
    "say why and exit 0 (what `make demo` uses).",
)
def serve(config_file: Path | None, host: str | None, port: int | None, when_model: bool) -> None:
    """Serve POST /explore, POST /embed, GET /healthz and GET /readyz."""
    from lorebase_guide.app import create_app

    settings = _settings(config_file)
    if when_model:
        reason = asyncio.run(_model_unavailable(settings))
        if reason is not None:
            click.echo(
                f"Guide not started: {reason}. Configure inference.llm (docs/guide.md) and "
                "start it with `lorebase-guide serve`.",
                err=True,
            )
            return
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


async def _model_unavailable(settings: Settings) -> str | None:
    from lorebase_inference import ChatModel, endpoint_for

    try:
        endpoint = endpoint_for(settings.inference.llm, settings.guide.agent.task)
    except LorebaseError as error:
        return f"the model's settings cannot be used ({error.detail})"
    async with ChatModel(endpoint) as model:
        return await model.unavailable()


@main.group()
def modes() -> None:
    """The structured-output modes Guide remembers per model endpoint."""


@modes.command("clear")
@CONFIG_OPTION
def clear(config_file: Path | None) -> None:
    """Delete every remembered mode (guide.data_dir / guide.mode_memory_file)."""
    from lorebase_inference import clear_modes, mode_memory_for

    path = mode_memory_for(_settings(config_file)).path
    if path is None:  # pragma: no cover - mode_memory_for always names a file
        raise click.ClickException("no mode memory file is configured")
    try:
        removed = clear_modes(path)
    except (OSError, ValueError) as error:
        raise click.ClickException(f"cannot clear {str(path)!r}: {error}") from None
    click.echo(f"cleared {removed} remembered mode(s) in {path}")
