"""The writes: how their requests are built, then executions, Proposals and merges on a real Keeper.

The live tests never change the protected default branch: they write on branches of their own
(names made unique), and a task write on main only opens a task branch and a Proposal, which they
close. So they run in any order with the read tests that share the session's Keeper.
"""

from __future__ import annotations

import json
import uuid
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from click.testing import CliRunner, Result

from lorebase_client import (
    NO_VALUE,
    Answer,
    AsyncLorebaseClient,
    LorebaseClient,
    problem_of,
    response_of,
    routes,
)
from lorebase_client.cli import main
from lorebase_client.cli_writes import parameter_value
from lorebase_client.connection import build_request
from lorebase_core.errors import Conflict, NotFound, ValuesInvalid

if TYPE_CHECKING:
    from conftest import Env, LiveKeeper, ProblemCheck

DOMAIN_PATH = "/api/v1/domains/supply"


def _unique(prefix: str) -> str:
    """A name no other test uses, so tests that create branches run in any order."""
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


# -- the requests, built without a Keeper -----------------------------------------------------


def _execute(**members: Any) -> routes.ApiRequest:
    options: dict[str, Any] = {
        "branch": None,
        "dry_run": None,
        "expected_head": None,
        "message": None,
        "idempotency_key": None,
        "task": None,
        "intent": None,
        "auto_propose": None,
        "auto_merge": None,
    }
    options.update(members)
    return routes.execute("supply", "update_supplier", {"key": "S-1001"}, **options)


def test_execute_sends_only_the_members_given() -> None:
    request = _execute()
    assert (request.method, request.path) == (
        "POST",
        f"{DOMAIN_PATH}/operations/update_supplier/execute",
    )
    assert request.body == {"parameters": {"key": "S-1001"}}
    assert request.headers == {}


def test_execute_sends_every_member_and_false_too() -> None:
    request = _execute(
        branch="work/a",
        dry_run=False,
        expected_head="rev_1",
        message="why",
        task="t1",
        intent="new audit",
        auto_propose=True,
        auto_merge=False,
    )
    assert request.body == {
        "parameters": {"key": "S-1001"},
        "branch": "work/a",
        "dry_run": False,
        "expected_head": "rev_1",
        "message": "why",
        "task": "t1",
        "intent": "new audit",
        "auto_propose": True,
        "auto_merge": False,
    }


def test_the_idempotency_key_is_a_header_and_not_a_body_member() -> None:
    request = _execute(idempotency_key="key-1")
    assert request.headers == {"Idempotency-Key": "key-1"}
    assert request.body is not None
    assert "idempotency_key" not in request.body
    built = build_request(httpx.Client(base_url="http://keeper.test"), request)
    assert built.headers["Idempotency-Key"] == "key-1"
    assert json.loads(built.content) == {"parameters": {"key": "S-1001"}}


def test_parameters_become_plain_json() -> None:
    request = routes.execute(
        "supply",
        "op",
        {"tags": ("a", "b"), "nested": {"n": 1}, "none": None},
        branch=None,
        dry_run=None,
        expected_head=None,
        message=None,
        idempotency_key=None,
        task=None,
        intent=None,
        auto_propose=None,
        auto_merge=None,
    )
    assert request.body == {"parameters": {"tags": ["a", "b"], "nested": {"n": 1}, "none": None}}


def test_names_in_write_paths_are_encoded_as_one_segment() -> None:
    assert routes.execute(
        "supply",
        "a/b c",
        {},
        branch=None,
        dry_run=None,
        expected_head=None,
        message=None,
        idempotency_key=None,
        task=None,
        intent=None,
        auto_propose=None,
        auto_merge=None,
    ).path == (f"{DOMAIN_PATH}/operations/a%2Fb%20c/execute")
    assert routes.proposal("supply", "pr/1").path == f"{DOMAIN_PATH}/proposals/pr%2F1"
    resolve = routes.resolve_conflict("supply", "pr 1", "cf/2", "source")
    assert resolve.path == f"{DOMAIN_PATH}/proposals/pr%201/conflicts/cf%2F2/resolve"
    merge = routes.merge_branch(
        "supply",
        "agent/usr_admin/t1",
        into=None,
        message=None,
        expected_head=None,
        resolutions=None,
    )
    assert merge.path == f"{DOMAIN_PATH}/branches/agent%2Fusr_admin%2Ft1/merge"
    assert merge.body == {}


