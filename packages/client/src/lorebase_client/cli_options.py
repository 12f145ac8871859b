"""What every command of `lorebase` that calls Keeper shares: its options and how it runs a call.

Where Keeper is and who calls it come from --url and --api-key, or $LOREBASE_URL and
$LOREBASE_API_KEY, or a profile (--profile); the Domain from --domain or $LOREBASE_DOMAIN. A
command takes them as one value: `Keeper` (`connection_options`) or `ReadTarget`
(`read_options`, with --branch and --at), whose `run` prints the answer as indented JSON on
stdout. An error prints the problem's title, detail and issues on stderr and exits with 1; a
usage error exits with 2, as click does.
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

import click
import httpx
from click.core import ParameterSource

from lorebase_client._sync.client import LorebaseClient
from lorebase_client.answers import Answer, Text
from lorebase_client.connection import API_KEY_ENV, DEFAULT_URL, URL_ENV, resolve_base_url
from lorebase_client.errors import problem_of
from lorebase_client.oidc_device import fresh_profile
from lorebase_client.profiles import (
    PROFILE_ENV,
    PROFILES_ENV,
    Profile,
    ProfileError,
    default_profiles_path,
    load_profile,
)
from lorebase_core.errors import InvalidInput, LorebaseError
from lorebase_core.profiles_file import readable_by_others

DOMAIN_ENV = "LOREBASE_DOMAIN"

F = TypeVar("F", bound=Callable[..., Any])
Call = Callable[[LorebaseClient], Answer | Text]
"""What a command asks of Keeper, given a client."""
Emit = Callable[[Answer], None]
"""How a command prints a JSON answer (instead of as indented JSON)."""


# -- running a call ---------------------------------------------------------------------------


def _report(error: LorebaseError) -> None:
    problem = problem_of(error) or {}
    title = problem.get("title") or error.title
    code = problem.get("code") or error.code
    click.echo(f"error: {title}: {error.detail} [{code}]", err=True)
    if isinstance(error, InvalidInput):
        for issue in error.issues:
            click.echo(f"  {issue}", err=True)


@contextmanager
def reporting(url: str | None) -> Iterator[None]:
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


def print_json(answer: Answer) -> None:
    """A JSON answer as indented JSON on stdout."""
    click.echo(json.dumps(answer, indent=2, ensure_ascii=False))


def _print_answer(answer: Answer | Text) -> None:
    if isinstance(answer, Text):
        click.echo(answer, nl=not answer.endswith("\n"))
    else:
        print_json(answer)


@dataclass(frozen=True)
class Keeper:
    """The Keeper a command calls: --url and --api-key (see `connection_options`)."""

    url: str | None
    api_key: str | None

    @contextmanager
    def client(self) -> Iterator[LorebaseClient]:
        """A client of this Keeper, whose errors are reported (see `reporting`)."""
        with reporting(self.url), LorebaseClient(self.url, api_key=self.api_key) as client:
            yield client

    def run(self, call: Call, *, emit: Emit | None = None) -> None:
        """Make `call` with a client of this Keeper and print its answer (as JSON, or with
        `emit` for a JSON answer)."""
        with self.client() as client:
            try:
                answer = call(client)
            finally:
                if client.key_unused:
                    click.echo(
                        f"warning: Keeper at {client.base_url} runs in auth mode none: the API "
                        "key was not used (every request acts as the local administrator)",
                        err=True,
                    )
        if emit is not None and isinstance(answer, Answer):
            emit(answer)
        else:
            _print_answer(answer)


@dataclass(frozen=True)
class ReadTarget:
    """What a read command reads: --domain, --branch and --at, on `keeper` (`read_options`)."""

    keeper: Keeper
    domain: str
    branch: str | None
    at: str | None

    def run(self, call: Call, *, emit: Emit | None = None) -> None:
        """`Keeper.run` on this target's Keeper."""
        self.keeper.run(call, emit=emit)


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


def _profile_option(
    flag: str, member: str, envvar: str, metavar: str, help_text: str, *, required: bool = False
) -> Callable[[F], F]:
    """An option a profile fills: its `member` is the default, and wins over `envvar`."""
    return click.option(
        flag,
        envvar=envvar,
        show_envvar=True,
        required=required,
        default=_from_profile(member),
        callback=_over_environment(member),
        metavar=metavar,
        help=help_text,
    )


# -- options ----------------------------------------------------------------------------------


def connection_options(command: Callable[..., None]) -> Callable[..., None]:
    """--url, --api-key and --profile; the command takes the first two as `keeper`, a `Keeper`."""

    @functools.wraps(command)
    def with_keeper(*args: Any, url: str | None, api_key: str | None, **kwargs: Any) -> None:
        command(*args, keeper=Keeper(url, api_key), **kwargs)

    profile = click.option(
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
    )
    api_key = _profile_option(
        "--api-key",
        "api_key",
        API_KEY_ENV,
        "KEY",
        "API key sent as Authorization: Bearer (prefer the environment variable).",
    )
    url = _profile_option(
        "--url", "url", URL_ENV, "URL", f"Keeper's base URL (default: {DEFAULT_URL})."
    )
    return url(api_key(profile(with_keeper)))


def domain_option(command: F) -> F:
    return _profile_option(
        "--domain", "domain", DOMAIN_ENV, "NAME", "The Domain, for example supply.", required=True
    )(command)


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


def read_options(command: Callable[..., None]) -> Callable[..., None]:
    """--domain, --branch, --at, --url and --api-key, in that order in --help; the command takes
    them as `read`, a `ReadTarget`."""

    @functools.wraps(command)
    def with_target(
        *args: Any, domain: str, branch: str | None, at: str | None, keeper: Keeper, **kwargs: Any
    ) -> None:
        command(*args, read=ReadTarget(keeper, domain, branch, at), **kwargs)

    return domain_option(branch_option(at_option(connection_options(with_target))))


def page_options(limit_help: str) -> Callable[[F], F]:
    """--limit (`limit_help`: what a page holds) and --cursor: the paging of a list command."""

    def paged(command: F) -> F:
        command = click.option(
            "--cursor", default=None, metavar="CURSOR", help="next_cursor of the previous page."
        )(command)
        return click.option(
            "--limit", type=click.IntRange(min=1), default=None, metavar="N", help=limit_help
        )(command)

    return paged


# -- option values ----------------------------------------------------------------------------


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
