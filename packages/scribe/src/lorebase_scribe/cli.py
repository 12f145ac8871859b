"""`lorebase-scribe`: the background worker's command.

    lorebase-scribe run            # run due jobs until SIGTERM or SIGINT
    lorebase-scribe run --once     # run every due job once, then exit (1 if one failed)
    lorebase-scribe embed --domain supply [--backfill]   # embed a Domain's due Records now

Settings come from the one settings tree (`--config`, else $LOREBASE_CONFIG; the scribe.*
section), like `lorebase serve`. A signal lets the running job finish, then Scribe stops.
"""

from __future__ import annotations

import logging
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import click
from pydantic import ValidationError

from lorebase_core.errors import LorebaseError
from lorebase_platform.settings import Settings, load_settings, settings_problems
from lorebase_scribe.embedding import embed_domain
from lorebase_scribe.jobs import LazyEmbedder
from lorebase_scribe.runner import Scribe
from lorebase_store import Store


@click.group()
def main() -> None:
    """Lorebase Scribe: webhook deliveries, Record embeddings, statistics recounts, pruning
    (docs/scribe.md)."""


def _settings(config_file: Path | None, database_url: str | None) -> Settings:
    try:
        settings = load_settings(config_file)
    except ValidationError as error:
        raise click.ClickException(settings_problems(error)) from None
    if database_url:
        settings.database.url = database_url
    return settings


def _store_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """--config and --database, as every command takes them."""
    command = click.option(
        "--database",
        "database_url",
        default=None,
        metavar="URL",
        help="Database URL (sqlite:///PATH or postgresql://...); overrides database.url.",
    )(command)
    return click.option(
        "--config",
        "config_file",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="Settings file (default: $LOREBASE_CONFIG).",
    )(command)


@main.command("run")
@click.option("--once", is_flag=True, help="Run every due job once, then exit (1 if one failed).")
@_store_options
def run(once: bool, config_file: Path | None, database_url: str | None) -> None:
    """Run Scribe's jobs: until SIGTERM or SIGINT, or once with --once."""
    logging.basicConfig(
        stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(name)s %(message)s"
    )
    settings = _settings(config_file, database_url)
    try:
        store = Store.from_settings(settings.database)
    except LorebaseError as exc:
        raise click.ClickException(exc.detail) from None
    scribe = None
    try:
        scribe = Scribe(store, settings)
        if once:
            outcomes = scribe.run_once()
            for outcome in outcomes:
                click.echo(
                    f"{outcome.kind} {outcome.domain or '-'} {outcome.outcome} "
                    f"{outcome.duration_s * 1000:.1f} ms: {outcome.summary}"
                )
            if any(outcome.outcome == "failed" for outcome in outcomes):
                sys.exit(1)
            return
        _run_until_signalled(scribe)
    finally:
        if scribe is not None:
            scribe.close()
        store.close()


@main.command("embed")
@click.option("--domain", required=True, metavar="NAME", help="The Domain to embed.")
@click.option(
    "--backfill",
    is_flag=True,
    help="Embed every Record of the head again, not only those changed since the last run.",
)
@_store_options
def embed(domain: str, backfill: bool, config_file: Path | None, database_url: str | None) -> None:
    """Embed a Domain's due Records now, until none is (what the record_embeddings job does)."""
    settings = _settings(config_file, database_url)
    try:
        store = Store.from_settings(settings.database)
    except LorebaseError as exc:
        raise click.ClickException(exc.detail) from None
    embedder = LazyEmbedder(settings)
    started = time.perf_counter()
    try:
        if backfill:
            store.reset_embeddings(domain)
        report = embed_domain(store, embedder, settings.inference.embeddings, domain)
    except LorebaseError as exc:
        raise click.ClickException(exc.detail) from None
    finally:
        embedder.close()
        store.close()
    duration_ms = (time.perf_counter() - started) * 1000
    click.echo(f"record_embeddings {domain} done {duration_ms:.1f} ms: {report.summary()}")
    if report.skipped is not None:
        sys.exit(1)


def _run_until_signalled(scribe: Scribe) -> None:
    """Run on a thread while this (main) thread waits for SIGTERM or SIGINT.

    The handlers run on the main thread, which holds none of the runner's locks while it joins.
    """

    def stop(signum: int, _frame: FrameType | None) -> None:
        logging.getLogger("lorebase.scribe").info(
            "%s: stopping after the running job", signal.Signals(signum).name
        )
        scribe.request_stop()

    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, stop)
    worker = threading.Thread(target=scribe.run, name="lorebase-scribe")
    worker.start()
    while worker.is_alive():
        worker.join(0.5)
