"""Profiles: named sets of a Keeper URL, an API key and a Domain, for the `lorebase` CLI.

A profiles file is TOML, one table per profile:

```toml
[agent]
url = "http://127.0.0.1:8080"
domain = "supply"
api_key = "lbk_..."
```

Every member is optional (other members, such as the `principal` the demo writes, are ignored).
The file is `$LOREBASE_PROFILES`, else `profiles.toml` in the data directory
(`$XDG_DATA_HOME/lorebase`, by default `~/.local/share/lorebase`): `lorebase demo` writes its
principals there, readable by the user only. A command chooses one with `--profile NAME` or
`$LOREBASE_PROFILE`; what the profile holds takes precedence over `$LOREBASE_URL`,
`$LOREBASE_API_KEY` and `$LOREBASE_DOMAIN`, and options on the command line over the profile.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

PROFILE_ENV = "LOREBASE_PROFILE"
PROFILES_ENV = "LOREBASE_PROFILES"
MEMBERS = ("url", "api_key", "domain")


class ProfileError(ValueError):
    """A profile that cannot be used: no file, no such profile, or a file that is not TOML."""


@dataclass(frozen=True)
class Profile:
    """One profile of the profiles file; a member it does not set is None."""

    name: str
    url: str | None = None
    api_key: str | None = None
    domain: str | None = None

    def member(self, name: str) -> str | None:
        """The value of `url`, `api_key` or `domain`."""
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
    for member in MEMBERS:
        value = table.get(member)
        if value is not None and not isinstance(value, str):
            raise ProfileError(f"profile {name!r} in {str(file)!r}: {member} must be text")
        values[member] = value or None
    return Profile(name, url=values["url"], api_key=values["api_key"], domain=values["domain"])
