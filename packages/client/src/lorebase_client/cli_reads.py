"""The read commands of `lorebase`: Keeper's read API from a shell (docs/client.md).

Every command prints the answer as indented JSON on stdout (explain --markdown prints the text).
An error prints the problem's title, detail and issues on stderr and exits with 1; a usage error
exits with 2, as click does. Where Keeper is and who calls it come from --url and --api-key, or
$LOREBASE_URL and $LOREBASE_API_KEY; the Domain from --domain or $LOREBASE_DOMAIN.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO, Any, TypeVar

import click
import httpx
from click.core import ParameterSource

from lorebase_client._sync.client import LorebaseClient
from lorebase_client.answers import Answer, Text
from lorebase_client.connection import API_KEY_ENV, DEFAULT_URL, URL_ENV, resolve_base_url
from lorebase_client.errors import problem_of
from lorebase_client.oidc_device import fresh_profile
from lorebase_client.plugins import ENTRY_POINT_GROUP, PluggableGroup
from lorebase_client.profiles import (
    PROFILE_ENV,
    PROFILES_ENV,
    Profile,
    ProfileError,
    default_profiles_path,
    load_profile,
)
from lorebase_client.routes import BranchMode
from lorebase_core.errors import InvalidInput, LorebaseError
from lorebase_core.profiles_file import readable_by_others

DOMAIN_ENV = "LOREBASE_DOMAIN"
BRANCH_MODES: dict[str, BranchMode] = {"overlay": "overlay", "copy": "copy"}

F = TypeVar("F", bound=Callable[..., Any])


# -- options every command shares -------------------------------------------------------------


def connection_options(command: F) -> F:
    """--url, --api-key and --profile."""
    command = click.option(
        "--profile",
        envvar=PROFILE_ENV,
        show_envvar=True,
        default=None,
        metavar="NAME",
        is_eager=True,
        expose_value=False,
        callback=_choose_profile,
        help="Take --url, --api-key and --domain from this profile of the profiles file "
        f"(${PROFILES_ENV}, else profiles.toml in the data directory), over their variables.",
    )(command)
    command = click.option(
        "--api-key",
        envvar=API_KEY_ENV,
        show_envvar=True,
        default=_from_profile("api_key"),
        callback=_over_environment("api_key"),
        metavar="KEY",
        help="API key sent as Authorization: Bearer (prefer the environment variable).",
    )(command)
    return click.option(
        "--url",
        envvar=URL_ENV,
        show_envvar=True,
        default=_from_profile("url"),
        callback=_over_environment("url"),
        metavar="URL",
        help=f"Keeper's base URL (default: {DEFAULT_URL}).",
    )(command)


def domain_option(command: F) -> F:
    return click.option(
        "--domain",
        envvar=DOMAIN_ENV,
        show_envvar=True,
        required=True,
        default=_from_profile("domain"),
        callback=_over_environment("domain"),
        metavar="NAME",
        help="The Domain, for example supply.",
    )(command)


# -- profiles (profiles.py) -------------------------------------------------------------------

_PROFILE = "lorebase.profile"
"""Where --profile leaves the chosen profile, in the context's meta (shared by subcontexts)."""


def _choose_profile(ctx: click.Context, param: click.Parameter, name: str | None) -> None:
    """Load the profile --profile names (an eager option: before the options it fills)."""
    if not name:
        ctx.meta[_PROFILE] = None
        return
    path = default_profiles_path()
    try:
        profile = load_profile(name, path)
        # an OIDC access token expired (or about to) is refreshed before the command runs
        ctx.meta[_PROFILE] = fresh_profile(profile, path)
    except ProfileError as error:
        raise click.BadParameter(str(error), ctx, param) from None
    if readable_by_others(path):
        click.echo(
            f"warning: the profiles file {str(path)!r} holds credentials and others may read "
            f"it: chmod 600 {str(path)!r}",
            err=True,
        )


def _chosen_profile() -> Profile | None:
    ctx = click.get_current_context(silent=True)
    profile = ctx.meta.get(_PROFILE) if ctx is not None else None
    return profile if isinstance(profile, Profile) else None


