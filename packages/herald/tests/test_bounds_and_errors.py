"""Bounded answers and Keeper's problem documents as tool errors."""

from __future__ import annotations

import pytest
from mcp import Client

from lorebase_herald import Herald

from .conftest import LiveKeeper, herald_settings, text_of

pytestmark = pytest.mark.anyio


async def test_a_long_list_is_cut_at_a_record_and_says_how_to_get_the_rest(
    keeper: LiveKeeper,
) -> None:
    herald = Herald(herald_settings(keeper, max_result_tokens=400))
    try:
        async with Client(herald.mcp) as client:
            result = await client.call_tool(
                "lorebase_query", {"domain": "supply", "kind": "Supplier", "limit": 30}
            )
    finally:
        await herald.aclose()
    text = text_of(result)
    answer = result.structured_content
    assert answer is not None
    assert answer["truncated"] is True
    assert 0 < answer["shown"] < answer["total"] == 30
    assert len(answer["result"]["records"]) == answer["shown"]
    assert f"limit={answer['shown']}" in answer["more"]
    assert answer["more"] in text
    assert herald.budget.tokens(text) <= 400 + herald.budget.tokens(answer["more"]) + 2
    assert text.count("\n- Supplier/") == answer["shown"]


async def test_a_long_text_is_cut_at_a_line(keeper: LiveKeeper) -> None:
    herald = Herald(herald_settings(keeper, max_result_tokens=150))
    try:
        async with Client(herald.mcp) as client:
            result = await client.call_tool(
                "lorebase_explain", {"domain": "supply", "kind": "Supplier", "key": "S-1001"}
            )
    finally:
        await herald.aclose()
    text = text_of(result)
    assert result.structured_content is not None
    assert result.structured_content["truncated"] is True
    assert text.endswith("more lines cut to stay within the answer budget)")
    assert herald.budget.fits(text)


async def test_a_page_with_more_names_its_cursor(mcp: Client) -> None:
    result = await mcp.call_tool(
        "lorebase_links",
        {
            "domain": "supply",
            "kind": "Supplier",
            "key": "S-1001",
            "relation": "supplies",
            "limit": 2,
        },
    )
    answer = result.structured_content
    assert answer is not None
    cursor = answer["result"]["next_cursor"]
    assert cursor
    assert f"cursor={cursor}" in text_of(result)
    second = await mcp.call_tool(
        "lorebase_links",
        {
            "domain": "supply",
            "kind": "Supplier",
            "key": "S-1001",
            "relation": "supplies",
            "limit": 2,
            "cursor": cursor,
        },
    )
    assert second.structured_content is not None
    first_page = {link["from"] for link in answer["result"]["links"]}
    second_page = {link["from"] for link in second.structured_content["result"]["links"]}
    assert first_page.isdisjoint(second_page)


async def test_an_unknown_record_is_a_tool_error_with_the_problem(mcp: Client) -> None:
    result = await mcp.call_tool(
        "lorebase_record", {"domain": "supply", "kind": "Supplier", "key": "S-9999"}
    )
    assert result.is_error
    assert "(404 record-not-found)" in text_of(result)
    assert result.structured_content is not None
    assert result.structured_content["problem"]["code"] == "record-not-found"


async def test_a_misspelt_kind_says_what_it_meant(mcp: Client) -> None:
    result = await mcp.call_tool("lorebase_query", {"domain": "supply", "kind": "Suplier"})
    assert result.is_error
    assert "did you mean 'Supplier'" in text_of(result)


async def test_an_invalid_predicate_lists_the_issues(mcp: Client) -> None:
    result = await mcp.call_tool(
        "lorebase_query",
        {
            "domain": "supply",
            "kind": "Supplier",
            "where": {"attr": "tier", "op": "near", "value": 1},
        },
    )
    assert result.is_error
    assert "issues: [" in text_of(result)


async def test_bad_arguments_are_refused_before_keeper_is_asked(mcp: Client) -> None:
    result = await mcp.call_tool("lorebase_record", {"domain": "supply", "kind": "Supplier"})
    assert result.is_error
    assert "key" in text_of(result)


async def test_a_keeper_that_does_not_answer_is_a_tool_error(keeper: LiveKeeper) -> None:
    settings = herald_settings(keeper)
    section = settings.herald.model_dump()
    section["keeper"]["base_url"] = "http://127.0.0.1:9"
    herald = Herald(
        settings.model_copy(update={"herald": type(settings.herald).model_validate(section)})
    )
    try:
        async with Client(herald.mcp) as client:
            result = await client.call_tool("lorebase_schema", {"domain": "supply"})
    finally:
        await herald.aclose()
    assert result.is_error
    assert "Keeper at http://127.0.0.1:9 did not answer" in text_of(result)
    assert keeper.keys["admin"] not in text_of(result)


async def test_a_cut_schema_says_to_narrow_it(keeper: LiveKeeper) -> None:
    herald = Herald(herald_settings(keeper, max_result_tokens=600))
    try:
        async with Client(herald.mcp) as client:
            result = await client.call_tool("lorebase_schema", {"domain": "supply"})
    finally:
        await herald.aclose()
    answer = result.structured_content
    assert answer is not None
    assert answer["truncated"] is True
    assert answer["shown"] < answer["total"] == 6
    assert "narrow it with kinds=[...]" in answer["more"]
    assert "limit=" not in answer["more"]


async def test_a_key_the_client_cannot_send_is_a_tool_error_not_a_crash(mcp: Client) -> None:
    result = await mcp.call_tool(
        "lorebase_record", {"domain": "supply", "kind": "Supplier", "key": ".."}
    )
    assert result.is_error
    assert text_of(result).startswith("The call cannot be sent to Keeper (400 ")
