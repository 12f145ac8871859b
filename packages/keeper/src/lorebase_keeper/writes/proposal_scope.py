"""What of a Proposal one caller sees: the read scope applied to Proposals (docs/auth.md).

A Proposal touches the Kinds of the Records its source branch changed, the Relations of the
Links it changed (a Link touches the Kinds of both its ends), what its executions' edits write
and what its Conflicts are about. For a caller whose grants are narrowed to Kinds:

- a Proposal that touches something and nothing visible is invisible: it answers like an unknown
  one (404 `proposal-not-found`) and lists and pages leave it out;
- a Proposal that touches visible and invisible things ("mixed") shows its visible parts only:
  the executions whose every edit is visible, the Conflicts on visible Records and Links (and
  the counts, attempt and blockers that follow from them), and none of the free text people
  wrote: a written title becomes `Merge {source} into {target}`, the intent is null, review
  bodies are empty and the description is made again from the visible executions (or is empty).

For every caller, execution parameters that feed an Attribute whose values the caller may not
read are `***` in the execution lines, as values of sensitive Attributes are elsewhere.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

from lorebase_core.access import SENSITIVITY_TAGS, ReadScope
from lorebase_core.errors import BranchNotFound, ConflictNotFound, ProposalNotFound, quoted
from lorebase_core.operations import execution_summary
from lorebase_core.schema import OperationDef, Schema, ValueRules
from lorebase_core.values import CanonicalValue
from lorebase_keeper.auth.authz import Principal
from lorebase_keeper.reads.reading import Keeper
from lorebase_keeper.writes.agent_writes import agent_writes_of, describe
from lorebase_platform.settings import AgentWritesSettings
from lorebase_store import Attempt, ConflictInfo, ProposalInfo, ProposalReach

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class ScopedProposal:
    """A Proposal as one caller sees it.

    Attributes:
        proposal: the Proposal with only what the caller may see (render this one).
        conflicts: its Conflicts the caller sees; None for all of them (not read here).
        visible: False when it answers like an unknown Proposal.
        original: the Proposal as stored (to act on, never to render).
    """

    proposal: ProposalInfo
    conflicts: list[ConflictInfo] | None
    visible: bool
    original: ProposalInfo

    def require_conflict(self, conflict_id: str) -> None:
        """404 for a Conflict the caller does not see, like for an unknown one."""
        if self.conflicts is None or any(c.id == conflict_id for c in self.conflicts):
            return
        raise ConflictNotFound(
            f"Conflict {quoted(conflict_id)} does not belong to Proposal {quoted(self.proposal.id)}",
            conflict=conflict_id,
        )


def unknown(domain: str, proposal_id: str) -> ProposalNotFound:
    """The error of an unknown Proposal, word for word the store's."""
    return ProposalNotFound(
        f"Proposal {quoted(proposal_id)} does not exist in Domain {quoted(domain)}",
        proposal=proposal_id,
    )


