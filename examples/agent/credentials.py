"""Where the agent finds Keeper and its key: a key file, $LOREBASE_API_KEY or a profile.

The key is looked for in this order: `--api-key-file FILE`, `$LOREBASE_API_KEY`, then the
profile (`agent` by default) of the profiles file `make demo` writes. Keeper's URL is
`--keeper URL`, else the profile's (when the key came from it), else `$LOREBASE_URL`, else
http://127.0.0.1:8080.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from examples.agent.errors import AgentError

from lorebase_client import API_KEY_ENV, DEFAULT_URL, URL_ENV
from lorebase_client.profiles import ProfileError, load_profile

DEFAULT_PROFILE = "agent"


@dataclass(frozen=True)
class Credentials:
    """Keeper's URL and the agent's key (left out of `repr`), and where the key came from."""

    keeper_url: str
    api_key: str = field(repr=False)
    source: str
    """`file`, `environment` or `profile <name>`: shown in the run report."""
    profile: str | None = None
    """The profile the key came from, for the `lorebase trace show` hint."""
    key_file: Path | None = None
    """The key file the key came from."""


def find_credentials(
    *,
    keeper_url: str | None = None,
    api_key_file: Path | None = None,
    profile: str = DEFAULT_PROFILE,
    profiles_file: Path | None = None,
) -> Credentials:
    """The agent's Keeper and key, from the first place that has a key.

    Raises:
        AgentError: the key file cannot be read or is empty, or no place holds a key.
    """
    if api_key_file is not None:
        try:
            key = api_key_file.read_text(encoding="utf-8").strip()
        except OSError as error:
            raise AgentError(
                f"cannot read the API key file {str(api_key_file)!r}: {error.strerror}"
            ) from None
        if not key:
            raise AgentError(f"the API key file {str(api_key_file)!r} is empty")
        return Credentials(_url(keeper_url, None), key, "file", key_file=api_key_file)
    from_environment = os.environ.get(API_KEY_ENV, "").strip()
    if from_environment:
        return Credentials(_url(keeper_url, None), from_environment, "environment")
    try:
        found = load_profile(profile, profiles_file)
    except ProfileError as error:
        raise AgentError(
            f"no API key: pass --api-key-file FILE, set ${API_KEY_ENV}, or run `make demo` "
            f"for the profile {profile!r} ({error})"
        ) from None
    if found.api_key is None:
        raise AgentError(f"the profile {profile!r} holds no api_key")
    return Credentials(
        _url(keeper_url, found.url), found.api_key, f"profile {profile}", profile=profile
    )


def _url(given: str | None, from_profile: str | None) -> str:
    return given or from_profile or os.environ.get(URL_ENV) or DEFAULT_URL
