"""`lorebase login`, `logout` and `whoami`: a credential kept in a profile (docs/auth.md).

`login` checks a credential with Keeper before it stores it: an API key (`--api-key KEY`,
`--api-key -` reading standard input, else a hidden prompt) is sent to `GET /api/v1/auth/whoami`,
and only a key Keeper accepts is written, with the URL (and `--domain`), to the profile
(`--profile`, else $LOREBASE_PROFILE, else `default`). `--oidc` signs in at Keeper's identity
provider with the device flow instead (oidc_device.py). The profiles file is written whole and
renamed over, 0600 in a 0700 directory, the other profiles and members kept
(lorebase_core.profiles_file). `logout` forgets the profile's credential and keeps its URL and
Domain; it revokes nothing at Keeper, but an OIDC refresh token is revoked at the issuer when it
has a revocation endpoint. `whoami` prints the caller Keeper sees.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import Any

import click
import httpx

from lorebase_client.answers import Answer
from lorebase_client.cli_options import Keeper, connection_options
from lorebase_client.connection import DEFAULT_URL, URL_ENV, resolve_base_url
from lorebase_client.oidc_device import (
    OidcConfiguration,
    SignInError,
    discover_revocation_endpoint,
    identity_provider_client,
    poll_for_tokens,
    request_device_code,
    revoke_token,
    token_members,
)
from lorebase_client.profiles import (
    OIDC_MEMBERS,
    PROFILE_ENV,
    ProfileError,
    default_profiles_path,
    forget_credential,
    load_profile,
    save_profile,
)
from lorebase_core.errors import NotFound, SignInUnavailable

DEFAULT_PROFILE = "default"


def _profile_option(command: Any) -> Any:
    return click.option(
        "--profile",
        "profile_name",
        envvar=PROFILE_ENV,
        show_envvar=True,
        default=DEFAULT_PROFILE,
        show_default=True,
        metavar="NAME",
        help="The profile to sign in or out (the other profiles of the file are kept).",
    )(command)


def _fail(message: str) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(1)


def _the_key(api_key: str | None) -> str:
    """The key of --api-key, standard input (`-`) or a hidden prompt."""
    if api_key == "-":
        api_key = sys.stdin.readline().strip()
    elif api_key is None:
        if not sys.stdin.isatty():
            raise click.UsageError(
                "no API key: give --api-key KEY, or --api-key - to read it from standard input"
            )
        api_key = click.prompt("API key", hide_input=True).strip()
    if not api_key:
        raise click.UsageError("the API key is empty")
    return api_key


def _checked(url: str, credential: str) -> Answer:
    """Keeper's whoami for `credential`, or exit 1 (Keeper refused it, or runs in mode none)."""
    with Keeper(url, credential).client() as client:
        caller = client.whoami()
        if client.key_unused:
            _fail(
                f"Keeper at {client.base_url} runs in auth mode none: it takes no credential "
                "(every request acts as the local administrator); nothing was stored"
            )
    return caller


@click.command("login")
@_profile_option
@click.option(
    "--url",
    default=None,
    metavar="URL",
    help=f"Keeper's base URL (default: the profile's, else ${URL_ENV}, else {DEFAULT_URL}).",
)
@click.option(
    "--api-key",
    default=None,
    metavar="KEY",
    help="The API key to store; - reads it from standard input. Without it (and --oidc), a "
    "hidden prompt asks for it.",
)
@click.option("--oidc", is_flag=True, help="Sign in at Keeper's identity provider (device flow).")
@click.option("--domain", default=None, metavar="NAME", help="Also store this Domain.")
def login_command(
    profile_name: str, url: str | None, api_key: str | None, oidc: bool, domain: str | None
) -> None:
    """Sign a profile in: check a credential with Keeper, then store it (0600)."""
    if oidc and api_key is not None:
        raise click.UsageError("give --api-key or --oidc, not both")
    path = default_profiles_path()
    try:
        existing = load_profile(profile_name, path) if path.exists() else None
    except ProfileError:
        existing = None  # a new profile; a file that is not TOML is refused by save_profile
    base_url = resolve_base_url(url or (existing.url if existing else None))
    if oidc:
        members = _oidc_sign_in(base_url)
        credential = str(members["oidc_access_token"])
    else:
        credential = _the_key(api_key)
        members = {"api_key": credential, **dict.fromkeys((*OIDC_MEMBERS, "oidc_expires_at"))}
    caller = _checked(base_url, credential)  # nothing is stored unless Keeper takes it
    members["url"] = base_url
    if domain is not None:
        members["domain"] = domain
    try:
        written = save_profile(profile_name, members, path)
    except ProfileError as error:
        raise click.UsageError(str(error)) from None
    click.echo(
        f"signed in as {caller.get('principal')} ({caller.get('authenticated_by')}) at "
        f"{base_url}; profile {profile_name!r} in {written}"
    )


