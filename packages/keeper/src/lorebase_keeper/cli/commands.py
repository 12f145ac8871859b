"""Server-side commands of the `lorebase` CLI, registered as `lorebase.commands` entry points.

The client package owns the `lorebase` program and may not import Keeper (design.md); it loads
these commands through the entry points instead.
"""

from __future__ import annotations

import json
import signal
import sys
from collections.abc import Mapping
from pathlib import Path
from types import FrameType
from typing import cast, get_args

import click

from lorebase_core.errors import ImportOverwrites, InvalidInput, LorebaseError
from lorebase_keeper.cli.background import Background, start_background
from lorebase_keeper.cli.demo import (
    PROFILES_ENV,
    default_profiles_path,
    demo_instructions,
    setup_demo,
)
from lorebase_keeper.cli.options import command_settings, config_option, database_option
from lorebase_platform.settings import AuthMode, Settings
from lorebase_store import ImportResult, Store, import_directory

scribe_option = click.option(
    "--scribe",
    "with_scribe",
    is_flag=True,
    help="Also run Scribe's jobs (webhook deliveries, statistics recounts, pruning) in this "
    "process, for a one-machine installation (docs/scribe.md).",
)


@click.command("import")
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--author",
    default=None,
    help="Author of the Revision (default: import.yaml's, else 'importer').",
)
@click.option("--message", default=None, help="Message of the Revision.")
@click.option(
    "--branch", default=None, help="Branch to import into (default: the Domain's default branch)."
)
@click.option("--create-only", is_flag=True, help="Do nothing when the Domain already exists.")
@click.option(
    "--overwrite",
    is_flag=True,
    help="Importing again: replace values that Operations or merges set since (listed).",
)
@config_option
@database_option
def import_command(
    directory: Path,
    author: str | None,
    message: str | None,
    branch: str | None,
    create_only: bool,
    overwrite: bool,
    config_file: Path | None,
    database_url: str | None,
) -> None:
    """Import a schema and data files from DIRECTORY into its Domain as one Revision.

    Importing a folder again commits only what differs from what the folder means (its data and
    its revisions/), so the same folder twice changes nothing; values set since by Operations or
    merges are listed and kept unless --overwrite is given.
    """
    settings = command_settings(config_file, database_url)
    store = Store.from_settings(settings.database)
    try:
        result = import_directory(
            store,
            directory,
            author=author,
            message=message,
            branch=branch,
            create_only=create_only,
            overwrite=overwrite,
            batch_size=settings.imports.batch_size,
            max_issues=settings.imports.max_issues,
            changed_keys_max=settings.agents.feed.changed_keys_max,
        )
    except InvalidInput as exc:
        click.echo(f"error: {exc.detail}", err=True)
        for issue in exc.issues:
            click.echo(f"  {issue}", err=True)
        sys.exit(1)
    except ImportOverwrites as exc:
        click.echo(f"error: {exc.detail}", err=True)
        for entry in exc.extra["overwrites"]:
            click.echo(f"  {_overwrite_line(entry)}", err=True)
        sys.exit(1)
    except LorebaseError as exc:
        click.echo(f"error: {exc.detail}", err=True)
        sys.exit(1)
    finally:
        store.close()
    _report(result, directory)


def _report(result: ImportResult, directory: Path) -> None:
    """What an import did: the Revisions it made, the values it replaced."""
    if result.skipped:
        click.echo(f"Domain {result.domain!r} exists already; nothing imported (--create-only).")
        return
    if not result.created and not result.revisions:
        click.echo(
            f"Domain {result.domain!r} already holds what {directory} means: nothing changed, "
            "no Revision was made."
        )
        return
    verb = "created" if result.created else "updated"
    click.echo(
        f"Domain {result.domain!r} {verb}: {result.changes} change(s) in {len(result.revisions)} Revision(s)"
    )
    for revision in result.revisions:
        click.echo(
            f"  {revision.id[:12]} {revision.origin_type:<9} {revision.author}: {revision.message}"
        )
    if result.overwritten:
        click.echo(f"  replaced {len(result.overwritten)} value(s) set since (--overwrite):")
        for overwritten in result.overwritten:
            click.echo(f"    {_overwrite_line(overwritten.to_json())}")


def _overwrite_line(entry: Mapping[str, object]) -> str:
    """`Supplier/S-1001 risk_score: "50" (now) -> "90" (the folder), set by <Revision> ...`

    `entry` is an `Overwrite` as JSON (`Overwrite.to_json`, or the `overwrites` of the
    ImportOverwrites problem)."""
    where = entry["ref"] if entry["attribute"] is None else f"{entry['ref']} {entry['attribute']}"
    current = "deleted" if entry["attribute"] is None else json.dumps(entry["current"])
    found = entry["origin"]
    origin = found.get("type") if isinstance(found, Mapping) else None
    revision = str(entry["revision"])
    return (
        f"{where}: {current} (now) -> {json.dumps(entry['imported'])} (the folder), "
        f"set by {revision[:12]} ({origin}, {entry['author']}: {entry['message']})"
    )