def test_proposal_routes() -> None:
    listed = routes.proposals(
        "supply", status=None, assigned_to_me=False, created_by_me=False, limit=None, cursor=None
    )
    assert (listed.method, listed.path, listed.params) == ("GET", f"{DOMAIN_PATH}/proposals", {})
    narrowed = routes.proposals(
        "supply", status="open", assigned_to_me=True, created_by_me=True, limit=5, cursor="c1"
    )
    assert narrowed.params == {
        "status": "open",
        "assigned": "me",
        "created_by": "me",
        "limit": "5",
        "cursor": "c1",
    }
    opened = routes.open_proposal(
        "supply", "work/a", target=None, title="Raise S-1001", description=None
    )
    assert (opened.method, opened.path) == ("POST", f"{DOMAIN_PATH}/proposals")
    assert opened.body == {"source": "work/a", "title": "Raise S-1001"}
    review = routes.review_proposal("supply", "pr_1", "request_changes", body=None)
    assert (review.path, review.body) == (
        f"{DOMAIN_PATH}/proposals/pr_1/reviews",
        {"verdict": "request_changes"},
    )
    merge = routes.merge_proposal("supply", "pr_1", message=None, expected_source_head=None)
    assert (merge.path, merge.body) == (f"{DOMAIN_PATH}/proposals/pr_1/merge", {})
    pinned = routes.merge_proposal("supply", "pr_1", message=None, expected_source_head="abc")
    assert pinned.body == {"expected_source_head": "abc"}
    close = routes.close_proposal("supply", "pr_1")
    assert (close.method, close.path, close.body) == (
        "POST",
        f"{DOMAIN_PATH}/proposals/pr_1/close",
        {},
    )
    conflicts = routes.conflicts("supply", "pr_1", status="resolved")
    assert (conflicts.method, conflicts.path, conflicts.params) == (
        "GET",
        f"{DOMAIN_PATH}/proposals/pr_1/conflicts",
        {"status": "resolved"},
    )


def test_a_resolution_value_is_sent_when_given_even_null() -> None:
    assert routes.resolve_conflict("supply", "p", "c", "target").body == {"resolution": "target"}
    chosen = routes.resolve_conflict("supply", "p", "c", "value", value=None)
    assert chosen.body == {"resolution": "value", "value": None}
    listed = routes.resolve_conflict("supply", "p", "c", "value", value=(1, 2))
    assert listed.body == {"resolution": "value", "value": [1, 2]}
    assert routes.resolve_conflict("supply", "p", "c", "source", value=NO_VALUE).body == {
        "resolution": "source"
    }


def test_merge_branch_sends_its_resolutions() -> None:
    resolution = {"ref": "Supplier/S-1001", "attribute": "risk_score", "resolution": "value"}
    request = routes.merge_branch(
        "supply",
        "work",
        into="staging",
        message="merge",
        expected_head="rev_1",
        resolutions=[{**resolution, "value": None}],
    )
    assert request.body == {
        "into": "staging",
        "message": "merge",
        "expected_head": "rev_1",
        "resolutions": [{**resolution, "value": None}],
    }


def test_paging_proposals_keeps_the_filters_and_adds_no_revision() -> None:
    seen: list[httpx.Request] = []
    pages = {
        None: {"domain": "supply", "proposals": [{"id": "pr_1"}], "next_cursor": "c1"},
        "c1": {"domain": "supply", "proposals": [{"id": "pr_2"}], "next_cursor": None},
    }

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=pages[request.url.params.get("cursor")])

    with LorebaseClient("http://keeper.test", transport=httpx.MockTransport(handler)) as client:
        found = [item["id"] for item in client.proposals("supply", status="open", limit=1)]
    assert found == ["pr_1", "pr_2"]
    assert [dict(request.url.params) for request in seen] == [
        {"status": "open", "limit": "1"},
        {"status": "open", "limit": "1", "cursor": "c1"},
    ]


