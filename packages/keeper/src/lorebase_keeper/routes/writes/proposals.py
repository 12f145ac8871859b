"""Proposals, reviews, Conflicts and merges (docs/writes.md).

GET/POST /proposals, GET /proposals/{p}, POST .../reviews, .../merge, .../close,
GET .../conflicts, POST .../conflicts/{c}/resolve, and POST /branches/{branch}/merge.
A Proposal is visible to whoever reads its target branch, limited to the read scope there
(`proposal_scope`: one touching only invisible Kinds answers like an unknown one); acting on it
takes the permission the action names on the target (proposal.review, proposal.merge), or being
its author (close). A merge reaching Kinds beyond the caller's is refused (`write_scope`).
"""

from __future__ import annotations

from typing import Literal

from fastapi import Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from lorebase_core.errors import (
    Conflict,
    InvalidInput,
    Issue,
    MergeConflicts,
    ReviewRequired,
    SelfApproval,
)
from lorebase_keeper.auth.authz import Principal
from lorebase_keeper.http.documented import WRITE_RESPONSES, answer
from lorebase_keeper.http.paging import decode_cursor, encode_cursor
from lorebase_keeper.http.segments import segment_router
from lorebase_keeper.reads.answers import plain
from lorebase_keeper.reads.reading import Keeper, domain_caller
from lorebase_keeper.shapes.reads.revisions import BranchMerged
from lorebase_keeper.shapes.writes import proposals as shapes
from lorebase_keeper.writes.agent_writes import (
    API,
    agent_writes_of,
    hint,
    merge_policy,
    operations_of,
)
from lorebase_keeper.writes.proposal_scope import ProposalScopes, ScopedProposal
from lorebase_keeper.writes.proposal_shapes import conflict_json, proposal_json
from lorebase_keeper.writes.write_scope import masked_conflicts, merge_scope
from lorebase_platform.settings import OperationsSettings
from lorebase_store import ConflictResolution, ProposalInfo

_LIST = "proposals"

router = segment_router("/api/v1/domains/{domain}", "proposals", WRITE_RESPONSES)


def _visible(keeper: Keeper, principal: Principal, domain: str, proposal_id: str) -> ScopedProposal:
    """The Proposal of a path as the caller sees it; 404 when it may not see it at all."""
    return ProposalScopes(keeper, principal, domain).load(proposal_id)


def _operations(keeper: Keeper, domain: str) -> OperationsSettings:
    """The Domain's effective operations settings (required approvals, limits)."""
    return operations_of(keeper.settings, keeper.store.domain(domain))


def _answer(
    keeper: Keeper,
    principal: Principal,
    proposal: ProposalInfo,
    status: int = 200,
    **extra: object,
) -> Response:
    [scoped] = ProposalScopes(keeper, principal, proposal.domain).scoped([proposal])
    operations = _operations(keeper, proposal.domain)
    body = {**proposal_json(operations, scoped.proposal), **extra}
    return plain(body, status=status)


class ProposalRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    source: str = Field(description="The branch whose changes are proposed.")
    target: str | None = Field(
        default=None, description="Where they go (default: the source's base branch)."
    )
    title: str | None = Field(default=None, max_length=500, description="A title.")
    description: str | None = Field(default=None, max_length=20000, description="What and why.")


