"""Each tool against a real Keeper: what the model reads, what the application gets."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client

from lorebase_herald import Herald

from .conftest import LiveKeeper, text_of

pytestmark = pytest.mark.anyio


async def call(client: Client, tool: str, **arguments: Any) -> tuple[str, dict[str, Any]]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, text_of(result)
    assert result.structured_content is not None
    return text_of(result), result.structured_content


async def test_schema_narrowed_to_kinds_lists_only_them_and_their_relations(mcp: Client) -> None:
    text, answer = await call(mcp, "lorebase_schema", domain="supply", kinds=["Supplier"])
    assert "## Kind Supplier" in text
    assert "## Kind Part" not in text
    assert [kind["name"] for kind in answer["result"]["kinds"]] == ["Supplier"]
    relations = {relation["name"] for relation in answer["result"]["relations"]}
    assert "supplied_by" in relations
    assert all(
        "Supplier" in (relation["from"], relation["to"])
        for relation in answer["result"]["relations"]
    )


async def test_schema_narrowed_to_a_lens_and_the_lenses_listed(mcp: Client) -> None:
    text, answer = await call(mcp, "lorebase_schema", domain="supply")
    assert "- supplier_risk: Kinds Supplier, Contract, Part, RiskFlag" in text
    text, answer = await call(mcp, "lorebase_schema", domain="supply", lens="supplier_risk")
    kinds = {kind["name"] for kind in answer["result"]["kinds"]}
    assert kinds == {"Supplier", "Contract", "Part", "RiskFlag"}


async def test_schema_narrowed_to_an_unknown_kind_names_the_known_ones(mcp: Client) -> None:
    result = await mcp.call_tool("lorebase_schema", {"domain": "supply", "kinds": ["Suplier"]})
    assert result.is_error
    assert "'Suplier'" in text_of(result)
    assert "Supplier" in text_of(result).split("Kinds:")[1]


async def test_record_answers_values_link_counts_and_lineage(mcp: Client) -> None:
    text, answer = await call(
        mcp, "lorebase_record", domain="supply", kind="Supplier", key="S-1001", lineage=True
    )
    assert "# Supplier/S-1001 Kavsen Alloys Sp. z o.o. in supply/main @ " in text
    assert "- risk_score: 90" in text
    assert "supplies=4" in text
    assert "## Lineage" in text
    assert answer["revision"] == answer["result"]["revision"]
    assert answer["result"]["values"]["city"] == "Poznan"


async def test_record_at_an_old_revision_reads_that_state(mcp: Client, keeper: LiveKeeper) -> None:
    first = keeper.store.log("supply", limit=100)[-1].id
    text, answer = await call(
        mcp, "lorebase_record", domain="supply", kind="Supplier", key="S-1001", at=first[:12]
    )
    assert answer["revision"] == first
    assert "- risk_score: 90" not in text


async def test_query_with_a_filter_and_coverage(mcp: Client) -> None:
    text, answer = await call(
        mcp,
        "lorebase_query",
        domain="supply",
        kind="Supplier",
        where={
            "and": [
                {"attr": "tier", "op": "eq", "value": 1},
                {"attr": "risk_score", "op": "gte", "value": 70},
            ]
        },
        select=["legal_name", "risk_score"],
    )
    assert "Supplier/S-1001" in text
    assert "\ncoverage: Supplier: 30 Records" in text
    assert answer["shown"] == answer["total"] == len(answer["result"]["records"])
    assert "Supplier: 30 Records" in answer["notes"]


async def test_query_aggregate_counts_per_value(mcp: Client) -> None:
    text, answer = await call(
        mcp,
        "lorebase_query",
        domain="supply",
        kind="PurchaseOrder",
        aggregate={"group_by": "status"},
    )
    assert "- open: count=15" in text
    assert {group["key"] for group in answer["result"]["groups"]} == {
        "open",
        "received",
        "cancelled",
    }


async def test_an_empty_answer_echoes_its_scope_and_coverage(mcp: Client) -> None:
    text, answer = await call(
        mcp,
        "lorebase_query",
        domain="supply",
        kind="Part",
        where={"attr": "name", "op": "contains", "value": "bering"},
    )
    assert answer["empty"] is True
    assert answer["scope"]["kinds"] == ["Part"]
    assert answer["scope"]["domain"] == "supply"
    assert answer["scope"]["branch"] == "main"
    assert answer["scope"]["revision"] == answer["revision"]
    assert "Part: 40 Records" in answer["notes"]
    assert "No Records matched in supply/main @ " in text
    assert "Part: 40 Records" in text
    closest = "no Part has name containing 'bering'; 'bearing' is in the name of 4 Records"
    assert closest in answer["notes"]
    assert closest in text


async def test_search_corrects_the_spelling(mcp: Client) -> None:
    text, answer = await call(mcp, "lorebase_search", domain="supply", q="bering", kinds=["Part"])
    assert "bearing" in text.lower()
    assert all(hit["kind"] == "Part" for hit in answer["result"]["hits"])


async def test_search_shows_how_it_read_the_text(mcp: Client) -> None:
    text, _ = await call(mcp, "lorebase_search", domain="supply", q="supplier S-1007")
    assert "read as: Kinds Supplier; terms s-1007" in text
    assert "Supplier/S-1007" in text
    empty, _ = await call(mcp, "lorebase_search", domain="supply", q="zzqxv", kinds=["Part"])
    assert "note: 'zzqxv' matched nothing in Part" in empty
    assert "note: nothing found: POST /resolve" in empty


async def test_resolve_grounds_words_and_names_what_it_could_not(mcp: Client) -> None:
    text, answer = await call(
        mcp, "lorebase_resolve", domain="supply", text="tier-1 suppliers in Poland"
    )
    assert "-> kind" in text
    assert "unmatched:" in text
    assert any(item["target"] == "kind" for item in answer["result"]["candidates"])


async def test_resolve_suggests_a_query_to_run_as_is(mcp: Client) -> None:
    text, answer = await call(
        mcp, "lorebase_resolve", domain="supply", text="Which parts have a single supplier?"
    )
    assert "-> count" in text
    line = next(line for line in text.splitlines() if line.startswith('- {"kind"'))
    arguments = json.loads(line[2 : line.index(" (score")])
    assert arguments == answer["result"]["suggestions"][0]["query"]
    _, parts = await call(mcp, "lorebase_query", domain="supply", **arguments)
    keys = {record["key"] for record in parts["result"]["records"]}
    assert keys == {"P-10007", "P-10019", "P-10033"}


async def test_context_pack_in_markdown_within_the_budget(herald: Herald, mcp: Client) -> None:
    text, answer = await call(mcp, "lorebase_context", domain="supply", refs=["Supplier/S-1007"])
    assert text.startswith("# Context: supply/main")
    assert herald.budget.fits(text)
    assert answer["result"]["budget_tokens"] == herald.budget.max_tokens
    assert answer["revision"]


async def test_links_traverse_and_neighborhood_follow_relations(mcp: Client) -> None:
    text, answer = await call(
        mcp, "lorebase_links", domain="supply", kind="Supplier", key="S-1007", relation="supplies"
    )
    assert "-supplied_by-> Supplier/S-1007" in text
    text, answer = await call(
        mcp, "lorebase_traverse", domain="supply", start=["Supplier/S-1007"], path=["supplies"]
    )
    assert "Part/P-10007" in text
    assert answer["result"]["hops"][0]["to_kind"] == "Part"
    text, answer = await call(
        mcp, "lorebase_neighborhood", domain="supply", refs=["Supplier/S-1007"], depth=1
    )
    assert "## Neighbors" in text
    assert "Contract/C-3007" in text
    assert (
        "- Part/P-10007 -supplied_by-> Supplier/S-1007 (is_primary=true; lead_time_days=45)" in text
    )
    assert "(depth 1): contract_number=" not in text, "a neighbor's key is not repeated"


async def test_history_lineage_explain_of_a_contract(mcp: Client) -> None:
    text, answer = await call(
        mcp, "lorebase_history", domain="supply", kind="Contract", key="C-3013"
    )
    assert "Extend C-3013 by one year" in text
    assert len(answer["result"]["changes"]) == 3
    text, answer = await call(
        mcp, "lorebase_history", domain="supply", kind="Contract", key="C-3013", values=True
    )
    assert "[status: draft -> active]" in text
    for attributes in (["risk_score"], "risk_score"):
        text, answer = await call(
            mcp,
            "lorebase_history",
            domain="supply",
            key="Supplier/S-1001",
            attributes=attributes,
            values=True,
        )
        assert "[risk_score: 72 -> 90]" in text
        assert [change["attributes"] for change in answer["result"]["changes"]] == [
            ["risk_score"],
            ["risk_score"],
        ]
    text, answer = await call(
        mcp, "lorebase_lineage", domain="supply", kind="Supplier", key="S-1001"
    )
    assert "- risk_score: " in text
    text, answer = await call(
        mcp, "lorebase_explain", domain="supply", kind="Supplier", key="S-1001"
    )
    assert text.startswith("# Explain: Supplier/S-1001")


async def test_diff_between_the_import_and_the_head(mcp: Client, keeper: LiveKeeper) -> None:
    first = keeper.store.log("supply", limit=100)[-1].id
    text, _answer = await call(
        mcp, "lorebase_diff", domain="supply", from_revision=first, to_revision=keeper.head
    )
    assert "Supplier/S-1001 modified: risk_score: 72 -> 90" in text


async def test_health_of_one_kind(mcp: Client) -> None:
    text, answer = await call(mcp, "lorebase_health", domain="supply", kind="Supplier")
    assert "Supplier" in text
    assert answer["result"]["kind"] == "Supplier"


async def test_changes_answer_the_feed_oldest_first(mcp: Client) -> None:
    text, answer = await call(mcp, "lorebase_changes", domain="supply", branch="main", limit=2)
    assert text.startswith("# Changes of supply/main, oldest first\n")
    assert (
        "by usr_editor: Activate C-3013 after countersignature (Kinds Contract 1 (C-3013);" in text
    )
    assert f"next_since: {answer['result']['next_since']}" in text
    events = answer["result"]["events"]
    assert len(events) == 2
    assert events[0]["sequence"] < events[1]["sequence"]
    # a page cut by limit says how to go on; since the last Revision, nothing new
    first = await call(mcp, "lorebase_changes", domain="supply", branch="main", limit=100)
    since = first[1]["result"]["events"][0]["revision"]
    cut, _ = await call(
        mcp, "lorebase_changes", domain="supply", branch="main", since=since, limit=1
    )
    assert "more: this page was cut; call again with since=next_since at once." in cut
    head = answer["result"]["next_since"]
    nothing, _ = await call(mcp, "lorebase_changes", domain="supply", branch="main", since=head)
    assert "No Revisions after since." in nothing


async def test_operations_describe_parameters_and_review(mcp: Client) -> None:
    text, answer = await call(
        mcp, "lorebase_operations", domain="supply", name="flag_supplier_risk"
    )
    assert "## flag_supplier_risk" in text
    assert "- severity: Required. One of 'low', 'medium', 'high', 'critical'" in text
    assert "review: " in text
    text, answer = await call(mcp, "lorebase_operations", domain="supply")
    names = {operation["name"] for operation in answer["result"]["operations"]}
    assert {"update_supplier", "flag_supplier_risk"} <= names


async def test_a_record_may_be_named_by_its_ref_and_blank_options_are_not_given(
    mcp: Client,
) -> None:
    _text, answer = await call(
        mcp,
        "lorebase_history",
        domain="supply",
        key="Contract/C-3013",
        branch="",
        at="",
        cursor="",
    )
    assert answer["result"]["ref"] == "Contract/C-3013"
    _text, answer = await call(
        mcp, "lorebase_record", domain="supply", kind="Part", key="Part/P-10028"
    )
    assert answer["result"]["key"] == "P-10028"
    result = await mcp.call_tool("lorebase_lineage", {"domain": "supply", "key": "S-1001"})
    assert result.is_error
    assert "written Kind/key" in text_of(result)