def test_the_replayed_header_and_a_202_reach_the_answer() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        assert request.headers["Idempotency-Key"] == "k"
        headers = {"Idempotent-Replayed": "true", "Lorebase-Revision": "rev_9"}
        return httpx.Response(202, json={"status": "proposed"}, headers=headers)

    with LorebaseClient("http://keeper.test", transport=httpx.MockTransport(handler)) as client:
        answer = client.execute("supply", "op", {}, idempotency_key="k")
    assert answer == {"status": "proposed"}
    assert (answer.status_code, answer.replayed, answer.revision) == (202, True, "rev_9")
    assert not Answer({}).replayed


# -- executions on a live Keeper --------------------------------------------------------------


def _work_branch(admin: LorebaseClient, prefix: str = "client-writes/work") -> str:
    return str(admin.create_branch("supply", _unique(prefix))["name"])


def test_a_dry_run_writes_nothing(admin: LorebaseClient) -> None:
    branch = _work_branch(admin)
    head = admin.branch("supply", branch)["head"]
    answer = admin.execute(
        "supply",
        "update_supplier",
        {"key": "S-1001", "risk_score": 75},
        branch=branch,
        dry_run=True,
    )
    assert answer.status_code == 200
    assert answer["status"] == "dry_run"
    assert answer["branch"] == branch
    assert answer["revision"] == head
    assert answer["edit_count"] == 1
    assert answer["violations"] == []
    assert answer["review"] == {"required": False, "reason": None}
    assert admin.branch("supply", branch)["head"] == head
    assert admin.record("supply", "Supplier", "S-1001", branch=branch)["values"]["risk_score"] == (
        "90"
    )


def test_an_execution_commits_and_its_retry_is_replayed(admin: LorebaseClient) -> None:
    branch = _work_branch(admin)
    key = _unique("idem")
    parameters = {"key": "S-1001", "risk_score": 75}
    first = admin.execute(
        "supply",
        "update_supplier",
        parameters,
        branch=branch,
        idempotency_key=key,
        message="Lower the risk of S-1001",
    )
    assert first.status_code == 200
    assert first["status"] == "committed"
    assert not first.replayed
    assert first["revision"] == first.revision == admin.branch("supply", branch)["head"]
    supplier = admin.record("supply", "Supplier", "S-1001", branch=branch, lineage=True)
    assert supplier["values"]["risk_score"] == "75"
    assert supplier["lineage"]["risk_score"]["message"] == "Lower the risk of S-1001"
    again = admin.execute(
        "supply", "update_supplier", parameters, branch=branch, idempotency_key=key
    )
    assert again.replayed
    assert again["replayed"] is True
    assert again["invocation_id"] == first["invocation_id"]
    assert again["revision"] == first["revision"]
    assert admin.branch("supply", branch)["head"] == first["revision"]


def test_a_reused_idempotency_key_for_another_request_is_refused(
    admin: LorebaseClient, assert_problem: ProblemCheck
) -> None:
    branch = _work_branch(admin)
    key = _unique("idem")
    admin.execute(
        "supply",
        "update_supplier",
        {"key": "S-1002", "tier": 2},
        branch=branch,
        idempotency_key=key,
    )
    with pytest.raises(Conflict) as caught:
        admin.execute(
            "supply",
            "update_supplier",
            {"key": "S-1002", "tier": 3},
            branch=branch,
            idempotency_key=key,
        )
    assert_problem(response_of(caught.value), 409, "idempotency-key-reused")


def test_a_stale_expected_head_is_refused(
    admin: LorebaseClient, keeper: LiveKeeper, assert_problem: ProblemCheck
) -> None:
    branch = str(admin.create_branch("supply", _unique("client-writes/stale"))["name"])
    admin.execute("supply", "update_supplier", {"key": "S-1003", "tier": 3}, branch=branch)
    with pytest.raises(Conflict) as caught:
        admin.execute(
            "supply",
            "update_supplier",
            {"key": "S-1003", "tier": 1},
            branch=branch,
            expected_head=keeper.supply_head,
        )
    assert_problem(response_of(caught.value), 409, "stale-head")


