"""POST /context: the examples of agents.md section 1 as written, budgets, lenses, errors."""

from __future__ import annotations

import json
import math
from typing import Any

import httpx
import pytest

from lorebase_keeper.app import create_app
from lorebase_keeper.testing import Keys, assert_problem
from lorebase_platform.settings import TRIM_STEPS, Settings
from lorebase_store import Store

pytestmark = pytest.mark.anyio
CONTEXT = "/api/v1/domains/supply/context"
SPEC_JSON = {"refs": ["Supplier/S-1001"], "depth": 1, "budget_tokens": 1500, "format": "json"}
SPEC_LENS = {"lens": "supplier_risk", "refs": ["Supplier/S-1001"]}
BIG = 32000


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def tokens(text: str) -> int:
    return math.ceil(len(text) / 4.0)


async def pack(http: httpx.AsyncClient, body: dict[str, Any], **headers: str) -> dict[str, Any]:
    response = await http.post(CONTEXT, json=body, headers=headers)
    assert response.status_code == 200, response.text
    document: dict[str, Any] = response.json()
    return document


def check_tokens(document: dict[str, Any]) -> None:
    budget = document["budget"]
    for name, count in budget["sections"].items():
        assert count == tokens(dumps(document[name])), name
    assert budget["used_tokens"] == sum(budget["sections"].values())


async def test_the_spec_json_example_as_written(http: httpx.AsyncClient) -> None:
    response = await http.post(CONTEXT, json=SPEC_JSON)
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    document = response.json()
    assert document["etag"] == response.headers["ETag"]
    assert document["revision"] == response.headers["Lorebase-Revision"]
    assert list(document)[:4] == ["domain", "branch", "revision", "etag"]
    assert (document["domain"], document["branch"]) == ("supply", "main")
    [seed] = document["seeds"]
    assert seed["ref"] == "Supplier/S-1001"
    assert seed["title"] == "Kavsen Alloys Sp. z o.o."
    assert {
        "supplier_code": "S-1001",
        "legal_name": "Kavsen Alloys Sp. z o.o.",
        "city": "Poznan",
        "country": "PL",
        "risk_score": "90",
        "status": "active",
        "tier": "1",
    }.items() <= seed["values"].items()
    assert len(seed["updated_revision"]) == 64
    neighbors = {neighbor["ref"]: neighbor for neighbor in document["neighbors"]}
    assert neighbors["Contract/C-3001"]["depth"] == 1
    assert neighbors["Contract/C-3001"]["title"] == (
        "Framework supply agreement 2023 - Kavsen Alloys Sp. z o.o."
    )
    part = neighbors["Part/P-10028"]
    assert (part["title"], part["depth"]) == ("Radial shaft seal 25x42x7", 1)
    assert set(part) <= {"ref", "title", "depth", "values"}
    assert {"from": "Part/P-10028", "to": "Supplier/S-1001"} | {
        "values": {"is_primary": True, "lead_time_days": "21"}
    } in document["links"]["supplied_by"]
    assert {"from": "Contract/C-3001", "to": "Supplier/S-1001"} in document["links"][
        "with_supplier"
    ]
    budget = document["budget"]
    assert budget["limit_tokens"] == 1500
    assert budget["chars_per_token"] == 4.0
    assert budget["used_tokens"] <= 1500
    assert budget["over_budget"] is False
    assert budget["capped"] is False
    assert budget["omitted"] == {}
    # the supply data makes this pack larger than the spec's abbreviated one: it is trimmed in order
    steps = [entry["step"] for entry in budget["trimmed"]]
    assert steps == [step for step in TRIM_STEPS if step in steps]
    assert steps[:2] == ["lineage", "recent_changes"]
    check_tokens(document)


