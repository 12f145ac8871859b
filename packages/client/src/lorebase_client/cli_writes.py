"""`lorebase op`, `proposal` and `branch merge`: Keeper's writes from a shell (docs/client.md).

They share the options, the output and the error handling of the read commands (cli_options.py):
the answer as indented JSON on stdout, a problem on stderr with exit code 1.
"""

from __future__ import annotations

import json
from typing import Any

import click

from lorebase_client._sync.client import LorebaseClient
from lorebase_client.answers import Answer
from lorebase_client.cli_options import (
    Keeper,
    ReadTarget,
    connection_options,
    domain_option,
    json_value,
    read_options,
)
from lorebase_client.plugins import ENTRY_POINT_GROUP, PluggableGroup
from lorebase_client.routes import (
    NO_VALUE,
    ConflictChoice,
    ConflictStatus,
    ProposalStatus,
    Verdict,
)

PROPOSAL_STATUSES: dict[str, ProposalStatus] = {
    "open": "open",
    "merged": "merged",
    "closed": "closed",
}
CONFLICT_STATUSES: dict[str, ConflictStatus] = {"open": "open", "resolved": "resolved"}
RESOLUTIONS: dict[str, ConflictChoice] = {"source": "source", "target": "target", "value": "value"}


# -- --param k=v ------------------------------------------------------------------------------


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")


def parameter_value(text: str) -> Any:
    """A --param value: its JSON when it is JSON (`75`, `true`, `"x"`), else the text itself.

    `NaN` and `Infinity`, which Python's json module reads but JSON has not, stay text.
    """
    try:
        return json.loads(text, parse_constant=_not_json)
    except ValueError:
        return text


def parse_parameters(
    ctx: click.Context, param: click.Parameter, values: tuple[str, ...]
) -> dict[str, Any]:
    """The --param options as the parameters of an Operation; a usage error for a bad one."""
    parameters: dict[str, Any] = {}
    for given in values:
        name, equals, text = given.partition("=")
        if not equals or not name:
            raise click.BadParameter(f"{given!r} is not NAME=VALUE", ctx, param)
        if name in parameters:
            raise click.BadParameter(f"{name!r} is given twice", ctx, param)
        parameters[name] = parameter_value(text)
    return parameters


# -- op ---------------------------------------------------------------------------------------


@click.group("op", cls=PluggableGroup, entry_point_group=f"{ENTRY_POINT_GROUP}.op")
def op_group() -> None:
    """Discover and run the Operations of the schema: the only way data changes."""


@op_group.command("list")
@read_options
def op_list(read: ReadTarget) -> None:
    """Print the Operations you may read on the branch, with their parameters.

    Each says whether and when it needs review there, what it writes and emits, and whether
    your grants let you run it (execute.allowed).
    """
    read.run(lambda client: client.operations(read.domain, branch=read.branch, at=read.at))


@op_group.command("show")
@click.argument("operation")
@read_options
def op_show(operation: str, read: ReadTarget) -> None:
    """Print OPERATION: its parameters and their rules, review, side effects and permissions."""
    read.run(
        lambda client: client.operation(read.domain, operation, branch=read.branch, at=read.at)
    )


