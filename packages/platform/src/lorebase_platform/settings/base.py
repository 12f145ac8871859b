"""What every section shares: unknown keys are refused, the default data folder, and the
declarations most settings are made of.

A setting is a field with a default and a description (a test checks each has one). The helpers
below name the common kinds, with the bounds that kind always has; anything else is a plain
`Field(default=..., description=...)`:

- `count`: a whole number of things (items, bytes, days), at least 1 unless `ge` says otherwise;
- `seconds`: a duration in seconds, more than 0;
- `flag`: a switch;
- `listen_port`: a TCP port to listen on (0: any free one);
- `secret_reference`: a `secret://` reference, or null;
- `section`: a nested section, made with its own defaults.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field

from lorebase_platform.secrets import PREFIX as SECRET_PREFIX


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "lorebase"


class Section(BaseModel):
    """A section of the settings: unknown keys are refused."""

    model_config = ConfigDict(extra="forbid")


SectionT = TypeVar("SectionT", bound=Section)


def count(default: int, description: str, *, ge: int = 1, le: int | None = None) -> int:
    """A whole number of things, at least `ge` (1 unless said) and at most `le` when given."""
    return Field(default=default, ge=ge, le=le, description=description)


def seconds(default: float, description: str, *, le: float | None = None) -> float:
    """A duration in seconds, more than 0 and at most `le` when given."""
    return Field(default=default, gt=0, le=le, description=description)


def flag(default: bool, description: str) -> bool:
    """A switch, on or off."""
    return Field(default=default, description=description)


def listen_port(default: int, description: str) -> int:
    """A TCP port to listen on; 0 takes any free one."""
    return Field(default=default, ge=0, le=65535, description=description)


def secret_reference(description: str) -> str | None:
    """A `secret://` reference (the secret itself never stands in the settings); null: none."""
    return Field(default=None, pattern=f"^{re.escape(SECRET_PREFIX)}", description=description)


def section(kind: type[SectionT], description: str) -> SectionT:
    """A nested section, with its own defaults unless the settings name some."""
    return Field(default_factory=kind, description=description)
