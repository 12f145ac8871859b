"""The reuse of PostgreSQL copies (tests/suite/databases.py): every kind of write is seen."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from tests.suite.databases import fingerprint, unchanged

from lorebase_store import Store


@pytest.fixture
def connection(database_url: str) -> Iterator[psycopg.Connection[Any]]:
    if not database_url.startswith("postgresql"):
        pytest.skip("only PostgreSQL copies are reused (a SQLite copy is a file copy)")
    with psycopg.connect(database_url, autocommit=True) as opened:
        yield opened


def test_reads_leave_the_fingerprint_and_every_write_moves_it(
    connection: psycopg.Connection[Any], supply: Store
) -> None:
    before = fingerprint(connection)
    assert supply.log("supply", limit=10)
    assert supply.branch("supply", "main").head_revision
    connection.execute("SELECT count(*) FROM pg_class").fetchall()
    assert fingerprint(connection) == before
    writes = [
        "CREATE TABLE probe (id serial PRIMARY KEY, value int)",
        "INSERT INTO probe (value) VALUES (1)",
        "UPDATE probe SET value = 2",
        "INSERT INTO probe (value) VALUES (3)",
        "DELETE FROM probe WHERE value = 3",
        "SELECT nextval('probe_id_seq')",
        "CREATE INDEX probe_value ON probe (value)",
    ]
    for statement in writes:
        connection.execute(statement)
        after = fingerprint(connection)
        assert after != before, statement
        before = after
    with connection.transaction(force_rollback=True):
        connection.execute("INSERT INTO probe (value) VALUES (4)")  # rolled back: the id is used
    assert fingerprint(connection) != before


def test_a_store_write_is_seen(connection: psycopg.Connection[Any], store: Store) -> None:
    before = fingerprint(connection)
    store.ensure_principal("usr_probe")
    assert fingerprint(connection) != before


def test_a_copy_someone_is_connected_to_is_not_reused(
    connection: psycopg.Connection[Any], database_url: str
) -> None:
    made = fingerprint(connection)
    assert not unchanged(database_url, made)  # `connection` is still open
    connection.close()
    assert unchanged(database_url, made)