@op_group.command("run")
@click.argument("operation")
@click.option(
    "--param",
    "parameters",
    multiple=True,
    callback=parse_parameters,
    metavar="NAME=VALUE",
    help="A parameter (repeat); VALUE is read as JSON when it is JSON, else as text.",
)
@click.option(
    "--branch",
    default=None,
    metavar="BRANCH",
    help="Branch to write on (default: the Domain's default branch).",
)
@click.option("--dry-run", is_flag=True, help="Check and plan the write; write nothing.")
@click.option(
    "--task", default=None, metavar="TASK", help="Write on your task branch for TASK (proposed)."
)
@click.option("--intent", default=None, metavar="TEXT", help="Why: the Proposal's description.")
@click.option(
    "--idempotency-key",
    default=None,
    metavar="KEY",
    help="Run at most once: the same KEY again answers the first run's answer.",
)
@click.option(
    "--expected-head",
    default=None,
    metavar="REV",
    help="Refuse the write unless the branch is still at this Revision.",
)
@click.option("--message", default=None, metavar="TEXT", help="The Revision's message.")
@click.option(
    "--auto-propose",
    is_flag=True,
    help="With --task: open the task branch and its Proposal (agents do by default).",
)
@click.option("--auto-merge", is_flag=True, help="Merge the task's Proposal when it may be.")
@domain_option
@connection_options
def op_run(
    operation: str,
    parameters: dict[str, Any],
    branch: str | None,
    dry_run: bool,
    task: str | None,
    intent: str | None,
    idempotency_key: str | None,
    expected_head: str | None,
    message: str | None,
    auto_propose: bool,
    auto_merge: bool,
    domain: str,
    keeper: Keeper,
) -> None:
    """Execute OPERATION with its --param values and print the answer.

    Its status says what happened: committed, dry_run, merged, or proposed and conflicts (the
    write waits on a task branch for review). For example:

    \b
        lorebase op run update_supplier --param key=S-1001 --param risk_score=75 \\
            --task t1 --intent "new audit" --auto-propose
    """
    keeper.run(
        lambda client: client.execute(
            domain,
            operation,
            parameters,
            branch=branch,
            dry_run=dry_run or None,
            expected_head=expected_head,
            message=message,
            idempotency_key=idempotency_key,
            task=task,
            intent=intent,
            auto_propose=auto_propose or None,
            auto_merge=auto_merge or None,
        )
    )


# -- proposal ---------------------------------------------------------------------------------


@click.group("proposal", cls=PluggableGroup, entry_point_group=f"{ENTRY_POINT_GROUP}.proposal")
def proposal_group() -> None:
    """List, review, merge and close Proposals, and resolve their Conflicts."""


@proposal_group.command("list")
@click.option(
    "--status", type=click.Choice(sorted(PROPOSAL_STATUSES)), default=None, help="Only these."
)
@click.option("--assigned-to-me", is_flag=True, help="Only those waiting on your review.")
@click.option("--mine", is_flag=True, help="Only those you opened.")
@domain_option
@connection_options
def proposal_list(
    status: str | None,
    assigned_to_me: bool,
    mine: bool,
    domain: str,
    keeper: Keeper,
) -> None:
    """Print the Proposals of the Domain (every page)."""

    def read(client: LorebaseClient) -> Answer:
        found = client.proposals(
            domain,
            status=PROPOSAL_STATUSES.get(status or ""),
            assigned_to_me=assigned_to_me,
            created_by_me=mine,
        )
        return Answer({"domain": domain, "proposals": list(found)})

    keeper.run(read)


@proposal_group.command("show")
@click.argument("proposal_id", metavar="ID")
@domain_option
@connection_options
def proposal_show(proposal_id: str, domain: str, keeper: Keeper) -> None:
    """Print the Proposal ID: its status, approval, merge blockers and next steps."""
    keeper.run(lambda client: client.proposal(domain, proposal_id))


def _verdict(approve: bool, request_changes: bool, comment: bool) -> Verdict:
    given: list[Verdict] = []
    if approve:
        given.append("approve")
    if request_changes:
        given.append("request_changes")
    if comment:
        given.append("comment")
    if len(given) != 1:
        raise click.UsageError("give exactly one of --approve, --request-changes or --comment")
    return given[0]


@proposal_group.command("review")
@click.argument("proposal_id", metavar="ID")
@click.option("--approve", is_flag=True, help="Approve the Proposal.")
@click.option("--request-changes", is_flag=True, help="Ask for changes before a merge.")
@click.option("--comment", is_flag=True, help="Comment only.")
@click.option("--body", default=None, metavar="TEXT", help="What the review says.")
@domain_option
@connection_options
def proposal_review(
    proposal_id: str,
    approve: bool,
    request_changes: bool,
    comment: bool,
    body: str | None,
    domain: str,
    keeper: Keeper,
) -> None:
    """Review the Proposal ID (nobody approves their own) and print it."""
    verdict = _verdict(approve, request_changes, comment)
    keeper.run(lambda client: client.review_proposal(domain, proposal_id, verdict, body=body))


