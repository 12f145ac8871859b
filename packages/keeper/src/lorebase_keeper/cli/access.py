"""`lorebase key`, `lorebase grant`, `lorebase session` and `lorebase principal`: keys, grants,
browser sessions and OIDC identities, straight on the database.

They run where the database is (like `lorebase import`), not through Keeper: an administrator
needs them before any key exists. A key's secret is printed once and never stored.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import click

from lorebase_core.access import SENSITIVITY_TAGS
from lorebase_core.errors import DomainNotFound, KindNotFound, LorebaseError
from lorebase_keeper.auth.authz import ROLES
from lorebase_keeper.cli.options import command_settings, config_option, database_option
from lorebase_store import Store

F = TypeVar("F", bound=Callable[..., object])


def _database(command: F) -> F:
    return config_option(database_option(command))


@contextmanager
def _store(config_file: Path | None, database_url: str | None) -> Iterator[Store]:
    store = Store.from_settings(command_settings(config_file, database_url).database)
    try:
        yield store
    except LorebaseError as exc:
        click.echo(f"error: {exc.detail}", err=True)
        sys.exit(1)
    finally:
        store.close()


@click.group("key")
def key() -> None:
    """Create, list and revoke API keys."""


@key.command("create")
@click.argument("principal")
@click.option(
    "--type",
    "principal_type",
    type=click.Choice(["user", "service"]),
    default="user",
    show_default=True,
    help="Kind of principal, when it does not exist yet (agents are service principals).",
)
@click.option("--description", default="", help="What the key is for.")
@_database
def create_key(
    principal: str,
    principal_type: str,
    description: str,
    config_file: Path | None,
    database_url: str | None,
) -> None:
    """Make an API key for PRINCIPAL (created when new) and print it once."""
    with _store(config_file, database_url) as store:
        store.ensure_principal(
            principal, principal_type="service" if principal_type == "service" else "user"
        )
        made = store.create_key(principal, description=description)
    click.echo(made.secret)
    click.echo(
        f"API key {made.info.id} for {principal}: store it now, it is not shown again. "
        "Grant it roles with `lorebase grant add`.",
        err=True,
    )


@key.command("list")
@click.option("--principal", default=None, help="Only the keys of this principal.")
@_database
def list_keys(principal: str | None, config_file: Path | None, database_url: str | None) -> None:
    """List API keys (never their secrets)."""
    with _store(config_file, database_url) as store:
        keys = store.keys(principal)
    for found in keys:
        state = f"revoked {found.revoked_at}" if found.revoked_at else "active"
        click.echo(
            f"{found.id}  {found.principal}  {found.created_at}  {state}  {found.description}"
        )


@key.command("revoke")
@click.argument("key_id")
@_database
def revoke_key(key_id: str, config_file: Path | None, database_url: str | None) -> None:
    """Revoke the API key KEY_ID and the browser sessions signed in with it.

    Keeper refuses them within keeper.auth.authz.grants_cache_ttl_s.
    """
    with _store(config_file, database_url) as store:
        revoked = store.revoke_key(key_id)
    key = revoked.key
    click.echo(
        f"API key {key.id} of {key.principal} revoked at {key.revoked_at}; "
        f"{_sessions(revoked.sessions_ended)} signed in with it ended"
    )


def _sessions(count: int) -> str:
    return f"{count} browser session{'' if count == 1 else 's'}"


@click.group("session")
def session() -> None:
    """End browser sessions (POST /api/v1/auth/session makes them)."""


@session.command("revoke")
@click.option("--principal", required=True, help="End every session of this principal.")
@_database
def revoke_sessions(principal: str, config_file: Path | None, database_url: str | None) -> None:
    """End the browser sessions of a principal (in effect within grants_cache_ttl_s)."""
    with _store(config_file, database_url) as store:
        ended = store.revoke_principal_sessions(principal)
    click.echo(f"{_sessions(ended)} of {principal} ended")


@click.group("grant")
def grant() -> None:
    """Give principals roles on Domains and branches."""


@grant.command("add")
@click.argument("principal")
@click.argument("role", type=click.Choice(sorted(ROLES)))
@click.option("--domain", required=True, help="Domain name, or a glob such as '*'.")
@click.option(
    "--branch", default="*", show_default=True, help="Branch name or glob ('main', 'agent/*')."
)
@click.option(
    "--kind",
    "kinds",
    multiple=True,
    help="Narrow the grant to this Kind (repeat); the other Kinds become invisible.",
)
@click.option(
    "--clearance",
    "clearances",
    multiple=True,
    type=click.Choice(SENSITIVITY_TAGS),
    help="Read values with this sensitivity tag unmasked (repeat).",
)
@_database
def add_grant(
    principal: str,
    role: str,
    domain: str,
    branch: str,
    kinds: tuple[str, ...],
    clearances: tuple[str, ...],
    config_file: Path | None,
    database_url: str | None,
) -> None:
    """Give PRINCIPAL the ROLE on a Domain's branches."""
    with _store(config_file, database_url) as store:
        _require_known(store, domain, kinds)
        store.ensure_principal(principal)
        made = store.add_grant(
            principal,
            domain=domain,
            role=role,
            branch=branch,
            kinds=list(kinds) or None,
            clearances=list(clearances),
        )
    click.echo(json.dumps(made.to_json()))