@router.get(
    "/proposals",
    summary="The Proposals of a Domain, oldest first",
    responses=answer(shapes.ProposalsPage),
)
def list_proposals(
    request: Request,
    domain: str,
    status: Literal["open", "merged", "closed"] | None = Query(default=None),
    assigned: Literal["me"] | None = Query(
        default=None, description="me: open Proposals the caller may review and did not open."
    ),
    created_by: str | None = Query(default=None, description="A principal id, or me."),
    limit: int = Query(default=50, ge=1, le=500),
    cursor: str | None = Query(default=None, description="next_cursor of the previous page."),
) -> Response:
    keeper, principal = domain_caller(request, domain)
    principal.require("data.read", domain, None)
    author = principal.id if created_by == "me" else created_by
    if assigned == "me":
        status = "open"
    scopes = ProposalScopes(keeper, principal, domain)
    found: list[ProposalInfo] = []
    after = decode_cursor(_LIST, cursor)
    while len(found) <= limit:  # one more than a page tells whether another page follows
        page = keeper.store.writes.proposals(
            domain, status=status, created_by=author, after=after, limit=limit + 1
        )
        for scoped in scopes.scoped(page):
            proposal = scoped.proposal
            if not scoped.visible:
                continue
            permissions = principal.permissions(domain, proposal.target_branch)
            if assigned == "me" and (
                "proposal.review" not in permissions or proposal.created_by == principal.id
            ):
                continue
            found.append(proposal)
        if len(page) <= limit:
            break
        after = page[-1].id
    shown = found[:limit]
    next_cursor = encode_cursor(_LIST, shown[-1].id) if len(found) > limit else None
    operations = _operations(keeper, domain)
    return plain(
        {
            "domain": domain,
            "proposals": [proposal_json(operations, p) for p in shown],
            "next_cursor": next_cursor,
        }
    )


@router.post(
    "/proposals",
    status_code=201,
    summary="Open a Proposal of a branch into another",
    responses=answer(shapes.Proposal, 201, "The Proposal."),
)
def open_proposal(request: Request, domain: str, body: ProposalRequest) -> Response:
    keeper, principal = domain_caller(request, domain)
    principal.require("proposal.create", domain, body.source)  # by name, before the lookup
    source = keeper.store.branch(domain, body.source)
    target = body.target or source.base_branch or keeper.store.domain(domain).default_branch
    principal.require("data.read", domain, target)
    if target == source.name:
        raise InvalidInput(
            "A Proposal merges a branch into another one",
            [Issue("target", "the same branch as source", "value")],
        )
    keeper.store.branch(domain, target)
    title = body.title or f"Merge {source.name} into {target}"
    description = body.description or ""
    proposed = keeper.store.writes.propose(
        domain,
        source=source.name,
        target=target,
        principal=principal.id,
        title=title,
        intent=None,
        task=None,
        policy_review=False,
        execution=None,
        describe=lambda _intent, _executions: description,
    )
    if not proposed.created:
        raise Conflict(
            f"Proposal {proposed.proposal.id} of {source.name!r} into {target!r} is open already",
            proposal=proposed.proposal.id,
        )
    return _answer(keeper, principal, proposed.proposal, 201)


@router.get(
    "/proposals/{proposal}",
    summary="A Proposal, its reviews, blockers and next steps",
    responses=answer(shapes.Proposal),
)
def get_proposal(request: Request, domain: str, proposal: str) -> Response:
    keeper, principal = domain_caller(request, domain)
    scoped = _visible(keeper, principal, domain, proposal)
    return plain(proposal_json(_operations(keeper, domain), scoped.proposal))


class ReviewRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    verdict: Literal["approve", "request_changes", "comment"] = Field(
        description="approve, request_changes or comment."
    )
    body: str = Field(default="", max_length=20000, description="What the reviewer says.")


@router.post(
    "/proposals/{proposal}/reviews",
    status_code=201,
    summary="Review a Proposal",
    responses=answer(shapes.Proposal, 201, "The Proposal with the review."),
)
def review(request: Request, domain: str, proposal: str, body: ReviewRequest) -> Response:
    keeper, principal = domain_caller(request, domain)
    found = _visible(keeper, principal, domain, proposal).original
    principal.require("proposal.review", domain, found.target_branch)
    if body.verdict == "approve" and found.created_by == principal.id:
        raise SelfApproval(
            f"{principal.id!r} opened Proposal {found.id}: another reviewer approves it",
            proposal=found.id,
        )
    reviewed = keeper.store.writes.review(
        domain, found.id, reviewer=principal.id, verdict=body.verdict, body=body.body
    )
    return _answer(keeper, principal, reviewed, 201)


class MergeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    message: str | None = Field(default=None, description="Message of the merge Revision.")
    expected_source_head: str | None = Field(
        default=None,
        description="The source head you reviewed: 409 stale-head when the source moved since.",
    )


@router.post(
    "/proposals/{proposal}/merge",
    summary="Merge a Proposal into its target",
    responses=answer(shapes.ProposalMerged),
)
def merge(
    request: Request, domain: str, proposal: str, body: MergeRequest | None = None
) -> Response:
    keeper, principal = domain_caller(request, domain)
    found = _visible(keeper, principal, domain, proposal).original
    principal.require("proposal.merge", domain, found.target_branch)
    operations = _operations(keeper, domain)
    message = (body.message if body else None) or f"Merge {found.title} ({found.id})"
    limit = operations.max_message_chars
    if len(message) > limit:
        raise InvalidInput(
            "The message is too long", [Issue("message", f"longer than {limit}", "too-long")]
        )
    # approvals, requests for changes and the source head are decided in the merge's own
    # transaction, under the lock of the Proposal: a review landing meanwhile is not missed
    merged = keeper.store.writes.merge(
        domain,
        found.id,
        actor=principal.id,
        message=message,
        max_event_edits=operations.side_effect_max_edits,
        delete_source=_deletes_source(keeper, domain, found),
        policy=merge_policy(
            operations, expected_source_head=body.expected_source_head if body else None
        ),
        write_scope=merge_scope(keeper, principal, domain, found.target_branch),
    )
    if not merged.outcome.merged:
        [seen] = ProposalScopes(keeper, principal, domain).scoped([merged.proposal])
        counts = seen.proposal.attempt.counts if seen.proposal.attempt is not None else {}
        shown = seen.proposal.open_conflicts
        raise MergeConflicts(
            f"Proposal {found.id} meets {shown} Conflict(s) with {found.target_branch!r}; "
            "resolve them and merge again"
            if shown
            else f"Proposal {found.id} meets Conflicts with {found.target_branch!r} outside "
            "what your grants read: someone who reads them resolves them first",
            proposal=found.id,
            counts=counts,
            conflicts_url=f"{API}/{domain}/proposals/{found.id}/conflicts",
        )
    return _answer(keeper, principal, merged.proposal, branch_deleted=merged.branch_deleted)


def _deletes_source(keeper: Keeper, domain: str, proposal: ProposalInfo) -> bool:
    """Task branches go with their Proposal (delete_branch_on_merge); other branches stay."""
    agent_writes = agent_writes_of(keeper.settings, keeper.store.domain(domain))
    return agent_writes.delete_branch_on_merge and proposal.source_branch.startswith(
        agent_writes.branch_prefix
    )


@router.post(
    "/proposals/{proposal}/close",
    summary="Close a Proposal without merging it",
    responses=answer(shapes.Proposal),
)
def close(request: Request, domain: str, proposal: str) -> Response:
    keeper, principal = domain_caller(request, domain)
    found = _visible(keeper, principal, domain, proposal).original
    if found.created_by != principal.id:
        principal.require("proposal.merge", domain, found.target_branch)
    closed = keeper.store.writes.close(
        domain, found.id, actor=principal.id, delete_source=_deletes_source(keeper, domain, found)
    )
    return _answer(keeper, principal, closed)


@router.get(
    "/proposals/{proposal}/conflicts",
    summary="The Conflicts of a Proposal",
    responses=answer(shapes.ConflictsAnswer),
)
def conflicts(
    request: Request,
    domain: str,
    proposal: str,
    status: Literal["open", "resolved"] | None = Query(default=None),
) -> Response:
    keeper, principal = domain_caller(request, domain)
    scopes = ProposalScopes(keeper, principal, domain)
    scoped = scopes.load(proposal)
    found = scoped.proposal
    scope = scopes.read_scope(found.target_branch)
    assert scope is not None  # a visible Proposal's target is readable
    schema = scopes.schema(found.target_branch)
    if scoped.conflicts is None:
        _, listed = keeper.store.writes.conflicts(domain, found.id, status=status)
    else:
        listed = [c for c in scoped.conflicts if status is None or c.status == status]
    return plain(
        {
            "domain": domain,
            "proposal": found.id,
            "conflicts": [conflict_json(c, schema, scope) for c in listed],
        }
    )


class ResolveRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    resolution: Literal["source", "target", "value"] = Field(
        description="Take the source's value, keep the target's, or set `value`."
    )
    value: object = Field(default=None, description="The value, for resolution value.")


@router.post(
    "/proposals/{proposal}/conflicts/{conflict}/resolve",
    summary="Resolve a Conflict",
    responses=answer(shapes.Proposal),
)
def resolve(
    request: Request, domain: str, proposal: str, conflict: str, body: ResolveRequest
) -> Response:
    keeper, principal = domain_caller(request, domain)
    scoped = _visible(keeper, principal, domain, proposal)
    found = scoped.original
    if found.created_by != principal.id:
        principal.require("proposal.merge", domain, found.target_branch)
    scoped.require_conflict(conflict)
    updated, _ = keeper.store.writes.resolve(
        domain,
        found.id,
        conflict,
        resolution=body.resolution,
        value=body.value,
        by=principal.id,
    )
    refreshed, _attempt = keeper.store.writes.attempt(domain, updated.id, actor=principal.id)
    return _answer(keeper, principal, refreshed)


class ResolutionItem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ref: str = Field(description="Kind/key of a Record, or relation:from->to of a Link.")
    attribute: str | None = Field(default=None, description="The Attribute; none for a whole one.")
    resolution: Literal["source", "target", "value"]
    value: object = None


class BranchMergeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    into: str | None = Field(default=None, description="Target (default: the base branch).")
    message: str | None = Field(default=None, description="Message of the merge Revision.")
    expected_head: str | None = Field(default=None, description="The target head you expect.")
    resolutions: list[ResolutionItem] = Field(default_factory=list)


@router.post(
    "/branches/{branch:path}/merge",
    summary="Merge a branch into another now",
    responses=answer(BranchMerged),
)
def merge_branch(
    request: Request, domain: str, branch: str, body: BranchMergeRequest | None = None
) -> Response:
    keeper, principal = domain_caller(request, domain)
    body = body or BranchMergeRequest()
    principal.require("data.read", domain, branch)  # by name, before the lookup
    source = keeper.store.branch(domain, branch)
    into = body.into or source.base_branch or keeper.store.domain(domain).default_branch
    principal.require("data.read", domain, into)
    target = keeper.store.branch(domain, into)
    if target.protected:
        raise ReviewRequired(
            f"Branch {into!r} is protected: open a Proposal of {branch!r} into it",
            branch=into,
            operation=None,
            proposals=[],
            reason="protected-branch",
            next=[
                hint(
                    "open_proposal",
                    f"Open a Proposal of {branch!r} into {into!r}.",
                    "POST",
                    f"{API}/{domain}/proposals",
                    "proposal.create",
                )
            ],
        )
    principal.require("proposal.merge", domain, into)
    resolutions: dict[tuple[str, str], ConflictResolution] = {
        (item.ref, item.attribute or ""): (item.resolution, item.value) for item in body.resolutions
    }
    try:
        done = keeper.store.writes.merge_branch(
            domain,
            source.name,
            into=into,
            author=principal.id,
            message=body.message or f"Merge {source.name} into {into}",
            resolutions=resolutions,
            expected_head=body.expected_head,
            write_scope=merge_scope(keeper, principal, domain, into),
        )
    except MergeConflicts as refused:
        raise masked_conflicts(keeper, principal, domain, into, refused) from None
    return plain(
        {
            "domain": domain,
            "source": source.name,
            "target": into,
            "result": done.result,
            "revision": done.revision,
            "base_revision": done.plan.base_revision,
            "source_head": done.plan.source_head,
            "changes": len(done.plan.changes),
            "resolved_conflicts": len(done.plan.resolved),
        },
        revision=done.revision,
    )