def test_a_write_on_the_protected_default_branch_needs_review(
    admin: LorebaseClient, keeper: LiveKeeper, assert_problem: ProblemCheck
) -> None:
    with pytest.raises(Conflict) as caught:
        admin.execute("supply", "update_supplier", {"key": "S-1001", "risk_score": 75})
    error = caught.value
    problem = assert_problem(response_of(error), 409, "review-required")
    assert problem_of(error) == problem
    assert error.extra["branch"] == "main"
    assert error.extra["operation"] == "update_supplier"
    assert error.extra["reason"] == "protected-branch"
    assert isinstance(error.extra["proposals"], list)
    assert [step["action"] for step in error.extra["next"]][:1] == ["name_a_task"]
    assert admin.branch("supply", "main")["head"] == keeper.supply_head


def test_parameters_that_break_the_rules_are_values_invalid(
    admin: LorebaseClient, assert_problem: ProblemCheck
) -> None:
    branch = _work_branch(admin)
    with pytest.raises(ValuesInvalid) as caught:
        admin.execute(
            "supply", "update_supplier", {"key": "S-1001", "risk_score": 200}, branch=branch
        )
    assert_problem(response_of(caught.value), 422, "values-invalid")
    assert [issue.path for issue in caught.value.issues] == ["parameters.risk_score"]


def test_an_unknown_operation_is_not_found(
    admin: LorebaseClient, assert_problem: ProblemCheck
) -> None:
    with pytest.raises(NotFound) as caught:
        admin.execute("supply", "no_such_operation", {})
    assert_problem(response_of(caught.value), 404, "operation-not-found")


# -- the task flow and Proposals ----------------------------------------------------------------


def test_a_task_write_is_proposed_and_its_proposal_reviewed_and_closed(
    admin: LorebaseClient, keeper: LiveKeeper, assert_problem: ProblemCheck
) -> None:
    task = _unique("t1")
    answer = admin.execute(
        "supply",
        "update_supplier",
        {"key": "S-1004", "risk_score": 40},
        task=task,
        intent="The new audit lowers the risk of S-1004",
        auto_propose=True,
    )
    assert answer.status_code == 202
    assert answer["status"] == "proposed"
    assert answer["target"] == "main"
    assert answer["branch"] == f"agent/usr_admin/{task}"
    proposal_id = answer["proposal"]["id"]
    assert answer["proposal"]["created"] is True
    more = admin.execute(
        "supply", "update_supplier", {"key": "S-1004", "tier": 3}, task=task, auto_propose=True
    )
    assert (more["branch"], more["proposal"]["id"]) == (answer["branch"], proposal_id)
    assert more["proposal"]["created"] is False
    assert admin.branch("supply", "main")["head"] == keeper.supply_head

    shown = admin.proposal("supply", proposal_id)
    assert shown["id"] == proposal_id
    assert shown["status"] == "open"
    assert (shown["source_ref"], shown["target_ref"]) == (answer["branch"], "main")
    assert shown["description"].startswith("The new audit lowers the risk of S-1004")
    assert shown["approval"]["satisfied"] is False
    assert shown["merge"]["blockers"]
    listed = [item["id"] for item in admin.proposals("supply", status="open", created_by_me=True)]
    assert proposal_id in listed

    with pytest.raises(Conflict) as caught:
        admin.review_proposal("supply", proposal_id, "approve")
    assert_problem(response_of(caught.value), 409, "self-approval")
    commented = admin.review_proposal("supply", proposal_id, "comment", body="Checked the audit")
    assert commented.status_code == 201
    assert [review["verdict"] for review in commented["reviews"]] == ["comment"]
    assert admin.conflicts("supply", proposal_id)["conflicts"] == []

    closed = admin.close_proposal("supply", proposal_id)
    assert closed["status"] == "closed"
    assert proposal_id in [item["id"] for item in admin.proposals("supply", status="closed")]
    assert proposal_id not in [item["id"] for item in admin.proposals("supply", status="open")]


def test_a_proposal_opened_by_hand_between_two_branches(admin: LorebaseClient) -> None:
    source, target = _work_branch(admin), _work_branch(admin, "client-writes/target")
    admin.execute("supply", "update_supplier", {"key": "S-1005", "tier": 3}, branch=source)
    opened = admin.open_proposal(
        "supply", source, target=target, title="Tier 3 for S-1005", description="Audit"
    )
    assert opened.status_code == 201
    assert (opened["source_ref"], opened["target_ref"]) == (source, target)
    assert (opened["title"], opened["description"], opened["status"]) == (
        "Tier 3 for S-1005",
        "Audit",
        "open",
    )
    assert admin.proposal("supply", opened["id"])["id"] == opened["id"]
    assert admin.close_proposal("supply", opened["id"])["status"] == "closed"


