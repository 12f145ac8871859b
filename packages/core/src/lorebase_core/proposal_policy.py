"""What a Proposal needs before it merges: approvals, blockers, the rule of automatic merges.

Pure functions over plain facts, so that the store can decide a merge inside the transaction that
performs it (it is given a `MergePolicy` and reads the facts under its locks) and Keeper renders
the same decision for a Proposal it shows (docs/writes.md, "Approvals").

- Approvals count each reviewer's latest verdict (`approve` or `request_changes`; comments do not
  count), never the author's own.
- A protected target requires `required_approvals` (the setting); an unprotected one none.
- Blockers, in this order: `open-conflicts`, `approvals-pending`, `review-policy-needs-approval`
  (the Operation's own policy asked for review and nobody approved yet), `changes-requested`.
- A merge writes only what the caller's write scope covers (`within_scope`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lorebase_core.access import ReadScope
from lorebase_core.schema import Schema

VERDICTS = ("approve", "request_changes", "comment")
BLOCKERS = (
    "open-conflicts",
    "approvals-pending",
    "review-policy-needs-approval",
    "changes-requested",
)


@dataclass(frozen=True)
class ReviewFacts:
    """What the policy reads of a Proposal.

    Attributes:
        author: the principal who opened it (its own approval never counts).
        reviews: (reviewer, verdict) pairs, oldest first.
        policy_review: the review came from an Operation's own review policy.
        open_conflicts: Conflicts with the target still open.
    """

    author: str
    reviews: Sequence[tuple[str, str]]
    policy_review: bool = False
    open_conflicts: int = 0


def latest_verdicts(reviews: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Each reviewer's latest approval or request for changes (comments do not count)."""
    latest: dict[str, str] = {}
    for reviewer, verdict in reviews:
        if verdict in {"approve", "request_changes"}:
            latest[reviewer] = verdict
    return latest


def approvals(facts: ReviewFacts) -> int:
    """Reviewers whose latest verdict is an approval, the author left out."""
    return sum(
        1
        for reviewer, verdict in latest_verdicts(facts.reviews).items()
        if verdict == "approve" and reviewer != facts.author
    )


def changes_requested(facts: ReviewFacts) -> bool:
    """Some reviewer's latest verdict asks for changes."""
    return "request_changes" in latest_verdicts(facts.reviews).values()


def required_approvals(required_on_protected: int, protected: bool) -> int:
    """Approvals a target requires: the setting on a protected target, none on another."""
    return required_on_protected if protected else 0


def blockers(facts: ReviewFacts, required: int) -> list[str]:
    """What keeps an open Proposal from merging, in the order of `BLOCKERS`."""
    approved = approvals(facts)
    found = []
    if facts.open_conflicts:
        found.append("open-conflicts")
    if approved < required:
        found.append("approvals-pending")
    if facts.policy_review and approved == 0:
        found.append("review-policy-needs-approval")
    if changes_requested(facts):
        found.append("changes-requested")
    return found


def satisfied(facts: ReviewFacts, required: int) -> bool:
    """The approvals are in: as many as required, and one when the review came from a policy."""
    approved = approvals(facts)
    return approved >= required and not (facts.policy_review and approved == 0)


@dataclass(frozen=True)
class AutoMergeRule:
    """The rule of an automatic merge (the agent flow's step 5).

    Attributes:
        held_roles: the roles of the caller's grants covering the task branch.
        allowed_roles: `allowed_roles_for_auto_merge`.
    """

    held_roles: frozenset[str]
    allowed_roles: frozenset[str]

    @property
    def allowed(self) -> bool:
        return bool(self.held_roles & self.allowed_roles)


@dataclass(frozen=True)
class MergePolicy:
    """What a merge must find true in its own transaction before it writes.

    Attributes:
        required_approvals: approvals a protected target requires
            (`keeper.operations.required_approvals`).
        expected_source_head: the source head the decision to merge was made on; a source
            that moved since refuses the merge (None: whatever the source holds when it merges).
        auto_merge: the rule of an automatic merge; None for a merge a person asked for.
    """

    required_approvals: int
    expected_source_head: str | None = None
    auto_merge: AutoMergeRule | None = None

    def refusals(self, facts: ReviewFacts, protected: bool) -> list[str]:
        """The blockers that refuse the merge of a Proposal with these facts.

        `open-conflicts` is left to the merge itself: it plans again, with the resolutions given
        so far, and refuses with the Conflicts it still meets.
        """
        required = required_approvals(self.required_approvals, protected)
        return [b for b in blockers(facts, required) if b != "open-conflicts"]


def within_scope(
    scope: ReadScope, schema: Schema, kinds: Iterable[str], relations: Iterable[str]
) -> bool:
    """Whether a write scope covers a merge reaching these Kinds and Relations (a Relation
    reaches both its end Kinds)."""
    return all(scope.kind_visible(kind) for kind in kinds) and all(
        scope.relation_visible(schema, relation) for relation in relations
    )


def describe_proposal(
    intent: str | None, executions: Sequence[Mapping[str, Any]], *, max_lines: int
) -> str:
    """A Proposal description: the intent, then one line per execution (at most `max_lines`)."""
    lines = [intent.strip()] if intent else []
    if executions:
        if lines:
            lines.append("")
        shown = executions[:max_lines]
        lines.extend(str(entry["summary"]) for entry in shown)
        more = len(executions) - len(shown)
        if more > 0:
            lines.append(f"- ... and {more} more execution(s)")
    return "\n".join(lines)
