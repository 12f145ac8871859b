"""Proposals over HTTP: one decision per merge, and pages that cost a bounded number of statements.

The races send both requests at once to one Keeper (its routes run in a thread pool, so the two
writes really overlap) many times: whichever lands first, the other sees it, and nothing merges
that a review asked to change.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from packages.keeper.tests.routes.writes.test_operations import AGENT, API, FLAG, Callers

from lorebase_keeper.app import create_app
from lorebase_keeper.testing import assert_problem
from lorebase_platform.settings import Settings
from lorebase_store import Store
from lorebase_store.testing import statements_run

ROUNDS = 20
pytestmark = pytest.mark.anyio


@pytest.fixture
def callers(supply: Store) -> Callers:
    return Callers(supply)


def settings(**operations: Any) -> Settings:
    return Settings(
        keeper={
            "auth": {"mode": "api_key", "authz": {"grants_cache_ttl_s": 0}},
            "agent_writes": {"allowed_roles_for_auto_merge": ["editor"]},
            "operations": operations,
        }
    )


@pytest.fixture
def keeper_settings() -> Settings:
    return settings()


@pytest.fixture
async def api(
    supply: Store, keeper_settings: Settings, callers: Callers
) -> AsyncIterator[httpx.AsyncClient]:
    app: FastAPI = create_app(keeper_settings, store=supply)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://keeper.test"
    ) as client:
        yield client


def open_proposals(store: Store, first: int, count: int) -> None:
    """Proposals of work branches into main, each with a review."""
    for number in range(first, first + count):
        name = f"work-{number:03d}"
        store.create_branch("supply", name, from_branch="main", created_by="usr_editor")
        proposed = store.writes.propose(
            "supply",
            source=name,
            target="main",
            principal="usr_editor",
            title=f"Work {number}",
            intent=None,
            task=None,
            policy_review=False,
            execution=None,
            describe=lambda intent, executions: "",
        )
        store.writes.review(
            "supply", proposed.proposal.id, reviewer="usr_reviewer", verdict="comment", body="-"
        )


@pytest.mark.parametrize("caller", ["admin", "viewer"])
async def test_a_page_of_proposals_costs_the_same_statements_for_5_and_50(
    api: httpx.AsyncClient, callers: Callers, supply: Store, caller: str
) -> None:
    headers = getattr(callers, caller)
    open_proposals(supply, 0, 5)
    with statements_run(supply) as few:
        answer = await api.get(f"{API}/proposals", params={"limit": 50}, headers=headers)
    assert answer.status_code == 200, answer.text
    assert len(answer.json()["proposals"]) == 5
    open_proposals(supply, 5, 45)

    with statements_run(supply) as many:
        answer = await api.get(f"{API}/proposals", params={"limit": 50}, headers=headers)

    assert answer.status_code == 200, answer.text
    listed = answer.json()["proposals"]
    assert len(listed) == 50
    assert all(p["reviews"][0]["verdict"] == "comment" for p in listed)
    assert all(p["approval"]["required"] == 1 for p in listed)
    assert len(many) == len(few), "\n".join(many)


async def _agent_proposal(api: httpx.AsyncClient, callers: Callers, task: str) -> dict[str, Any]:
    body = {**FLAG, "task": task, "idempotency_key": f"{task}-1", "auto_merge": False}
    answer = await api.post(
        f"{API}/operations/flag_supplier_risk/execute", json=body, headers=callers.agent
    )
    assert answer.status_code == 202, answer.text
    return dict(answer.json())


async def test_a_request_for_changes_racing_a_merge_never_lets_both_through(
    api: httpx.AsyncClient, callers: Callers
) -> None:
    for round_ in range(ROUNDS):
        proposal = (await _agent_proposal(api, callers, f"race-{round_}"))["proposal"]
        url = f"{API}/proposals/{proposal['id']}"
        approved = await api.post(
            f"{url}/reviews", json={"verdict": "approve"}, headers=callers.reviewer
        )
        assert approved.status_code == 201, approved.text

        reviewed, merged = await asyncio.gather(
            api.post(f"{url}/reviews", json={"verdict": "request_changes"}, headers=callers.admin),
            api.post(f"{url}/merge", json={}, headers=callers.reviewer),
        )

        after = (await api.get(url, headers=callers.admin)).json()
        verdicts = [review["verdict"] for review in after["reviews"]]
        if merged.status_code == 200:  # the merge won: the review lands on a merged Proposal
            assert_problem(reviewed, 409, "proposal-not-open")
            assert after["status"] == "merged"
            assert verdicts == ["approve"]
        else:  # the review won: the merge saw it
            assert reviewed.status_code == 201, reviewed.text
            problem = assert_problem(merged, 409, "merge-blocked")
            assert problem["blockers"] == ["changes-requested"]
            assert after["status"] == "open"
            assert verdicts == ["approve", "request_changes"]
            closed = await api.post(f"{url}/close", headers=callers.agent)
            assert closed.status_code == 200, closed.text


@pytest.mark.parametrize("keeper_settings", [settings(required_approvals=0)])
async def test_an_automatic_merge_racing_a_request_for_changes_never_lets_both_through(
    api: httpx.AsyncClient, callers: Callers
) -> None:
    for round_ in range(ROUNDS):
        task = f"auto-{round_}"
        proposal = (await _agent_proposal(api, callers, task))["proposal"]
        url = f"{API}/proposals/{proposal['id']}"
        again = {
            **FLAG,
            "parameters": {**FLAG["parameters"], "reason": "A third late delivery"},  # type: ignore[dict-item]
            "task": task,
            "idempotency_key": f"{task}-2",
        }

        reviewed, executed = await asyncio.gather(
            api.post(f"{url}/reviews", json={"verdict": "request_changes"}, headers=callers.admin),
            api.post(
                f"{API}/operations/flag_supplier_risk/execute", json=again, headers=callers.agent
            ),
        )

        answer = executed.json()
        after = (await api.get(url, headers=callers.admin)).json()
        verdicts = [review["verdict"] for review in after["reviews"]]
        if answer["status"] == "merged":
            assert_problem(reviewed, 409, "proposal-not-open")
            assert verdicts == []
        else:
            assert executed.status_code == 202, executed.text
            assert reviewed.status_code == 201, reviewed.text
            assert answer["merge"]["performed"] is False
            assert answer["merge"]["blockers"] == ["changes-requested"]
            assert after["status"] == "open"
            assert verdicts == ["request_changes"]
            closed = await api.post(f"{url}/close", headers=callers.agent)
            assert closed.status_code == 200, closed.text


async def test_a_merge_refuses_a_source_that_moved_since_the_head_it_names(
    api: httpx.AsyncClient, callers: Callers
) -> None:
    first = await _agent_proposal(api, callers, "moved")
    url = f"{API}/proposals/{first['proposal']['id']}"
    approved = await api.post(
        f"{url}/reviews", json={"verdict": "approve"}, headers=callers.reviewer
    )
    assert approved.status_code == 201
    reviewed_head = first["revision"]
    second = {**FLAG, "task": "moved", "idempotency_key": "moved-2", "auto_merge": False}
    second["parameters"] = {**FLAG["parameters"], "reason": "Later"}  # type: ignore[dict-item]
    moved = await api.post(
        f"{API}/operations/flag_supplier_risk/execute", json=second, headers=callers.agent
    )
    assert moved.status_code == 202, moved.text

    refused = await api.post(
        f"{url}/merge", json={"expected_source_head": reviewed_head}, headers=callers.reviewer
    )

    problem = assert_problem(refused, 409, "stale-head")
    assert problem["branch"] == f"agent/{AGENT}/moved"
    assert problem["expected_head"] == reviewed_head
    assert problem["head"] == moved.json()["revision"]
    merged = await api.post(
        f"{url}/merge",
        json={"expected_source_head": moved.json()["revision"]},
        headers=callers.reviewer,
    )
    assert merged.status_code == 200, merged.text
    assert merged.json()["status"] == "merged"
