"""`lorebase demo`: the supply example with an agent, a reviewer and an administrator.

A Domain's default branch is protected: an agent's write becomes a Proposal that someone else
approves (nobody approves their own). Auth mode `none` has one principal, so the demo runs Keeper
with API keys instead, on 127.0.0.1, and sets up three principals (`DEMO_PRINCIPALS`) with their
grants and a key each. The keys go to a profiles file readable by the user only (0600, by default
`profiles.toml` in the data directory), which the CLI reads with `--profile NAME` or
`LOREBASE_PROFILE` (docs/tutorial.md).

Running the demo again changes nothing that is in place: principals and grants are created only
when missing, and a key is reused while the profiles file holds it and it is live; otherwise the
principal's earlier demo keys are revoked and a new one is issued, so each principal holds one
demo key at a time. Other profiles in the file are kept.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from lorebase_core.errors import Conflict, DomainNotFound
from lorebase_core.profiles_file import read_profiles, write_profiles
from lorebase_platform.settings import default_data_dir
from lorebase_store import Store

DEMO_DOMAIN = "supply"
DEMO_KEY_DESCRIPTION = "lorebase demo"
"""The description of the keys the demo issues: the ones it revokes when it issues new ones."""

PROFILES_ENV = "LOREBASE_PROFILES"
"""The environment variable naming the profiles file (the client reads the same one)."""

PROFILE_MEMBERS = ("principal", "url", "domain", "api_key")
"""What the demo writes in each of its profiles, in this order."""


@dataclass(frozen=True)
class DemoPrincipal:
    """A principal of the demo: its profile name, its id and type, and its grants."""

    profile: str
    principal: str
    principal_type: Literal["user", "service"]
    grants: tuple[tuple[str, str], ...]
    """(role, branch glob) pairs on the demo Domain."""
    does: str


DEMO_PRINCIPALS = (
    DemoPrincipal(
        "admin", "usr_admin", "user", (("admin", "*"),), "administers supply; reads every value"
    ),
    DemoPrincipal(
        "agent",
        "svc_agent",
        "service",
        (("editor", "main"), ("editor", "agent/*")),
        "an agent: reads, writes through tasks (Proposals)",
    ),
    DemoPrincipal(
        "reviewer",
        "usr_reviewer",
        "user",
        (("reviewer", "*"),),
        "reviews and merges Proposals",
    ),
)


@dataclass(frozen=True)
class DemoProfile:
    """A principal the demo set up, and its key."""

    principal: DemoPrincipal
    api_key: str
    key_reused: bool


def default_profiles_path() -> Path:
    """$LOREBASE_PROFILES, else `profiles.toml` in the data directory."""
    named = os.environ.get(PROFILES_ENV)
    return Path(named).expanduser() if named else default_data_dir() / "profiles.toml"


def _ensure_grants(store: Store, demo: DemoPrincipal, domain: str) -> None:
    held = {
        (grant.role, grant.branch)
        for grant in store.grants(demo.principal)
        if grant.domain == domain and grant.kinds is None
    }
    for role, branch in demo.grants:
        if (role, branch) not in held:
            store.add_grant(demo.principal, domain=domain, role=role, branch=branch)


def _demo_key(store: Store, demo: DemoPrincipal, earlier: object) -> tuple[str, bool]:
    """The principal's demo key: `earlier` while it is live and its own, else a new one."""
    if isinstance(earlier, str):
        owner = store.key_principal(earlier)
        if owner is not None and owner.id == demo.principal:
            return earlier, True
    for key in store.keys(demo.principal):
        if key.revoked_at is None and key.description == DEMO_KEY_DESCRIPTION:
            store.revoke_key(key.id)
    return store.create_key(demo.principal, description=DEMO_KEY_DESCRIPTION).secret, False


def setup_demo(
    store: Store, profiles_path: Path, *, url: str, domain: str = DEMO_DOMAIN
) -> list[DemoProfile]:
    """Set up the principals of `DEMO_PRINCIPALS` on `domain` and write their profiles.

    Safe to repeat: nothing that is in place is made twice (module docstring).

    Raises:
        DomainNotFound: `domain` has not been imported.
        Conflict: a demo principal exists with another type (an agent that is not a service).
        ValueError: the profiles file exists and is not one.
    """
    if not store.has_domain(domain):
        raise DomainNotFound(
            f"Domain {domain!r} does not exist in this database: import it first "
            "(`lorebase import examples/supply`)"
        )
    profiles = read_profiles(profiles_path)
    made: list[DemoProfile] = []
    for demo in DEMO_PRINCIPALS:
        found = store.ensure_principal(demo.principal, principal_type=demo.principal_type)
        if found.type != demo.principal_type:
            raise Conflict(
                f"Principal {demo.principal!r} exists as a {found.type} principal; the demo "
                f"needs a {demo.principal_type} one: use a fresh database"
            )
        _ensure_grants(store, demo, domain)
        key, reused = _demo_key(store, demo, profiles.get(demo.profile, {}).get("api_key"))
        profiles[demo.profile] = {
            "principal": demo.principal,
            "url": url,
            "domain": domain,
            "api_key": key,
        }
        made.append(DemoProfile(demo, key, reused))
    write_profiles(profiles_path, profiles)
    return made


def _grants_text(demo: DemoPrincipal) -> str:
    branches: dict[str, list[str]] = {}
    for role, branch in demo.grants:
        branches.setdefault(role, []).append(branch)
    return "; ".join(f"{role} on {', '.join(names)}" for role, names in branches.items())


def demo_instructions(
    made: list[DemoProfile], profiles_path: Path, *, url: str, web: bool = False
) -> str:
    """What `lorebase demo` prints: the principals, their keys, and how to use them."""
    lines = [
        f"Demo principals of supply (their keys are in {profiles_path}, readable by you only):",
        "",
        f"  {'profile':<9} {'principal':<13} {'grants':<24} does",
    ]
    for profile in made:
        demo = profile.principal
        lines.append(
            f"  {demo.profile:<9} {demo.principal:<13} {_grants_text(demo):<24} {demo.does}"
        )
    lines += [
        "",
        "Use one with --profile NAME, or in every command of a shell after",
        "`export LOREBASE_PROFILE=NAME`. For example:",
        "",
        "  uv run lorebase record explain Supplier S-1001 --profile agent --markdown",
        "",
        "The keys, for curl or the Python client (Authorization: Bearer KEY):",
        "",
    ]
    for profile in made:
        state = "reused" if profile.key_reused else "new"
        lines.append(f"  {profile.principal.profile:<9} {profile.api_key}  ({state})")
    lines += [
        "",
        f"Keeper: {url} (the API: {url}/docs). A first session: docs/tutorial.md.",
        *(
            [f"The web app: {url}/ (sign in with one of the keys above; docs/web.md)."]
            if web
            else []
        ),
        "Agents over MCP: `uv run lorebase-herald` (docs/mcp.md); the example agent:",
        "`uv run python -m examples.agent --task questions` (a chat model: examples/agent).",
    ]
    return "\n".join(lines)
