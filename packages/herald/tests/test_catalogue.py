"""The tool catalogue as an MCP client lists it: names, descriptions, schemas, hints."""

from __future__ import annotations

import pytest
from mcp import Client

from lorebase_herald import READ_TOOLS, WRITE_TOOLS, Herald

from .conftest import LiveKeeper, herald_settings

pytestmark = pytest.mark.anyio


async def test_every_tool_is_listed_with_a_description_for_a_model(mcp: Client) -> None:
    tools = {tool.name: tool for tool in (await mcp.list_tools()).tools}
    assert set(tools) == {*READ_TOOLS, *WRITE_TOOLS}
    for name, tool in tools.items():
        description = tool.description or ""
        assert "Example: {" in description, name
        assert len(description) < 1200, name
        assert tool.input_schema["type"] == "object", name
        assert tool.output_schema is not None, name
        assert {"tool", "truncated", "result"} <= set(tool.output_schema["properties"]), name
        assert tool.annotations is not None, name


async def test_reads_are_read_only_and_writes_say_they_write(mcp: Client) -> None:
    tools = {tool.name: tool for tool in (await mcp.list_tools()).tools}
    for name in READ_TOOLS:
        hints = tools[name].annotations
        assert hints is not None
        assert hints.read_only_hint is True, name
        assert hints.destructive_hint is False, name
    for name in ("lorebase_execute", "lorebase_proposal"):
        hints = tools[name].annotations
        assert hints is not None
        assert hints.read_only_hint is False
        assert hints.destructive_hint is True
        assert hints.idempotent_hint is False


async def test_reads_of_records_take_branch_and_at(mcp: Client) -> None:
    tools = {tool.name: tool for tool in (await mcp.list_tools()).tools}
    for name in (
        "lorebase_schema",
        "lorebase_resolve",
        "lorebase_query",
        "lorebase_record",
        "lorebase_links",
        "lorebase_traverse",
        "lorebase_neighborhood",
        "lorebase_history",
        "lorebase_lineage",
        "lorebase_explain",
        "lorebase_health",
    ):
        properties = tools[name].input_schema["properties"]
        assert {"branch", "at"} <= set(properties), name
    assert "lens" in tools["lorebase_context"].input_schema["properties"]
    assert "lens" in tools["lorebase_search"].input_schema["properties"]
    assert "lens" in tools["lorebase_schema"].input_schema["properties"]
    execute = tools["lorebase_execute"].input_schema["properties"]
    assert {"dry_run", "task", "intent", "idempotency_key", "expected_head", "auto_merge"} <= set(
        execute
    )


async def test_a_read_only_herald_lists_no_write_tool_and_refuses_them(
    keeper: LiveKeeper,
) -> None:
    branches = {branch.name for branch in keeper.store.branches("supply")}
    head = keeper.store.log("supply", limit=1)[0].id
    herald = Herald(herald_settings(keeper, "agent", read_only=True))
    try:
        async with Client(herald.mcp) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert names == set(READ_TOOLS)
            result = await client.call_tool(
                "lorebase_execute",
                {
                    "domain": "supply",
                    "operation": "flag_supplier_risk",
                    "parameters": {"supplier": "S-1001", "severity": "low", "reason": "test"},
                },
            )
            assert result.is_error
    finally:
        await herald.aclose()
    assert keeper.store.log("supply", limit=1)[0].id == head
    assert {branch.name for branch in keeper.store.branches("supply")} == branches
