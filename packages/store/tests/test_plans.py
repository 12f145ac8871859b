"""Query plans for the agent trace (lorebase_store.plans): collected reads, EXPLAIN only.

Runs on the supply example on both backends: the statements a query, a search and a graph walk
ran are collected, planned, and an engine listener proves that planning ran none of them again.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import sqlalchemy as sa

from lorebase_core.access import ReadScope
from lorebase_core.graph_requests import parse_traverse
from lorebase_core.query import parse_query
from lorebase_core.search_request import SearchRequest
from lorebase_store import Store, collect_statements
from lorebase_store.engine import read_transaction
from lorebase_store.graph import traverse
from lorebase_store.plans import MAX_STATEMENTS
from lorebase_store.reads.query import run_query
from lorebase_store.testing import statements_run
from lorebase_store.versioned.views import make_view

DOMAIN = "supply"
EVERYTHING = ReadScope.everything()
LIMITS = {
    "default_limit": 100,
    "max_limit": 1000,
    "max_predicates": 64,
    "max_hops": 4,
    "max_string_length": 1000,
    "max_in_values": 1000,
    "max_metrics": 32,
}
QUERY = {
    "kind": "Supplier",
    "where": {
        "and": [
            {"attr": "tier", "op": "eq", "value": 1},
            {"rel": "supplier_orders", "where": {"attr": "status", "op": "eq", "value": "open"}},
        ]
    },
    "select": ["legal_name"],
}


def run(store: Store, document: dict[str, Any]) -> list[str]:
    schema = store.schema(DOMAIN)
    query = parse_query(document, schema, EVERYTHING, **LIMITS)
    view = store.view(DOMAIN)
    with read_transaction(store.engine) as connection:
        return [row.key for row in run_query(connection, view, schema, query, EVERYTHING).records]


@contextmanager
def executed(store: Store) -> Iterator[list[str]]:
    """Every statement the engine runs meanwhile, EXPLAIN ones included."""
    with statements_run(store) as seen:
        yield seen


def test_nothing_is_collected_outside_a_collection(supply: Store) -> None:
    with collect_statements() as found:
        pass
    run(supply, QUERY)
    assert found == []


def test_a_query_is_collected_and_planned_without_running_again(supply: Store) -> None:
    with collect_statements() as found:
        keys = run(supply, QUERY)
    assert keys, "the read answered as usual"
    assert found, "the query's SELECT was collected"
    assert all(statement.lstrip().upper().startswith(("SELECT", "WITH")) for statement, _ in found)
    with executed(supply) as seen:
        summaries = supply.plan_summaries(found)
    assert len(summaries) == len(found)
    planned = [statement for statement in seen if "EXPLAIN" in statement.upper()]
    assert len(planned) == len(found)
    originals = {statement for statement, _ in found}
    assert not originals & set(seen), "a collected statement ran again"
    for summary, (statement, _) in zip(summaries, found, strict=True):
        assert "error" not in summary, summary
        assert summary["statement"] == statement.strip()[:200]
        assert summary["nodes"]
        assert all(isinstance(node, str) for node in summary["nodes"])
        assert isinstance(summary["indexes"], list)
        assert isinstance(summary["tables"], list)
    scanned = {table for summary in summaries for table in summary["tables"]}
    if supply.backend == "postgresql":
        assert "records" in scanned
        assert all(isinstance(summary["rows"], int) for summary in summaries)
        assert all(isinstance(summary["cost"], float | int) for summary in summaries)
    else:
        assert scanned, summaries
        assert all("rows" not in summary for summary in summaries)


def test_each_statement_runs_once_over_read_and_plan(supply: Store) -> None:
    """The engine runs each collected statement as often as the read did, planning or not."""
    counts: dict[str, int] = {}

    def count(_c: Any, _cu: Any, statement: str, *_rest: Any) -> None:
        counts[statement] = counts.get(statement, 0) + 1

    sa.event.listen(supply.engine, "before_cursor_execute", count)
    try:
        with collect_statements() as found:
            run(supply, QUERY)
        after_read = dict(counts)
        supply.plan_summaries(found)
    finally:
        sa.event.remove(supply.engine, "before_cursor_execute", count)
    for statement, _ in found:
        assert (
            counts[statement]
            == after_read[statement]
            == sum(1 for collected, _ in found if collected == statement)
        )


def test_search_and_traversal_statements_are_planned(supply: Store) -> None:
    schema = supply.schema(DOMAIN)
    request = parse_traverse(
        {"start": ["Supplier/S-1007"], "path": ["supplies", "purchase_orders"]},
        schema,
        EVERYTHING,
        max_hops=4,
        max_results=1000,
    )
    with collect_statements() as found:
        with read_transaction(supply.engine) as connection:
            view = make_view(connection, DOMAIN, None, None)
            result = traverse(connection, view, schema, EVERYTHING, request, max_fanout=1000)
        with supply.reader(DOMAIN) as reader:
            hits = reader.search(
                SearchRequest(q="bearing", kinds=("Part",), limit=5), EVERYTHING
            ).hits
    assert result.records
    assert hits
    with executed(supply) as seen:
        summaries = supply.plan_summaries(found)
    assert [s for s in summaries if "error" in s] == []
    assert not {statement for statement, _ in found} & set(seen)
    assert any(summary["indexes"] for summary in summaries), summaries


def test_writes_are_not_collected_and_the_cap_holds(supply: Store) -> None:
    with collect_statements() as found, supply.engine.begin() as connection:
        connection.execute(sa.text("CREATE TEMPORARY TABLE plan_probe (n INTEGER)"))
        connection.execute(sa.text("INSERT INTO plan_probe (n) VALUES (1)"))
        for _ in range(MAX_STATEMENTS + 5):
            connection.execute(sa.text("SELECT n FROM plan_probe"))
    assert len(found) == MAX_STATEMENTS
    assert all(statement.startswith("SELECT") for statement, _ in found)


def test_a_statement_explain_cannot_take_is_skipped_with_an_error(supply: Store) -> None:
    good = ("SELECT 1", ())
    summaries = supply.plan_summaries(
        [("SELECT * FROM no_such_table", ()), good, ("SELECT nonsense FROM (", ())]
    )
    assert sorted(summaries[0]) == ["error", "statement"]
    assert summaries[0]["statement"] == "SELECT * FROM no_such_table"
    assert summaries[0]["error"]
    assert "error" not in summaries[1]
    assert "error" in summaries[2]
    assert supply.plan_summaries([]) == []


@pytest.mark.parametrize("text", ["SELECT 1", "  with x as (select 1) select * from x"])
def test_reads_are_recognized_by_their_first_word(supply: Store, text: str) -> None:
    with collect_statements() as found, supply.engine.connect() as connection:
        connection.execute(sa.text(text))
    assert [statement for statement, _ in found] == [text]
