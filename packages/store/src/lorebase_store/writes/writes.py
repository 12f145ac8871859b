"""`Writes`: the write side of the store (executions, task branches, Proposals, merges, audit).

Each method is one transaction. Keeper decides who may do what and composes the steps of the
agent flow (docs/writes.md); here every step keeps its rows consistent and writes its audit entry.
A merge decides what its `MergePolicy` asks in its own transaction (`proposals.merge_proposal`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from lorebase_core.access import ReadScope
from lorebase_core.changes import Change
from lorebase_core.errors import AgentBranchLimit, AlreadyExists, MergeConflicts, ProposalNotOpen
from lorebase_core.proposal_policy import MergePolicy
from lorebase_store import tables as t
from lorebase_store.commits.commit import CommitRequest
from lorebase_store.engine import is_sqlite, read_transaction, write_transaction
from lorebase_store.results import BranchInfo, DomainInfo
from lorebase_store.versioned.schemas import schema_at
from lorebase_store.versioned.views import load_branch, load_domain
from lorebase_store.writes.audit import AuditEntry, audit, audit_entries
from lorebase_store.writes.branches import BranchMode, branches_held, create_branch_on, find_branch
from lorebase_store.writes.executions import (
    DryRun,
    Executed,
    ExecutionRecord,
    Invocation,
    attach_proposal,
    dry_run,
    execute,
    find_invocation,
    invocation_by_id,
)
from lorebase_store.writes.merges import (
    ConflictResolution,
    MergePlan,
    commit_merge,
    plan_merge,
    require_within,
)
from lorebase_store.writes.proposals import (
    Attempt,
    ConflictInfo,
    MergeOutcome,
    ProposalInfo,
    ProposalReach,
    add_review,
    attempt_merge,
    close_proposal,
    conflicts_of,
    delete_branch,
    insert_proposal,
    list_proposals,
    load_proposal,
    merge_proposal,
    open_proposal_between,
    open_proposals_from,
    proposal_reaches,
    resolve_conflict,
    update_proposal,
)


@dataclass(frozen=True)
class TaskBranch:
    branch: BranchInfo
    created: bool


@dataclass(frozen=True)
class Proposed:
    proposal: ProposalInfo
    created: bool


@dataclass(frozen=True)
class Merged:
    outcome: MergeOutcome
    proposal: ProposalInfo
    branch_deleted: bool


@dataclass(frozen=True)
class BranchMerge:
    result: str
    revision: str | None
    plan: MergePlan


Describe = Callable[[str | None, list[dict[str, Any]]], str]
"""Builds a Proposal description from its intent and the list of its executions."""


class Writes:
    def __init__(self, engine: sa.Engine) -> None:
        self.engine = engine

    # -- executions --------------------------------------------------------------------------
    def execute(
        self, request: CommitRequest, changes: Iterable[Change], record: ExecutionRecord
    ) -> Executed:
        return execute(self.engine, request, changes, record)

    def dry_run(self, request: CommitRequest, changes: Iterable[Change]) -> DryRun:
        return dry_run(self.engine, request, changes)

    def invocation(self, domain: str, principal: str, key: str) -> Invocation | None:
        with read_transaction(self.engine) as connection:
            return find_invocation(connection, load_domain(connection, domain).id, principal, key)

    def invocation_by_id(self, invocation_id: str) -> Invocation | None:
        with read_transaction(self.engine) as connection:
            return invocation_by_id(connection, invocation_id)

    # -- task branches -----------------------------------------------------------------------
    def task_branch(
        self,
        domain: str,
        name: str,
        *,
        from_branch: str,
        mode: BranchMode,
        principal: str,
        owned_prefix: str,
        max_open: int,
    ) -> TaskBranch:
        """The task branch `name`: reused when `principal` made it, else made (within the limit)."""
        with write_transaction(self.engine) as connection:
            info = load_domain(connection, domain)
            branch = find_branch(connection, info, name)
            if branch is not None:
                if branch.created_by != principal:
                    raise AlreadyExists(
                        f"Task branch {name!r} belongs to {branch.created_by!r}; name another task",
                        branch=name,
                    )
                return TaskBranch(branch, created=False)
            held = branches_held(connection, info, owned_prefix, principal)
            if len(held) >= max_open:
                raise AgentBranchLimit(
                    f"{principal!r} holds {len(held)} task branches (at most {max_open}); "
                    "merge or close one, or reuse one as the task",
                    branches=held,
                    limit=max_open,
                )
            branch = create_branch_on(
                connection, domain, name, from_branch=from_branch, mode=mode, created_by=principal
            )
            audit(
                connection, info.id, principal, "branch.create", name, base=from_branch, mode=mode
            )
            return TaskBranch(branch, created=True)

    # -- Proposals ---------------------------------------------------------------------------
    def propose(
        self,
        domain: str,
        *,
        source: str,
        target: str,
        principal: str,
        title: str,
        intent: str | None,
        task: str | None,
        policy_review: bool,
        execution: dict[str, Any] | None,
        describe: Describe,
    ) -> Proposed:
        """Open the Proposal of `source` into `target`, or add an execution to the open one."""
        with write_transaction(self.engine) as connection:
            info = load_domain(connection, domain)
            source_branch = load_branch(connection, info, source)
            target_branch = load_branch(connection, info, target)
            existing = open_proposal_between(connection, info, source_branch.id, target_branch.id)
            executions = [execution] if execution is not None else []
            if existing is None:
                proposal_id = insert_proposal(
                    connection,
                    info,
                    source=source_branch,
                    target=target_branch,
                    title=title,
                    description=describe(intent, executions),
                    created_by=principal,
                    intent=intent,
                    task=task,
                    policy_review=policy_review,
                    executions=executions,
                )
                action, created = "proposal.create", True
            else:
                proposal_id = _extend_proposal(
                    connection,
                    existing,
                    principal,
                    source,
                    target,
                    intent,
                    executions,
                    policy_review,
                    describe,
                )
                action, created = "proposal.update", False
            if execution is not None:
                attach_proposal(connection, execution["invocation_id"], proposal_id)
            audit(connection, info.id, principal, action, proposal_id, source=source, target=target)
            proposal = load_proposal(connection, info, proposal_id)
            schema = schema_at(connection, info, target_branch.head_revision)
            attempt_merge(connection, info, schema, proposal, principal)
            return Proposed(load_proposal(connection, info, proposal_id), created)

    def proposal(self, domain: str, proposal_id: str) -> ProposalInfo:
        with read_transaction(self.engine) as connection:
            return load_proposal(connection, load_domain(connection, domain), proposal_id)

    def proposals(
        self,
        domain: str,
        *,
        status: str | None = None,
        created_by: str | None = None,
        after: str | None = None,
        limit: int = 50,
    ) -> list[ProposalInfo]:
        with read_transaction(self.engine) as connection:
            return list_proposals(
                connection,
                load_domain(connection, domain),
                status=status,
                created_by=created_by,
                after=after,
                limit=limit,
            )

    def reach(
        self, domain: str, proposals: Iterable[ProposalInfo], *, changes: bool
    ) -> dict[str, ProposalReach]:
        """What each Proposal touches (`proposal_reach`), in one read transaction."""
        with read_transaction(self.engine) as connection:
            info = load_domain(connection, domain)
            return proposal_reaches(connection, info, list(proposals), changes=changes)

    def review(
        self, domain: str, proposal_id: str, *, reviewer: str, verdict: str, body: str
    ) -> ProposalInfo:
        with write_transaction(self.engine) as connection:
            info = load_domain(connection, domain)
            # after a merge that held it, this sees the Proposal merged (and refuses)
            proposal = load_proposal(connection, info, proposal_id, lock=True)
            _require_open(proposal)
            source = connection.execute(
                sa.select(t.branches.c.head_revision).where(
                    t.branches.c.id == proposal.source_branch_id
                )
            ).scalar()
            add_review(connection, proposal, reviewer, verdict, body, source)
            audit(connection, info.id, reviewer, "proposal.review", proposal_id, verdict=verdict)
            return load_proposal(connection, info, proposal_id)

    def conflicts(
        self, domain: str, proposal_id: str, *, status: str | None = None
    ) -> tuple[ProposalInfo, list[ConflictInfo]]:
        with read_transaction(self.engine) as connection:
            info = load_domain(connection, domain)
            proposal = load_proposal(connection, info, proposal_id)
            return proposal, conflicts_of(connection, proposal_id, status=status)

    def resolve(
        self,
        domain: str,
        proposal_id: str,
        conflict_id: str,
        *,
        resolution: str,
        value: Any,
        by: str,
    ) -> tuple[ProposalInfo, ConflictInfo]:
        with write_transaction(self.engine) as connection:
            info = load_domain(connection, domain)
            proposal = load_proposal(connection, info, proposal_id, lock=True)
            _require_open(proposal)
            resolved = resolve_conflict(connection, proposal, conflict_id, resolution, value, by)
            audit(
                connection,
                info.id,
                by,
                "conflict.resolve",
                conflict_id,
                proposal=proposal_id,
                resolution=resolution,
            )
            return load_proposal(connection, info, proposal_id), resolved

    def attempt(self, domain: str, proposal_id: str, *, actor: str) -> tuple[ProposalInfo, Attempt]:
        with write_transaction(self.engine) as connection:
            info = load_domain(connection, domain)
            proposal = load_proposal(connection, info, proposal_id, lock=True)
            _require_open(proposal)
            target = load_branch(connection, info, proposal.target_branch)
            _, attempt = attempt_merge(
                connection, info, schema_at(connection, info, target.head_revision), proposal, actor
            )
            return load_proposal(connection, info, proposal_id), attempt

    def merge(
        self,
        domain: str,
        proposal_id: str,
        *,
        actor: str,
        message: str,
        max_event_edits: int,
        delete_source: bool,
        policy: MergePolicy | None = None,
        write_scope: ReadScope | None = None,
    ) -> Merged:
        """Decide and merge the Proposal in one transaction; delete its task branch if asked.

        `policy` is decided under the transaction's locks (`proposals.merge_proposal`: 409
        `merge-blocked` or `stale-head` when it does not hold); a plan reaching beyond
        `write_scope` is 403 `merge-outside-scope`. A refusal keeps nothing."""
        with write_transaction(self.engine) as connection:
            info = load_domain(connection, domain)
            proposal, outcome = merge_proposal(
                connection,
                info,
                proposal_id,
                actor=actor,
                message=message,
                max_event_edits=max_event_edits,
                policy=policy,
                write_scope=write_scope,
            )
            deleted = False
            if outcome.merged:
                audit(
                    connection,
                    info.id,
                    actor,
                    "proposal.merge",
                    proposal_id,
                    revision=outcome.revision,
                    automatic=policy is not None and policy.auto_merge is not None,
                )
                if delete_source:
                    deleted = self._drop_source(connection, info, proposal, actor)
            return Merged(outcome, load_proposal(connection, info, proposal_id), deleted)

    def close(
        self, domain: str, proposal_id: str, *, actor: str, delete_source: bool
    ) -> ProposalInfo:
        with write_transaction(self.engine) as connection:
            info = load_domain(connection, domain)
            proposal = load_proposal(connection, info, proposal_id, lock=True)
            close_proposal(connection, proposal, actor)
            audit(connection, info.id, actor, "proposal.close", proposal_id)
            if delete_source:
                self._drop_source(connection, info, proposal, actor)
            return load_proposal(connection, info, proposal_id)

    @staticmethod
    def _drop_source(
        connection: sa.Connection, info: DomainInfo, proposal: ProposalInfo, actor: str
    ) -> bool:
        """Delete a Proposal's source branch unless another open Proposal still has it."""
        others = [
            p
            for p in open_proposals_from(connection, proposal.source_branch_id)
            if p != proposal.id
        ]
        alive = connection.execute(
            sa.select(t.branches.c.deleted).where(t.branches.c.id == proposal.source_branch_id)
        ).scalar()
        if others or alive is None or alive:
            return False
        delete_branch(connection, proposal.source_branch_id)
        audit(connection, info.id, actor, "branch.delete", proposal.source_branch)
        return True

    # -- merges without a Proposal -----------------------------------------------------------
    def merge_branch(
        self,
        domain: str,
        source: str,
        *,
        into: str,
        author: str,
        message: str,
        resolutions: Mapping[tuple[str, str], ConflictResolution],
        expected_head: str | None = None,
        write_scope: ReadScope | None = None,
    ) -> BranchMerge:
        """Merge `source` into `into` now; 409 merge-conflicts lists what stays open.

        A plan reaching beyond `write_scope` is 403 `merge-outside-scope` (nothing is written)."""
        with write_transaction(self.engine) as connection:
            info = load_domain(connection, domain)
            target = _locked_branch(connection, info, into)
            source_branch = load_branch(connection, info, source)
            schema = schema_at(connection, info, target.head_revision)
            plan = plan_merge(connection, schema, source_branch, target, resolutions)
            require_within(schema, plan, write_scope, source, into)
            if plan.conflicts:
                raise _conflicts_refusal(source, into, plan)
            revision = commit_merge(
                connection,
                plan,
                domain=domain,
                target=target,
                author=author,
                message=message,
                origin_ref=source,
                expected_head=expected_head,
            )
            audit(
                connection,
                info.id,
                author,
                "branch.merge",
                source,
                target=into,
                result=plan.result,
                revision=revision,
            )
            return BranchMerge(plan.result, revision, plan)

    # -- audit -------------------------------------------------------------------------------
    def record(
        self, domain: str, principal: str, action: str, subject: str, **details: Any
    ) -> None:
        with write_transaction(self.engine) as connection:
            audit(
                connection,
                load_domain(connection, domain).id,
                principal,
                action,
                subject,
                **details,
            )

    def audit(self, domain: str, *, after: int = 0, limit: int = 100) -> list[AuditEntry]:
        with read_transaction(self.engine) as connection:
            return audit_entries(
                connection, load_domain(connection, domain).id, after=after, limit=limit
            )


