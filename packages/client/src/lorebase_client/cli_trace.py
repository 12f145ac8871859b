"""`lorebase trace list`, `trace show` and `audit`: the agent trace and the audit from a shell.

`trace list` and `trace show` print a readable table and timeline (`--json` for the answer as
Keeper sent it); `audit` prints its answer as indented JSON, like the read commands, whose
options and error handling these share (cli_options.py).
"""

from __future__ import annotations

from typing import Any

import click

from lorebase_client.cli_options import Keeper, connection_options, page_options
from lorebase_client.plugins import ENTRY_POINT_GROUP, PluggableGroup
from lorebase_client.routes import AuditKind

AUDIT_KINDS: dict[str, AuditKind] = {"read": "read", "write": "write"}


# -- rendering --------------------------------------------------------------------------------


def _result_text(result: Any) -> str:
    """A step's result in a few words: counts as `name=n`, flags, the search mode."""
    if not isinstance(result, dict):
        return ""
    parts: list[str] = []
    for name, value in result.items():
        if isinstance(value, dict):
            parts.extend(
                f"{inner}={count}" for inner, count in value.items() if isinstance(count, int)
            )
        elif isinstance(value, bool):
            if value:
                parts.append(name)
        elif isinstance(value, int | float | str):
            parts.append(f"{name}={value}")
        elif isinstance(value, list):
            parts.append(f"{name}={len(value)}")
    return " ".join(parts)


def step_line(step: dict[str, Any]) -> str:
    """One line of a timeline: position, time, then the call or the note."""
    head = f"#{step.get('step')}  {step.get('at')}"
    domain = step.get("domain_id")
    where = f"  [{domain}]" if domain else ""
    if step.get("type") == "note":
        about = f" (about #{step['note_step']})" if step.get("note_step") else ""
        text = "(withheld)" if step.get("withheld") else step.get("note") or ""
        return f"{head}{where}  note{about}: {text}"
    parts = [
        str(step.get("tool") or "-"),
        f"{step.get('method') or ''} {step.get('route') or ''}".strip(),
        str(step.get("status") or "-"),
    ]
    latency = step.get("latency_ms")
    parts.append(f"{latency:.1f} ms" if isinstance(latency, int | float) else "-")
    parts.append(str(step.get("cache") or "-"))
    counts = _result_text(step.get("result"))
    if counts:
        parts.append(counts)
    refs = step.get("refs")
    parts.append(f"refs {len(refs)}" if isinstance(refs, list) else "refs -")
    if step.get("proposal_id"):
        parts.append(f"proposal {step['proposal_id']}")
    if step.get("withheld"):
        parts.append("(query withheld)")
    return f"{head}{where}  " + "  ".join(parts)


def timeline_text(session: dict[str, Any]) -> str:
    """A session as a readable timeline: its header, then one line per step."""
    inferred = " (inferred)" if session.get("inferred") else ""
    lines = [
        f"session {session.get('session_id')} of {session.get('principal')}{inferred}",
        f"  {session.get('first_at')} .. {session.get('last_at')}",
    ]
    for summary in session.get("domains") or []:
        tools = ", ".join(summary.get("tools") or []) or "-"
        lines.append(
            f"  {summary.get('domain_id') or '(no Domain)'}: {summary.get('calls')} calls, "
            f"{summary.get('notes')} notes, tools {tools}"
        )
    lines.append("")
    lines.extend(step_line(step) for step in session.get("steps") or [])
    return "\n".join(lines)


def sessions_text(page: dict[str, Any]) -> str:
    """The sessions list as a table, with the next page's cursor when there is one."""
    rows = [("SESSION", "PRINCIPAL", "DOMAIN", "LAST", "CALLS", "NOTES", "TOOLS")]
    for summary in page.get("sessions") or []:
        session = str(summary.get("session_id"))
        rows.append(
            (
                f"{session} (inferred)" if summary.get("inferred") else session,
                str(summary.get("principal")),
                str(summary.get("domain_id") or "-"),
                str(summary.get("last_at")),
                str(summary.get("calls")),
                str(summary.get("notes")),
                ", ".join(summary.get("tools") or []) or "-",
            )
        )
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]) - 1)]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False))
        + "  "
        + row[-1]
        for row in rows
    ]
    if len(rows) == 1:
        lines.append("(no sessions you may see)")
    if page.get("next_cursor"):
        lines.append(f"next page: --cursor {page['next_cursor']}")
    return "\n".join(lines)


# -- commands ---------------------------------------------------------------------------------


@click.group("trace", cls=PluggableGroup, entry_point_group=f"{ENTRY_POINT_GROUP}.trace")
def trace_group() -> None:
    """The agent trace: sessions of agents' calls and notes (docs/trace.md)."""


@trace_group.command("list")
@click.option("--actor", default=None, metavar="PRINCIPAL", help="Only this principal's.")
@click.option(
    "--domain", "domain_id", default=None, metavar="NAME", help="Only steps in this Domain."
)
@page_options("Sessions per page.")
@click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON.")
@connection_options
def trace_list(
    actor: str | None,
    domain_id: str | None,
    limit: int | None,
    cursor: str | None,
    as_json: bool,
    keeper: Keeper,
) -> None:
    """The trace sessions you may see, newest first: yours, and others' where you read them."""
    keeper.run(
        lambda client: client.trace.sessions(
            actor=actor, domain_id=domain_id, limit=limit, cursor=cursor
        ),
        emit=None if as_json else lambda answer: click.echo(sessions_text(answer)),
    )


@trace_group.command("show")
@click.argument("session")
@click.option(
    "--actor", default=None, metavar="PRINCIPAL", help="Another principal's session SESSION."
)
@click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON.")
@connection_options
def trace_show(session: str, actor: str | None, as_json: bool, keeper: Keeper) -> None:
    """The timeline of the trace session SESSION: calls and notes, in order. For example:

    \b
        lorebase trace show agent-42
    """
    keeper.run(
        lambda client: client.trace.session(session, actor=actor),
        emit=None if as_json else lambda answer: click.echo(timeline_text(answer)),
    )


@click.command("audit")
@click.argument("domain")
@click.option(
    "--kind", type=click.Choice(sorted(AUDIT_KINDS)), default=None, help="Reads or writes."
)
@click.option("--principal", default=None, metavar="PRINCIPAL", help="Only this principal's.")
@click.option("--since", default=None, metavar="TIME", help="At or after this ISO 8601 time.")
@click.option("--until", default=None, metavar="TIME", help="Before this ISO 8601 time.")
@page_options("Entries per page.")
@connection_options
def audit_command(
    domain: str,
    kind: str | None,
    principal: str | None,
    since: str | None,
    until: str | None,
    limit: int | None,
    cursor: str | None,
    keeper: Keeper,
) -> None:
    """Who read and who wrote what in DOMAIN, newest first (its administrators only)."""
    keeper.run(
        lambda client: client.audit(
            domain,
            kind=AUDIT_KINDS.get(kind or ""),
            principal=principal,
            since=since,
            until=until,
            limit=limit,
            cursor=cursor,
        )
    )


TRACE_COMMANDS: tuple[click.Command, ...] = (trace_group, audit_command)
"""The trace and audit commands this package adds to `lorebase`."""