async def test_the_spec_lens_example_as_written(http: httpx.AsyncClient) -> None:
    document = await pack(http, SPEC_LENS)
    kinds = {neighbor["ref"].split("/")[0] for neighbor in document["neighbors"]}
    assert kinds <= {"Supplier", "Contract", "Part", "RiskFlag"}
    assert {"Contract/C-3001", "Part/P-10028"} <= {n["ref"] for n in document["neighbors"]}
    assert set(document["links"]) <= {"with_supplier", "supplied_by", "flags"}
    assert all(neighbor["depth"] == 1 for neighbor in document["neighbors"])
    [change] = [c for c in document["recent_changes"] if c["change"] == "modified"]
    assert change["ref"] == "Supplier/S-1001"
    assert change["attributes"] == ["risk_score"]
    assert change["message"] == "Raise the risk of S-1001"
    assert change["origin"] == "operation"
    assert change["revision"] == document["seeds"][0]["updated_revision"]
    assert document["budget"]["trimmed"] == []  # the lean pack fits the lens's budget
    lineage = (await pack(http, {**SPEC_LENS, "budget_tokens": BIG}))["lineage"]
    assert lineage[0] == {
        "ref": "Supplier/S-1001",
        "attributes": ["risk_score"],
        "origin": "operation",
        "actor": change["actor"],
        "at": change["at"],
    }
    assert document["budget"]["limit_tokens"] == 2000
    supplier = next(k for k in document["schema"]["kinds"] if k["name"] == "Supplier")
    assert supplier["description"] == "A company that supplies parts to Corvane Industries."
    assert supplier["key"] == ["supplier_code"]
    assert supplier["title"] == "legal_name"
    # descriptions once per Kind: the Attributes carry their names and types only
    assert {"name": "risk_score", "type": "integer"} in supplier["attributes"]
    assert all(set(attribute) == {"name", "type"} for attribute in supplier["attributes"])
    supplied_by = next(r for r in document["schema"]["relations"] if r["name"] == "supplied_by")
    assert {k: supplied_by[k] for k in ("inverse", "from", "to", "cardinality")} == {
        "inverse": "supplies",
        "from": "Part",
        "to": "Supplier",
        "cardinality": "many_to_many",
    }
    assert supplied_by["description"] == "A supplier can supply the part."
    check_tokens(document)


async def test_markdown_reads_like_the_spec(http: httpx.AsyncClient) -> None:
    response = await http.post(CONTEXT, json={**SPEC_LENS, "format": "markdown"})
    assert response.headers["content-type"] == "text/markdown; charset=utf-8"
    text = response.text
    lines = text.splitlines()
    revision = response.headers["Lorebase-Revision"]
    assert lines[0] == "# Context: supply/main"
    assert lines[1].startswith(f"revision {revision}; estimated ")
    assert lines[1].split("; ")[1].endswith(" of 2000 tokens")
    assert lines[2:5] == ["", "## Records", "### Supplier/S-1001: Kavsen Alloys Sp. z o.o."]
    # the key and title Attributes are the heading: their values are not repeated
    assert "- supplier_code: S-1001" not in lines
    assert "- legal_name: Kavsen Alloys Sp. z o.o." not in lines
    assert "- risk_score: 90" in lines
    assert any(line.startswith("- (last changed in ") and len(line) == 32 for line in lines)
    start = lines.index("## Neighbors")
    assert lines[start + 1 : start + 3] == [
        "| ref | title | depth | values |",
        "| --- | --- | --- | --- |",
    ]
    assert (
        "| Part/P-10028 | Radial shaft seal 25x42x7 | 1 | category=seal; unit_cost=24.01; "
        "unit=piece |"
    ) in lines
    assert "### supplied_by (Part -> Supplier)" in lines
    assert "- Part/P-10028 -> Supplier/S-1001 (is_primary=true; lead_time_days=21)" in lines
    kind = lines.index("### Kind Supplier")
    assert lines[kind + 1 : kind + 3] == [
        "A company that supplies parts to Corvane Industries.",
        "key: supplier_code; title: legal_name",
    ]
    assert "- risk_score (integer)" in lines
    assert not any(revision in line for line in lines[2:])  # 12 hex digits inside sections
    # the estimate is the sum over the exact text of each section
    blocks = text.split("\n\n")[1:]
    estimated = int(lines[1].split("; ")[1].split()[1])
    assert estimated == sum(tokens(block.rstrip("\n")) for block in blocks)


async def test_markdown_header_lists_what_was_trimmed(http: httpx.AsyncClient) -> None:
    text = (
        await http.post(CONTEXT, json={**SPEC_LENS, "format": "markdown"} | {"budget_tokens": 600})
    ).text
    header = text.splitlines()[1]
    assert "; trimmed: lineage(" in header
    assert header.split("trimmed: ")[1].split(", ")[1].startswith("recent_changes(")


