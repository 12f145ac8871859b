"""Telling whether a test changed its PostgreSQL database, so that the copy can serve again.

Copying a template (`CREATE DATABASE ... TEMPLATE`) costs PostgreSQL a few tenths of a second of
its own time, more than most tests; the root conftest.py gives a copy its test left unchanged to
the next test of the same template instead. "Unchanged" is decided by `fingerprint`: the
database's relations (any DDL shows), every sequence's position (a rolled-back insert moves
one), and per table its row count and the newest transaction id among its rows (`xmin`: any
insert or update moves it; a delete moves the count). A copy someone is still connected to is
never reused: what is connected may yet write.
"""

from __future__ import annotations

from typing import Any

import psycopg

Fingerprint = list[tuple[object, ...]]

_RELATIONS = """SELECT n.nspname, c.relname, c.relkind FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'
  AND n.nspname NOT LIKE 'pg_temp%' ORDER BY 1, 2"""


def fingerprint(connection: psycopg.Connection[Any]) -> Fingerprint:
    """What a database holds, cheaply but exactly enough to tell a copy its test changed: its
    relations (any DDL), every sequence's position, and per table the number of rows and the
    newest transaction that wrote one (an insert or update anywhere moves it, a delete moves
    the count)."""
    relations = [tuple(row) for row in connection.execute(_RELATIONS).fetchall()]
    tables = [(schema, name) for schema, name, kind in relations if kind in ("r", "p")]
    counts = [
        f'SELECT {number}, count(*), coalesce(max(xmin::text::bigint), 0) FROM "{schema}"."{name}"'
        for number, (schema, name) in enumerate(tables)
    ]
    rows = connection.execute(" UNION ALL ".join(counts)).fetchall() if counts else []
    sequences = connection.execute(
        "SELECT schemaname, sequencename, last_value FROM pg_sequences ORDER BY 1, 2"
    ).fetchall()
    return [*relations, *(tuple(row) for row in sorted(rows)), *(tuple(s) for s in sequences)]


def unchanged(url: str, template: Fingerprint) -> bool:
    """Whether the database at `url` holds what its template held (`template`, its
    fingerprint), with nobody else connected to it."""
    try:
        with psycopg.connect(url, autocommit=True) as connection:
            others = connection.execute(
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            ).fetchone()
            if others is None or others[0]:
                return False
            return fingerprint(connection) == template
    except psycopg.Error:
        return False