@click.command("serve")
@click.option(
    "--host", default=None, help="Address to listen on (default: keeper.host, 127.0.0.1)."
)
@click.option(
    "--port", type=int, default=None, help="Port to listen on (default: keeper.port, 8080)."
)
@click.option(
    "--auth",
    "auth_mode",
    type=click.Choice(list(get_args(AuthMode))),
    default=None,
    help="Authentication (default: keeper.auth.mode, api_key); oidc takes tokens of "
    "keeper.auth.oidc's issuer; none makes every request a local administrator, on loopback "
    "only (refused elsewhere); `lorebase demo` uses keys.",
)
@scribe_option
@config_option
@database_option
def serve(
    host: str | None,
    port: int | None,
    auth_mode: str | None,
    with_scribe: bool,
    config_file: Path | None,
    database_url: str | None,
) -> None:
    """Start Keeper, the REST server."""
    settings = command_settings(config_file, database_url)
    if auth_mode is not None:
        settings.keeper.auth.mode = cast(AuthMode, auth_mode)
    if host is not None:
        settings.keeper.host = host
    run_keeper(settings, port=port, with_scribe=with_scribe)


def run_keeper(settings: Settings, *, port: int | None = None, with_scribe: bool = False) -> None:
    """Serve Keeper under uvicorn until interrupted (with Scribe's jobs on a thread when
    `with_scribe`, stopped with it); exit 1 on settings it refuses."""
    import uvicorn

    from lorebase_keeper.app import create_app
    from lorebase_keeper.server import server_config

    scribe: Background | None = None
    try:
        app = create_app(settings)  # refuses auth mode none off loopback (docs/auth.md)
        config = server_config(app, settings, port=port)
        if with_scribe:
            scribe = start_background("scribe", settings, package="lorebase-scribe")
    except LorebaseError as exc:
        click.echo(f"error: {exc.detail}", err=True)
        sys.exit(1)
    if scribe is not None:
        # uvicorn shuts down on SIGTERM, then raises the signal again under the handler it
        # found: this one, so that the process ends through `finally` and Scribe stops cleanly
        signal.signal(signal.SIGTERM, _exit_on_sigterm)
    try:
        uvicorn.Server(config).run()
    finally:
        if scribe is not None:
            scribe.stop()


def _exit_on_sigterm(_signum: int, _frame: FrameType | None) -> None:
    raise SystemExit(0)


@click.command("demo")
@click.option(
    "--port", type=int, default=None, help="Port to listen on (default: keeper.port, 8080)."
)
@click.option(
    "--profiles",
    "profiles_file",
    type=click.Path(dir_okay=False, path_type=Path),
    envvar=PROFILES_ENV,
    show_envvar=True,
    default=None,
    help="Profiles file to write the keys to (default: profiles.toml in the data directory).",
)
@click.option(
    "--setup-only", is_flag=True, help="Set up the principals and their profiles; do not serve."
)
@scribe_option
@config_option
@database_option
def demo(
    port: int | None,
    profiles_file: Path | None,
    setup_only: bool,
    with_scribe: bool,
    config_file: Path | None,
    database_url: str | None,
) -> None:
    """Give the imported supply example an agent, a reviewer and an admin, then start Keeper.

    Keeper runs with API keys on 127.0.0.1. The keys of the three principals are printed and
    written to the profiles file (0600), which `--profile agent` (or LOREBASE_PROFILE=agent)
    reads. Running it again reuses what is in place (docs/tutorial.md).
    """
    settings = command_settings(config_file, database_url)
    settings.keeper.auth.mode = "api_key"
    settings.keeper.host = "127.0.0.1"
    listen_port = settings.keeper.port if port is None else port
    url = f"http://127.0.0.1:{listen_port}"
    path = profiles_file.expanduser() if profiles_file else default_profiles_path()
    store = Store.from_settings(settings.database)
    try:
        made = setup_demo(store, path, url=url)
    except (LorebaseError, ValueError, OSError) as exc:
        click.echo(f"error: {getattr(exc, 'detail', exc)}", err=True)
        sys.exit(1)
    finally:
        store.close()
    click.echo(demo_instructions(made, path, url=url, web=settings.keeper.web.dist is not None))
    if not setup_only:
        run_keeper(settings, port=listen_port, with_scribe=with_scribe)


@click.command("log")
@click.argument("domain")
@click.option("--branch", default=None, help="Branch (default: the Domain's default branch).")
@click.option(
    "--limit",
    type=click.IntRange(1, 1000),
    default=20,
    show_default=True,
    help="Revisions to list.",
)
@config_option
@database_option
def log(
    domain: str, branch: str | None, limit: int, config_file: Path | None, database_url: str | None
) -> None:
    """List the Revisions of a branch, newest first."""
    settings = command_settings(config_file, database_url)
    store = Store.from_settings(settings.database)
    try:
        revisions = store.log(domain, branch=branch, limit=limit)
    except LorebaseError as exc:
        click.echo(f"error: {exc.detail}", err=True)
        sys.exit(1)
    finally:
        store.close()
    for revision in revisions:
        click.echo(
            f"{revision.id[:12]} {revision.created_at} {revision.origin_type:<9} {revision.author}: {revision.message}"
        )
