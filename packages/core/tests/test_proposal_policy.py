"""The merge policy: approvals, blockers and the rule of automatic merges, as plain functions."""

from __future__ import annotations

import pytest

from lorebase_core.proposal_policy import (
    AutoMergeRule,
    MergePolicy,
    ReviewFacts,
    approvals,
    blockers,
    describe_proposal,
    required_approvals,
    satisfied,
)


def facts(
    *reviews: tuple[str, str], policy_review: bool = False, conflicts: int = 0
) -> ReviewFacts:
    return ReviewFacts("svc_agent", list(reviews), policy_review, conflicts)


@pytest.mark.parametrize(
    ("reviews", "expected"),
    [
        pytest.param([], 0, id="none"),
        pytest.param([("usr_a", "approve")], 1, id="one"),
        pytest.param([("svc_agent", "approve")], 0, id="the-author-does-not-count"),
        pytest.param([("usr_a", "approve"), ("usr_a", "request_changes")], 0, id="latest-wins"),
        pytest.param([("usr_a", "approve"), ("usr_a", "comment")], 1, id="comments-do-not-count"),
    ],
)
def test_approvals_count_each_reviewers_latest_verdict(
    reviews: list[tuple[str, str]], expected: int
) -> None:
    assert approvals(facts(*reviews)) == expected


def test_blockers_come_in_their_documented_order() -> None:
    found = facts(("usr_a", "request_changes"), policy_review=True, conflicts=2)

    assert blockers(found, 1) == [
        "open-conflicts",
        "approvals-pending",
        "review-policy-needs-approval",
        "changes-requested",
    ]
    assert blockers(facts(("usr_a", "approve")), 1) == []


def test_a_protected_target_requires_the_setting_and_another_none() -> None:
    assert required_approvals(2, protected=True) == 2
    assert required_approvals(2, protected=False) == 0


def test_a_review_policy_needs_one_approval_even_when_none_is_required() -> None:
    assert not satisfied(facts(policy_review=True), 0)
    assert satisfied(facts(("usr_a", "approve"), policy_review=True), 0)


def test_a_merge_policy_leaves_open_conflicts_to_the_merge() -> None:
    policy = MergePolicy(required_approvals=1)

    assert policy.refusals(facts(conflicts=1), protected=True) == ["approvals-pending"]
    assert policy.refusals(facts(("usr_a", "approve"), conflicts=1), protected=True) == []


def test_an_automatic_merge_needs_an_allowed_role() -> None:
    assert AutoMergeRule(frozenset({"editor"}), frozenset({"editor", "admin"})).allowed
    assert not AutoMergeRule(frozenset({"viewer"}), frozenset({"editor"})).allowed
    assert not AutoMergeRule(frozenset({"editor"}), frozenset()).allowed


def test_a_description_lists_the_executions_within_its_limit() -> None:
    executions = [{"summary": f"- op() [inv_{n}]"} for n in range(3)]

    assert describe_proposal("Flag it", executions, max_lines=2) == (
        "Flag it\n\n- op() [inv_0]\n- op() [inv_1]\n- ... and 1 more execution(s)"
    )
    assert describe_proposal(None, [], max_lines=2) == ""
