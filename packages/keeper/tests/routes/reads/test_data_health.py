"""GET /health and /kinds/{kind}/health (agents.md section 6), JSON and Markdown.

The damaged copy of the supply example is built by `damage_supply` (packages/store/tests/
test_health.py): a permissive import, then the strict schema, then Plant PL-01 deleted by a direct
row delete so that the Links to it are orphans.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from packages.store.tests.test_health import damage_supply

from lorebase_keeper.app import create_app
from lorebase_keeper.testing import Keys, assert_problem, make_keys
from lorebase_platform.settings import Settings
from lorebase_store import Store

SUPPLY = "/api/v1/domains/supply"
pytestmark = pytest.mark.anyio


@pytest.fixture
async def damaged(store: Store, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    """An admin's client of Keeper over the damaged copy, sampling past 20 Records."""
    damage_supply(store, tmp_path)
    keys = make_keys(store)
    settings = Settings(
        keeper={"auth": {"mode": "api_key", "authz": {"grants_cache_ttl_s": 0}}},
        read={"health": {"max_records_validated": 40, "max_examples": 2}},
    )
    transport = httpx.ASGITransport(app=create_app(settings, store=store))
    async with httpx.AsyncClient(
        transport=transport, base_url="http://keeper.test", headers=Keys.header(keys.admin)
    ) as client:
        yield client


async def test_the_supply_example_is_healthy(http: httpx.AsyncClient) -> None:
    response = await http.get(f"{SUPPLY}/health")
    assert response.status_code == 200
    document = response.json()
    assert document["revision"] == response.headers["Lorebase-Revision"]
    assert document["summary"] == {
        "ok": True,
        "kinds": 6,
        "records": 147,
        "links": 253,
        "invalid_records": 0,
        "orphan_links": 0,
        "required_gaps": 0,
        "duplicate_groups": 0,
        "unique_duplicate_groups": 0,
        "kinds_with_stale_derived": 0,
    }
    assert [kind["kind"] for kind in document["kinds"]] == [
        "Contract",
        "Part",
        "Plant",
        "PurchaseOrder",
        "RiskFlag",
        "Supplier",
    ]
    markdown = (await http.get(f"{SUPPLY}/health", params={"format": "markdown"})).text
    assert markdown.startswith(
        f"# Health of supply on main\nrevision {document['revision'][:12]}\n\n"
        "healthy: 6 kinds, 147 records, 253 links\n"
        "- invalid records: 0; orphan links: 0; required-relation gaps: 0; duplicate groups: 0; "
        "kinds with stale derived values: 0\n\n## Kinds\n"
    )
    assert "| stocked_at | Part -> Plant | 48 | 0 |  |  |" in markdown
    assert "| for_part | PurchaseOrder -> Part | 50 | 0 | 0 |  |" in markdown


async def test_a_damaged_copy_needs_attention(damaged: httpx.AsyncClient) -> None:
    document = (await damaged.get(f"{SUPPLY}/health")).json()
    assert document["summary"] == {
        "ok": False,
        "kinds": 6,
        "records": 146,
        "links": 252,
        "invalid_records": 2,
        "orphan_links": 3,
        "required_gaps": 1,
        "duplicate_groups": 2,
        "unique_duplicate_groups": 1,
        "kinds_with_stale_derived": 1,
    }
    kinds = {kind["kind"]: kind for kind in document["kinds"]}
    supplier = kinds["Supplier"]
    assert (supplier["records"], supplier["checked"], supplier["sampled"]) == (30, 30, False)
    assert supplier["violations"] == [
        {"rule": "value.pattern", "attribute": "country", "count": 1, "examples": ["S-1003"]},
        {"rule": "value.required", "attribute": "legal_name", "count": 1, "examples": ["S-1004"]},
    ]
    assert supplier["duplicates"] == [
        {
            "attribute": "vat_number",
            "unique": True,
            "title": False,
            "sensitive": True,
            "group_count": 1,
            "groups": [{"keys": ["S-1002", "S-1006"], "count": 2}],  # no value: confidential
        }
    ]
    assert supplier["derived"] == {"stale": {"risk_band": 30}}
    part_names = kinds["Part"]["duplicates"][0]
    assert (part_names["attribute"], part_names["unique"], part_names["title"]) == (
        "name",
        False,
        True,
    )
    assert part_names["groups"][0]["keys"] == ["P-10001", "P-10002"]
    assert "value" in part_names["groups"][0]
    assert (kinds["PurchaseOrder"]["checked"], kinds["PurchaseOrder"]["sampled"]) == (40, True)
    relations = {relation["relation"]: relation for relation in document["relations"]}
    assert relations["for_part"] == {
        "relation": "for_part",
        "from": "PurchaseOrder",
        "to": "Part",
        "links": 49,
        "orphans": 0,
        "orphan_examples": [],
        "required_from": True,
        "gaps": 1,
        "gap_examples": ["PO-200001"],
    }
    stocked_at = relations["stocked_at"]
    assert (stocked_at["orphans"], stocked_at["gaps"], stocked_at["required_from"]) == (
        3,
        None,
        False,
    )
    assert {pair["to"] for pair in stocked_at["orphan_examples"]} == {"PL-01"}


