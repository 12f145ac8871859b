"""Work another installed package runs on a thread of Keeper's process (`lorebase serve --scribe`).

Keeper may not import Scribe (the import contract), so it loads Scribe's starter through the entry
point `scribe` of the group `lorebase.background`, by name and only when asked to. A starter takes
the settings tree and answers something with `stop(timeout_s)`, called when Keeper stops.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Protocol, runtime_checkable

from lorebase_core.errors import BackgroundUnavailable
from lorebase_platform.settings import Settings

ENTRY_POINT_GROUP = "lorebase.background"


@runtime_checkable
class Background(Protocol):
    """Work running beside Keeper; `stop` finishes what runs and answers whether it ended."""

    def stop(self, timeout_s: float = 30.0) -> bool:
        """Stop; False when it outlived `timeout_s`."""
        ...


def start_background(name: str, settings: Settings, *, package: str) -> Background:
    """Start the background work the entry point `name` of `lorebase.background` provides."""
    for entry in entry_points(group=ENTRY_POINT_GROUP, name=name):
        started = entry.load()(settings)
        if not isinstance(started, Background):
            raise BackgroundUnavailable(
                f"the entry point {name!r} of {ENTRY_POINT_GROUP!r} answered no stop(); "
                f"reinstall {package!r}"
            )
        return started
    raise BackgroundUnavailable(
        f"--{name} needs the package {package!r}, which is not installed: install it "
        f"(uv sync installs every package of the workspace), or serve without --{name}"
    )