class ProposalScopes:
    """Scopes Proposals of one Domain for one caller (read scopes and schemas per target)."""

    def __init__(self, keeper: Keeper, principal: Principal, domain: str) -> None:
        self.keeper = keeper
        self.principal = principal
        self.domain = domain
        self._scopes: dict[str, ReadScope | None] = {}
        self._schemas: dict[str, Schema] = {}

    @cached_property
    def _agent_writes(self) -> AgentWritesSettings:
        """The Domain's agent_writes settings, read once for every Proposal scoped."""
        return agent_writes_of(self.keeper.settings, self.keeper.store.domain(self.domain))

    def read_scope(self, branch: str) -> ReadScope | None:
        """The caller's scope on a target branch; None without data.read there."""
        if branch not in self._scopes:
            if "data.read" in self.principal.permissions(self.domain, branch):
                self._scopes[branch] = self.principal.read_scope(
                    self.domain,
                    branch,
                    invisible_kinds=self.keeper.settings.keeper.auth.authz.invisible_kinds,
                )
            else:
                self._scopes[branch] = None
        return self._scopes[branch]

    def schema(self, branch: str) -> Schema:
        if branch not in self._schemas:
            store = self.keeper.store
            try:
                self._schemas[branch] = store.schema(self.domain, branch=branch)
            except BranchNotFound:
                default = store.domain(self.domain).default_branch
                self._schemas[branch] = store.schema(self.domain, branch=default)
        return self._schemas[branch]

    def scoped(self, proposals: Iterable[ProposalInfo]) -> list[ScopedProposal]:
        """Each Proposal as the caller sees it (invisible ones with `visible` False)."""
        listed = list(proposals)
        needs: list[ProposalInfo] = []
        narrowed: set[str] = set()
        for proposal in listed:
            scope = self.read_scope(proposal.target_branch)
            if scope is None or _everything(scope):
                continue
            needs.append(proposal)
            if scope.kinds is not None:
                narrowed.add(proposal.id)
        reach: dict[str, ProposalReach] = {}
        if needs:
            store = self.keeper.store.writes
            changes = [p for p in needs if p.id in narrowed]
            others = [p for p in needs if p.id not in narrowed]
            if changes:
                reach.update(store.reach(self.domain, changes, changes=True))
            if others:
                reach.update(store.reach(self.domain, others, changes=False))
        result = []
        for proposal in listed:
            scope = self.read_scope(proposal.target_branch)
            if scope is None:
                result.append(ScopedProposal(self._stripped(proposal), [], False, proposal))
            elif proposal.id not in reach:
                result.append(ScopedProposal(proposal, None, True, proposal))
            else:
                result.append(self._limit(proposal, scope, reach[proposal.id]))
        return result

    def one(self, proposal: ProposalInfo) -> ScopedProposal:
        """A Proposal the caller names: 404 like an unknown one when invisible to it."""
        [scoped] = self.scoped([proposal])
        if not scoped.visible:
            raise unknown(self.domain, proposal.id)
        return scoped

    def load(self, proposal_id: str) -> ScopedProposal:
        """The Proposal of a path: unknown, unreadable and invisible ones answer alike."""
        self.principal.require("data.read", self.domain, None)
        return self.one(self.keeper.store.writes.proposal(self.domain, proposal_id))

    # -- limiting ------------------------------------------------------------------------------
    def _limit(
        self, proposal: ProposalInfo, scope: ReadScope, reach: ProposalReach
    ) -> ScopedProposal:
        schema = self.schema(proposal.target_branch)
        if scope.kinds is None:  # every Kind: only values are masked
            return self._masked_only(proposal, scope, reach, schema)
        seen = [scope.kind_visible(kind) for kind in reach.kinds or ()]
        seen += [scope.relation_visible(schema, name) for name in reach.relations or ()]
        conflicts = [c for c in reach.conflicts if _conflict_visible(c, schema, scope)]
        seen += [True] * len(conflicts) + [False] * (len(reach.conflicts) - len(conflicts))
        executions = []
        for entry in proposal.executions:
            invocation = reach.invocations.get(str(entry.get("invocation_id")))
            shown = invocation is not None and all(
                edit_visible(edit, schema, scope) for edit in invocation.edits
            )
            seen.append(shown)
            if shown and invocation is not None:
                executions.append(self._masked(entry, invocation.parameters, schema, scope))
        if seen and not any(seen):
            return ScopedProposal(self._stripped(proposal), [], False, proposal)
        limited = replace(
            proposal,
            executions=executions,
            description=_with_lines(proposal.description, proposal.executions, executions),
        )
        if len(conflicts) < len(reach.conflicts):
            limited = replace(
                limited,
                open_conflicts=sum(1 for c in conflicts if c.status == "open"),
                resolved_conflicts=sum(1 for c in conflicts if c.status == "resolved"),
                attempt=_attempt(proposal.attempt, conflicts),
            )
        if not all(seen):  # mixed: no free text
            limited = replace(
                limited,
                title=self._title(proposal),
                intent=None,
                description=self._description(proposal, executions),
                reviews=[replace(review, body="") for review in proposal.reviews],
            )
        return ScopedProposal(limited, conflicts, True, proposal)

    def _masked_only(
        self, proposal: ProposalInfo, scope: ReadScope, reach: ProposalReach, schema: Schema
    ) -> ScopedProposal:
        """Every Kind is readable: the Proposal whole, execution values masked as the scope says."""
        lines = []
        for entry in proposal.executions:
            invocation = reach.invocations.get(str(entry.get("invocation_id")))
            lines.append(
                self._masked(entry, invocation.parameters, schema, scope) if invocation else entry
            )
        description = _with_lines(proposal.description, proposal.executions, lines)
        return ScopedProposal(
            replace(proposal, executions=lines, description=description),
            reach.conflicts,
            True,
            proposal,
        )

    def _stripped(self, proposal: ProposalInfo) -> ProposalInfo:
        """Nothing but the state of a Proposal the caller may not see (never answered as is)."""
        return replace(
            proposal,
            title=self._title(proposal),
            intent=None,
            description=self._description(proposal, []),
            executions=[],
            reviews=[replace(review, body="") for review in proposal.reviews],
            open_conflicts=0,
            resolved_conflicts=0,
            attempt=_attempt(proposal.attempt, []),
        )

    def _title(self, proposal: ProposalInfo) -> str:
        """A generated title stays (it names branches and principals only); a written one goes."""
        fallback = f"Merge {proposal.source_branch} into {proposal.target_branch}"
        if proposal.task is not None:
            agent_writes = self._agent_writes
            generated = agent_writes.title_template.format_map(
                {"principal": proposal.created_by, "task": proposal.task}
            )
            if proposal.title == generated:
                return generated
        return fallback

    def _description(self, proposal: ProposalInfo, executions: list[dict[str, object]]) -> str:
        if not proposal.executions and proposal.task is None:
            return ""  # written by a person: it may be about what the caller does not see
        agent_writes = self._agent_writes
        return describe(agent_writes)(None, executions)

    def _masked(
        self,
        entry: dict[str, object],
        parameters: Mapping[str, CanonicalValue],
        schema: Schema,
        scope: ReadScope,
    ) -> dict[str, object]:
        """The execution line with parameters feeding unreadable Attributes as `***`."""
        operation = schema.operations.get(str(entry.get("operation")))
        if operation is None:
            return entry
        hidden = hidden_parameters(operation, schema, scope) & set(parameters)
        if not hidden:
            return entry
        agent_writes = self._agent_writes
        rules = {
            name: (
                rule.model_copy(update={"sensitivity": rule.sensitivity or ("restricted",)})
                if name in hidden
                else rule
            )
            for name, rule in operation.parameters.items()
        }
        summary = execution_summary(
            str(entry["operation"]),
            operation.model_copy(update={"parameters": rules}),
            parameters,
            str(entry["invocation_id"]),
            values=agent_writes.summary_parameter_values,
            value_chars=agent_writes.summary_value_chars,
        )
        return {**entry, "summary": summary}