@proposal_group.command("merge")
@click.argument("proposal_id", metavar="ID")
@click.option("--message", default=None, metavar="TEXT", help="The merge Revision's message.")
@click.option(
    "--expected-source-head",
    default=None,
    metavar="REVISION",
    help="Refuse (409 stale-head) when the source branch moved past this Revision.",
)
@domain_option
@connection_options
def proposal_merge(
    proposal_id: str,
    message: str | None,
    expected_source_head: str | None,
    domain: str,
    keeper: Keeper,
) -> None:
    """Merge the Proposal ID (approved, without open Conflicts) and print it."""
    keeper.run(
        lambda client: client.merge_proposal(
            domain, proposal_id, message=message, expected_source_head=expected_source_head
        )
    )


@proposal_group.command("close")
@click.argument("proposal_id", metavar="ID")
@domain_option
@connection_options
def proposal_close(proposal_id: str, domain: str, keeper: Keeper) -> None:
    """Close the Proposal ID without merging it and print it."""
    keeper.run(lambda client: client.close_proposal(domain, proposal_id))


@proposal_group.command("conflicts")
@click.argument("proposal_id", metavar="ID")
@click.option(
    "--status", type=click.Choice(sorted(CONFLICT_STATUSES)), default=None, help="Only these."
)
@domain_option
@connection_options
def proposal_conflicts(proposal_id: str, status: str | None, domain: str, keeper: Keeper) -> None:
    """Print the Conflicts of the Proposal ID."""
    keeper.run(
        lambda client: client.conflicts(
            domain, proposal_id, status=CONFLICT_STATUSES.get(status or "")
        )
    )


@proposal_group.command("resolve")
@click.argument("proposal_id", metavar="ID")
@click.argument("conflict_id")
@click.option(
    "--take",
    type=click.Choice(list(RESOLUTIONS)),
    required=True,
    help="The source's value, the target's, or the one of --value.",
)
@click.option("--value", default=None, metavar="JSON", help="The value to take (--take value).")
@domain_option
@connection_options
def proposal_resolve(
    proposal_id: str,
    conflict_id: str,
    take: str,
    value: str | None,
    domain: str,
    keeper: Keeper,
) -> None:
    """Resolve the Conflict CONFLICT_ID of the Proposal ID. For example:

    \b
        lorebase proposal resolve PR-1 CF-1 --take value --value 80
    """
    if (take == "value") != (value is not None):
        raise click.UsageError("--value goes with --take value, and only with it")
    chosen = NO_VALUE if value is None else json_value(value, "--value")
    keeper.run(
        lambda client: client.resolve_conflict(
            domain, proposal_id, conflict_id, RESOLUTIONS[take], value=chosen
        )
    )


# -- branch merge -----------------------------------------------------------------------------


@click.command("merge")
@click.argument("branch")
@click.option(
    "--into",
    default=None,
    metavar="TARGET",
    help="Branch to merge into (default: the branch BRANCH was made from).",
)
@click.option("--message", default=None, metavar="TEXT", help="The merge Revision's message.")
@domain_option
@connection_options
def branch_merge(
    branch: str,
    into: str | None,
    message: str | None,
    domain: str,
    keeper: Keeper,
) -> None:
    """Merge BRANCH into --into and print the result (fast_forward, merge or up_to_date).

    A protected target takes changes through Proposals only; Conflicts are answered as an error
    that lists them.
    """
    keeper.run(lambda client: client.merge_branch(domain, branch, into=into, message=message))


WRITE_COMMANDS: tuple[click.Command, ...] = (op_group, proposal_group)
"""The write commands this package adds to `lorebase`."""

BRANCH_WRITE_COMMANDS: tuple[click.Command, ...] = (branch_merge,)
"""The write commands this package adds to `lorebase branch`."""
