"""The read commands of `lorebase`: Keeper's read API from a shell (docs/client.md).

Every command prints the answer as indented JSON on stdout (explain --markdown prints the text);
options, errors and exit codes are those of every command that calls Keeper (cli_options.py).
"""

from __future__ import annotations

from typing import IO

import click

from lorebase_client._sync.client import LorebaseClient
from lorebase_client.answers import Answer, Text
from lorebase_client.cli_options import (
    Keeper,
    ReadTarget,
    connection_options,
    domain_option,
    json_object,
    json_value,
    page_options,
    read_options,
)
from lorebase_client.plugins import ENTRY_POINT_GROUP, PluggableGroup
from lorebase_client.routes import BranchMode

BRANCH_MODES: dict[str, BranchMode] = {"overlay": "overlay", "copy": "copy"}


# -- schema -----------------------------------------------------------------------------------


@click.command("schema")
@click.option(
    "--format",
    "form",
    type=click.Choice(["json", "compact", "markdown"]),
    default="json",
    metavar="FORMAT",
    help="json (default); compact: names, keys, types, Relations first; markdown: for a prompt.",
)
@click.option(
    "--kinds", default=None, metavar="K1,K2", help="Only these Kinds and the Relations between."
)
@read_options
def schema_command(form: str, kinds: str | None, read: ReadTarget) -> None:
    """Print the schema of a Domain, as far as the API key may read it."""
    names = None if kinds is None else kinds.split(",")

    def schema(client: LorebaseClient) -> Answer | Text:
        if form == "markdown":
            return client.schema(
                read.domain, branch=read.branch, at=read.at, format="markdown", kinds=names
            )
        lean = form == "compact"
        return client.schema(
            read.domain,
            branch=read.branch,
            at=read.at,
            format="compact" if lean else "json",
            kinds=names,
        )

    read.run(schema)


# -- record -----------------------------------------------------------------------------------


@click.group("record", cls=PluggableGroup, entry_point_group=f"{ENTRY_POINT_GROUP}.record")
def record_group() -> None:
    """Read Records: their values, Links, history, lineage and explanation."""


@record_group.command("list")
@click.argument("kind")
@page_options("Records per page.")
@read_options
def record_list(kind: str, limit: int | None, cursor: str | None, read: ReadTarget) -> None:
    """Print one page of the Records of KIND, in key order."""
    read.run(
        lambda client: client.records(
            read.domain, kind, branch=read.branch, at=read.at, limit=limit, cursor=cursor
        )
    )


@record_group.command("get")
@click.argument("kind")
@click.argument("key")
@click.option("--links", is_flag=True, help="Add the number of Links per Relation.")
@click.option("--lineage", is_flag=True, help="Add where each value came from.")
@read_options
def record_get(kind: str, key: str, links: bool, lineage: bool, read: ReadTarget) -> None:
    """Print the Record KIND/KEY."""
    read.run(
        lambda client: client.record(
            read.domain, kind, key, branch=read.branch, at=read.at, links=links, lineage=lineage
        )
    )


@record_group.command("links")
@click.argument("kind")
@click.argument("key")
@click.argument("relation")
@page_options("Links per page.")
@read_options
def record_links(
    kind: str, key: str, relation: str, limit: int | None, cursor: str | None, read: ReadTarget
) -> None:
    """Print the Links of KIND/KEY along RELATION (its forward or inverse name)."""
    read.run(
        lambda client: client.links(
            read.domain,
            kind,
            key,
            relation,
            branch=read.branch,
            at=read.at,
            limit=limit,
            cursor=cursor,
        )
    )


@record_group.command("history")
@click.argument("kind")
@click.argument("key")
@click.option("--values", is_flag=True, help="Add the values before and after each change.")
@click.option(
    "--attribute",
    "attributes",
    multiple=True,
    metavar="NAME",
    help="Only the changes of this Attribute, with its values only (repeat).",
)
@page_options("Changes per page.")
@read_options
def record_history(
    kind: str,
    key: str,
    values: bool,
    attributes: tuple[str, ...],
    limit: int | None,
    cursor: str | None,
    read: ReadTarget,
) -> None:
    """Print the changes of KIND/KEY on the branch, newest first."""
    read.run(
        lambda client: client.history(
            read.domain,
            kind,
            key,
            branch=read.branch,
            at=read.at,
            values=values,
            limit=limit,
            cursor=cursor,
            attributes=list(attributes) or None,
        )
    )


@record_group.command("lineage")
@click.argument("kind")
@click.argument("key")
@read_options
def record_lineage(kind: str, key: str, read: ReadTarget) -> None:
    """Print where each current value of KIND/KEY came from."""
    read.run(lambda client: client.lineage(read.domain, kind, key, branch=read.branch, at=read.at))


@record_group.command("explain")
@click.argument("kind")
@click.argument("key")
@click.option("--markdown", is_flag=True, help="Print Markdown (for a prompt) instead of JSON.")
@read_options
def record_explain(kind: str, key: str, markdown: bool, read: ReadTarget) -> None:
    """Print why KIND/KEY exists and why its values are what they are."""

    def explain(client: LorebaseClient) -> Answer | Text:
        if markdown:
            return client.explain(
                read.domain, kind, key, branch=read.branch, at=read.at, format="markdown"
            )
        return client.explain(read.domain, kind, key, branch=read.branch, at=read.at)

    read.run(explain)


