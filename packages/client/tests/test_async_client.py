"""`AsyncLorebaseClient`: the same reads, awaited, over real HTTP and over ASGITransport."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

import httpx
import pytest

from lorebase_client import Answer, AsyncLorebaseClient, Text
from lorebase_keeper.app import create_app
from lorebase_platform.settings import Settings

if TYPE_CHECKING:
    from conftest import LiveKeeper

pytestmark = pytest.mark.anyio


async def test_whoami_and_domains(async_admin: AsyncLorebaseClient) -> None:
    assert (await async_admin.whoami())["principal"] == "usr_admin"
    domains = await async_admin.domains()
    assert [domain["name"] for domain in domains["domains"]] == ["notes", "supply"]


async def test_schema_and_records(async_admin: AsyncLorebaseClient, keeper: LiveKeeper) -> None:
    schema = await async_admin.schema("supply", at="v1")
    assert schema.revision == keeper.supply_head
    page = await async_admin.records("supply", "Plant", limit=2)
    assert [record["key"] for record in page["records"]] == ["PL-01", "PL-02"]


async def test_schema_compact_and_markdown(async_admin: AsyncLorebaseClient) -> None:
    compact = await async_admin.schema("supply", format="compact", kinds=["Supplier"])
    assert [kind["name"] for kind in compact["kinds"]] == ["Supplier"]
    assert compact["relations"] == []
    text = await async_admin.schema("supply", format="markdown", kinds=["Part", "Plant"])
    assert "- stocked_at: Part -> Plant; inverse stocks; many_to_many" in str(text)


async def test_iter_records_follows_next_cursor(async_admin: AsyncLorebaseClient) -> None:
    keys = [
        record["key"] async for record in async_admin.iter_records("supply", "Part", page_size=9)
    ]
    assert len(keys) == 40
    assert keys == sorted(set(keys))


async def test_a_record_its_links_history_and_lineage(async_admin: AsyncLorebaseClient) -> None:
    supplier = await async_admin.record("supply", "Supplier", "S-1001", links=True, lineage=True)
    assert supplier["values"]["risk_score"] == "90"
    assert supplier["links"]["supplies"] == 4
    links = await async_admin.links("supply", "Part", "P-10028", "supplied_by")
    assert "Supplier/S-1001" in [link["to"] for link in links["links"]]
    walked = [
        link
        async for link in async_admin.iter_links(
            "supply", "Part", "P-10028", "supplied_by", page_size=1
        )
    ]
    assert walked == links["links"]
    history = await async_admin.history("supply", "Contract", "C-3013", values=True)
    changes = [
        change
        async for change in async_admin.iter_history(
            "supply", "Contract", "C-3013", values=True, page_size=2
        )
    ]
    assert changes == history["changes"]
    lineage = await async_admin.lineage("supply", "Supplier", "S-1001")
    assert lineage["attributes"]["risk_score"]["actor"] == "usr_editor"


async def test_explain_as_json_and_markdown(async_admin: AsyncLorebaseClient) -> None:
    document = await async_admin.explain("supply", "Supplier", "S-1001")
    assert isinstance(document, Answer)
    text = await async_admin.explain("supply", "Supplier", "S-1001", format="markdown")
    assert isinstance(text, Text)
    assert text.startswith("# Explain: Supplier/S-1001")
    again = await async_admin.explain(
        "supply", "Supplier", "S-1001", format="markdown", etag=text.etag
    )
    assert again.not_modified
    assert again == ""


async def test_a_conditional_read(async_admin: AsyncLorebaseClient) -> None:
    answer = await async_admin.lineage("supply", "Contract", "C-3013")
    again = await async_admin.lineage("supply", "Contract", "C-3013", etag=answer.etag)
    assert again.not_modified
    assert again.revision == answer.revision


async def test_diff_branches_and_tags(async_admin: AsyncLorebaseClient, keeper: LiveKeeper) -> None:
    diff = await async_admin.diff("supply", "import/2026-10-01", keeper.supply_head)
    assert "Supplier/S-1001" in [entry["ref"] for entry in diff["records"]]
    name = f"async/{uuid.uuid4().hex[:8]}"
    created = await async_admin.create_branch("supply", name, mode="overlay")
    assert created.status_code == 201
    assert (await async_admin.branch("supply", name))["head"] == keeper.supply_head
    branches = await async_admin.branches("supply")
    assert name in [branch["name"] for branch in branches["branches"]]
    assert (await async_admin.tag("supply", "v1"))["id"] == keeper.supply_head
    assert len((await async_admin.tags("supply"))["tags"]) == 2


async def test_keys_are_percent_encoded(
    async_admin: AsyncLorebaseClient, keeper: LiveKeeper
) -> None:
    for key in keeper.note_keys.values():
        note = await async_admin.record("notes", "Note", key)
        assert note["key"] == key


async def test_in_process_over_asgi_transport(keeper: LiveKeeper) -> None:
    app = create_app(Settings(keeper={"auth": {"mode": "none"}}), store=keeper.store)
    transport = httpx.ASGITransport(app=app)
    async with AsyncLorebaseClient("http://keeper.test", transport=transport) as client:
        assert (await client.whoami())["principal"] == "local-admin"
        supplier = await client.record("supply", "Supplier", "S-1001")
        assert supplier["title"] == "Kavsen Alloys Sp. z o.o."
        note = await client.record("notes", "Note", keeper.note_keys["slash"])
        assert note["key"] == keeper.note_keys["slash"]
