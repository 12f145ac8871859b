"""`lorebase events` and `lorebase changes`: follow a branch from a shell (docs/feed.md).

`events` prints each event as one line of JSON as it arrives and reconnects after Keeper closes
the stream (Ctrl-C ends it); `changes` prints one page of the polling feed as indented JSON.
"""

from __future__ import annotations

import json

import click

from lorebase_client.cli_options import Keeper, connection_options, domain_option

KINDS_HELP = "Only Revisions changing these Kinds (and Operation events editing them)."


@click.command("events")
@click.argument("branch")
@click.option("--kinds", default=None, metavar="K1,K2", help=KINDS_HELP)
@click.option(
    "--last-event-id",
    default=None,
    metavar="ID",
    help="Resume after this event id (default: start at the next commit).",
)
@domain_option
@connection_options
def events_command(
    branch: str,
    kinds: str | None,
    last_event_id: str | None,
    domain: str,
    keeper: Keeper,
) -> None:
    """Print the events committed on BRANCH as they come, one JSON document per line."""
    names = None if kinds is None else kinds.split(",")
    with keeper.client() as client:
        try:
            for event in client.events(domain, branch, kinds=names, last_event_id=last_event_id):
                click.echo(json.dumps(event, separators=(",", ":"), ensure_ascii=False))
        except KeyboardInterrupt:
            return


@click.command("changes")
@click.argument("branch")
@click.option(
    "--since",
    default=None,
    metavar="REV",
    help="The Revisions after this one (id, unique prefix or tag); default: the latest.",
)
@click.option("--kinds", default=None, metavar="K1,K2", help=KINDS_HELP)
@click.option("--limit", type=int, default=None, help="Events per page.")
@domain_option
@connection_options
def changes_command(
    branch: str,
    since: str | None,
    kinds: str | None,
    limit: int | None,
    domain: str,
    keeper: Keeper,
) -> None:
    """Print the Revisions committed on BRANCH after --since, oldest first (next_since, more)."""
    names = None if kinds is None else kinds.split(",")
    keeper.run(lambda client: client.changes(domain, branch, since=since, kinds=names, limit=limit))


FEED_COMMANDS: tuple[click.Command, ...] = (events_command, changes_command)
