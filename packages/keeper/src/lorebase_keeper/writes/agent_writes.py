"""The rules of writes that need review: effective settings, task names, descriptions, hints.

What a Proposal needs to merge is `lorebase_core.proposal_policy`; here it meets the settings.

Settings come from keeper.agent_writes and keeper.operations, overridden per Domain by its own
`agent_writes` and `operations` settings (docs/writes.md).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import partial
from typing import TypeVar

from pydantic import BaseModel

from lorebase_core.errors import InvalidInput, Issue
from lorebase_core.operations import execution_summary
from lorebase_core.proposal_policy import (
    AutoMergeRule,
    MergePolicy,
    approvals,
    blockers,
    describe_proposal,
    required_approvals,
    satisfied,
)
from lorebase_core.schema import Schema
from lorebase_core.values import CanonicalValue
from lorebase_keeper.shapes.common import HintJson
from lorebase_keeper.shapes.writes.proposals import ApprovalJson
from lorebase_platform.settings import AgentWritesSettings, OperationsSettings, Settings
from lorebase_store import Describe, DomainInfo, ProposalInfo

API = "/api/v1/domains"
_TASK = re.compile(r"[^a-z0-9._-]+")

_Section = TypeVar("_Section", bound=BaseModel)


def _override(base: _Section, override: object, name: str) -> _Section:
    if not override:
        return base
    if not isinstance(override, dict):
        raise InvalidInput(
            f"The Domain's {name} setting is not a mapping",
            [Issue(name, "expected a mapping", "type")],
        )
    return type(base).model_validate({**base.model_dump(), **override})


def agent_writes_of(settings: Settings, domain: DomainInfo) -> AgentWritesSettings:
    return _override(
        settings.keeper.agent_writes, domain.settings.get("agent_writes"), "agent_writes"
    )


def operations_of(settings: Settings, domain: DomainInfo) -> OperationsSettings:
    return _override(settings.keeper.operations, domain.settings.get("operations"), "operations")


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
    return partial(describe_proposal, max_lines=agent_writes.max_summary_operations)


def execution_entry(
    schema: Schema,
    agent_writes: AgentWritesSettings,
    operation: str,
    parameters: Mapping[str, CanonicalValue],
    invocation_id: str,
) -> dict[str, str]:
    """One line of a Proposal's `executions`: the invocation, its Operation and its summary."""
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


def merge_policy(
    operations: OperationsSettings,
    *,
    expected_source_head: str | None = None,
    auto_merge: AutoMergeRule | None = None,
) -> MergePolicy:
    """What the store decides a merge on, in the transaction that merges (docs/writes.md)."""
    return MergePolicy(
        operations.required_approvals,
        expected_source_head=expected_source_head,
        auto_merge=auto_merge,
    )


def approval_state(
    operations: OperationsSettings, proposal: ProposalInfo
) -> tuple[ApprovalJson, list[str]]:
    """required, approvals, satisfied; and the blockers of an open Proposal (none else)."""
    facts = proposal.facts
    required = required_approvals(operations.required_approvals, proposal.target_protected)
    approval: ApprovalJson = {
        "required": required,
        "approvals": approvals(facts),
        "satisfied": satisfied(facts, required),
    }
    return approval, blockers(facts, required) if proposal.status == "open" else []


def hint(
    action: str, detail: str, method: str, href: str, permission: str | None = None
) -> HintJson:
    entry: HintJson = {"action": action, "detail": detail, "method": method, "href": href}
    if permission is not None:
        entry["permission"] = permission
    return entry


def proposal_hints(
    domain: str, proposal: ProposalInfo, required: int, found_blockers: list[str]
) -> list[HintJson]:
    """The calls that move a Proposal forward."""
    url = proposal_url(domain, proposal.id)
    hints: list[HintJson] = []
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
