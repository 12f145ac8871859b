"""POST /query, /traverse and /neighborhood through the clients and the CLI.

The examples are those of docs/graph.md and design.md (the query DSL) on the supply example.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from click.testing import CliRunner

from lorebase_client import AsyncLorebaseClient, LorebaseClient, problem_of, response_of
from lorebase_client.cli import main
from lorebase_core.errors import InvalidInput, KindNotFound, RelationNotFound

if TYPE_CHECKING:
    from conftest import LiveKeeper, ProblemCheck

TIER_1 = {"attr": "tier", "op": "eq", "value": 1}


def _keys(records: list[dict[str, object]]) -> list[object]:
    return [record["key"] for record in records]


def test_query_from_keywords(admin: LorebaseClient, keeper: LiveKeeper) -> None:
    answer = admin.query("supply", kind="Supplier", where=TIER_1, limit=100)
    assert answer.revision == keeper.supply_head
    records = answer["records"]
    assert records
    assert all(record["values"]["tier"] == "1" for record in records)
    assert "S-1001" in _keys(records)


def test_query_from_a_document_with_keywords_set_over_it(admin: LorebaseClient) -> None:
    document = {"kind": "Supplier", "where": TIER_1, "limit": 1000}
    whole = admin.query("supply", document)
    first = admin.query("supply", document, limit=2)
    assert _keys(first["records"]) == _keys(whole["records"])[:2]
    assert first["next_cursor"] is not None


def test_query_with_an_aggregate(admin: LorebaseClient) -> None:
    answer = admin.query(
        "supply",
        kind="Supplier",
        aggregate={"group_by": "country", "metrics": {"n": {"count": "*"}}},
    )
    groups = answer["groups"]
    assert "PL" in [group["key"] for group in groups]
    assert sum(group["count"] for group in groups) == sum(group["n"] for group in groups) == 30


def test_query_at_an_earlier_revision(admin: LorebaseClient, keeper: LiveKeeper) -> None:
    where = {"attr": "supplier_code", "op": "eq", "value": "S-1001"}
    answer = admin.query("supply", kind="Supplier", where=where, at="import/2026-10-01")
    assert answer.revision == keeper.supply_import
    assert answer["records"][0]["values"]["risk_score"] == "72"


def test_conditional_graph_reads(admin: LorebaseClient) -> None:
    query = admin.query("supply", kind="Supplier", where=TIER_1)
    assert admin.query("supply", kind="Supplier", where=TIER_1, etag=query.etag).not_modified
    other = admin.query("supply", kind="Supplier", etag=query.etag)
    assert not other.not_modified
    traversal = admin.traverse("supply", ["Supplier/S-1007"], ["supplies"])
    again = admin.traverse("supply", ["Supplier/S-1007"], ["supplies"], etag=traversal.etag)
    assert again.not_modified
    around = admin.neighborhood("supply", ["Part/P-10007"])
    assert admin.neighborhood("supply", ["Part/P-10007"], etag=around.etag).not_modified


def test_query_of_an_invisible_kind(viewer: LorebaseClient, assert_problem: ProblemCheck) -> None:
    with pytest.raises(KindNotFound) as caught:
        viewer.query("supply", kind="Contract")
    assert_problem(response_of(caught.value), 404, "kind-not-found")


def test_traverse_the_example_of_graph_md(admin: LorebaseClient) -> None:
    answer = admin.traverse("supply", ["Supplier/S-1007"], ["supplies", "purchase_orders"])
    assert _keys(answer["records"]) == ["PO-200012", "PO-200037", "PO-200043"]
    assert answer["capped"] is False


def test_traverse_with_a_limit(admin: LorebaseClient) -> None:
    answer = admin.traverse("supply", ["Contract/C-3007"], ["with_supplier", "supplies"], limit=2)
    assert _keys(answer["records"]) == ["P-10007", "P-10019"]
    assert answer["caps"] == ["limit"]


def test_a_traversal_whose_hops_do_not_chain(
    admin: LorebaseClient, assert_problem: ProblemCheck
) -> None:
    with pytest.raises(InvalidInput) as caught:
        admin.traverse("supply", ["Supplier/S-1007"], ["supplied_by"])
    assert [issue.code for issue in caught.value.issues] == ["path-mismatch"]
    assert [issue.path for issue in caught.value.issues] == ["path[0]"]
    assert_problem(response_of(caught.value), 422, "graph-request-invalid")
    problem = problem_of(caught.value)
    assert problem is not None
    assert problem["title"] == "Invalid graph request"


def test_a_traversal_along_an_unknown_relation(admin: LorebaseClient) -> None:
    with pytest.raises(RelationNotFound):
        admin.traverse("supply", ["Supplier/S-1007"], ["sells"])


def test_neighborhood_the_example_of_graph_md(admin: LorebaseClient) -> None:
    answer = admin.neighborhood(
        "supply", ["Supplier/S-1001"], depth=1, relations=["with_supplier", "supplies"]
    )
    assert [seed["ref"] for seed in answer["seeds"]] == ["Supplier/S-1001"]
    assert [neighbor["ref"] for neighbor in answer["neighbors"]] == [
        "Contract/C-3001",
        "Part/P-10006",
        "Part/P-10026",
        "Part/P-10028",
        "Part/P-10039",
    ]
    assert sorted(answer["links"]) == ["supplied_by", "with_supplier"]


def test_neighborhood_without_values_lists_missing_seeds(admin: LorebaseClient) -> None:
    answer = admin.neighborhood("supply", ["Part/P-10007", "Part/P-99999"], values=False)
    assert answer["missing"] == ["Part/P-99999"]
    assert all("values" not in neighbor for neighbor in answer["neighbors"])


@pytest.mark.anyio
async def test_the_async_client_posts_the_same_documents(
    async_admin: AsyncLorebaseClient,
) -> None:
    query = await async_admin.query("supply", {"kind": "Supplier", "where": TIER_1})
    assert all(record["values"]["tier"] == "1" for record in query["records"])
    traversal = await async_admin.traverse(
        "supply", ["Supplier/S-1007"], ["supplies", "purchase_orders"]
    )
    assert _keys(traversal["records"]) == ["PO-200012", "PO-200037", "PO-200043"]
    around = await async_admin.neighborhood("supply", ["Part/P-10007"], depth=0)
    assert around["neighbors"] == []


# -- the CLI ----------------------------------------------------------------------------------


def test_cli_query_from_options(env: dict[str, str | None]) -> None:
    result = CliRunner().invoke(
        main, ["query", "--kind", "Supplier", "--where", json.dumps(TIER_1)], env=env
    )
    assert result.exit_code == 0, result.output
    records = json.loads(result.stdout)["records"]
    assert all(record["values"]["tier"] == "1" for record in records)


def test_cli_query_from_a_file_and_from_stdin(env: dict[str, str | None], tmp_path: Path) -> None:
    document = json.dumps({"kind": "Supplier", "where": TIER_1})
    path = tmp_path / "tier1.json"
    path.write_text(document)
    from_file = CliRunner().invoke(main, ["query", str(path)], env=env)
    assert from_file.exit_code == 0, from_file.output
    from_stdin = CliRunner().invoke(main, ["query", "-"], input=document, env=env)
    assert from_stdin.exit_code == 0, from_stdin.output
    assert json.loads(from_file.stdout) == json.loads(from_stdin.stdout)


def test_cli_traverse(env: dict[str, str | None]) -> None:
    args = ["traverse", "--start", "Supplier/S-1007", "--path", "supplies"]
    result = CliRunner().invoke(main, [*args, "--path", "purchase_orders"], env=env)
    assert result.exit_code == 0, result.output
    assert _keys(json.loads(result.stdout)["records"]) == ["PO-200012", "PO-200037", "PO-200043"]


def test_cli_traverse_error_lists_the_issues(env: dict[str, str | None]) -> None:
    args = ["traverse", "--start", "Supplier/S-1007", "--path", "supplied_by"]
    result = CliRunner().invoke(main, args, env=env)
    assert result.exit_code == 1
    assert "[graph-request-invalid]" in result.stderr
    assert "  path[0]: " in result.stderr