def test_a_proposal_meets_conflicts_resolves_them_and_merges(admin: LorebaseClient) -> None:
    source, target = _work_branch(admin), _work_branch(admin, "client-writes/target")
    admin.execute("supply", "update_supplier", {"key": "S-1002", "risk_score": 61}, branch=source)
    admin.execute("supply", "update_supplier", {"key": "S-1002", "risk_score": 62}, branch=target)
    opened = admin.open_proposal("supply", source, target=target)
    assert opened["title"] == f"Merge {source} into {target}"
    with pytest.raises(Conflict) as caught:
        admin.merge_proposal("supply", opened["id"])
    assert caught.value.extra["proposal"] == opened["id"]
    found = admin.conflicts("supply", opened["id"], status="open")
    assert found["proposal"] == opened["id"]
    (conflict,) = found["conflicts"]
    assert (conflict["ref"], conflict["attribute"], conflict["status"]) == (
        "Supplier/S-1002",
        "risk_score",
        "open",
    )
    assert (conflict["source"], conflict["target"]) == ("61", "62")
    resolved = admin.resolve_conflict("supply", opened["id"], conflict["id"], "value", value=63)
    assert resolved["conflicts"] == {"open": 0, "resolved": 1}
    assert admin.conflicts("supply", opened["id"], status="open")["conflicts"] == []
    merged = admin.merge_proposal("supply", opened["id"], message="Settle S-1002")
    assert merged["status"] == "merged"
    assert merged["merged_revision"] == admin.branch("supply", target)["head"]
    values = admin.record("supply", "Supplier", "S-1002", branch=target)["values"]
    assert values["risk_score"] == "63"


def test_a_merge_pinned_to_the_reviewed_source_head_refuses_a_moved_source(
    admin: LorebaseClient, assert_problem: ProblemCheck
) -> None:
    source, target = _work_branch(admin), _work_branch(admin, "client-writes/target")
    admin.execute("supply", "update_supplier", {"key": "S-1005", "tier": 2}, branch=source)
    opened = admin.open_proposal("supply", source, target=target)
    reviewed = admin.branch("supply", source)["head"]
    admin.execute("supply", "update_supplier", {"key": "S-1005", "tier": 3}, branch=source)
    with pytest.raises(Conflict) as caught:
        admin.merge_proposal("supply", opened["id"], expected_source_head=reviewed)
    assert_problem(response_of(caught.value), 409, "stale-head")
    assert admin.proposal("supply", opened["id"])["status"] == "open"
    head = admin.branch("supply", source)["head"]
    merged = admin.merge_proposal("supply", opened["id"], expected_source_head=head)
    assert merged["status"] == "merged"


def test_an_unknown_proposal_is_not_found(
    admin: LorebaseClient, assert_problem: ProblemCheck
) -> None:
    with pytest.raises(NotFound) as caught:
        admin.proposal("supply", "pr_nope")
    assert_problem(response_of(caught.value), 404, "proposal-not-found")


# -- merging branches -------------------------------------------------------------------------


def test_merge_branch_into_another_branch(admin: LorebaseClient) -> None:
    work, target = _work_branch(admin), _work_branch(admin, "client-writes/target")
    written = admin.execute("supply", "update_supplier", {"key": "S-1006", "tier": 3}, branch=work)
    merged = admin.merge_branch("supply", work, into=target, message="Bring the tier change")
    assert merged.status_code == 200
    assert merged["result"] in {"fast_forward", "merge"}
    assert isinstance(merged["revision"], str)
    assert admin.branch("supply", target)["head"] == merged["revision"]
    assert (
        admin.record("supply", "Supplier", "S-1006", branch=target)["values"]["tier"]
        == (admin.record("supply", "Supplier", "S-1006", branch=work)["values"]["tier"])
    )
    assert written["revision"]
    again = admin.merge_branch("supply", work, into=target)
    assert again["result"] == "up_to_date"