async def test_budget_trims_in_order_as_little_as_needed(http: httpx.AsyncClient) -> None:
    body = {"refs": ["Supplier/S-1001"], "depth": 2}
    full = await pack(http, {**body, "budget_tokens": BIG})
    total = full["budget"]["used_tokens"]
    assert full["budget"]["trimmed"] == []
    assert any(neighbor["depth"] == 2 for neighbor in full["neighbors"])
    same = await pack(http, {**body, "budget_tokens": total})
    assert same["budget"]["trimmed"] == []
    one = await pack(http, {**body, "budget_tokens": total - 1})
    assert one["budget"]["trimmed"] == [{"step": "lineage", "count": 1}]
    assert one["lineage"] == full["lineage"][:-1]
    sections = full["budget"]["sections"]
    without_lineage = total - sections["lineage"] + tokens("[]")
    next_step = await pack(http, {**body, "budget_tokens": without_lineage - 1})
    trimmed = next_step["budget"]["trimmed"]
    assert trimmed[0] == {"step": "lineage", "count": len(full["lineage"])}
    assert trimmed[1]["step"] == "recent_changes"
    kept = len(full["recent_changes"]) - trimmed[1]["count"]
    assert next_step["recent_changes"] == full["recent_changes"][:kept]  # oldest went first
    # one change fewer removed would not fit: as little as needed
    assert next_step["budget"]["used_tokens"] <= without_lineage - 1
    check_tokens(next_step)
    far = await pack(http, {**body, "budget_tokens": total // 2})
    steps = [entry["step"] for entry in far["budget"]["trimmed"]]
    assert steps == [step for step in TRIM_STEPS if step in steps]
    check_tokens(far)


async def test_seeds_are_never_trimmed(http: httpx.AsyncClient) -> None:
    full = await pack(http, {"refs": ["Supplier/S-1001"], "budget_tokens": BIG})
    tiny = await pack(http, {"refs": ["Supplier/S-1001"], "budget_tokens": 10})
    assert tiny["seeds"] == full["seeds"]
    assert tiny["neighbors"] == []
    assert tiny["links"] == {}
    assert tiny["schema"] == {"kinds": [], "relations": []}
    assert tiny["budget"]["over_budget"] is True
    steps = [entry["step"] for entry in tiny["budget"]["trimmed"]]
    assert steps == [step for step in TRIM_STEPS if step in steps]
    assert "near_neighbors" in steps
    assert "schema" in steps
    check_tokens(tiny)


async def test_far_neighbors_lose_values_before_near_ones(http: httpx.AsyncClient) -> None:
    body = {
        "refs": ["Supplier/S-1001"],
        "depth": 2,
        "include_lineage": False,
        "include_recent_changes": False,
        "include_schema": False,
    }
    full = await pack(http, {**body, "budget_tokens": BIG})
    budget = full["budget"]["used_tokens"] - 1
    trimmed = await pack(http, {**body, "budget_tokens": budget})
    assert trimmed["budget"]["trimmed"] == [{"step": "far_neighbor_values", "count": 1}]
    stripped = [n for n in trimmed["neighbors"] if "values" not in n]
    assert len(stripped) == 1
    assert stripped[0]["depth"] == 2
    assert stripped[0]["ref"] == [n for n in full["neighbors"] if n["depth"] == 2][-1]["ref"]


async def test_graph_caps_and_capped_lens_values(supply: Store) -> None:
    settings = Settings(
        keeper={"auth": {"mode": "none"}},
        agents={"context": {"max_neighbors": 2, "max_depth": 0, "max_budget_tokens": 5000}},
    )
    transport = httpx.ASGITransport(app=create_app(settings, store=supply))
    async with httpx.AsyncClient(transport=transport, base_url="http://keeper.test") as http:
        lens = await pack(http, SPEC_LENS)  # the lens's depth 1 is served at 0
        assert lens["neighbors"] == []
        assert lens["budget"]["capped"] is True
        big = await pack(http, {"refs": ["Supplier/S-1001"], "budget_tokens": 99999, "depth": 0})
        assert big["budget"]["limit_tokens"] == 5000
        assert big["budget"]["capped"] is True
    settings = Settings(keeper={"auth": {"mode": "none"}}, agents={"context": {"max_neighbors": 2}})
    transport = httpx.ASGITransport(app=create_app(settings, store=supply))
    async with httpx.AsyncClient(transport=transport, base_url="http://keeper.test") as http:
        capped = await pack(http, {"refs": ["Supplier/S-1001"], "budget_tokens": BIG})
        assert len(capped["neighbors"]) == 2
        assert capped["budget"]["capped"] is True
        plain = await pack(http, {"refs": ["Supplier/S-1001"], "depth": 0})
        assert plain["budget"]["capped"] is False


async def test_request_members_win_over_the_lens(http: httpx.AsyncClient) -> None:
    seeds_only = await pack(http, {**SPEC_LENS, "depth": 0, "include_recent_changes": False})
    assert seeds_only["neighbors"] == []
    assert "recent_changes" not in seeds_only
    assert seeds_only["budget"]["omitted"] == {"recent_changes": "request"}
    parts = await pack(http, {**SPEC_LENS, "relations": ["supplies"], "budget_tokens": BIG})
    assert {n["ref"].split("/")[0] for n in parts["neighbors"]} == {"Part"}
    assert set(parts["links"]) == {"supplied_by"}


async def test_traits_replace_the_lens_kinds(http: httpx.AsyncClient) -> None:
    located = await pack(http, {**SPEC_LENS, "traits": ["Located"], "budget_tokens": BIG})
    assert located["neighbors"] == []
    assert located["links"] == {}
    assert [seed["ref"] for seed in located["seeds"]] == ["Supplier/S-1001"]  # refs are kept
    assert_problem(
        await http.post(CONTEXT, json={**SPEC_LENS, "traits": ["Nope"]}), 404, "trait-not-found"
    )


async def test_unknown_names(http: httpx.AsyncClient) -> None:
    assert_problem(await http.post(CONTEXT, json={**SPEC_LENS, "lens": "x"}), 422, "lens_unknown")
    body = {**SPEC_LENS, "relations": ["nope"]}
    assert_problem(await http.post(CONTEXT, json=body), 404, "relation-not-found")
    body = {"refs": ["Nope/1"]}
    assert_problem(await http.post(CONTEXT, json=body), 404, "kind-not-found")
    document = assert_problem(
        await http.post(CONTEXT, json={"refs": ["Supplier/S-9999"]}), 404, "record-not-found"
    )
    assert document["missing"] == ["Supplier/S-9999"]


async def test_a_narrowed_grant(http: httpx.AsyncClient, keys: Keys, supply: Store) -> None:
    supplier = Keys.header(keys.supplier)
    document = await pack(http, {**SPEC_LENS, "budget_tokens": BIG}, **supplier)
    assert document["neighbors"] == []
    assert document["links"] == {}
    assert [kind["name"] for kind in document["schema"]["kinds"]] == ["Supplier"]
    assert document["budget"]["omitted"] == {"recent_changes": "history-forbidden"}
    assert document["lineage"]
    response = await http.post(CONTEXT, json={"refs": ["Part/P-10028"]}, headers=supplier)
    assert_problem(response, 404, "kind-not-found")
    supply.ensure_principal("usr_plants", principal_type="user")
    plants = supply.create_key("usr_plants").secret
    supply.add_grant("usr_plants", domain="supply", role="viewer", kinds=["Plant"])
    response = await http.post(CONTEXT, json=SPEC_LENS, headers=Keys.header(plants))
    assert_problem(response, 422, "lens_unknown")


async def test_sensitive_values_are_masked(http: httpx.AsyncClient, keys: Keys) -> None:
    admin = await pack(http, {"refs": ["Supplier/S-1001"], "depth": 0})
    viewer = await pack(http, {"refs": ["Supplier/S-1001"], "depth": 0}, **Keys.header(keys.viewer))
    masked = {name for name, value in viewer["seeds"][0]["values"].items() if value == "***"}
    assert masked
    assert all(admin["seeds"][0]["values"][name] != "***" for name in masked)


async def test_query_seeds(http: httpx.AsyncClient) -> None:
    query = {"kind": "Supplier", "where": {"attr": "tier", "op": "eq", "value": 1}, "limit": 3}
    document = await pack(http, {"query": query, "depth": 0})
    refs = [seed["ref"] for seed in document["seeds"]]
    assert len(refs) == 3
    assert refs == sorted(refs)
    assert all(seed["values"]["tier"] == "1" for seed in document["seeds"])
    outside = await pack(http, {"query": {"kind": "Plant"}, "lens": "supplier_risk"})
    assert outside["seeds"] == []
    assert outside["neighbors"] == []


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        pytest.param({"query": {"kind": "Supplier", "where": {"attr": "legal_name", "op": "contains", "value": "a" * 50_000}}}, ("query.where.value", "too-long"), id="query-contains"),
        pytest.param(
            {"query": {"kind": "Part", "where": {"rel": "supplied_by", "where": {"attr": "supplier_code", "op": "in", "value": ["S-1001"] * 1001}}}},
            ("query.where.where.value", "too-many-values"),
            id="query-in",
        ),
        pytest.param({"search": "bearing " * 10_000}, ("search", "too-long"), id="search"),
    ],
)  # fmt: skip
async def test_seeds_are_bounded_like_query_and_search(
    http: httpx.AsyncClient, body: dict[str, Any], expected: tuple[str, str]
) -> None:
    # the contains seed answered 500 on SQLite ("LIKE or GLOB pattern too complex")
    document = assert_problem(await http.post(CONTEXT, json=body), 422, "context-request-invalid")
    issues: Any = document["issues"]
    assert [(issue["path"], issue["code"]) for issue in issues] == [expected]