def _oidc_sign_in(base_url: str) -> dict[str, Any]:
    """The profile members of a device-flow sign-in at Keeper's identity provider."""
    with Keeper(base_url, None).client() as client:
        try:
            answer = client.oidc_configuration()
        except (NotFound, SignInUnavailable):
            _fail(
                f"Keeper at {client.base_url} offers no OIDC sign-in (its keeper.auth.mode takes "
                "no OIDC, or keeper.auth.oidc is not set): sign in with --api-key"
            )
            raise  # pragma: no cover - _fail exits
    try:
        with identity_provider_client() as http:
            config = OidcConfiguration.from_answer(dict(answer))
            if config.revocation_endpoint is None:
                revocation = discover_revocation_endpoint(http, config.issuer)
                config = replace(config, revocation_endpoint=revocation)
            device = request_device_code(http, config)
            where = device.verification_uri_complete or device.verification_uri
            click.echo(
                f"To sign in, open {where} and enter the code {device.user_code} "
                f"(it expires in {device.expires_in // 60} minutes).",
                err=True,
            )
            tokens = poll_for_tokens(http, config, device)
    except SignInError as error:
        _fail(str(error))
        raise  # pragma: no cover - _fail exits
    except httpx.HTTPError as error:
        _fail(f"the identity provider did not answer: {error}")
        raise  # pragma: no cover - _fail exits
    return dict(token_members(config, tokens))


@click.command("logout")
@_profile_option
def logout_command(profile_name: str) -> None:
    """Forget a profile's credential (its URL and Domain stay); revoke its OIDC refresh token."""
    path = default_profiles_path()
    try:
        before = forget_credential(profile_name, path)
    except ProfileError as error:
        raise click.UsageError(str(error)) from None
    if before is None or (before.api_key is None and before.oidc_access_token is None):
        click.echo(f"profile {profile_name!r} holds no credential: nothing to forget")
        return
    if before.oidc_refresh_token and before.oidc_revocation_endpoint and before.oidc_client_id:
        with identity_provider_client() as http:
            revoked = revoke_token(
                http,
                before.oidc_revocation_endpoint,
                before.oidc_client_id,
                before.oidc_refresh_token,
            )
        if not revoked:
            click.echo(
                "warning: the identity provider did not confirm the refresh token's revocation",
                err=True,
            )
    click.echo(f"signed out: profile {profile_name!r} keeps its URL and Domain, no credential")


def _print_caller(caller: Answer) -> None:
    click.echo(f"principal: {caller.get('principal')} ({caller.get('type')})")
    click.echo(f"authenticated by: {caller.get('authenticated_by')}")
    grants = caller.get("grants") or []
    click.echo("grants:" if grants else "grants: none")
    for grant in grants:
        scope = f"{grant.get('domain')}/{grant.get('branch') or '*'}"
        kinds = grant.get("kinds")
        narrowed = f" (kinds {', '.join(kinds)})" if kinds else ""
        click.echo(f"  {grant.get('role')} on {scope}{narrowed}")


@click.command("whoami")
@click.option("--json", "as_json", is_flag=True, help="Print Keeper's answer as JSON.")
@connection_options
def whoami_command(keeper: Keeper, as_json: bool) -> None:
    """Who Keeper takes you for: principal, type, how you authenticated, grants."""
    keeper.run(lambda client: client.whoami(), emit=None if as_json else _print_caller)


LOGIN_COMMANDS = (login_command, logout_command, whoami_command)