def test_merge_branch_into_the_protected_default_branch_needs_review(
    admin: LorebaseClient, keeper: LiveKeeper, assert_problem: ProblemCheck
) -> None:
    work = _work_branch(admin)
    admin.execute("supply", "update_supplier", {"key": "S-1006", "tier": 1}, branch=work)
    with pytest.raises(Conflict) as caught:
        admin.merge_branch("supply", work)
    assert_problem(response_of(caught.value), 409, "review-required")
    assert caught.value.extra["branch"] == "main"
    assert admin.branch("supply", "main")["head"] == keeper.supply_head


def test_merge_conflicts_then_their_resolutions(
    admin: LorebaseClient, assert_problem: ProblemCheck
) -> None:
    work, target = _work_branch(admin), _work_branch(admin, "client-writes/target")
    admin.execute("supply", "update_supplier", {"key": "S-1007", "risk_score": 11}, branch=work)
    admin.execute("supply", "update_supplier", {"key": "S-1007", "risk_score": 22}, branch=target)
    with pytest.raises(Conflict) as caught:
        admin.merge_branch("supply", work, into=target)
    assert_problem(response_of(caught.value), 409, "merge-conflicts")
    conflicts = caught.value.extra["conflicts"]
    assert [(c["ref"], c["attribute"]) for c in conflicts] == [("Supplier/S-1007", "risk_score")]
    resolutions = [
        {"ref": "Supplier/S-1007", "attribute": "risk_score", "resolution": "value", "value": 33}
    ]
    merged = admin.merge_branch("supply", work, into=target, resolutions=resolutions)
    assert merged["result"] == "merge"
    values = admin.record("supply", "Supplier", "S-1007", branch=target)["values"]
    assert values["risk_score"] == "33"


# -- the async twin ---------------------------------------------------------------------------


@pytest.mark.anyio
async def test_the_async_client_writes_too(async_admin: AsyncLorebaseClient) -> None:
    branch = str(
        (await async_admin.create_branch("supply", _unique("client-writes/async")))["name"]
    )
    dry = await async_admin.execute(
        "supply", "update_supplier", {"key": "S-1008", "tier": 1}, branch=branch, dry_run=True
    )
    assert dry["status"] == "dry_run"
    key = _unique("idem")
    done = await async_admin.execute(
        "supply",
        "update_supplier",
        {"key": "S-1008", "tier": 1},
        branch=branch,
        idempotency_key=key,
    )
    again = await async_admin.execute(
        "supply",
        "update_supplier",
        {"key": "S-1008", "tier": 1},
        branch=branch,
        idempotency_key=key,
    )
    assert (done.replayed, again.replayed) == (False, True)
    assert again["invocation_id"] == done["invocation_id"]
    target = str(
        (await async_admin.create_branch("supply", _unique("client-writes/async")))["name"]
    )
    opened = await async_admin.open_proposal("supply", branch, target=target)
    mine = [item["id"] async for item in async_admin.proposals("supply", created_by_me=True)]
    assert opened["id"] in mine
    closed = await async_admin.close_proposal("supply", opened["id"])
    assert closed["status"] == "closed"


# -- the commands -----------------------------------------------------------------------------


def _run(args: list[str], env: Env) -> Result:
    return CliRunner().invoke(main, args, env=env)


def _json(result: Result) -> dict[str, Any]:
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert isinstance(document, dict)
    return document


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("75", 75),
        ("true", True),
        ('"x"', "x"),
        ("null", None),
        ("[1]", [1]),
        ("S-1001", "S-1001"),
        ("", ""),
        ("NaN", "NaN"),
        ("a=b", "a=b"),
    ],
)
def test_a_param_value_is_json_when_it_is_json(text: str, value: object) -> None:
    assert parameter_value(text) == value


def test_op_run_dry_run(env: Env, admin: LorebaseClient) -> None:
    branch = _work_branch(admin, "client-writes/cli")
    args = ["op", "run", "update_supplier", "--param", "key=S-1001", "--param", "risk_score=75"]
    document = _json(_run([*args, "--branch", branch, "--dry-run"], env))
    assert document["status"] == "dry_run"
    assert document["parameters"] == {"key": "S-1001", "risk_score": "75"}  # canonical
    assert document["branch"] == branch