def _with_lines(
    description: str, stored: Sequence[Mapping[str, object]], shown: Sequence[Mapping[str, object]]
) -> str:
    """The description with the execution lines whose parameters are masked now replaced."""
    lines = {entry["invocation_id"]: entry["summary"] for entry in shown}
    for entry in stored:
        line = lines.get(entry.get("invocation_id"))
        if line is not None and line != entry["summary"]:
            description = description.replace(str(entry["summary"]), str(line))
    return description


def _everything(scope: ReadScope) -> bool:
    return scope.kinds is None and set(SENSITIVITY_TAGS) <= scope.clearances


def edit_visible(edit: Mapping[str, object], schema: Schema, scope: ReadScope) -> bool:
    """Whether the scope covers an edit (as executions store it): its Kind, or its Relation
    with both end Kinds."""
    if edit.get("kind") is not None:
        return scope.kind_visible(str(edit["kind"]))
    return scope.relation_visible(schema, str(edit.get("relation")))


def operation_visible(operation: OperationDef, schema: Schema, scope: ReadScope) -> bool:
    """Whether the scope covers every edit an Operation declares (what its executions write)."""
    return all(
        edit_visible({"kind": edit.kind, "relation": edit.relation}, schema, scope)
        for edit in operation.edits
    )


def _conflict_visible(conflict: ConflictInfo, schema: Schema, scope: ReadScope) -> bool:
    if conflict.entity == "record":
        return scope.kind_visible(conflict.ref.split("/", 1)[0])
    return scope.relation_visible(schema, conflict.ref.split(":", 1)[0])


def hidden_parameters(operation: OperationDef, schema: Schema, scope: ReadScope) -> set[str]:
    """Parameters whose values an edit writes into an Attribute the caller may not read."""
    hidden: set[str] = set()
    for edit in operation.edits:
        attributes: dict[str, ValueRules] = {}
        if edit.kind is not None and edit.kind in schema.kinds:
            attributes = dict(schema.kinds[edit.kind].attributes)
        elif edit.relation is not None and edit.relation in schema.relations:
            attributes = dict(schema.relations[edit.relation].attributes)
        for attribute, template in edit.values.items():
            rules = attributes.get(attribute)
            if rules is None or scope.value_readable(rules):
                continue
            hidden |= _referenced(template, operation)
    return hidden


def _referenced(template: object, operation: OperationDef) -> set[str]:
    """The parameters a value template reads: `$name`, or names in an `{expr: ...}`."""
    if isinstance(template, str) and template.startswith("$"):
        return {template[1:]}
    if isinstance(template, dict) and set(template) == {"expr"}:
        return set(_NAME.findall(str(template["expr"]))) & set(operation.parameters)
    return set()


def _attempt(attempt: Attempt | None, conflicts: list[ConflictInfo]) -> Attempt | None:
    """The last attempt, counting only the Conflicts shown."""
    if attempt is None:
        return None
    open_codes = Counter(c.code for c in conflicts if c.status == "open")
    result = attempt.result
    if result == "conflicts" and not open_codes:
        result = "merge"  # what the caller sees of it merges cleanly
    return replace(
        attempt,
        result=result,
        open_conflicts=sum(open_codes.values()),
        resolved_conflicts=sum(1 for c in conflicts if c.status == "resolved"),
        counts=dict(sorted(open_codes.items())),
    )
