"""The `lorebase` program.

The read commands (schema, record, query, traverse, diff, branch; context, search, resolve, health;
events, changes), the write commands (op, proposal, branch merge), the trace commands (trace list,
trace show, audit), the webhook commands and login, logout and whoami talk to a Keeper over HTTP
(cli_reads.py, cli_agent_reads.py, cli_feed.py, cli_writes.py, cli_trace.py, cli_webhooks.py,
cli_login.py), with the options and error handling of cli_options.py. Commands that run against a
database on this machine (serve, import, log, key, grant) come from installed packages through the
`lorebase.commands` entry points (plugins.py), so this package stays free of server code.
"""

from __future__ import annotations

import click

from lorebase_client.cli_agent_reads import AGENT_READ_COMMANDS
from lorebase_client.cli_feed import FEED_COMMANDS
from lorebase_client.cli_login import LOGIN_COMMANDS
from lorebase_client.cli_reads import READ_COMMANDS, branch_group
from lorebase_client.cli_trace import TRACE_COMMANDS
from lorebase_client.cli_webhooks import WEBHOOK_COMMANDS
from lorebase_client.cli_writes import BRANCH_WRITE_COMMANDS, WRITE_COMMANDS
from lorebase_client.connection import VERSION
from lorebase_client.plugins import ENTRY_POINT_GROUP, PluggableGroup


@click.group(cls=PluggableGroup, entry_point_group=ENTRY_POINT_GROUP)
@click.version_option(VERSION, prog_name="lorebase")
def main() -> None:
    """Lorebase: governed, versioned knowledge graphs for AI agents."""


for _command in (
    *READ_COMMANDS,
    *AGENT_READ_COMMANDS,
    *FEED_COMMANDS,
    *WRITE_COMMANDS,
    *TRACE_COMMANDS,
    *WEBHOOK_COMMANDS,
    *LOGIN_COMMANDS,
):
    main.add_command(_command)
for _command in BRANCH_WRITE_COMMANDS:
    branch_group.add_command(_command)


if __name__ == "__main__":  # pragma: no cover - `python -m lorebase_client.cli`
    main()
