"""The CLI's profiles file, read and written the one way `lorebase demo` and `lorebase login` share.

A profiles file is TOML, one table of text, numbers or true/false per profile. It holds
credentials, so it is written beside itself and renamed over (a reader never sees half of it),
readable and writable by the user only (0600), in a directory only the user may enter (0700
when this module creates it). The other profiles, and the members of a profile nobody changed,
are kept as they were.

The only I/O of lorebase_core: the client may import nothing but core, and the demo (in Keeper)
writes the same file, so this is the one place both can reach.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
import tomllib
from collections.abc import Mapping
from pathlib import Path

ProfileValue = str | int | bool
Profiles = dict[str, dict[str, ProfileValue]]

HEADER = (
    "# Lorebase CLI profiles: `lorebase ... --profile NAME` or LOREBASE_PROFILE=NAME.",
    "# They hold credentials: keep this file readable by you only (0600).",
)


def read_profiles(path: Path) -> Profiles:
    """The profiles of `path` by name ({} when the file does not exist).

    Raises:
        ValueError: the file is not TOML, or holds something other than tables of profiles.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"{str(path)!r} is not a TOML profiles file: {error}") from error
    profiles: Profiles = {}
    for name, profile in document.items():
        if not isinstance(profile, dict) or not all(
            isinstance(value, str | int | bool) for value in profile.values()
        ):
            raise ValueError(
                f"{str(path)!r}: {name!r} is not a profile (a table of text, numbers or true/false); "
                "fix or remove it, or name another file with $LOREBASE_PROFILES"
            )
        profiles[name] = profile
    return profiles


def _toml_value(value: ProfileValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string


def _toml_key(name: str) -> str:
    bare = name.replace("-", "").replace("_", "")
    return name if bare.isascii() and bare.isalnum() else json.dumps(name, ensure_ascii=False)


def profiles_text(profiles: Mapping[str, Mapping[str, ProfileValue]]) -> str:
    """The TOML of `profiles`, which `read_profiles` reads back as they are."""
    lines = list(HEADER)
    for name, profile in profiles.items():
        lines += ["", f"[{_toml_key(name)}]"]
        lines += [f"{_toml_key(key)} = {_toml_value(value)}" for key, value in profile.items()]
    return "\n".join(lines) + "\n"


def write_profiles(path: Path, profiles: Mapping[str, Mapping[str, ProfileValue]]) -> None:
    """Write `profiles` to `path`, readable and writable by the user only (0600).

    The file is written beside `path` and renamed over it, so a reader never sees half of it,
    and it never exists with wider permissions. A directory made for it is 0700.
    """
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=".profiles-", suffix=".tmp")
    try:
        os.fchmod(descriptor, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(profiles_text(profiles))
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def readable_by_others(path: Path) -> bool:
    """Whether users other than its owner may read `path` (False when it does not exist)."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return False
    return bool(mode & (stat.S_IRGRP | stat.S_IROTH | stat.S_IWGRP | stat.S_IWOTH))
