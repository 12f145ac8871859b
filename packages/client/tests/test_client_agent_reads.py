"""Context packs, search, resolve and health through the clients and the CLI, on a live Keeper."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from lorebase_client import AsyncLorebaseClient, LorebaseClient, Text
from lorebase_client.cli import main
from lorebase_core.errors import InvalidInput, KindNotFound

BEARINGS = ["Part/P-10004", "Part/P-10012", "Part/P-10023", "Part/P-10036"]


def test_a_context_pack_as_json_and_as_markdown(admin: LorebaseClient) -> None:
    pack = admin.context("supply", refs=["Supplier/S-1001"], depth=1, budget_tokens=1500)
    assert [seed["ref"] for seed in pack["seeds"]] == ["Supplier/S-1001"]
    assert pack.revision == pack["revision"]
    assert pack["budget"]["limit_tokens"] == 1500
    again = admin.context(
        "supply", refs=["Supplier/S-1001"], depth=1, budget_tokens=1500, etag=pack.etag
    )
    assert again.not_modified
    text = admin.context_markdown("supply", lens="supplier_risk", refs=["Supplier/S-1001"])
    assert isinstance(text, Text)
    assert text.startswith("# Context: supply/main\n")


def test_a_context_pack_needs_exactly_one_selector(admin: LorebaseClient) -> None:
    with pytest.raises(InvalidInput):
        admin.context("supply", refs=["Supplier/S-1001"], search="bearing")
    with pytest.raises(TypeError, match="unknown context options"):  # the overloads' `format`
        admin.context("supply", refs=["Supplier/S-1001"], format="markdown")  # type: ignore[call-arg]


def test_search_corrects_a_misspelling(admin: LorebaseClient) -> None:
    answer = admin.search("supply", "bering", kinds=["Part"])
    assert answer["corrected"] == [{"from": "bering", "to": "bearing"}]
    assert sorted(hit["ref"] for hit in answer["hits"]) == BEARINGS


def test_resolve_and_health(admin: LorebaseClient) -> None:
    answer = admin.resolve("supply", "open purchase orders", record_misses=False)
    kinds = {candidate["kind"] for candidate in answer["candidates"]}
    assert "PurchaseOrder" in kinds
    health = admin.health("supply")
    assert health["summary"]["ok"] is True
    report = admin.health("supply", "Supplier", format="markdown")
    assert report.startswith("# Health of Supplier in supply on main")
    with pytest.raises(KindNotFound):
        admin.health("supply", "Nope")


@pytest.mark.anyio
async def test_the_async_client_reads_the_same(
    async_admin: AsyncLorebaseClient, admin: LorebaseClient
) -> None:
    pack = await async_admin.context("supply", refs=["Supplier/S-1001"])
    assert pack == admin.context("supply", refs=["Supplier/S-1001"])
    markdown = await async_admin.context_markdown("supply", refs=["Supplier/S-1001"])
    assert markdown == admin.context_markdown("supply", refs=["Supplier/S-1001"])
    assert isinstance(markdown, Text)
    hits = await async_admin.search("supply", "bearing", kinds=["Part"])
    assert sorted(hit["ref"] for hit in hits["hits"]) == BEARINGS
    resolved = await async_admin.resolve("supply", "suppliers", record_misses=False)
    assert resolved["candidates"]
    text = await async_admin.health("supply", format="markdown")
    assert isinstance(text, Text)


def test_the_cli_agent_reads(env: dict[str, str | None]) -> None:
    runner = CliRunner()
    context = runner.invoke(
        main,
        ["context", "--lens", "supplier_risk", "--refs", "Supplier/S-1001", "--markdown"],
        env=env,
    )
    assert context.exit_code == 0, context.output
    assert context.stdout.startswith("# Context: supply/main")
    search = runner.invoke(main, ["search", "bering", "--kind", "Part"], env=env)
    assert search.exit_code == 0, search.output
    assert sorted(hit["ref"] for hit in json.loads(search.stdout)["hits"]) == BEARINGS
    resolve = runner.invoke(main, ["resolve", "suppliers", "--no-record-misses"], env=env)
    assert resolve.exit_code == 0, resolve.output
    health = runner.invoke(main, ["health", "Supplier", "--markdown"], env=env)
    assert health.exit_code == 0, health.output
    assert health.stdout.startswith("# Health of Supplier in supply on main")
    both = runner.invoke(main, ["context", "--refs", "Supplier/S-1001", "--search", "x"], env=env)
    assert both.exit_code == 2