def _from_profile(member: str) -> Callable[[], str | None]:
    """The default of an option: the member of the chosen profile, if any."""

    def default() -> str | None:
        profile = _chosen_profile()
        return profile.member(member) if profile is not None else None

    return default


def _over_environment(member: str) -> Callable[[click.Context, click.Parameter, Any], Any]:
    """A callback giving the chosen profile's member precedence over the environment variable."""

    def callback(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        profile = _chosen_profile()
        source = ctx.get_parameter_source(param.name or "")
        if source is ParameterSource.ENVIRONMENT and profile is not None:
            chosen = profile.member(member)
            if chosen is not None:
                return chosen
        if value is None and param.required:  # the profile's default left it unset
            raise click.MissingParameter(ctx=ctx, param=param)
        return value

    return callback


def branch_option(command: F) -> F:
    return click.option(
        "--branch",
        default=None,
        metavar="BRANCH",
        help="Branch to read (default: the Domain's default branch).",
    )(command)


def at_option(command: F) -> F:
    return click.option(
        "--at",
        default=None,
        metavar="REV",
        help="Read as of this Revision: an id, a unique prefix of one, or a tag.",
    )(command)


def read_options(command: F) -> F:
    """--domain, --branch, --at, --url and --api-key, in that order in --help."""
    return domain_option(branch_option(at_option(connection_options(command))))


# -- running a read ---------------------------------------------------------------------------


def _report(error: LorebaseError) -> None:
    problem = problem_of(error) or {}
    title = problem.get("title") or error.title
    code = problem.get("code") or error.code
    click.echo(f"error: {title}: {error.detail} [{code}]", err=True)
    if isinstance(error, InvalidInput):
        for issue in error.issues:
            click.echo(f"  {issue}", err=True)


@contextmanager
def _reporting(url: str | None) -> Iterator[None]:
    """Errors as messages on stderr and exit code 1."""
    try:
        yield
    except LorebaseError as error:
        _report(error)
        sys.exit(1)
    except httpx.ConnectError as error:
        click.echo(
            f"error: cannot reach Keeper at {resolve_base_url(url)}: {error}. Is it running? "
            f"Start one with `lorebase serve`, or point --url (or ${URL_ENV}) at yours",
            err=True,
        )
        sys.exit(1)
    except httpx.TransportError as error:
        click.echo(f"error: Keeper at {resolve_base_url(url)} did not answer: {error}", err=True)
        sys.exit(1)
    except httpx.InvalidURL as error:
        click.echo(f"error: {url!r} is not a URL Keeper can be reached at: {error}", err=True)
        sys.exit(1)


def _emit(answer: Answer | Text) -> None:
    if isinstance(answer, Text):
        click.echo(answer, nl=not answer.endswith("\n"))
    else:
        click.echo(json.dumps(answer, indent=2, ensure_ascii=False))


def run_read(
    url: str | None,
    api_key: str | None,
    read: Callable[[LorebaseClient], Answer | Text],
    *,
    emit: Callable[[Answer], None] | None = None,
) -> None:
    """Call `read` with a client of Keeper at `url` and print its answer (as JSON, or with
    `emit` for a JSON answer)."""
    with _reporting(url), LorebaseClient(url, api_key=api_key) as client:
        try:
            answer = read(client)
        finally:
            if client.key_unused:
                click.echo(
                    f"warning: Keeper at {client.base_url} runs in auth mode none: the API key "
                    "was not used (every request acts as the local administrator)",
                    err=True,
                )
    if emit is not None and isinstance(answer, Answer):
        emit(answer)
    else:
        _emit(answer)


def json_value(value: str | None, what: str) -> Any:
    """The JSON of an option's value (None when the option is not given)."""
    if value is None:
        return None
    try:
        return json.loads(value)
    except ValueError as error:
        raise click.BadParameter(f"not JSON: {error}", param_hint=what) from error


def json_object(text: str, what: str) -> dict[str, Any]:
    try:
        document = json.loads(text)
    except ValueError as error:
        raise click.BadParameter(f"not JSON: {error}", param_hint=what) from error
    if not isinstance(document, dict):
        raise click.BadParameter("expected a JSON object (a query document)", param_hint=what)
    return document


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
def schema_command(
    form: str,
    kinds: str | None,
    domain: str,
    branch: str | None,
    at: str | None,
    url: str | None,
    api_key: str | None,
) -> None:
    """Print the schema of a Domain, as far as the API key may read it."""
    names = None if kinds is None else kinds.split(",")

    def read(client: LorebaseClient) -> Answer | Text:
        if form == "markdown":
            return client.schema(domain, branch=branch, at=at, format="markdown", kinds=names)
        lean = form == "compact"
        return client.schema(
            domain, branch=branch, at=at, format="compact" if lean else "json", kinds=names
        )

    run_read(url, api_key, read)


# -- record -----------------------------------------------------------------------------------


@click.group("record", cls=PluggableGroup, entry_point_group=f"{ENTRY_POINT_GROUP}.record")
def record_group() -> None:
    """Read Records: their values, Links, history, lineage and explanation."""


@record_group.command("list")
@click.argument("kind")
@click.option(
    "--limit", type=click.IntRange(min=1), default=None, metavar="N", help="Records per page."
)
@click.option("--cursor", default=None, metavar="CURSOR", help="next_cursor of the previous page.")
@read_options
def record_list(
    kind: str,
    limit: int | None,
    cursor: str | None,
    domain: str,
    branch: str | None,
    at: str | None,
    url: str | None,
    api_key: str | None,
) -> None:
    """Print one page of the Records of KIND, in key order."""
    run_read(
        url,
        api_key,
        lambda client: client.records(
            domain, kind, branch=branch, at=at, limit=limit, cursor=cursor
        ),
    )


@record_group.command("get")
@click.argument("kind")
@click.argument("key")
@click.option("--links", is_flag=True, help="Add the number of Links per Relation.")
@click.option("--lineage", is_flag=True, help="Add where each value came from.")
@read_options
def record_get(
    kind: str,
    key: str,
    links: bool,
    lineage: bool,
    domain: str,
    branch: str | None,
    at: str | None,
    url: str | None,
    api_key: str | None,
) -> None:
    """Print the Record KIND/KEY."""
    run_read(
        url,
        api_key,
        lambda client: client.record(
            domain, kind, key, branch=branch, at=at, links=links, lineage=lineage
        ),
    )


@record_group.command("links")
@click.argument("kind")
@click.argument("key")
@click.argument("relation")
@click.option(
    "--limit", type=click.IntRange(min=1), default=None, metavar="N", help="Links per page."
)
@click.option("--cursor", default=None, metavar="CURSOR", help="next_cursor of the previous page.")
@read_options
def record_links(
    kind: str,
    key: str,
    relation: str,
    limit: int | None,
    cursor: str | None,
    domain: str,
    branch: str | None,
    at: str | None,
    url: str | None,
    api_key: str | None,
) -> None:
    """Print the Links of KIND/KEY along RELATION (its forward or inverse name)."""
    run_read(
        url,
        api_key,
        lambda client: client.links(
            domain, kind, key, relation, branch=branch, at=at, limit=limit, cursor=cursor
        ),
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
@click.option(
    "--limit", type=click.IntRange(min=1), default=None, metavar="N", help="Changes per page."
)
@click.option("--cursor", default=None, metavar="CURSOR", help="next_cursor of the previous page.")
@read_options
def record_history(
    kind: str,
    key: str,
    values: bool,
    attributes: tuple[str, ...],
    limit: int | None,
    cursor: str | None,
    domain: str,
    branch: str | None,
    at: str | None,
    url: str | None,
    api_key: str | None,
) -> None:
    """Print the changes of KIND/KEY on the branch, newest first."""
    run_read(
        url,
        api_key,
        lambda client: client.history(
            domain,
            kind,
            key,
            branch=branch,
            at=at,
            values=values,
            limit=limit,
            cursor=cursor,
            attributes=list(attributes) or None,
        ),
    )


@record_group.command("lineage")
@click.argument("kind")
@click.argument("key")
@read_options
def record_lineage(
    kind: str,
    key: str,
    domain: str,
    branch: str | None,
    at: str | None,
    url: str | None,
    api_key: str | None,
) -> None:
    """Print where each current value of KIND/KEY came from."""
    run_read(url, api_key, lambda client: client.lineage(domain, kind, key, branch=branch, at=at))


@record_group.command("explain")
@click.argument("kind")
@click.argument("key")
@click.option("--markdown", is_flag=True, help="Print Markdown (for a prompt) instead of JSON.")
@read_options
def record_explain(
    kind: str,
    key: str,
    markdown: bool,
    domain: str,
    branch: str | None,
    at: str | None,
    url: str | None,
    api_key: str | None,
) -> None:
    """Print why KIND/KEY exists and why its values are what they are."""

    def read(client: LorebaseClient) -> Answer | Text:
        if markdown:
            return client.explain(domain, kind, key, branch=branch, at=at, format="markdown")
        return client.explain(domain, kind, key, branch=branch, at=at)

    run_read(url, api_key, read)


# -- query and traverse -----------------------------------------------------------------------


@click.command("query")
@click.argument("file", type=click.File("r"), required=False)
@click.option("--kind", default=None, metavar="KIND", help="Query the Records of this Kind.")
@click.option(
    "--trait", default=None, metavar="TRAIT", help="Query the Records of the Kinds with this Trait."
)
@click.option("--where", default=None, metavar="JSON", help="A predicate of the query DSL.")
@click.option(
    "--limit", type=click.IntRange(min=1), default=None, metavar="N", help="Records per page."
)
@click.option("--cursor", default=None, metavar="CURSOR", help="next_cursor of the previous page.")
@read_options
def query_command(
    file: IO[str] | None,
    kind: str | None,
    trait: str | None,
    where: str | None,
    limit: int | None,
    cursor: str | None,
    domain: str,
    branch: str | None,
    at: str | None,
    url: str | None,
    api_key: str | None,
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
    run_read(
        url,
        api_key,
        lambda client: client.query(
            domain,
            document,
            kind=kind,
            trait=trait,
            where=predicate,
            limit=limit,
            cursor=cursor,
            branch=branch,
            at=at,
        ),
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
    start: tuple[str, ...],
    path: tuple[str, ...],
    limit: int | None,
    domain: str,
    branch: str | None,
    at: str | None,
    url: str | None,
    api_key: str | None,
) -> None:
    """Follow a path of Relations from some Records (docs/graph.md).

    For example, the purchase orders of the parts supplier S-1007 supplies:

    \b
        lorebase traverse --start Supplier/S-1007 --path supplies --path purchase_orders
    """
    run_read(
        url,
        api_key,
        lambda client: client.traverse(domain, start, path, limit=limit, branch=branch, at=at),
    )


# -- Revisions and branches -------------------------------------------------------------------


@click.command("diff")
@click.argument("from_revision", metavar="FROM")
@click.argument("to_revision", metavar="TO")
@domain_option
@connection_options
def diff_command(
    from_revision: str, to_revision: str, domain: str, url: str | None, api_key: str | None
) -> None:
    """Print what changed between two Revisions.

    FROM and TO are Revision ids, unique prefixes of one, or tags.
    """
    run_read(url, api_key, lambda client: client.diff(domain, from_revision, to_revision))


@click.group("branch", cls=PluggableGroup, entry_point_group=f"{ENTRY_POINT_GROUP}.branch")
def branch_group() -> None:
    """List, show, create and merge branches."""


@branch_group.command("list")
@domain_option
@connection_options
def branch_list(domain: str, url: str | None, api_key: str | None) -> None:
    """Print the branches of the Domain the API key may read."""
    run_read(url, api_key, lambda client: client.branches(domain))


@branch_group.command("show")
@click.argument("name")
@domain_option
@connection_options
def branch_show(name: str, domain: str, url: str | None, api_key: str | None) -> None:
    """Print the branch NAME and its head Revision."""
    run_read(url, api_key, lambda client: client.branch(domain, name))


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
    url: str | None,
    api_key: str | None,
) -> None:
    """Create the branch NAME at the head of --from, or at its Revision --at."""
    run_read(
        url,
        api_key,
        lambda client: client.create_branch(
            domain,
            name,
            from_branch=from_branch,
            at=at,
            mode=BRANCH_MODES.get(mode or ""),
        ),
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
