"""The `lorebase` program.

Commands that run against a database on this machine (serve, import) come from installed packages
through the `lorebase.commands` entry points, so this package stays free of server code.
"""

from __future__ import annotations

from importlib.metadata import entry_points

import click

ENTRY_POINT_GROUP = "lorebase.commands"


class LorebaseGroup(click.Group):
    """A group that also lists the commands other installed Lorebase packages provide."""

    def _plugins(self) -> dict[str, click.Command]:
        found: dict[str, click.Command] = {}
        for entry in entry_points(group=ENTRY_POINT_GROUP):
            command = entry.load()
            if isinstance(command, click.Command):
                found[entry.name] = command
        return found

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(self._plugins()))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return super().get_command(ctx, cmd_name) or self._plugins().get(cmd_name)


@click.group(cls=LorebaseGroup)
@click.version_option("0.1.0", prog_name="lorebase")
def main() -> None:
    """Lorebase: governed, versioned knowledge graphs for AI agents."""


if __name__ == "__main__":  # pragma: no cover - `python -m lorebase_client.cli`
    main()