async def test_the_markdown_of_a_damaged_copy(damaged: httpx.AsyncClient) -> None:
    response = await damaged.get(f"{SUPPLY}/health", params={"format": "markdown"})
    assert response.headers["content-type"].startswith("text/markdown")
    revision = response.headers["Lorebase-Revision"]
    text = response.text
    orphans = (await damaged.get(f"{SUPPLY}/health")).json()["relations"]
    pairs = next(r for r in orphans if r["relation"] == "stocked_at")["orphan_examples"]
    assert text.startswith(
        f"# Health of supply on main\nrevision {revision[:12]}\n\n"
        "needs attention: 6 kinds, 146 records, 252 links\n"
        "- invalid records: 2; orphan links: 3; required-relation gaps: 1; duplicate groups: 2; "
        "kinds with stale derived values: 1\n\n"
        "## Kinds\n"
        "| kind | records | invalid | duplicate groups | derived | last change |\n"
        "| --- | --- | --- | --- | --- | --- |\n"
    )
    assert "\n| Plant | 4 | 0 | 0 |  | " in text
    assert "\n| Supplier | 30 | 2 | 1 | risk_band 30 stale | " in text
    assert (
        "\n### Supplier: violations (2 of 30 Records checked)\n"
        "- value.pattern on country: 1 (e.g. S-1003)\n"
        "- value.required on legal_name: 1 (e.g. S-1004)\n"
        "### Supplier: duplicates (1 group)\n"
        "- vat_number [unique]: S-1002, S-1006 (2)\n"
    ) in text
    assert "### Part: duplicates (1 group)\n- name [title]: P-10001, P-10002 (2)\n" in text
    assert "DE281746350" not in text
    shown = ", ".join(f"{pair['from']}->{pair['to']}" for pair in pairs)
    assert text.endswith(
        "\n## Relations\n"
        "| relation | ends | links | orphans | gaps | side |\n"
        "| --- | --- | --- | --- | --- | --- |\n"
        "| flags | RiskFlag -> Supplier | 7 | 0 | 0 |  |\n"
        "| for_part | PurchaseOrder -> Part | 49 | 0 | 1 |  |\n"
        "| ordered_from | PurchaseOrder -> Supplier | 50 | 0 | 0 |  |\n"
        "| stocked_at | Part -> Plant | 48 | 3 |  |  |\n"
        "| supplied_by | Part -> Supplier | 83 | 0 |  |  |\n"
        "| with_supplier | Contract -> Supplier | 15 | 0 | 0 |  |\n"
        "- for_part required, missing for: PO-200001\n"
        f"- stocked_at orphans: {shown}\n"
    )


async def test_one_kind_with_its_relations(damaged: httpx.AsyncClient) -> None:
    document = (await damaged.get(f"{SUPPLY}/kinds/PurchaseOrder/health")).json()
    assert document["kind"] == "PurchaseOrder"
    assert [kind["kind"] for kind in document["kinds"]] == ["PurchaseOrder"]
    assert [relation["relation"] for relation in document["relations"]] == [
        "for_part",
        "ordered_from",
    ]
    assert (document["summary"]["ok"], document["summary"]["required_gaps"]) == (False, 1)
    markdown = (
        await damaged.get(f"{SUPPLY}/kinds/Plant/health", params={"format": "markdown"})
    ).text
    assert markdown.startswith("# Health of Plant in supply on main\n")
    assert "needs attention: 1 kinds, 4 records, 48 links" in markdown


async def test_a_grant_narrowed_to_kinds_sees_those_kinds_only(
    http: httpx.AsyncClient, keys: Keys
) -> None:
    narrowed = Keys.header(keys.supplier)
    document = (await http.get(f"{SUPPLY}/health", headers=narrowed)).json()
    assert [kind["kind"] for kind in document["kinds"]] == ["Supplier"]
    assert document["relations"] == []
    assert document["summary"]["records"] == 30
    assert (await http.get(f"{SUPPLY}/kinds/Supplier/health", headers=narrowed)).status_code == 200
    assert_problem(
        await http.get(f"{SUPPLY}/kinds/Part/health", headers=narrowed), 404, "kind-not-found"
    )
    assert_problem(await http.get(f"{SUPPLY}/kinds/Nope/health"), 404, "kind-not-found")
    assert_problem(
        await http.get(f"{SUPPLY}/health", params={"format": "yaml"}), 422, "invalid-input"
    )


async def test_at_an_earlier_revision(damaged: httpx.AsyncClient, store: Store) -> None:
    earlier = store.log("supply", limit=2)[1].id
    response = await damaged.get(f"{SUPPLY}/health", params={"at": earlier[:12]})
    document = response.json()
    assert document["revision"] == earlier
    assert document["summary"]["invalid_records"] == 0  # under the permissive schema of then
    assert document["summary"]["orphan_links"] == 3  # the row was deleted in every version
    assert document["summary"]["kinds_with_stale_derived"] == 0


async def test_answers_carry_an_etag_and_honour_if_none_match(http: httpx.AsyncClient) -> None:
    first = await http.get(f"{SUPPLY}/health")
    etag = first.headers["ETag"]
    again = await http.get(f"{SUPPLY}/health", headers={"If-None-Match": etag})
    assert again.status_code == 304
    assert again.headers["ETag"] == etag
    markdown = await http.get(f"{SUPPLY}/health", params={"format": "markdown"})
    assert markdown.headers["ETag"] != etag
    assert (await http.get(f"{SUPPLY}/health")).content == first.content
