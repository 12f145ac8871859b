"""Proposals, their reviews, Conflicts and merges."""

from __future__ import annotations

from lorebase_core.errors.base import Conflict, NotFound


class ProposalNotFound(NotFound):
    code = "proposal-not-found"
    title = "Unknown Proposal"


class ConflictNotFound(NotFound):
    code = "conflict-not-found"
    title = "Unknown Conflict"


class ReviewRequired(Conflict):
    code = "review-required"
    title = "Review required"


class MergeConflicts(Conflict):
    code = "merge-conflicts"
    title = "The merge meets Conflicts"


class MergeBlocked(Conflict):
    code = "merge-blocked"
    title = "The Proposal cannot merge yet"


class SelfApproval(Conflict):
    code = "self-approval"
    title = "Authors do not approve their own Proposals"


class ProposalNotOpen(Conflict):
    code = "proposal-not-open"
    title = "The Proposal is not open"