async def test_since_limits_recent_changes(http: httpx.AsyncClient) -> None:
    body = {"refs": ["Supplier/S-1001"], "depth": 0, "budget_tokens": BIG}
    everything = (await pack(http, body))["recent_changes"]
    assert [change["change"] for change in everything] == ["modified", "created"]
    created, modified = everything[1]["revision"], everything[0]["revision"]
    after_import = (await pack(http, {**body, "since": created}))["recent_changes"]
    assert after_import == everything[:1]
    assert (await pack(http, {**body, "since": modified}))["recent_changes"] == []
    response = await http.post(CONTEXT, json={**body, "since": "no-such-tag"})
    assert_problem(response, 404, "revision-not-found")


@pytest.mark.parametrize(
    ("body", "paths"),
    [
        pytest.param({"depth": 1}, {"refs"}, id="no-selector"),
        pytest.param({"refs": ["Supplier/S-1001"], "search": "x"}, {"search"}, id="two"),
        pytest.param({"refs": [f"Supplier/S-{n}" for n in range(21)]}, {"refs"}, id="many"),
        pytest.param({"refs": ["Supplier/S-1001"], "format": "html"}, {"format"}, id="format"),
        pytest.param({"refs": ["nokey"], "depth": -1}, {"refs[0]", "depth"}, id="ref-depth"),
        pytest.param({"query": {"kind": "Part", "limit": 50}}, {"query.limit"}, id="query"),
        pytest.param({"refs": ["Supplier/S-1001"], "at": "x"}, {"at"}, id="head-only"),
        pytest.param(
            {"refs": ["Supplier/S-1001"], "include_schema": 1}, {"include_schema"}, id="include"
        ),
    ],
)
async def test_bad_input_lists_every_path(
    http: httpx.AsyncClient, body: dict[str, Any], paths: set[str]
) -> None:
    document = assert_problem(await http.post(CONTEXT, json=body), 422, "context-request-invalid")
    issues: Any = document["issues"]
    assert {issue["path"] for issue in issues} == paths


async def test_etag_and_304_and_same_bytes(http: httpx.AsyncClient) -> None:
    first = await http.post(CONTEXT, json=SPEC_JSON)
    second = await http.post(CONTEXT, json=SPEC_JSON)
    assert first.content == second.content
    etag = first.headers["ETag"]
    again = await http.post(CONTEXT, json=SPEC_JSON, headers={"If-None-Match": etag})
    assert again.status_code == 304
    markdown = await http.post(CONTEXT, json={**SPEC_JSON, "format": "markdown"})
    assert markdown.headers["ETag"] != etag


async def test_search_seeds(http: httpx.AsyncClient) -> None:
    document = await pack(http, {"search": "Kavsen", "depth": 0})
    assert "Supplier/S-1001" in [seed["ref"] for seed in document["seeds"]]
    located = await pack(http, {"search": "Radial shaft seal", "traits": ["Located"]})
    assert all(seed["ref"].split("/")[0] in {"Supplier", "Plant"} for seed in located["seeds"])
