"""Many rows in one statement through the driver's own `executemany`, without per-row Python.

SQLAlchemy's `connection.execute(table.insert(), rows)` processes every parameter of every row
in Python (its bind processors, the JSON serializer, the dictionaries' keys): about a fifth of an
import's time went there. The writes of a commit already hold canonical values and serialized
JSON (`engine.JsonText`), so `insert_rows` and `update_rows` hand the driver plain tuples with a
statement compiled once per table, column list and backend: sqlite3's `executemany` loops in C,
psycopg 3's pipelines the rows. JSON columns are cast on PostgreSQL (`CAST(%s AS JSONB)`) and
values not yet serialized are serialized canonically, so the stored bytes are the same as
SQLAlchemy would store.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any

import sqlalchemy as sa

from lorebase_store.engine import JsonText, canonical_text, is_sqlite


def insert_rows(
    connection: sa.Connection,
    table: sa.Table,
    columns: Sequence[str],
    rows: Iterable[Sequence[Any]],
) -> None:
    """INSERT `rows` (tuples in the order of `columns`) into `table`."""
    _run(connection, table, tuple(columns), (), rows)


def update_rows(
    connection: sa.Connection,
    table: sa.Table,
    columns: Sequence[str],
    where: Sequence[str],
    rows: Iterable[Sequence[Any]],
) -> None:
    """UPDATE `table` SET `columns` WHERE `where` (equalities), one tuple per row: the values of
    `columns`, then those of `where`."""
    _run(connection, table, tuple(columns), tuple(where), rows)


def _run(
    connection: sa.Connection,
    table: sa.Table,
    columns: tuple[str, ...],
    where: tuple[str, ...],
    rows: Iterable[Sequence[Any]],
) -> None:
    sqlite = is_sqlite(connection)
    statement, json_positions = _statement(table, columns, where, sqlite)
    if json_positions:
        rows = [_serialized(row, json_positions) for row in rows]
    elif not isinstance(rows, list):
        rows = list(rows)
    if rows:
        connection.exec_driver_sql(statement, rows)


def _serialized(row: Sequence[Any], positions: tuple[int, ...]) -> tuple[Any, ...]:
    values = list(row)
    for position in positions:
        value = values[position]
        if not isinstance(value, JsonText):
            values[position] = canonical_text(value)
    return tuple(values)


@cache
def _statement(
    table: sa.Table, columns: tuple[str, ...], where: tuple[str, ...], sqlite: bool
) -> tuple[str, tuple[int, ...]]:
    """The statement's text for the backend, and the positions of the JSON parameters."""
    marker = "?" if sqlite else "%s"
    json_columns = {name for name in (*columns, *where) if isinstance(table.c[name].type, sa.JSON)}

    def parameter(name: str) -> str:
        return marker if sqlite or name not in json_columns else f"CAST({marker} AS JSONB)"

    if where:
        assignments = ", ".join(f"{name} = {parameter(name)}" for name in columns)
        conditions = " AND ".join(f"{name} = {parameter(name)}" for name in where)
        text = f"UPDATE {table.name} SET {assignments} WHERE {conditions}"
    else:
        names = ", ".join(columns)
        markers = ", ".join(parameter(name) for name in columns)
        text = f"INSERT INTO {table.name} ({names}) VALUES ({markers})"
    positions = tuple(
        index for index, name in enumerate((*columns, *where)) if name in json_columns
    )
    return text, positions
