"""Query plans of the statements a read ran, for the agent trace's `explain` (docs/trace.md).

A traced request with `X-Lorebase-Trace: debug` opens `collect_statements()` around its read; the
store's engines append each SELECT (and WITH) statement they run, with its driver parameters, to
the open list. Once the read has answered, `plan_summaries` asks the database for the plan of
each statement with EXPLAIN only (SQLite `EXPLAIN QUERY PLAN`, PostgreSQL `EXPLAIN (FORMAT
JSON)`), never ANALYZE: nothing runs twice. Outside a collection the engine listener costs one
context variable look-up per statement.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import sqlalchemy as sa

MAX_STATEMENTS = 50
"""Statements collected per read at most; the rest of a long read is not planned."""
STATEMENT_CHARS = 200
"""Characters of a statement's text kept in its summary."""

Statement = tuple[str, Any]

_collected: ContextVar[list[Statement] | None] = ContextVar(
    "lorebase_collected_statements", default=None
)
_READS = ("SELECT", "WITH")


@contextmanager
def collect_statements() -> Iterator[list[Statement]]:
    """While open, the store's engines append the reads they run: `(statement, parameters)`.

    The list is the one the engines fill in this context (and in the copies of it that routes run
    in), at most `MAX_STATEMENTS` long.
    """
    found: list[Statement] = []
    token = _collected.set(found)
    try:
        yield found
    finally:
        _collected.reset(token)


def record_statement(
    _connection: Any, _cursor: Any, statement: str, parameters: Any, *_rest: Any
) -> None:
    """`before_cursor_execute` listener of every store engine (`engine.create_store_engine`)."""
    found = _collected.get()
    if found is None or len(found) >= MAX_STATEMENTS:
        return
    if statement.lstrip()[:6].upper().startswith(_READS):
        found.append((statement, parameters))


def listen_for_statements(engine: sa.Engine) -> None:
    """Install `record_statement` on `engine`."""
    sa.event.listen(engine, "before_cursor_execute", record_statement)


def plan_summaries(
    connection: sa.Connection, statements: Sequence[Statement]
) -> list[dict[str, Any]]:
    """One summary per statement, read from EXPLAIN only; a statement it cannot take gets
    `{"statement", "error"}` instead (the read it came from has answered already)."""
    sqlite = connection.dialect.name == "sqlite"
    summaries: list[dict[str, Any]] = []
    for statement, parameters in statements[:MAX_STATEMENTS]:
        shown = statement.strip()[:STATEMENT_CHARS]
        try:
            with connection.begin_nested():
                if sqlite:
                    rows = connection.exec_driver_sql(
                        f"EXPLAIN QUERY PLAN {statement}", _driver_parameters(parameters)
                    ).all()
                    summary = _sqlite_summary([str(row[-1]) for row in rows])
                else:
                    plan = connection.exec_driver_sql(
                        f"EXPLAIN (FORMAT JSON) {statement}", _driver_parameters(parameters)
                    ).scalar_one()
                    summary = _postgresql_summary(plan)
        except sa.exc.SQLAlchemyError as exc:
            summaries.append({"statement": shown, "error": _error_text(exc)})
            continue
        summaries.append({"statement": shown, **summary})
    return summaries


def _driver_parameters(parameters: Any) -> Any:
    """The parameters as the driver took them (executemany lists are planned for their first)."""
    if isinstance(parameters, list):
        return parameters[0] if parameters else ()
    return parameters if parameters is not None else ()


def _error_text(exc: sa.exc.SQLAlchemyError) -> str:
    original = getattr(exc, "orig", None)
    text = str(original if original is not None else exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:STATEMENT_CHARS]


_SQLITE_TABLE = re.compile(r"^(?:SCAN|SEARCH)(?: TABLE)? (\S+)")
_SQLITE_INDEX = re.compile(r"USING (?:COVERING )?INDEX (\S+)")
_SQLITE_NODE = re.compile(r"^([A-Z][A-Z-]*(?: [A-Z][A-Z-]*)*)")


def _sqlite_summary(details: list[str]) -> dict[str, Any]:
    """From the `detail` column of `EXPLAIN QUERY PLAN`: `SCAN records`, `SEARCH links USING
    INDEX ix_links_from (...)`, `USE TEMP B-TREE FOR ORDER BY` ..."""
    nodes: list[str] = []
    tables: list[str] = []
    indexes: list[str] = []
    for detail in details:
        node = _SQLITE_NODE.match(detail)
        _add(nodes, node.group(1) if node else detail.split(" ", 1)[0])
        table = _SQLITE_TABLE.match(detail)
        if table:
            _add(tables, table.group(1))
        index = _SQLITE_INDEX.search(detail)
        if index:
            _add(indexes, index.group(1))
        elif "USING INTEGER PRIMARY KEY" in detail:
            _add(indexes, "INTEGER PRIMARY KEY")
    return {"nodes": nodes, "indexes": indexes, "tables": tables}


def _postgresql_summary(plan: Any) -> dict[str, Any]:
    document = json.loads(plan) if isinstance(plan, str) else plan
    top = document[0]["Plan"]
    nodes: list[str] = []
    tables: list[str] = []
    indexes: list[str] = []
    pending = [top]
    while pending:
        node = pending.pop(0)
        _add(nodes, str(node.get("Node Type")))
        if "Relation Name" in node:
            _add(tables, str(node["Relation Name"]))
        if "Index Name" in node:
            _add(indexes, str(node["Index Name"]))
        pending.extend(node.get("Plans", []))
    return {
        "nodes": nodes,
        "indexes": indexes,
        "tables": tables,
        "rows": top.get("Plan Rows"),
        "cost": top.get("Total Cost"),
    }


def _add(names: list[str], name: str) -> None:
    if name not in names:
        names.append(name)
