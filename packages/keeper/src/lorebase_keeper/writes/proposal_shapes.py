"""Proposals and Conflicts as JSON, with their approval state, blockers and next hints."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from lorebase_core.access import ReadScope
from lorebase_core.operations import MASK
from lorebase_core.schema import Schema, ValueRules
from lorebase_keeper.shapes.writes.proposals import ConflictEntryJson, ProposalJson
from lorebase_keeper.writes.agent_writes import approval_state, proposal_hints, proposal_url
from lorebase_platform.settings import OperationsSettings
from lorebase_store import ConflictInfo, ProposalInfo


def proposal_json(operations: OperationsSettings, proposal: ProposalInfo) -> ProposalJson:
    """A Proposal document; `operations` are the Domain's effective operations settings."""
    approval, found = approval_state(operations, proposal)
    return {
        "id": proposal.id,
        "domain": proposal.domain,
        "title": proposal.title,
        "description": proposal.description,
        "intent": proposal.intent,
        "task": proposal.task,
        "status": proposal.status,
        "source_ref": proposal.source_branch,
        "target_ref": proposal.target_branch,
        "url": proposal_url(proposal.domain, proposal.id),
        "created_by": proposal.created_by,
        "created_at": proposal.created_at,
        "updated_at": proposal.updated_at,
        "executions": proposal.executions,
        "approval": approval,
        "reviews": [review.to_json() for review in proposal.reviews],
        "conflicts": {"open": proposal.open_conflicts, "resolved": proposal.resolved_conflicts},
        "attempt": proposal.attempt.to_json() if proposal.attempt is not None else None,
        "merge": {"blockers": found},
        "merged_revision": proposal.merged_revision,
        "merged_by": proposal.merged_by,
        "merged_at": proposal.merged_at,
        "closed_by": proposal.closed_by,
        "closed_at": proposal.closed_at,
        "next": proposal_hints(proposal.domain, proposal, approval["required"], found),
    }


def conflict_masker(
    entity: str, ref: str, attribute: str | None, schema: Schema, scope: ReadScope
) -> Callable[[object], object]:
    """What shows one value of a Conflict to the caller: a whole Record's or Link's values (a
    dict) masked per Attribute, the value of its one Attribute `***` when the caller may not
    read it. Shared by the Conflicts of Proposals and those a refused branch merge lists."""
    name = ref.split("/" if entity == "record" else ":", 1)[0]
    attributes: Mapping[str, ValueRules] = {}
    if entity == "record" and name in schema.kinds:
        attributes = schema.kinds[name].attributes
    elif entity != "record" and name in schema.relations:
        attributes = schema.relations[name].attributes
    rules = attributes.get(attribute or "")
    hidden = rules is not None and not scope.value_readable(rules)

    def shown(value: object) -> object:
        if isinstance(value, dict):
            return scope.mask(attributes, value)
        return MASK if hidden and value is not None else value

    return shown


def conflict_json(conflict: ConflictInfo, schema: Schema, scope: ReadScope) -> ConflictEntryJson:
    """A Conflict with the values the caller may not read masked."""
    shown = conflict_masker(conflict.entity, conflict.ref, conflict.attribute, schema, scope)
    return {
        "id": conflict.id,
        "entity": conflict.entity,
        "ref": conflict.ref,
        "attribute": conflict.attribute or None,
        "code": conflict.code,
        "base": shown(conflict.base),
        "source": shown(conflict.source),
        "target": shown(conflict.target),
        "status": conflict.status,
        "resolution": conflict.resolution,
        "value": shown(conflict.value),
        "resolved_by": conflict.resolved_by,
        "resolved_at": conflict.resolved_at,
    }
