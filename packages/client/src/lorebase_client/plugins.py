"""Click groups that also hold the commands other installed Lorebase packages provide.

The client may not import Keeper (design.md), yet `lorebase serve`, `lorebase import`, `lorebase
key ...` run Keeper's code: Keeper registers them as entry points and the groups load them by
name, only when asked for. A group's entry point group is `lorebase.commands` for the `lorebase`
program and `lorebase.commands.<group>` for a subgroup (`lorebase.commands.branch` can add
`lorebase branch archive`). A command the client defines wins over a plugin of the same name.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any

import click

ENTRY_POINT_GROUP = "lorebase.commands"


class PluggableGroup(click.Group):
    """A click group whose commands are its own plus the entry points of `entry_point_group`."""

    def __init__(self, *args: Any, entry_point_group: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.entry_point_group = entry_point_group

    def plugin_names(self) -> set[str]:
        """Names of the commands installed packages provide (nothing is imported)."""
        return {entry.name for entry in entry_points(group=self.entry_point_group)}

    def plugin(self, name: str) -> click.Command | None:
        """The command an installed package provides under `name` (imported now), if any."""
        for entry in entry_points(group=self.entry_point_group, name=name):
            command = entry.load()
            if isinstance(command, click.Command):
                return command
        return None

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | self.plugin_names())

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return super().get_command(ctx, cmd_name) or self.plugin(cmd_name)
