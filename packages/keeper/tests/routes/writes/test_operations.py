"""Writes through Keeper (agents.md section 4, docs/writes.md): executions, review, the agent flow.

The requests of the spec are sent as written; principals: `svc_01j9x4k2` (a service principal:
editor on main and on agent/*), `usr_editor` (editor everywhere), `usr_reviewer` (reviewer).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from packages.store.tests.test_preparing import domain_rows

from lorebase_keeper.app import create_app
from lorebase_keeper.testing import Keys, assert_problem
from lorebase_platform.settings import Settings
from lorebase_store import Store
from lorebase_store.testing import statements_run

pytestmark = pytest.mark.anyio

API = "/api/v1/domains/supply"
AGENT = "svc_01j9x4k2"

FLAG = {
    "parameters": {"supplier": "S-1001", "severity": "high", "reason": "Two late deliveries"},
    "task": "q4-audit",
    "intent": "Flag S-1001 after the Q4 delivery audit",
    "idempotency_key": "q4-audit-S-1001-flag",
    "auto_merge": True,
}


class Callers:
    def __init__(self, store: Store) -> None:
        def key(name: str, kind: str = "user") -> dict[str, str]:
            store.ensure_principal(name, principal_type=kind)  # type: ignore[arg-type]
            return Keys.header(store.create_key(name).secret)

        self.agent = key(AGENT, "service")
        self.other_agent = key("svc_other", "service")
        self.editor = key("usr_editor")
        self.reviewer = key("usr_reviewer")
        self.admin = key("usr_admin")
        self.viewer = key("usr_viewer")
        for name in (AGENT, "svc_other"):
            store.add_grant(name, domain="supply", role="editor", branch="main")
            store.add_grant(name, domain="supply", role="editor", branch="agent/*")
        store.add_grant("usr_editor", domain="supply", role="editor")
        store.add_grant("usr_reviewer", domain="supply", role="reviewer")
        store.add_grant("usr_admin", domain="supply", role="admin")
        store.add_grant("usr_viewer", domain="supply", role="viewer")


@pytest.fixture
def callers(supply: Store) -> Callers:
    return Callers(supply)


def settings_with(**agent_writes: Any) -> Settings:
    return Settings(
        keeper={
            "auth": {"mode": "api_key", "authz": {"grants_cache_ttl_s": 0}},
            "agent_writes": agent_writes,
        }
    )


@pytest.fixture
def keeper_settings() -> Settings:
    return settings_with()


@pytest.fixture
async def api(
    supply: Store, keeper_settings: Settings, callers: Callers
) -> AsyncIterator[httpx.AsyncClient]:
    app: FastAPI = create_app(keeper_settings, store=supply)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://keeper.test"
    ) as client:
        yield client


async def head(api: httpx.AsyncClient, callers: Callers, branch: str = "main") -> str:
    answer = await api.get(f"{API}/branches/{branch.replace('/', '%2F')}", headers=callers.admin)
    assert answer.status_code == 200, answer.text
    return str(answer.json()["revision"])


async def work_branch(api: httpx.AsyncClient, callers: Callers, name: str = "work") -> None:
    made = await api.post(f"{API}/branches", json={"name": name}, headers=callers.editor)
    assert made.status_code == 201, made.text


async def risk(api: httpx.AsyncClient, callers: Callers, branch: str = "main") -> Any:
    answer = await api.get(
        f"{API}/kinds/Supplier/records/S-1001",
        params={"branch": branch},
        headers=callers.admin,
    )
    return answer.json()["values"]["risk_score"]


# -- the spec's first request -------------------------------------------------------------------


async def test_the_spec_dry_run_answers_the_edits_and_writes_nothing(
    api: httpx.AsyncClient, callers: Callers, supply: Store
) -> None:
    before = await head(api, callers)
    request = {
        "parameters": {"key": "S-1001", "risk_score": 75},
        "dry_run": True,
        "expected_head": "f4d229169a37fa73e83df368ea2c035fead80d809b908cf236c013a0dd23066b",
        "message": "Lower the risk after the audit of 2026-10-20",
    }
    headers = {**callers.editor, "Idempotency-Key": "risk-review-2026-10-21-S-1001"}
    answer = await api.post(
        f"{API}/operations/update_supplier/execute", json=request, headers=headers
    )
    if before != request["expected_head"]:  # the example's head moved on: a moved head is 409
        assert_problem(answer, 409, "stale-head")
        request["expected_head"] = before
        answer = await api.post(
            f"{API}/operations/update_supplier/execute", json=request, headers=headers
        )
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["status"] == "dry_run"
    assert body["revision"] == before
    assert body["edits"] == [
        {"op": "update_record", "kind": "Supplier", "key": "S-1001", "values": {"risk_score": "75"}}
    ]
    assert body["edit_count"] == 1
    assert body["violations"] == []
    assert body["review"] == {"required": True, "reason": "protected-branch"}
    assert await head(api, callers) == before
    assert await risk(api, callers) == "90"
    assert supply.writes.invocation("supply", "usr_editor", "risk-review-2026-10-21-S-1001") is None


async def test_a_dry_run_lists_violations_and_a_real_run_refuses_them(
    api: httpx.AsyncClient, callers: Callers
) -> None:
    await work_branch(api, callers)
    request = {"parameters": {"key": "S-9999", "risk_score": 5}, "branch": "work"}
    dry = await api.post(
        f"{API}/operations/update_supplier/execute",
        json={**request, "dry_run": True},
        headers=callers.editor,
    )
    assert dry.status_code == 200
    assert [v["code"] for v in dry.json()["violations"]] == ["record.missing"]
    assert dry.json()["edit_count"] == 0
    refused = await api.post(
        f"{API}/operations/update_supplier/execute", json=request, headers=callers.editor
    )
    problem = assert_problem(refused, 422, "values-invalid")
    assert [issue["code"] for issue in problem["issues"]] == ["record.missing"]  # type: ignore[union-attr]


async def test_bad_parameters_are_422_with_every_issue_and_unknown_operations_404(
    api: httpx.AsyncClient, callers: Callers
) -> None:
    answer = await api.post(
        f"{API}/operations/update_supplier/execute",
        json={"parameters": {"key": "X", "risk_score": 500, "colour": "red"}},
        headers=callers.editor,
    )
    problem = assert_problem(answer, 422, "values-invalid")
    paths = sorted(issue["path"] for issue in problem["issues"])  # type: ignore[union-attr]
    assert paths == ["parameters.colour", "parameters.key", "parameters.risk_score"]
    missing = await api.post(
        f"{API}/operations/no_such/execute", json={"parameters": {}}, headers=callers.editor
    )
    assert_problem(missing, 404, "operation-not-found")
    unknown_member = await api.post(
        f"{API}/operations/update_supplier/execute",
        json={"parameters": {}, "surprise": 1},
        headers=callers.editor,
    )
    assert_problem(unknown_member, 422, "invalid-input")


async def test_a_viewer_may_not_execute(api: httpx.AsyncClient, callers: Callers) -> None:
    await work_branch(api, callers)
    answer = await api.post(
        f"{API}/operations/update_supplier/execute",
        json={"parameters": {"key": "S-1001", "risk_score": 5}, "branch": "work"},
        headers=callers.viewer,
    )
    assert_problem(answer, 403, "forbidden")


# -- direct writes, idempotency ------------------------------------------------------------------


async def test_a_direct_write_commits_once_and_a_retry_replays_it(
    api: httpx.AsyncClient, callers: Callers, supply: Store
) -> None:
    await work_branch(api, callers)
    request = {
        "parameters": {"key": "S-1001", "risk_score": 75},
        "branch": "work",
        "message": "Lower the risk after the audit of 2026-10-20",
    }
    headers = {**callers.editor, "Idempotency-Key": "risk-review-2026-10-21-S-1001"}
    first = await api.post(
        f"{API}/operations/update_supplier/execute", json=request, headers=headers
    )
    assert first.status_code == 200, first.text
    body = first.json()
    assert body["status"] == "committed"
    assert body["replayed"] is False
    assert body["invocation_id"].startswith("inv_")
    assert body["revisions"] == [body["revision"]]
    assert body["edit_count"] == 1
    assert "Idempotent-Replayed" not in first.headers
    assert await risk(api, callers, "work") == "75"
    revision = supply.revision("supply", body["revision"])
    assert (revision.origin_type, revision.origin_ref) == ("operation", body["invocation_id"])
    assert revision.author == "usr_editor"
    assert revision.message == request["message"]

    again = await api.post(
        f"{API}/operations/update_supplier/execute", json=request, headers=headers
    )
    assert again.status_code == 200
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.json() == {**body, "replayed": True}
    assert await head(api, callers, "work") == body["revision"]

    other = await api.post(
        f"{API}/operations/update_supplier/execute",
        json={**request, "parameters": {"key": "S-1001", "risk_score": 76}},
        headers=headers,
    )
    assert_problem(other, 409, "idempotency-key-reused")


async def test_a_direct_write_reads_the_domain_row_once_before_its_write(
    api: httpx.AsyncClient, callers: Callers, supply: Store
) -> None:
    await work_branch(api, callers)
    request = {"parameters": {"key": "S-1001", "risk_score": 75}, "branch": "work"}
    headers = {**callers.editor, "Idempotency-Key": "one-read"}
    with statements_run(supply) as seen:
        answer = await api.post(
            f"{API}/operations/update_supplier/execute", json=request, headers=headers
        )
    assert answer.status_code == 200, answer.text
    # one read transaction prepares it (lorebase_store.prepare_write); the write transaction
    # reads the row for the idempotency key and again with the branch it commits on; on
    # PostgreSQL the commit also locks the row (FOR UPDATE), which reads no column of it
    found = domain_rows(seen)
    locks = [statement for statement in found if statement.rstrip().endswith("FOR UPDATE")]
    assert len(found) - len(locks) == 3
    assert len(locks) == (1 if supply.engine.dialect.name == "postgresql" else 0)


async def test_a_moved_expected_head_is_409_stale_head(
    api: httpx.AsyncClient, callers: Callers
) -> None:
    await work_branch(api, callers)
    old = await head(api, callers, "work")
    first = await api.post(
        f"{API}/operations/update_supplier/execute",
        json={"parameters": {"key": "S-1001", "risk_score": 70}, "branch": "work"},
        headers=callers.editor,
    )
    assert first.status_code == 200
    stale = await api.post(
        f"{API}/operations/update_supplier/execute",
        json={"parameters": {"key": "S-1002", "tier": 2}, "branch": "work", "expected_head": old},
        headers=callers.editor,
    )
    problem = assert_problem(stale, 409, "stale-head")
    assert problem["head"] == first.json()["revision"]


async def test_nothing_to_change_is_committed_without_a_revision(
    api: httpx.AsyncClient, callers: Callers
) -> None:
    await work_branch(api, callers)
    before = await head(api, callers, "work")
    answer = await api.post(
        f"{API}/operations/update_supplier/execute",
        json={"parameters": {"key": "S-1001", "risk_score": 90}, "branch": "work"},
        headers=callers.editor,
    )
    assert answer.status_code == 200
    assert answer.json()["status"] == "committed"
    assert answer.json()["revision"] is None
    assert answer.json()["revisions"] == []
    assert await head(api, callers, "work") == before


# -- review required ------------------------------------------------------------------------------


async def test_a_protected_branch_answers_review_required_with_hints(
    api: httpx.AsyncClient, callers: Callers
) -> None:
    answer = await api.post(
        f"{API}/operations/update_supplier/execute",
        json={"parameters": {"key": "S-1001", "risk_score": 75}},
        headers=callers.editor,
    )
    problem = assert_problem(answer, 409, "review-required")
    assert problem["branch"] == "main"
    assert problem["operation"] == "update_supplier"
    assert problem["reason"] == "protected-branch"
    assert problem["proposals"] == []
    assert next(hint["action"] for hint in problem["next"]) == "name_a_task"  # type: ignore[index]


async def test_the_review_policy_counts_on_an_unprotected_branch_too(
    api: httpx.AsyncClient, callers: Callers
) -> None:
    await work_branch(api, callers)
    request = {
        "parameters": {"supplier": "S-1001", "severity": "critical", "reason": "Fire"},
        "branch": "work",
    }
    answer = await api.post(
        f"{API}/operations/flag_supplier_risk/execute", json=request, headers=callers.editor
    )
    problem = assert_problem(answer, 409, "review-required")
    assert problem["reason"] == "review-policy"
    assert problem["next"][0]["action"] == "name_a_task"  # type: ignore[index]
    high = await api.post(
        f"{API}/operations/flag_supplier_risk/execute",
        json={**request, "parameters": {**request["parameters"], "severity": "high"}},  # type: ignore[dict-item]
        headers=callers.editor,
    )
    assert high.status_code == 200
    assert high.json()["status"] == "committed"


# -- the agent flow -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "keeper_settings", [settings_with(allowed_roles_for_auto_merge=["editor"])]
)
async def test_the_spec_task_write_answers_202_as_the_example(
    api: httpx.AsyncClient, callers: Callers, supply: Store
) -> None:
    before = await head(api, callers)
    answer = await api.post(
        f"{API}/operations/flag_supplier_risk/execute", json=FLAG, headers=callers.agent
    )
    assert answer.status_code == 202, answer.text
    body = answer.json()
    assert set(body) == {
        "status", "operation", "branch", "target", "invocation_id", "revision", "revisions",
        "edit_count", "replayed", "proposal", "approval", "attempt", "merge", "merged_revision",
        "branch_created", "branch_deleted", "warnings", "next",
    }  # fmt: skip
    proposal_id = body["proposal"]["id"]
    assert proposal_id.startswith("prp_")
    url = f"{API}/proposals/{proposal_id}"
    assert body["status"] == "proposed"
    assert body["operation"] == "flag_supplier_risk"
    assert body["branch"] == f"agent/{AGENT}/q4-audit"
    assert body["target"] == "main"
    assert body["invocation_id"].startswith("inv_")
    assert body["revisions"] == [body["revision"]]
    assert body["edit_count"] == 2
    assert body["replayed"] is False
    assert body["proposal"] == {
        "id": proposal_id,
        "title": f"Agent {AGENT}: q4-audit",
        "status": "open",
        "source_ref": f"agent/{AGENT}/q4-audit",
        "target_ref": "main",
        "url": url,
        "created": True,
    }
    assert body["approval"] == {"required": 1, "approvals": 0, "satisfied": False}
    assert body["attempt"]["id"].startswith("mat_")
    assert {k: v for k, v in body["attempt"].items() if k != "id"} == {
        "result": "fast_forward",
        "open_conflicts": 0,
        "resolved_conflicts": 0,
        "counts": {},
    }
    assert body["merge"] == {
        "requested": True,
        "allowed": True,
        "performed": False,
        "blockers": ["approvals-pending"],
    }
    assert body["merged_revision"] is None
    assert body["branch_created"] is True
    assert body["branch_deleted"] is False
    assert body["warnings"] == []
    assert body["next"] == [
        {
            "action": "await_review",
            "detail": "Waiting for approval (0 of 1 required).",
            "method": "POST",
            "href": f"{url}/reviews",
            "permission": "proposal.review",
        },
        {
            "action": "get_proposal",
            "detail": "Read the state of the Proposal.",
            "method": "GET",
            "href": url,
        },
    ]
    assert await head(api, callers) == before  # main waits for the review
    proposal = (await api.get(url, headers=callers.agent)).json()
    assert proposal["description"] == (
        "Flag S-1001 after the Q4 delivery audit\n\n"
        f'- flag_supplier_risk(reason="Two late deliveries", severity="high", supplier="S-1001") '
        f"[{body['invocation_id']}]"
    )
    actions = [entry.action for entry in supply.writes.audit("supply")]
    assert actions == [
        "operation.propose",
        "branch.create",
        "operation.invoke",
        "proposal.create",
    ]


async def test_review_then_merge_writes_the_events_once_and_deletes_the_task_branch(
    api: httpx.AsyncClient, callers: Callers, supply: Store
) -> None:
    answer = await api.post(
        f"{API}/operations/flag_supplier_risk/execute", json=FLAG, headers=callers.agent
    )
    assert answer.status_code == 202
    first = answer.json()
    url = f"{API}/proposals/{first['proposal']['id']}"
    assert supply.events("supply", after=0, limit=1000)[-1]["type"] == "revision.committed"
    not_a_reviewer = await api.post(
        f"{url}/reviews", json={"verdict": "approve"}, headers=callers.agent
    )
    assert_problem(not_a_reviewer, 403, "forbidden")
    blocked = await api.post(f"{url}/merge", json={}, headers=callers.reviewer)
    problem = assert_problem(blocked, 409, "merge-blocked")
    assert problem["blockers"] == ["approvals-pending"]
    reviewed = await api.post(
        f"{url}/reviews", json={"verdict": "approve", "body": "Checked"}, headers=callers.reviewer
    )
    assert reviewed.status_code == 201
    assert reviewed.json()["approval"] == {"required": 1, "approvals": 1, "satisfied": True}
    merged = await api.post(f"{url}/merge", json={}, headers=callers.reviewer)
    assert merged.status_code == 200, merged.text
    body = merged.json()
    assert body["status"] == "merged"
    assert body["branch_deleted"] is True
    main_head = await head(api, callers)
    assert body["merged_revision"] == main_head
    assert main_head != first["revision"]
    branches = (await api.get(f"{API}/branches", headers=callers.admin)).json()["branches"]
    assert [b["name"] for b in branches] == ["main"]
    flags = [
        e
        for e in supply.events("supply", after=0, limit=1000)
        if e["type"].startswith("operation.")
    ]
    assert len(flags) == 1
    event = flags[0]
    assert event["type"] == "operation.risk_flag_raised"
    assert event["branch"] == "main"
    assert event["head"] == main_head
    assert event["source_branch"] == f"agent/{AGENT}/q4-audit"
    assert event["proposal"] == first["proposal"]["id"]
    assert event["revisions"] == [first["revision"]]
    assert event["parameters"] == {
        "reason": "Two late deliveries",
        "severity": "high",
        "supplier": "S-1001",
    }
    assert event["edit_count"] == 2
    assert [edit["op"] for edit in event["edits"]] == ["upsert_record", "upsert_link"]
    assert event["invocation_id"] == first["invocation_id"]
    assert event["operation_id"].startswith("opr_")
    assert event["principal"] == AGENT
    # a retry after the merge finds it all, branch gone
    replay = await api.post(
        f"{API}/operations/flag_supplier_risk/execute", json=FLAG, headers=callers.agent
    )
    assert replay.status_code == 200
    assert replay.headers["Idempotent-Replayed"] == "true"
    again = replay.json()
    assert again["status"] == "merged"
    assert again["replayed"] is True
    assert again["invocation_id"] == first["invocation_id"]
    assert again["merged_revision"] == main_head
    assert again["branch_deleted"] is True
    assert (
        len(
            [
                e
                for e in supply.events("supply", after=0, limit=1000)
                if e["type"].startswith("operation.")
            ]
        )
        == 1
    )
    key = f"RF-S-1001-{first['invocation_id']}"
    flag = await api.get(f"{API}/kinds/RiskFlag/records/{key}", headers=callers.admin)
    assert flag.status_code == 200
    assert flag.json()["values"]["severity"] == "high"


@pytest.mark.parametrize(
    "keeper_settings",
    [
        Settings(
            keeper={
                "auth": {"mode": "api_key", "authz": {"grants_cache_ttl_s": 0}},
                "agent_writes": {"allowed_roles_for_auto_merge": ["editor"]},
                "operations": {"required_approvals": 0},
            }
        )
    ],
)
async def test_auto_merge_is_performed_when_every_condition_holds(
    api: httpx.AsyncClient, callers: Callers, supply: Store
) -> None:
    answer = await api.post(
        f"{API}/operations/flag_supplier_risk/execute", json=FLAG, headers=callers.agent
    )
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["status"] == "merged"
    assert body["merge"] == {"requested": True, "allowed": True, "performed": True, "blockers": []}
    assert body["merged_revision"] == await head(api, callers)
    assert body["branch_deleted"] is True
    assert body["next"] == [
        {
            "action": "get_proposal",
            "detail": "Read the state of the Proposal.",
            "method": "GET",
            "href": body["proposal"]["url"],
        }
    ]
    actions = [entry.action for entry in supply.writes.audit("supply")]
    assert actions[-3:] == ["proposal.create", "proposal.merge", "branch.delete"]
    # a critical flag came from the Operation's own policy: someone must approve it
    critical = {
        **FLAG,
        "parameters": {**FLAG["parameters"], "severity": "critical"},  # type: ignore[dict-item]
        "idempotency_key": "critical",
        "task": "Q4 Critical",
    }
    proposed = await api.post(
        f"{API}/operations/flag_supplier_risk/execute", json=critical, headers=callers.agent
    )
    assert proposed.status_code == 202
    assert proposed.json()["branch"] == f"agent/{AGENT}/q4-critical"
    assert proposed.json()["merge"]["blockers"] == ["review-policy-needs-approval"]


async def test_one_open_proposal_per_task_branch_collects_the_executions(
    api: httpx.AsyncClient, callers: Callers
) -> None:
    first = await api.post(
        f"{API}/operations/flag_supplier_risk/execute", json=FLAG, headers=callers.agent
    )
    second = await api.post(
        f"{API}/operations/update_supplier/execute",
        json={
            "parameters": {"key": "S-1001", "status": "suspended"},
            "task": "Q4-Audit",
            "intent": "Suspend S-1001 after the audit",
        },
        headers=callers.agent,
    )
    assert second.status_code == 202, second.text
    assert second.json()["proposal"]["id"] == first.json()["proposal"]["id"]
    assert second.json()["proposal"]["created"] is False
    assert second.json()["branch_created"] is False
    proposal = (await api.get(second.json()["proposal"]["url"], headers=callers.agent)).json()
    assert [e["operation"] for e in proposal["executions"]] == [
        "flag_supplier_risk",
        "update_supplier",
    ]
    assert proposal["description"].startswith("Suspend S-1001 after the audit\n\n- flag_")
    assert await risk(api, callers, f"agent/{AGENT}/q4-audit") == "90"


@pytest.mark.parametrize("keeper_settings", [settings_with(max_open_branches_per_principal=1)])
async def test_task_branch_limits_and_owners(
    api: httpx.AsyncClient, callers: Callers, supply: Store
) -> None:
    assert (
        await api.post(
            f"{API}/operations/flag_supplier_risk/execute", json=FLAG, headers=callers.agent
        )
    ).status_code == 202
    second = await api.post(
        f"{API}/operations/flag_supplier_risk/execute",
        json={**FLAG, "task": "another", "idempotency_key": "k2"},
        headers=callers.agent,
    )
    problem = assert_problem(second, 409, "agent-branch-limit")
    assert problem["branches"] == [f"agent/{AGENT}/q4-audit"]
    # a branch under the prefix made by someone else (before the names were reserved)
    supply.create_branch("supply", "agent/svc_other/taken", created_by="usr_editor")
    foreign = await api.post(
        f"{API}/operations/flag_supplier_risk/execute",
        json={**FLAG, "task": "taken", "idempotency_key": "k3"},
        headers=callers.other_agent,
    )
    assert_problem(foreign, 409, "already-exists")


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(f"agent/{AGENT}/q4-audit", id="the-agents-task-branch"),
        pytest.param("agent/anything", id="under-the-prefix"),
        pytest.param(f"Agent/{AGENT}/q4-audit", id="other-case"),
    ],
)
async def test_names_under_the_task_branch_prefix_are_reserved_for_the_agent_flow(
    api: httpx.AsyncClient, callers: Callers, name: str
) -> None:
    for caller in (callers.editor, callers.admin):
        taken = await api.post(f"{API}/branches", json={"name": name}, headers=caller)
        problem = assert_problem(taken, 422, "branch-name-reserved")
        assert "keeper.agent_writes.branch_prefix" in problem["detail"]
        assert (problem["branch"], problem["reserved_prefix"]) == (name, "agent/")
    executed = await api.post(
        f"{API}/operations/flag_supplier_risk/execute", json=FLAG, headers=callers.agent
    )
    assert executed.status_code == 202, executed.text
    assert executed.json()["branch"] == f"agent/{AGENT}/q4-audit"
    made = await api.post(f"{API}/branches", json={"name": "agents/q4"}, headers=callers.editor)
    assert made.status_code == 201, made.text


@pytest.mark.parametrize(
    "keeper_settings", [settings_with(branch_prefix="tasks/")], ids=["prefix-tasks"]
)
async def test_the_reserved_prefix_is_the_setting(api: httpx.AsyncClient, callers: Callers) -> None:
    taken = await api.post(f"{API}/branches", json={"name": "tasks/x"}, headers=callers.editor)
    assert_problem(taken, 422, "branch-name-reserved")
    made = await api.post(f"{API}/branches", json={"name": "agent/x"}, headers=callers.editor)
    assert made.status_code == 201, made.text


@pytest.mark.parametrize(
    ("first", "second"),
    [
        pytest.param(None, "Main", id="the-default-branch"),
        pytest.param("draft", "DRAFT", id="another-branch"),
    ],
)
async def test_branch_names_differing_only_in_case_are_refused(
    api: httpx.AsyncClient, callers: Callers, first: str | None, second: str
) -> None:
    if first is not None:
        await work_branch(api, callers, first)
    refused = await api.post(f"{API}/branches", json={"name": second}, headers=callers.editor)
    problem = assert_problem(refused, 409, "branch-name-taken")
    assert (problem["branch"], problem["existing"]) == (second, first or "main")
    assert repr(first or "main") in problem["detail"]
    names = (await api.get(f"{API}/branches", headers=callers.editor)).json()["branches"]
    assert second not in [branch["name"] for branch in names]


async def test_a_user_without_a_task_keeps_the_plain_409(
    api: httpx.AsyncClient, callers: Callers
) -> None:
    answer = await api.post(
        f"{API}/operations/flag_supplier_risk/execute",
        json={**FLAG, "idempotency_key": "u1"},
        headers=callers.editor,
    )
    assert_problem(answer, 409, "review-required")
    opted_in = await api.post(
        f"{API}/operations/flag_supplier_risk/execute",
        json={**FLAG, "idempotency_key": "u2", "auto_propose": True},
        headers=callers.editor,
    )
    assert opted_in.status_code == 202
    assert opted_in.json()["branch"] == "agent/usr_editor/q4-audit"
    no_task = await api.post(
        f"{API}/operations/flag_supplier_risk/execute",
        json={"parameters": FLAG["parameters"], "auto_propose": True},
        headers=callers.editor,
    )
    assert_problem(no_task, 422, "invalid-input")


async def test_conflicting_proposals_list_conflicts_and_merge_once_resolved(
    api: httpx.AsyncClient, callers: Callers
) -> None:
    async def propose(task: str, score: int) -> dict[str, Any]:
        answer = await api.post(
            f"{API}/operations/update_supplier/execute",
            json={"parameters": {"key": "S-1001", "risk_score": score}, "task": task},
            headers=callers.agent,
        )
        assert answer.status_code == 202, answer.text
        return dict(answer.json())

    first, second = await propose("one", 70), await propose("two", 60)
    for proposal in (first, second):
        url = proposal["proposal"]["url"]
        approved = await api.post(
            f"{url}/reviews", json={"verdict": "approve"}, headers=callers.reviewer
        )
        assert approved.status_code == 201
    merged = await api.post(f"{first['proposal']['url']}/merge", json={}, headers=callers.reviewer)
    assert merged.status_code == 200
    assert await risk(api, callers) == "70"
    url = second["proposal"]["url"]
    refused = await api.post(f"{url}/merge", json={}, headers=callers.reviewer)
    problem = assert_problem(refused, 409, "merge-conflicts")
    assert problem["counts"] == {"modified-both": 1}
    listed = (await api.get(f"{url}/conflicts", headers=callers.reviewer)).json()["conflicts"]
    assert [
        (c["ref"], c["attribute"], c["code"], c["base"], c["source"], c["target"]) for c in listed
    ] == [("Supplier/S-1001", "risk_score", "modified-both", "90", "60", "70")]
    resolved = await api.post(
        f"{url}/conflicts/{listed[0]['id']}/resolve",
        json={"resolution": "source"},
        headers=callers.reviewer,
    )
    assert resolved.status_code == 200, resolved.text
    assert resolved.json()["conflicts"] == {"open": 0, "resolved": 1}
    done = await api.post(f"{url}/merge", json={}, headers=callers.reviewer)
    assert done.status_code == 200, done.text
    assert await risk(api, callers) == "60"


async def test_closing_a_task_proposal_deletes_its_branch_and_drops_its_events(
    api: httpx.AsyncClient, callers: Callers, supply: Store
) -> None:
    answer = await api.post(
        f"{API}/operations/flag_supplier_risk/execute", json=FLAG, headers=callers.agent
    )
    url = answer.json()["proposal"]["url"]
    closed = await api.post(f"{url}/close", headers=callers.agent)
    assert closed.status_code == 200, closed.text
    assert closed.json()["status"] == "closed"
    names = [b.name for b in supply.branches("supply")]
    assert names == ["main"]
    again = await api.post(f"{url}/merge", json={}, headers=callers.reviewer)
    assert_problem(again, 409, "proposal-not-open")
    events = supply.events("supply", after=0, limit=1000)
    assert not [e for e in events if e["type"].startswith("operation.")]


async def test_proposals_are_listed_for_their_reviewers(
    api: httpx.AsyncClient, callers: Callers
) -> None:
    answer = await api.post(
        f"{API}/operations/flag_supplier_risk/execute", json=FLAG, headers=callers.agent
    )
    proposal_id = answer.json()["proposal"]["id"]
    mine = (
        await api.get(f"{API}/proposals", params={"assigned": "me"}, headers=callers.reviewer)
    ).json()
    assert [p["id"] for p in mine["proposals"]] == [proposal_id]
    assert mine["next_cursor"] is None
    not_for_author = await api.get(
        f"{API}/proposals", params={"assigned": "me"}, headers=callers.agent
    )
    assert not_for_author.json()["proposals"] == []
    merged = await api.get(f"{API}/proposals", params={"status": "merged"}, headers=callers.viewer)
    assert merged.json()["proposals"] == []
    missing = await api.get(f"{API}/proposals/prp_nothing", headers=callers.viewer)
    assert_problem(missing, 404, "proposal-not-found")


async def test_branches_merge_directly_into_unprotected_ones(
    api: httpx.AsyncClient, callers: Callers, supply: Store
) -> None:
    await work_branch(api, callers, "staging")
    made = await api.post(
        f"{API}/branches", json={"name": "feature", "from": "staging"}, headers=callers.editor
    )
    assert made.status_code == 201
    done = await api.post(
        f"{API}/operations/update_supplier/execute",
        json={"parameters": {"key": "S-1001", "risk_score": 11}, "branch": "feature"},
        headers=callers.editor,
    )
    assert done.status_code == 200
    merged = await api.post(f"{API}/branches/feature/merge", json={}, headers=callers.admin)
    assert merged.status_code == 200, merged.text
    assert merged.json()["result"] == "fast_forward"
    assert merged.json()["target"] == "staging"
    assert await risk(api, callers, "staging") == "11"
    revision = supply.revision("supply", merged.json()["revision"])
    assert revision.parents[1] == done.json()["revision"]
    assert revision.origin_type == "merge"
    protected = await api.post(
        f"{API}/branches/feature/merge", json={"into": "main"}, headers=callers.admin
    )
    problem = assert_problem(protected, 409, "review-required")
    assert problem["reason"] == "protected-branch"
    editor = await api.post(f"{API}/branches/feature/merge", json={}, headers=callers.editor)
    assert_problem(editor, 403, "forbidden")
    opened = await api.post(
        f"{API}/proposals",
        json={"source": "staging", "target": "main", "description": "Staging is ready"},
        headers=callers.admin,
    )
    assert opened.status_code == 201, opened.text
    proposal = opened.json()
    assert (proposal["title"], proposal["description"]) == (
        "Merge staging into main",
        "Staging is ready",
    )
    assert proposal["approval"] == {"required": 1, "approvals": 0, "satisfied": False}
    twice = await api.post(
        f"{API}/proposals", json={"source": "staging", "target": "main"}, headers=callers.admin
    )
    assert_problem(twice, 409, "conflict")
    own = await api.post(
        f"{proposal['url']}/reviews", json={"verdict": "approve"}, headers=callers.admin
    )
    assert_problem(own, 409, "self-approval")
    approved = await api.post(
        f"{proposal['url']}/reviews", json={"verdict": "approve"}, headers=callers.reviewer
    )
    assert approved.status_code == 201
    merged_in = await api.post(f"{proposal['url']}/merge", json={}, headers=callers.reviewer)
    assert merged_in.status_code == 200, merged_in.text
    assert merged_in.json()["branch_deleted"] is False  # only task branches go with their Proposal
    assert await risk(api, callers) == "11"
    assert "staging" in [b.name for b in supply.branches("supply")]


async def test_lineage_and_explain_name_the_merge_that_brought_a_value(
    api: httpx.AsyncClient, callers: Callers
) -> None:
    proposed = await api.post(
        f"{API}/operations/update_supplier/execute",
        json={"parameters": {"key": "S-1001", "risk_score": 40}, "task": "lower"},
        headers=callers.agent,
    )
    body = proposed.json()
    url = body["proposal"]["url"]
    await api.post(f"{url}/reviews", json={"verdict": "approve"}, headers=callers.reviewer)
    merged = (await api.post(f"{url}/merge", json={}, headers=callers.reviewer)).json()
    lineage = (
        await api.get(f"{API}/kinds/Supplier/records/S-1001/lineage", headers=callers.admin)
    ).json()
    entries = lineage["attributes"]
    risk_entry = entries["risk_score"]
    assert risk_entry["revision"] == body["revision"]  # the original provenance is kept
    assert risk_entry["origin"] == {"type": "operation", "ref": body["invocation_id"]}
    assert risk_entry["operation"] == "update_supplier"
    assert risk_entry["actor"] == AGENT
    assert risk_entry["brought_by"]["revision"] == merged["merged_revision"]
    assert risk_entry["brought_by"]["origin"] == {"type": "merge", "ref": merged["id"]}
    assert risk_entry["proposal"] == merged["id"]
    assert (
        "brought_by" not in entries["legal_name"]
    )  # values the merge left alone keep their Revision
    explained = (
        await api.get(f"{API}/kinds/Supplier/records/S-1001/explain", headers=callers.admin)
    ).json()
    assert explained["proposals"] == [{"id": merged["id"], "url": url}]


async def test_proposal_pages_skip_what_the_caller_may_not_see_and_lose_nothing(
    api: httpx.AsyncClient, callers: Callers
) -> None:
    ids = []
    for index in range(5):
        answer = await api.post(
            f"{API}/operations/update_supplier/execute",
            json={"parameters": {"key": f"S-100{index + 1}", "tier": 3}, "task": f"t{index}"},
            headers=callers.agent,
        )
        assert answer.status_code == 202, answer.text
        ids.append(answer.json()["proposal"]["id"])
    seen: list[str] = []
    cursor = None
    while True:
        params = {"limit": 2, **({"cursor": cursor} if cursor else {})}
        page = (await api.get(f"{API}/proposals", params=params, headers=callers.viewer)).json()
        seen += [p["id"] for p in page["proposals"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == ids


def test_a_domain_overrides_agent_writes_as_the_spec_example(supply: Store) -> None:
    from lorebase_keeper.writes.agent_writes import agent_writes_of

    domain = supply.domain("supply")
    override = {"agent_writes": {"allowed_roles_for_auto_merge": ["editor"], "auto_merge": True}}
    effective = agent_writes_of(
        settings_with(), replace(domain, settings={**domain.settings, **override})
    )
    assert effective.allowed_roles_for_auto_merge == ["editor"]
    assert effective.auto_merge is True
    assert effective.branch_prefix == "agent/"  # the rest stays as the settings say
    assert agent_writes_of(settings_with(), domain).auto_merge is False


@pytest.mark.parametrize("keeper_settings", [settings_with(max_task_length=8)])
async def test_tasks_are_normalized_and_limited_in_length(
    api: httpx.AsyncClient, callers: Callers, supply: Store
) -> None:
    too_long = await api.post(
        f"{API}/operations/flag_supplier_risk/execute",
        json={**FLAG, "task": "Audit Q4 2026"},
        headers=callers.agent,
    )
    problem = assert_problem(too_long, 422, "invalid-input")
    assert [issue["path"] for issue in problem["issues"]] == ["task"]  # type: ignore[union-attr]
    assert [b.name for b in supply.branches("supply")] == ["main"]
    fits = await api.post(
        f"{API}/operations/flag_supplier_risk/execute",
        json={**FLAG, "task": "Audit Q4"},
        headers=callers.agent,
    )
    assert fits.status_code == 202
    assert fits.json()["branch"] == f"agent/{AGENT}/audit-q4"
