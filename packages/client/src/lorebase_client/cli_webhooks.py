"""`lorebase webhook add|list|remove|deliveries|retry`: a Domain's webhooks from a shell.

`add` prints the secret once, with a line saying it is shown only now; the other commands print
Keeper's answer as indented JSON, like the read commands, whose options and error handling they
share (cli_options.py).
"""

from __future__ import annotations

import click

from lorebase_client.answers import Answer
from lorebase_client.cli_options import Keeper, connection_options, page_options
from lorebase_client.plugins import ENTRY_POINT_GROUP, PluggableGroup
from lorebase_client.webhook_routes import DeliveryStatus

STATUSES: dict[str, DeliveryStatus] = {
    "pending": "pending",
    "delivered": "delivered",
    "dead": "dead",
}


@click.group("webhook", cls=PluggableGroup, entry_point_group=f"{ENTRY_POINT_GROUP}.webhook")
def webhook_group() -> None:
    """Webhooks of a Domain: signed POSTs of its events (Domain administrators)."""


def _created(answer: Answer) -> None:
    click.echo(f"webhook {answer['id']} -> {answer['url']}")
    click.echo(f"events: {', '.join(answer['events'])}")
    click.echo(f"branches: {', '.join(answer['branches']) or 'every branch'}")
    click.echo(f"secret: {answer['secret']}")
    click.echo("The secret is shown only now: keep it to verify Lorebase-Signature.")


@webhook_group.command("add")
@click.argument("domain")
@click.argument("target")
@click.option(
    "--event",
    "events",
    multiple=True,
    metavar="EVENT",
    help="revision.committed, operation.* or operation.<side effect> (repeat; default: both).",
)
@click.option("--branch", "branches", multiple=True, metavar="BRANCH", help="Repeat; none: all.")
@click.option(
    "--clearance",
    "clearances",
    multiple=True,
    type=click.Choice(["pii", "confidential", "restricted"]),
    help="Values of this tag arrive unmasked in operation events (repeat).",
)
@connection_options
def webhook_add(
    domain: str,
    target: str,
    events: tuple[str, ...],
    branches: tuple[str, ...],
    clearances: tuple[str, ...],
    keeper: Keeper,
) -> None:
    """Register the URL TARGET to receive the events of DOMAIN. For example:

    \b
        lorebase webhook add supply https://agents.example.com/lorebase --branch main
    """
    keeper.run(
        lambda client: client.webhooks.create(
            domain,
            target,
            events=list(events) or None,
            branches=list(branches),
            clearances=list(clearances),
        ),
        emit=_created,
    )


@webhook_group.command("list")
@click.argument("domain")
@connection_options
def webhook_list(domain: str, keeper: Keeper) -> None:
    """The webhooks of DOMAIN (never their secrets)."""
    keeper.run(lambda client: client.webhooks.list(domain))


@webhook_group.command("remove")
@click.argument("domain")
@click.argument("webhook")
@connection_options
def webhook_remove(domain: str, webhook: str, keeper: Keeper) -> None:
    """Remove the webhook WEBHOOK of DOMAIN with its deliveries."""
    keeper.run(lambda client: client.webhooks.delete(domain, webhook))


@webhook_group.command("deliveries")
@click.argument("domain")
@click.argument("webhook")
@click.option(
    "--status", type=click.Choice(sorted(STATUSES)), default=None, help="Only this status."
)
@page_options("Per page.")
@connection_options
def webhook_deliveries(
    domain: str,
    webhook: str,
    status: str | None,
    limit: int | None,
    cursor: str | None,
    keeper: Keeper,
) -> None:
    """The deliveries of WEBHOOK, newest event first. For example, the dead ones:

    \b
        lorebase webhook deliveries supply whk_... --status dead
    """
    keeper.run(
        lambda client: client.webhooks.deliveries(
            domain, webhook, status=STATUSES.get(status or ""), limit=limit, cursor=cursor
        )
    )


@webhook_group.command("retry")
@click.argument("domain")
@click.argument("webhook")
@click.argument("delivery")
@connection_options
def webhook_retry(domain: str, webhook: str, delivery: str, keeper: Keeper) -> None:
    """Send the dead delivery DELIVERY of WEBHOOK again (same Idempotency-Key)."""
    keeper.run(lambda client: client.webhooks.retry(domain, webhook, delivery))


WEBHOOK_COMMANDS: tuple[click.Command, ...] = (webhook_group,)
"""The webhook commands this package adds to `lorebase`."""