def _require_known(store: Store, domain: str, kinds: tuple[str, ...]) -> None:
    """A grant names a Domain that exists (a glob such as `*` or `sup*` may match none yet) and
    Kinds its schema declares: a typo would give a grant that never applies."""
    if any(char in domain for char in "*?["):
        return
    domains = [found.name for found in store.domains()]
    if domain not in domains:
        raise DomainNotFound.named(domain, domains)
    if kinds:
        schema = store.schema(domain)
        for kind in kinds:
            if kind not in schema.kinds:
                raise KindNotFound.named(kind, domain, schema.kinds)


@grant.command("list")
@click.option("--principal", default=None, help="Only the grants of this principal.")
@_database
def list_grants(principal: str | None, config_file: Path | None, database_url: str | None) -> None:
    """List grants, one JSON document per line."""
    with _store(config_file, database_url) as store:
        grants = store.grants(principal)
    for found in grants:
        click.echo(json.dumps(found.to_json()))


@grant.command("revoke")
@click.argument("grant_id", type=int)
@_database
def revoke_grant(grant_id: int, config_file: Path | None, database_url: str | None) -> None:
    """Withdraw grant GRANT_ID (in effect within keeper.auth.authz.grants_cache_ttl_s)."""
    with _store(config_file, database_url) as store:
        store.revoke_grant(grant_id)
    click.echo(f"grant {grant_id} revoked")


@click.group("principal")
def principal() -> None:
    """Link principals to the identities of an OIDC issuer (docs/auth.md, "OIDC")."""


@principal.command("link-oidc")
@click.argument("principal_id", metavar="PRINCIPAL")
@click.option(
    "--issuer",
    default=None,
    help="The issuer URL (default: keeper.auth.oidc.issuer of the configuration).",
)
@click.option("--subject", required=True, help="The identity's sub claim at the issuer.")
@_database
def link_oidc(
    principal_id: str,
    issuer: str | None,
    subject: str,
    config_file: Path | None,
    database_url: str | None,
) -> None:
    """Make the OIDC identity (issuer, subject) sign in as the existing PRINCIPAL.

    For a principal that existed before its first OIDC sign-in (one with API keys): Keeper
    refuses a token whose claim names it until it is linked.
    """
    named = issuer or command_settings(config_file, database_url).keeper.auth.oidc.issuer
    if not named:
        click.echo("error: give --issuer, or set keeper.auth.oidc.issuer", err=True)
        sys.exit(1)
    with _store(config_file, database_url) as store:
        linked = store.link_oidc_identity(principal_id, issuer=named, subject=subject)
    click.echo(f"{linked.principal_id} signs in as subject {linked.subject!r} of {linked.issuer}")


@principal.command("unlink-oidc")
@click.argument("principal_id", metavar="PRINCIPAL")
@_database
def unlink_oidc(principal_id: str, config_file: Path | None, database_url: str | None) -> None:
    """Remove PRINCIPAL's OIDC identity: its tokens are refused from then on."""
    with _store(config_file, database_url) as store:
        removed = store.unlink_oidc_identity(principal_id)
    if removed is None:
        click.echo(f"{principal_id} has no OIDC identity")
        return
    click.echo(
        f"{principal_id} no longer signs in as subject {removed.subject!r} of {removed.issuer}"
    )
