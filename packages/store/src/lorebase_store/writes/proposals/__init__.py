"""Proposals: a request to merge one branch into another, with reviews, merge attempts and Conflicts.

A Proposal is `open` until it is `merged` or `closed`. Every merge attempt plans the merge
(`merges.plan_merge`) with the resolutions given so far, keeps the Conflicts still open as rows
and records the attempt; a merge commits on the target only when no Conflict is open. What a
merge needs besides (approvals, no request for changes, the source head it was decided on, the
rule of automatic merges) is a `MergePolicy` of `lorebase_core.proposal_policy` that Keeper
passes in: the store decides it in the transaction that merges, under the lock of the Proposal
that reviews and resolutions take too, so no write landing in between is missed
(docs/writes.md). Proposals are read in batches: a page of them costs what one does.

Internal to the store: other packages import from `lorebase_store`.
"""

from lorebase_store.writes.proposals.lifecycle import (
    add_review,
    close_proposal,
    delete_branch,
    insert_proposal,
    resolve_conflict,
    update_proposal,
)
from lorebase_store.writes.proposals.merging import attempt_merge, decide_merge, merge_proposal
from lorebase_store.writes.proposals.reads import (
    conflicts_of,
    list_proposals,
    load_proposal,
    lock_proposal,
    open_proposal_between,
    open_proposals_from,
    proposal_reaches,
)
from lorebase_store.writes.proposals.shapes import (
    Attempt,
    ConflictInfo,
    MergeOutcome,
    ProposalInfo,
    ProposalReach,
)

__all__ = [
    "Attempt",
    "ConflictInfo",
    "MergeOutcome",
    "ProposalInfo",
    "ProposalReach",
    "add_review",
    "attempt_merge",
    "close_proposal",
    "conflicts_of",
    "decide_merge",
    "delete_branch",
    "insert_proposal",
    "list_proposals",
    "load_proposal",
    "lock_proposal",
    "merge_proposal",
    "open_proposal_between",
    "open_proposals_from",
    "proposal_reaches",
    "resolve_conflict",
    "update_proposal",
]
