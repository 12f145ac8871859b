"""`lorebase context`, `search`, `resolve` and `health`: the agent reads of agents.md from a shell.

They share the options, the output and the error handling of the read commands (cli_options.py).
"""

from __future__ import annotations

import click

from lorebase_client._sync.client import LorebaseClient
from lorebase_client.answers import Answer, Text
from lorebase_client.cli_options import (
    Keeper,
    ReadTarget,
    branch_option,
    connection_options,
    domain_option,
    json_object,
    read_options,
)
from lorebase_client.routes import ContextOptions


@click.command("context")
@click.option("--refs", "refs", multiple=True, metavar="REF", help="A seed Record (repeat).")
@click.option("--query", "query", default=None, metavar="JSON", help="A query of the DSL as seeds.")
@click.option("--search", "search", default=None, metavar="TEXT", help="Seeds found by text.")
@click.option("--lens", default=None, metavar="LENS", help="A lens of the schema.")
@click.option(
    "--trait", "traits", multiple=True, metavar="TRAIT", help="Limit to a Trait (repeat)."
)
@click.option(
    "--relation", "relations", multiple=True, metavar="REL", help="Follow this Relation (repeat)."
)
@click.option("--depth", type=click.IntRange(min=0), default=None, help="Neighborhood depth.")
@click.option(
    "--budget", type=click.IntRange(min=1), default=None, metavar="TOKENS", help="Token budget."
)
@click.option("--since", default=None, metavar="REV", help="Recent changes after this Revision.")
@click.option("--markdown", is_flag=True, help="The pack as Markdown, ready for a prompt.")
@domain_option
@branch_option
@connection_options
def context_command(
    refs: tuple[str, ...],
    query: str | None,
    search: str | None,
    lens: str | None,
    traits: tuple[str, ...],
    relations: tuple[str, ...],
    depth: int | None,
    budget: int | None,
    since: str | None,
    markdown: bool,
    domain: str,
    branch: str | None,
    keeper: Keeper,
) -> None:
    """A context pack: the seed Records, their neighborhood, schema, changes and lineage.

    Give exactly one of --refs, --query or --search. For example:

    \b
        lorebase context --lens supplier_risk --refs Supplier/S-1001 --markdown
    """
    selectors = [bool(refs), query is not None, search is not None]
    if sum(selectors) != 1:
        raise click.UsageError("give exactly one of --refs, --query or --search")
    document = json_object(query, "--query") if query is not None else None

    options: ContextOptions = {
        "refs": list(refs) or None,
        "query": document,
        "search": search,
        "lens": lens,
        "traits": list(traits) or None,
        "relations": list(relations) or None,
        "depth": depth,
        "budget_tokens": budget,
        "since": since,
        "branch": branch,
    }

    def read(client: LorebaseClient) -> Answer | Text:
        if markdown:
            return client.context_markdown(domain, **options)
        return client.context(domain, **options)

    keeper.run(read)


@click.command("search")
@click.argument("text")
@click.option("--kind", "kinds", multiple=True, metavar="KIND", help="Search this Kind (repeat).")
@click.option("--trait", "traits", multiple=True, metavar="TRAIT", help="Search a Trait (repeat).")
@click.option("--lens", default=None, metavar="LENS", help="Search the Kinds of a lens.")
@click.option("--limit", type=click.IntRange(min=1), default=None, metavar="N", help="Hits.")
@domain_option
@branch_option
@connection_options
def search_command(
    text: str,
    kinds: tuple[str, ...],
    traits: tuple[str, ...],
    lens: str | None,
    limit: int | None,
    domain: str,
    branch: str | None,
    keeper: Keeper,
) -> None:
    """Records whose title or text matches TEXT (misspellings are corrected and reported)."""
    keeper.run(
        lambda client: client.search(
            domain,
            text,
            kinds=list(kinds) or None,
            traits=list(traits) or None,
            lens=lens,
            limit=limit,
            branch=branch,
        )
    )


@click.command("resolve")
@click.argument("text")
@click.option("--no-record-misses", is_flag=True, help="Do not keep the words nothing matched.")
@read_options
def resolve_command(text: str, no_record_misses: bool, read: ReadTarget) -> None:
    """Which Kinds, Attributes and stored values the words of TEXT mean."""
    read.run(
        lambda client: client.resolve(
            read.domain,
            text,
            record_misses=False if no_record_misses else None,
            branch=read.branch,
            at=read.at,
        )
    )


@click.command("health")
@click.argument("kind", required=False)
@click.option("--markdown", "output", flag_value="markdown", help="The report as Markdown.")
@click.option("--json", "output", flag_value="json", default=True, help="The report as JSON.")
@read_options
def health_command(kind: str | None, output: str, read: ReadTarget) -> None:
    """How sound the data is: violations, duplicates, orphans and gaps (of one KIND or all)."""

    def health(client: LorebaseClient) -> Answer | Text:
        if output == "markdown":
            return client.health(
                read.domain, kind, branch=read.branch, at=read.at, format="markdown"
            )
        return client.health(read.domain, kind, branch=read.branch, at=read.at)

    read.run(health)


AGENT_READ_COMMANDS: tuple[click.Command, ...] = (
    context_command,
    search_command,
    resolve_command,
    health_command,
)
"""The agent reads this package adds to `lorebase`."""
