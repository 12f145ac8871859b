"""Writes through Herald: Operations only, agent tasks opening Proposals, review hints."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest
from mcp import Client

from lorebase_herald import Herald

from .conftest import LiveKeeper, herald_settings, text_of

pytestmark = pytest.mark.anyio


@pytest.fixture
async def agent(keeper: LiveKeeper) -> AsyncIterator[Client]:
    """An MCP client of a Herald with the demo agent's key (a service principal)."""
    herald = Herald(herald_settings(keeper, "agent"))
    try:
        async with Client(herald.mcp) as client:
            yield client
    finally:
        await herald.aclose()


def flag(severity: str, reason: str) -> dict[str, object]:
    return {"supplier": "S-1001", "severity": severity, "reason": reason}


async def test_a_dry_run_shows_the_edits_and_writes_nothing(
    agent: Client, keeper: LiveKeeper
) -> None:
    head = keeper.store.log("supply", limit=1)[0].id
    result = await agent.call_tool(
        "lorebase_execute",
        {
            "domain": "supply",
            "operation": "flag_supplier_risk",
            "parameters": flag("high", "late deliveries"),
            "dry_run": True,
        },
    )
    assert not result.is_error, text_of(result)
    assert "flag_supplier_risk: dry_run" in text_of(result)
    assert "upsert_record RiskFlag" in text_of(result)
    assert keeper.store.log("supply", limit=1)[0].id == head


async def test_a_task_opens_a_proposal_that_the_proposal_tool_shows(
    agent: Client, keeper: LiveKeeper
) -> None:
    task = f"risk review {uuid.uuid4().hex[:8]}"
    result = await agent.call_tool(
        "lorebase_execute",
        {
            "domain": "supply",
            "operation": "flag_supplier_risk",
            "parameters": flag("critical", "two missed deliveries in October"),
            "task": task,
            "intent": "flag the supplier for the risk board",
            "idempotency_key": f"key-{task}",
        },
    )
    assert not result.is_error, text_of(result)
    answer = result.structured_content
    assert answer is not None
    proposal = answer["result"]["proposal"]
    proposal_id = proposal["id"] if isinstance(proposal, dict) else proposal
    assert "proposal: " in text_of(result)
    shown = await agent.call_tool(
        "lorebase_proposal", {"domain": "supply", "action": "show", "proposal_id": proposal_id}
    )
    assert not shown.is_error, text_of(shown)
    assert f"# Proposal {proposal_id} of supply" in text_of(shown)
    listed = await agent.call_tool("lorebase_proposal", {"domain": "supply", "action": "list"})
    assert proposal_id in text_of(listed)
    again = await agent.call_tool(
        "lorebase_execute",
        {
            "domain": "supply",
            "operation": "flag_supplier_risk",
            "parameters": flag("critical", "two missed deliveries in October"),
            "task": task,
            "intent": "flag the supplier for the risk board",
            "idempotency_key": f"key-{task}",
        },
    )
    assert again.structured_content is not None
    assert again.structured_content["result"]["replayed"] is True


async def test_a_proposal_action_without_its_argument_is_refused(agent: Client) -> None:
    result = await agent.call_tool("lorebase_proposal", {"domain": "supply", "action": "show"})
    assert result.is_error
    assert "action=show needs proposal_id" in text_of(result)


async def test_a_write_needing_review_answers_the_next_steps(keeper: LiveKeeper) -> None:
    herald = Herald(herald_settings(keeper, "agent"))
    try:
        async with Client(herald.mcp) as client:
            result = await client.call_tool(
                "lorebase_execute",
                {
                    "domain": "supply",
                    "operation": "flag_supplier_risk",
                    "parameters": flag("critical", "direct write"),
                },
            )
    finally:
        await herald.aclose()
    assert result.is_error
    text = text_of(result)
    assert "(409 review-required)" in text
    assert "next: " in text
