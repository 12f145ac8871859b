"""The rules of writes that need review: effective settings, task names, descriptions, hints.

Settings come from keeper.agent_writes and keeper.operations, overridden per Domain by its own
`agent_writes` and `operations` settings (docs/writes.md).
"""

from __future__ import annotations

import re
from typing import Any

from lorebase_core.errors import InvalidInput, Issue
from lorebase_core.operations import execution_summary
from lorebase_core.schema import Schema
from lorebase_platform.settings import AgentWritesSettings, OperationsSettings, Settings
from lorebase_store import Describe, DomainInfo, ProposalInfo

API = "/api/v1/domains"
_TASK = re.compile(r"[^a-z0-9._-]+")


def _override(base: Any, override: object, name: str) -> Any:
    if not override:
        return base
    if not isinstance(override, dict):
        raise InvalidInput(
            f"The Domain's {name} setting is not a mapping",
            [Issue(name, "expected a mapping", "type")],
        )
    return type(base).model_validate({**base.model_dump(), **override})


def agent_writes_of(settings: Settings, domain: DomainInfo) -> AgentWritesSettings:
    found: AgentWritesSettings = _override(
        settings.keeper.agent_writes, domain.settings.get("agent_writes"), "agent_writes"
    )
    return found


def operations_of(settings: Settings, domain: DomainInfo) -> OperationsSettings:
    found: OperationsSettings = _override(
        settings.keeper.operations, domain.settings.get("operations"), "operations"
    )
    return found


def task_slug(task: str, max_length: int) -> str:
    """A task as a branch path segment: lower case, runs of other characters as one `-`."""
    slug = _TASK.sub("-", task.strip().lower()).strip("-.")
    if not slug:
        raise InvalidInput(
            "A task needs letters or digits", [Issue("task", "empty once normalized", "value")]
        )
    if len(slug) > max_length:
        raise InvalidInput(
            f"A task is at most {max_length} characters",
            [Issue("task", f"{len(slug)} characters once normalized", "too-long")],
        )
    return slug


def task_branch_name(agent_writes: AgentWritesSettings, principal: str, task: str) -> str:
    return f"{agent_writes.branch_prefix}{principal.lower()}/{task}"


def describe(agent_writes: AgentWritesSettings) -> Describe:
    """The Proposal description: the intent, then one line per execution (the latest cut)."""

    def description(intent: str | None, executions: list[dict[str, Any]]) -> str:
        lines = [intent.strip()] if intent else []
        if executions:
            if lines:
                lines.append("")
            shown = executions[: agent_writes.max_summary_operations]
            lines.extend(str(entry["summary"]) for entry in shown)
            more = len(executions) - len(shown)
            if more > 0:
                lines.append(f"- ... and {more} more execution(s)")
        return "\n".join(lines)

    return description


def execution_entry(
    schema: Schema,
    agent_writes: AgentWritesSettings,
    operation: str,
    parameters: dict[str, Any],
    invocation_id: str,
) -> dict[str, Any]:
    summary = execution_summary(
        operation,
        schema.operations[operation],
        parameters,
        invocation_id,
        values=agent_writes.summary_parameter_values,
        value_chars=agent_writes.summary_value_chars,
    )
    return {"invocation_id": invocation_id, "operation": operation, "summary": summary}


def proposal_url(domain: str, proposal_id: str) -> str:
    return f"{API}/{domain}/proposals/{proposal_id}"


def required_approvals(
    operations: OperationsSettings, proposal: ProposalInfo, protected: bool
) -> int:
    """Approvals a Proposal's target requires: the setting on a protected target, else none.

    A review that came from an Operation's own policy needs an approval besides (`blockers`).
    """
    del proposal
    return operations.required_approvals if protected else 0


def blockers(proposal: ProposalInfo, required: int) -> list[str]:
    """What keeps an open Proposal from merging."""
    found = []
    if proposal.open_conflicts:
        found.append("open-conflicts")
    if proposal.approvals < required:
        found.append("approvals-pending")
    if proposal.policy_review and proposal.approvals == 0:
        found.append("review-policy-needs-approval")
    if proposal.changes_requested:
        found.append("changes-requested")
    return found


def hint(
    action: str, detail: str, method: str, href: str, permission: str | None = None
) -> dict[str, Any]:
    entry: dict[str, Any] = {"action": action, "detail": detail, "method": method, "href": href}
    if permission is not None:
        entry["permission"] = permission
    return entry


def proposal_hints(
    domain: str, proposal: ProposalInfo, required: int, found_blockers: list[str]
) -> list[dict[str, Any]]:
    """The calls that move a Proposal forward."""
    url = proposal_url(domain, proposal.id)
    hints: list[dict[str, Any]] = []
    if proposal.status == "open":
        if "open-conflicts" in found_blockers:
            hints.append(
                hint(
                    "resolve_conflicts",
                    f"Resolve the {proposal.open_conflicts} open Conflict(s) with the target.",
                    "GET",
                    f"{url}/conflicts",
                    "proposal.merge",
                )
            )
        if (
            "approvals-pending" in found_blockers
            or "review-policy-needs-approval" in found_blockers
        ):
            hints.append(
                hint(
                    "await_review",
                    f"Waiting for approval ({proposal.approvals} of {max(required, 1)} required).",
                    "POST",
                    f"{url}/reviews",
                    "proposal.review",
                )
            )
        if not found_blockers:
            hints.append(
                hint(
                    "merge_proposal",
                    "Nothing blocks the merge: merge the Proposal.",
                    "POST",
                    f"{url}/merge",
                    "proposal.merge",
                )
            )
    hints.append(hint("get_proposal", "Read the state of the Proposal.", "GET", url))
    return hints