def _require_open(proposal: ProposalInfo) -> None:
    if proposal.status != "open":
        raise ProposalNotOpen(
            f"Proposal {proposal.id!r} is {proposal.status}", proposal=proposal.id
        )


def _extend_proposal(
    connection: sa.Connection,
    existing: ProposalInfo,
    principal: str,
    source: str,
    target: str,
    intent: str | None,
    executions: list[dict[str, Any]],
    policy_review: bool,
    describe: Describe,
) -> str:
    """Add executions (and an intent) to the open Proposal `principal` made; returns its id."""
    if existing.created_by != principal:
        raise AlreadyExists(
            f"Proposal {existing.id} of {source!r} into {target!r} was opened by "
            f"{existing.created_by!r}",
            proposal=existing.id,
        )
    known = {e.get("invocation_id") for e in existing.executions}
    executions = existing.executions + [
        e for e in executions if e.get("invocation_id") not in known
    ]
    kept_intent = intent if intent is not None else existing.intent
    update_proposal(
        connection,
        existing.id,
        intent=kept_intent,
        executions=executions,
        description=describe(kept_intent, executions),
        policy_review=existing.policy_review or policy_review,
    )
    return existing.id


def _locked_branch(connection: sa.Connection, info: DomainInfo, name: str) -> BranchInfo:
    """The branch, read again under its row lock on PostgreSQL (SQLite's write lock is held)."""
    branch = load_branch(connection, info, name)
    if not is_sqlite(connection):
        connection.execute(
            sa.select(t.branches.c.id).where(t.branches.c.id == branch.id).with_for_update()
        )
        branch = load_branch(connection, info, name)
    return branch


def _conflicts_refusal(source: str, into: str, plan: MergePlan) -> MergeConflicts:
    """409 `merge-conflicts` listing the Conflicts a merge without a Proposal leaves open."""
    return MergeConflicts(
        f"Merging {source!r} into {into!r} meets {len(plan.conflicts)} Conflict(s); "
        "resolve each and merge again",
        source=source,
        target=into,
        counts=plan.counts,
        conflicts=[
            {
                "entity": c.entity,
                "ref": c.ref,
                "attribute": c.attribute,
                "code": c.code,
                "base": c.base,
                "source": c.source,
                "target": c.target,
            }
            for c in plan.conflicts
        ],
    )
