"""What every section shares: unknown keys are refused; the default data folder."""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "lorebase"


class Section(BaseModel):
    """A section of the settings: unknown keys are refused."""

    model_config = ConfigDict(extra="forbid")
