"""Background work loaded by entry point (`lorebase serve --scribe`): a clear error without it."""

from __future__ import annotations

import pytest

from lorebase_core.errors import BackgroundUnavailable
from lorebase_keeper.cli.background import start_background
from lorebase_platform.settings import Settings


def test_a_background_that_is_not_installed_says_what_to_install() -> None:
    with pytest.raises(BackgroundUnavailable) as raised:
        start_background("not-installed", Settings(), package="lorebase-not-installed")
    assert raised.value.detail == (
        "--not-installed needs the package 'lorebase-not-installed', which is not installed: "
        "install it (uv sync installs every package of the workspace), or serve without "
        "--not-installed"
    )


def test_scribe_is_found_by_its_entry_point() -> None:
    from importlib.metadata import entry_points

    [entry] = entry_points(group="lorebase.background", name="scribe")
    assert entry.value == "lorebase_scribe.background:start"
