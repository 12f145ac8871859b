"""Migrations: the database they make matches tables.py, and opening a store again is harmless."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from lorebase_core.changes import Origin, UpsertRecord
from lorebase_store import tables as t
from lorebase_store.commits.commit import CommitRequest
from lorebase_store.commits.typed_heads import PREFIX as TYPED_PREFIX
from lorebase_store.importer import import_directory
from lorebase_store.migrate import alembic_config, upgrade
from lorebase_store.store import Store
from lorebase_store.testing import read_count

SUPPLY = Path(__file__).parents[3] / "examples" / "supply"


def _declared_in_tables_py(name: str | None, type_: str, _parents: object) -> bool:
    """The search index's backend objects (FTS5 tables, expression indexes) and the typed head
    tables of each Domain's Kinds (`commits.typed_heads`, made per schema) are not in tables.py."""
    if name is None:
        return True
    if name.startswith(TYPED_PREFIX):
        return False
    if type_ == "table":
        return not name.startswith("search_fts")
    return not (type_ == "index" and name.startswith("ix_search_pg_"))


def drift(store: Store) -> list[Any]:
    """What alembic autogenerate would change to make the database match tables.py."""
    with store.engine.connect() as connection:
        context = MigrationContext.configure(
            connection,
            opts={
                "compare_type": True,
                "compare_server_default": True,
                "include_name": _declared_in_tables_py,
            },
        )
        return list(compare_metadata(context, t.metadata))


def current_revision(store: Store) -> str | None:
    with store.engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def test_migrations_make_exactly_the_tables_of_tables_py(store: Store) -> None:
    assert drift(store) == []


def test_the_database_is_at_the_head_migration(store: Store) -> None:
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    assert current_revision(store) == head


def test_every_table_of_tables_py_exists(store: Store) -> None:
    names = set(sa.inspect(store.engine).get_table_names())
    assert set(t.metadata.tables) <= names


def test_opening_twice_is_harmless(database_url: str) -> None:
    first = Store.open(database_url)
    try:
        import_directory(first, SUPPLY)
        head = first.branch("supply", "main").head_revision
        migrated = current_revision(first)
    finally:
        first.close()
    again = Store.open(database_url)
    try:
        assert current_revision(again) == migrated
        assert drift(again) == []
        assert again.branch("supply", "main").head_revision == head
        assert read_count(again, "supply", "Supplier") == 30
        with again.engine.connect() as connection:
            versions = connection.execute(sa.text("SELECT version_num FROM alembic_version")).all()
        assert [row[0] for row in versions] == [migrated]
        result = again.commit(
            CommitRequest(
                domain="supply",
                branch=None,
                author="usr_tester",
                message="after reopening",
                origin=Origin("operation"),
            ),
            [UpsertRecord("Part", "P-10001", {"unit_cost": "1.00"})],
        )
        assert result.revision is not None
        assert result.revision.parents == [head]
    finally:
        again.close()


def test_upgrade_of_an_up_to_date_database_is_a_no_op(store: Store) -> None:
    before = current_revision(store)
    upgrade(store.engine)
    upgrade(store.engine)
    assert current_revision(store) == before
    assert drift(store) == []


@pytest.mark.parametrize("opened", [pytest.param(2, id="twice"), pytest.param(3, id="three-times")])
def test_stores_opened_side_by_side_share_the_database(database_url: str, opened: int) -> None:
    stores = [Store.open(database_url) for _ in range(opened)]
    try:
        import_directory(stores[0], SUPPLY)
        heads = {store.branch("supply", "main").head_revision for store in stores}
        assert len(heads) == 1
        assert all(store.ping() for store in stores)
    finally:
        for store in stores:
            store.close()
