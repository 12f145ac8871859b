"""The embedding cursor: pages of the Records whose vectors are due, saved with the cursor's move.

No model here: the vectors are made up (Scribe's tests embed for real).
"""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from lorebase_core.changes import DeleteRecord, UpsertRecord
from lorebase_core.errors import Conflict, DomainNotFound
from lorebase_core.schema import load_schema
from lorebase_store import EmbeddingWork, Store
from lorebase_store import tables as t
from lorebase_store.testing import change_request, commit_changes

MODEL, DIMENSIONS = "all-MiniLM-L6-v2", 384
RECORDS = 147  # the supply example's Records: 30 + 40 + 50 + 15 + 5 + 7


def page(store: Store, limit: int = 1000, domain: str = "supply") -> EmbeddingWork:
    return store.embedding_work(domain, model=MODEL, dimensions=DIMENSIONS, limit=limit)


def save(store: Store, work: EmbeddingWork) -> None:
    vectors = [None if record.text is None else [1.0] * DIMENSIONS for record in work.records]
    store.save_embeddings(work, MODEL, vectors, updated_by="scribe")


def stored(store: Store) -> dict[str, str]:
    """Every vector of the model: Kind/key -> updated_at."""
    vectors = t.record_vectors.c
    with store.engine.connect() as connection:
        rows = connection.execute(
            sa.select(vectors.kind, vectors.record_key, vectors.updated_at).where(
                vectors.model == MODEL
            )
        )
        return {f"{row.kind}/{row.record_key}": row.updated_at for row in rows}


def test_a_backfill_pages_through_the_head_and_resumes(supply: Store) -> None:
    first = page(supply, limit=100)
    assert (first.matches, first.backfill, first.done) == (True, True, False)
    assert first.cursor is None
    assert len(first.records) == 100
    assert first.remaining == RECORDS - 100
    assert all(record.text for record in first.records)  # nothing deleted in the example
    save(supply, first)
    cursor = supply.embedding_cursor("supply")
    assert cursor is not None
    assert cursor.position == first.until
    assert cursor.backfilled_at is None  # not finished
    second = page(supply, limit=100)
    assert second.backfill
    assert second.done
    assert second.remaining == 0
    assert len(second.records) == RECORDS - 100
    assert not {(r.kind, r.key) for r in first.records} & {(r.kind, r.key) for r in second.records}
    save(supply, second)
    assert len(stored(supply)) == RECORDS
    finished = supply.embedding_cursor("supply")
    assert finished is not None
    assert finished.backfilled_at is not None
    after = page(supply)
    assert (after.records, after.backfill, after.done) == ((), False, True)


def test_the_text_is_the_lexical_documents(supply: Store) -> None:
    texts = {f"{r.kind}/{r.key}": r.text for r in page(supply).records}
    assert (
        texts["Supplier/S-1001"]
        == "Kavsen Alloys Sp. z o.o.\nS-1001\nPoznan\nPL (Poland, Polish)\nhigh"
    )
    # sensitive Attributes (vat_number, contact_email) are never part of it
    assert all("@" not in str(text) for text in texts.values())
    assert texts["RiskFlag/RF-S-1001-0001"] is not None
    assert texts["RiskFlag/RF-S-1001-0001"].startswith("RF-S-1001-0001\nRepeated late deliveries")


def test_changes_after_the_cursor_are_due_once_deletes_without_text(supply: Store) -> None:
    save(supply, page(supply))
    commit_changes(supply, [UpsertRecord("Supplier", "S-1001", {"city": "Gniezno"})])
    commit_changes(supply, [UpsertRecord("Supplier", "S-1001", {"city": "Leszno"})])
    commit_changes(supply, [DeleteRecord("Supplier", "S-1005")])
    work = page(supply)
    assert [(r.kind, r.key) for r in work.records] == [
        ("Supplier", "S-1001"),
        ("Supplier", "S-1005"),
    ]
    assert "Leszno" in str(work.records[0].text)
    assert work.records[1].text is None
    assert not work.backfill
    save(supply, work)
    assert "Supplier/S-1005" not in stored(supply)
    assert len(stored(supply)) == RECORDS - 1
    assert page(supply).records == ()


def test_a_stale_page_writes_nothing(supply: Store) -> None:
    stale = page(supply, limit=10)
    save(supply, page(supply, limit=10))
    with pytest.raises(Conflict):
        save(supply, stale)
    assert len(stored(supply)) == 10


def test_another_model_or_none_reads_no_records(supply: Store, library: Store) -> None:
    other = supply.embedding_work("supply", model="other", dimensions=DIMENSIONS, limit=10)
    assert (other.matches, other.records, other.schema_model) == (False, (), MODEL)
    shorter = supply.embedding_work("supply", model=MODEL, dimensions=8, limit=10)
    assert (shorter.matches, shorter.schema_dimensions) == (False, DIMENSIONS)
    none = page(library, domain="library")
    assert (none.matches, none.schema_model, none.records) == (False, None, ())
    with pytest.raises(DomainNotFound):
        page(supply, domain="nope")


def test_a_new_schema_or_a_reset_starts_a_backfill(supply: Store) -> None:
    save(supply, page(supply))
    assert supply.reset_embeddings("supply") is True
    assert supply.embedding_cursor("supply") is None
    assert len(page(supply).records) == RECORDS
    save(supply, page(supply))
    # the text depends on the schema: a new one (a searchable Attribute more) embeds all again
    source = supply.schema("supply").source.replace(
        "        description: Name of the plant.\n",
        "        description: Name of the plant.\n      manager:\n        type: string\n",
        1,
    )
    assert "manager:" in source
    supply.commit(change_request(schema=load_schema(source)), [])
    again = page(supply)
    assert again.backfill
    assert len(again.records) == RECORDS
