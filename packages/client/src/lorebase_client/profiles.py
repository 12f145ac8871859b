"""Profiles: named sets of a Keeper URL, an API key and a Domain, for the `lorebase` CLI.

A profiles file is TOML, one table per profile:

```toml
[agent]
url = "http://127.0.0.1:8080"
domain = "supply"
api_key = "lbk_..."
```

Every member is optional (other members, such as the `principal` the demo writes, are ignored).
`lorebase login --oidc` stores a token set instead of an API key (`oidc_access_token`,
`oidc_refresh_token`, `oidc_expires_at` and where to refresh it); the access token is then the
profile's bearer credential (`Profile.member("api_key")`), refreshed before it expires
(oidc_device.py). `save_profile` and `forget_credential` change one profile and keep the rest
(lorebase_core.profiles_file writes the file, 0600).
The file is `$LOREBASE_PROFILES`, else `profiles.toml` in the data directory
(`$XDG_DATA_HOME/lorebase`, by default `~/.local/share/lorebase`): `lorebase demo` writes its
principals there, readable by the user only. A command chooses one with `--profile NAME` or
`$LOREBASE_PROFILE`; what the profile holds takes precedence over `$LOREBASE_URL`,
`$LOREBASE_API_KEY` and `$LOREBASE_DOMAIN`, and options on the command line over the profile.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from lorebase_core.profiles_file import ProfileValue, read_profiles, write_profiles

PROFILE_ENV = "LOREBASE_PROFILE"
PROFILES_ENV = "LOREBASE_PROFILES"
MEMBERS = ("url", "api_key", "domain")
OIDC_MEMBERS = (
    "oidc_access_token",
    "oidc_refresh_token",
    "oidc_token_endpoint",
    "oidc_client_id",
    "oidc_revocation_endpoint",
)
CREDENTIAL_MEMBERS = ("api_key", *OIDC_MEMBERS, "oidc_expires_at")
"""What `lorebase logout` forgets (url, domain and other members stay)."""


class ProfileError(ValueError):
    """A profile that cannot be used: no file, no such profile, or a file that is not TOML."""


@dataclass(frozen=True, kw_only=True)
class Profile:
    """One profile of the profiles file; a member it does not set is None."""

    name: str
    url: str | None = None
    api_key: str | None = None
    domain: str | None = None
    oidc_access_token: str | None = None
    oidc_refresh_token: str | None = None
    oidc_expires_at: int | None = None
    """When the access token expires (seconds since the epoch)."""
    oidc_token_endpoint: str | None = None
    oidc_client_id: str | None = None
    oidc_revocation_endpoint: str | None = None

    def member(self, name: str) -> str | None:
        """The value of `url`, `api_key` or `domain`; `api_key` is the OIDC access token of a
        profile signed in with OIDC."""
        if name == "api_key" and self.api_key is None:
            return self.oidc_access_token
        value: str | None = getattr(self, name)
        return value


def default_profiles_path() -> Path:
    """$LOREBASE_PROFILES, else `profiles.toml` in the data directory."""
    named = os.environ.get(PROFILES_ENV)
    if named:
        return Path(named).expanduser()
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home) / "lorebase" / "profiles.toml"


def load_profile(name: str, path: Path | None = None) -> Profile:
    """The profile `name` of the profiles file (`path`, else `default_profiles_path()`).

    Raises:
        ProfileError: the file is missing or not TOML, the profile is not in it, or one of its
            members is not text.
    """
    file = default_profiles_path() if path is None else path
    try:
        document = tomllib.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ProfileError(
            f"no profiles file at {str(file)!r}: `lorebase demo` writes one, or set "
            f"${PROFILES_ENV} to yours"
        ) from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ProfileError(f"cannot read the profiles file {str(file)!r}: {error}") from None
    table = document.get(name)
    if not isinstance(table, dict):
        known = ", ".join(sorted(key for key, value in document.items() if isinstance(value, dict)))
        raise ProfileError(
            f"no profile {name!r} in {str(file)!r}" + (f"; it has {known}" if known else "")
        )
    values: dict[str, str | None] = {}
    for member in (*MEMBERS, *OIDC_MEMBERS):
        value = table.get(member)
        if value is not None and not isinstance(value, str):
            raise ProfileError(f"profile {name!r} in {str(file)!r}: {member} must be text")
        values[member] = value or None
    expires_at = table.get("oidc_expires_at")
    if expires_at is not None and (isinstance(expires_at, bool) or not isinstance(expires_at, int)):
        raise ProfileError(
            f"profile {name!r} in {str(file)!r}: oidc_expires_at must be a whole number of seconds"
        )
    return Profile(name=name, oidc_expires_at=expires_at, **values)


def save_profile(
    name: str, members: Mapping[str, ProfileValue | None], path: Path | None = None
) -> Path:
    """Set `members` of the profile `name` (None removes a member), creating the file or the
    profile when missing, and keeping the other profiles and members; returns the file.

    Raises:
        ProfileError: the file exists and is not a profiles file.
    """
    file = default_profiles_path() if path is None else path
    try:
        profiles = read_profiles(file)
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise ProfileError(f"cannot read the profiles file {str(file)!r}: {error}") from None
    profile = profiles.setdefault(name, {})
    for member, value in members.items():
        if value is None:
            profile.pop(member, None)
        else:
            profile[member] = value
    write_profiles(file, profiles)
    return file


def forget_credential(name: str, path: Path | None = None) -> Profile | None:
    """Remove the credential members of the profile `name` (its API key or OIDC tokens); the
    profile as it was, or None when the file or the profile does not exist."""
    file = default_profiles_path() if path is None else path
    try:
        before = load_profile(name, file)
    except ProfileError:
        return None
    save_profile(name, dict.fromkeys(CREDENTIAL_MEMBERS), file)
    return before