def test_op_run_on_the_default_branch_reports_review_required(env: Env) -> None:
    args = ["op", "run", "update_supplier", "--param", "key=S-1001", "--param", "risk_score=75"]
    result = _run(args, env)
    assert result.exit_code == 1
    assert result.stderr.startswith("error: Review required: ")
    assert "[review-required]" in result.stderr


def test_op_run_with_a_task_then_the_proposal_commands(env: Env, keeper: LiveKeeper) -> None:
    task = _unique("cli-task")
    args = ["op", "run", "update_supplier", "--param", "key=S-1010", "--param", "status=suspended"]
    args += ["--task", task, "--intent", "Audit pending", "--auto-propose"]
    proposed = _json(_run(args, env))
    assert proposed["status"] == "proposed"
    proposal_id = proposed["proposal"]["id"]
    shown = _json(_run(["proposal", "show", proposal_id], env))
    assert (shown["id"], shown["status"]) == (proposal_id, "open")
    refused = _run(["proposal", "review", proposal_id, "--approve"], env)
    assert refused.exit_code == 1
    assert "[self-approval]" in refused.stderr
    reviewed = _run(["proposal", "review", proposal_id, "--request-changes", "--body", "Why?"], env)
    assert [review["verdict"] for review in _json(reviewed)["reviews"]] == ["request_changes"]
    assert _json(_run(["proposal", "conflicts", proposal_id], env))["conflicts"] == []
    blocked = _run(["proposal", "merge", proposal_id], env)
    assert blocked.exit_code == 1
    assert "[merge-blocked]" in blocked.stderr
    assert _json(_run(["proposal", "close", proposal_id], env))["status"] == "closed"
    main_head = _json(_run(["branch", "show", "main"], env))["head"]
    assert main_head == keeper.supply_head


@pytest.mark.parametrize("param", ["key", "=S-1001"])
def test_a_param_without_a_name_and_value_is_a_usage_error(env: Env, param: str) -> None:
    result = _run(["op", "run", "update_supplier", "--param", param], env)
    assert result.exit_code == 2
    assert "is not NAME=VALUE" in result.stderr


def test_a_param_given_twice_is_a_usage_error(env: Env) -> None:
    result = _run(["op", "run", "op", "--param", "a=1", "--param", "a=2"], env)
    assert result.exit_code == 2
    assert "given twice" in result.stderr


def test_proposal_list(env: Env, admin: LorebaseClient) -> None:
    source = _work_branch(admin, "client-writes/cli")
    admin.execute("supply", "update_supplier", {"key": "S-1009", "tier": 2}, branch=source)
    opened = admin.open_proposal("supply", source, target=_work_branch(admin))
    document = _json(_run(["proposal", "list", "--status", "open", "--mine"], env))
    assert document["domain"] == "supply"
    assert opened["id"] in [item["id"] for item in document["proposals"]]
    closed = _json(_run(["proposal", "close", opened["id"]], env))
    assert closed["status"] == "closed"


def test_proposal_review_needs_exactly_one_verdict(env: Env) -> None:
    assert _run(["proposal", "review", "pr_1"], env).exit_code == 2
    assert _run(["proposal", "review", "pr_1", "--approve", "--comment"], env).exit_code == 2


def test_proposal_resolve_takes_a_value_only_with_take_value(env: Env) -> None:
    assert _run(["proposal", "resolve", "p", "c", "--take", "value"], env).exit_code == 2
    result = _run(["proposal", "resolve", "p", "c", "--take", "source", "--value", "1"], env)
    assert result.exit_code == 2
    bad = _run(["proposal", "resolve", "p", "c", "--take", "value", "--value", "{"], env)
    assert bad.exit_code == 2


def test_branch_merge(env: Env, admin: LorebaseClient) -> None:
    work, target = _work_branch(admin, "client-writes/cli"), _work_branch(admin)
    admin.execute("supply", "update_supplier", {"key": "S-1010", "tier": 2}, branch=work)
    document = _json(_run(["branch", "merge", work, "--into", target, "--message", "Tier"], env))
    assert document["result"] in {"fast_forward", "merge"}
    assert admin.branch("supply", target)["head"] == document["revision"]