# -- query and traverse -----------------------------------------------------------------------


@click.command("query")
@click.argument("file", type=click.File("r"), required=False)
@click.option("--kind", default=None, metavar="KIND", help="Query the Records of this Kind.")
@click.option(
    "--trait", default=None, metavar="TRAIT", help="Query the Records of the Kinds with this Trait."
)
@click.option("--where", default=None, metavar="JSON", help="A predicate of the query DSL.")
@page_options("Records per page.")
@read_options
def query_command(
    file: IO[str] | None,
    kind: str | None,
    trait: str | None,
    where: str | None,
    limit: int | None,
    cursor: str | None,
    read: ReadTarget,
) -> None:
    """Run a query of the DSL (docs/query.md).

    The query is the JSON document in FILE (- for stdin), or one made of --kind or --trait,
    --where and --limit; options given with FILE are set over its document. For example:

    \b
        lorebase query --kind Supplier --where '{"attr": "tier", "op": "eq", "value": 1}'
        echo '{"kind": "Part", "limit": 5}' | lorebase query -
    """
    document = json_object(file.read(), "FILE") if file is not None else None
    if document is None and kind is None and trait is None:
        raise click.UsageError("give a query document (FILE, or - for stdin) or --kind/--trait")
    predicate = json_value(where, "--where")
    read.run(
        lambda client: client.query(
            read.domain,
            document,
            kind=kind,
            trait=trait,
            where=predicate,
            limit=limit,
            cursor=cursor,
            branch=read.branch,
            at=read.at,
        )
    )


@click.command("traverse")
@click.option(
    "--start",
    "start",
    multiple=True,
    required=True,
    metavar="REF",
    help="A start Record, Kind/key (repeat for more, all of one Kind).",
)
@click.option(
    "--path",
    "path",
    multiple=True,
    required=True,
    metavar="REL",
    help="A Relation to follow, forward or inverse name (repeat, in order).",
)
@click.option(
    "--limit", type=click.IntRange(min=1), default=None, metavar="N", help="Records at most."
)
@read_options
def traverse_command(
    start: tuple[str, ...], path: tuple[str, ...], limit: int | None, read: ReadTarget
) -> None:
    """Follow a path of Relations from some Records (docs/graph.md).

    For example, the purchase orders of the parts supplier S-1007 supplies:

    \b
        lorebase traverse --start Supplier/S-1007 --path supplies --path purchase_orders
    """
    read.run(
        lambda client: client.traverse(
            read.domain, start, path, limit=limit, branch=read.branch, at=read.at
        )
    )


# -- Revisions and branches -------------------------------------------------------------------


@click.command("diff")
@click.argument("from_revision", metavar="FROM")
@click.argument("to_revision", metavar="TO")
@domain_option
@connection_options
def diff_command(from_revision: str, to_revision: str, domain: str, keeper: Keeper) -> None:
    """Print what changed between two Revisions.

    FROM and TO are Revision ids, unique prefixes of one, or tags.
    """
    keeper.run(lambda client: client.diff(domain, from_revision, to_revision))


@click.group("branch", cls=PluggableGroup, entry_point_group=f"{ENTRY_POINT_GROUP}.branch")
def branch_group() -> None:
    """List, show, create and merge branches."""


@branch_group.command("list")
@domain_option
@connection_options
def branch_list(domain: str, keeper: Keeper) -> None:
    """Print the branches of the Domain the API key may read."""
    keeper.run(lambda client: client.branches(domain))


@branch_group.command("show")
@click.argument("name")
@domain_option
@connection_options
def branch_show(name: str, domain: str, keeper: Keeper) -> None:
    """Print the branch NAME and its head Revision."""
    keeper.run(lambda client: client.branch(domain, name))


@branch_group.command("create")
@click.argument("name")
@click.option(
    "--from",
    "from_branch",
    default=None,
    metavar="BRANCH",
    help="Branch to start from (default: the Domain's default branch).",
)
@click.option(
    "--at",
    default=None,
    metavar="REV",
    help="Start at this Revision of --from: an id, a unique prefix or a tag (default: head).",
)
@click.option(
    "--mode",
    type=click.Choice(sorted(BRANCH_MODES)),
    default=None,
    help="overlay stores only the rows the branch changes (Keeper's default); copy full rows.",
)
@domain_option
@connection_options
def branch_create(
    name: str,
    from_branch: str | None,
    at: str | None,
    mode: str | None,
    domain: str,
    keeper: Keeper,
) -> None:
    """Create the branch NAME at the head of --from, or at its Revision --at."""
    keeper.run(
        lambda client: client.create_branch(
            domain, name, from_branch=from_branch, at=at, mode=BRANCH_MODES.get(mode or "")
        )
    )


READ_COMMANDS: tuple[click.Command, ...] = (
    schema_command,
    record_group,
    query_command,
    traverse_command,
    diff_command,
    branch_group,
)
"""The commands this package adds to `lorebase`."""
