"""Keep the search index in step with the Records, in the transaction of each commit.

The index holds, per branch, one document for each Record the branch itself wrote: the title
and body of its head version (`text.document`), or a tombstone when it was deleted, so that a
branch's own documents shadow its base's, as its rows do. Every branch's commits maintain it
(`index_records`, called by `commits.py` once per written batch of Record versions), so a search
always reads the head. A Record whose indexed text did not change keeps its document untouched,
and a Domain-creating import builds its whole index in one pass at the end (`build_index`), as a
rebuild after a schema change does (`reindex_branch`). Beside the documents: the vocabulary of each branch (term, number of
documents holding it) that spelling corrections draw from, and the backend's full-text objects:
an FTS5 table with the trigram tokenizer on SQLite, expression indexes (tsvector and pg_trgm)
on PostgreSQL. Migration 0004 builds the index of the Records stored before it (`rebuild_index`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

import sqlalchemy as sa

from lorebase_core.schema import Schema
from lorebase_store import tables as t
from lorebase_store.bulk import insert_rows
from lorebase_store.engine import is_sqlite
from lorebase_store.search.text import document, terms
from lorebase_store.versioned.schemas import schema_by_digest

FTS_TABLE = "search_fts"
PG_TEXT_INDEX = "ix_search_pg_text_trgm"
PG_TSV_INDEX = "ix_search_pg_tsv"
PG_TERMS_INDEX = "ix_search_pg_terms_trgm"
PG_TSVECTOR = (
    "setweight(to_tsvector('simple', title), 'A') || setweight(to_tsvector('simple', body), 'D')"
)
PG_TEXT = "lower(title || ' ' || body)"

_ADD_TERMS = sa.text(
    "INSERT INTO search_terms (branch_id, term, documents) VALUES (:branch_id, :term, :n) "
    "ON CONFLICT (branch_id, term) DO UPDATE SET documents = search_terms.documents + excluded.documents"
)
_DROP_TERMS = t.search_terms.delete().where(
    t.search_terms.c.branch_id == sa.bindparam("b"), t.search_terms.c.documents <= 0
)
_FTS_DELETE = sa.text(f"DELETE FROM {FTS_TABLE} WHERE rowid = :id")
_FTS_INSERT = sa.text(f"INSERT INTO {FTS_TABLE} (rowid, title, body) VALUES (:id, :title, :body)")
_FTS_OF_BRANCH = sa.text(
    f"INSERT INTO {FTS_TABLE} (rowid, title, body) SELECT id, title, body FROM search_documents "
    "WHERE branch_id = :b AND NOT deleted"
)
_FTS_DROP_BRANCH = sa.text(
    f"DELETE FROM {FTS_TABLE} WHERE rowid IN (SELECT id FROM search_documents WHERE branch_id = :b)"
)
_CHUNK = 500
_BUILD_PAGE = 2000
_DOCUMENT_COLUMNS = ("branch_id", "kind", "record_key", "deleted", "title", "body")
_HEADS_AFTER = (
    sa.select(t.records.c.record_key, t.records.c.deleted, t.records.c.values_json)
    .where(
        t.records.c.branch_id == sa.bindparam("b"),
        t.records.c.kind == sa.bindparam("kind"),
        t.records.c.to_seq.is_(None),
        t.records.c.record_key > sa.bindparam("after"),
    )
    .order_by(t.records.c.record_key)
    .limit(_BUILD_PAGE)
)

RecordWrite = tuple[str, bool, Mapping[str, Any]]
"""A written Record version: key, deleted, values."""


def create_backend_objects(connection: sa.Connection) -> None:
    """The full-text objects tables.py cannot declare (the drift test leaves them out)."""
    if is_sqlite(connection):
        connection.exec_driver_sql(
            f"CREATE VIRTUAL TABLE {FTS_TABLE} USING fts5(title, body, tokenize='trigram')"
        )
        return
    connection.exec_driver_sql("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    # fastupdate off: a GIN index's pending list (filled by every commit) makes the planner
    # price the index above a sequential scan; without it a search is 0.4 ms, not 20 (20k Items)
    connection.exec_driver_sql(
        f"CREATE INDEX {PG_TEXT_INDEX} ON search_documents "
        f"USING gin (({PG_TEXT}) gin_trgm_ops) WITH (fastupdate = off)"
    )
    connection.exec_driver_sql(
        f"CREATE INDEX {PG_TSV_INDEX} ON search_documents "
        f"USING gin (({PG_TSVECTOR})) WITH (fastupdate = off)"
    )
    connection.exec_driver_sql(
        f"CREATE INDEX {PG_TERMS_INDEX} ON search_terms "
        "USING gin (term gin_trgm_ops) WITH (fastupdate = off)"
    )


def drop_backend_objects(connection: sa.Connection) -> None:
    if is_sqlite(connection):
        connection.exec_driver_sql(f"DROP TABLE IF EXISTS {FTS_TABLE}")
        return
    for name in (PG_TEXT_INDEX, PG_TSV_INDEX, PG_TERMS_INDEX):
        connection.exec_driver_sql(f"DROP INDEX IF EXISTS {name}")


def index_records(
    connection: sa.Connection,
    branch_id: int,
    schema: Schema,
    kind_name: str,
    written: Iterable[RecordWrite],
) -> None:
    """Index the new head versions of some Records of one Kind on a branch (one batch)."""
    kind = schema.kinds.get(kind_name)
    if kind is None:
        return
    new: dict[str, tuple[bool, str, str]] = {}
    for key, deleted, values in written:
        new[key] = (True, "", "") if deleted else (False, *document(kind, key, values))
    if not new:
        return
    docs = t.search_documents.c
    old: dict[str, Any] = {}
    keys = sorted(new)
    for start in range(0, len(keys), _CHUNK):
        rows = connection.execute(
            sa.select(docs.id, docs.record_key, docs.deleted, docs.title, docs.body).where(
                docs.branch_id == branch_id,
                docs.kind == kind_name,
                docs.record_key.in_(keys[start : start + _CHUNK]),
            )
        ).all()
        old.update({row.record_key: row for row in rows})
    delta: Counter[str] = Counter()
    updates: list[dict[str, Any]] = []
    inserts: list[dict[str, Any]] = []
    for key, (deleted, title, body) in new.items():
        before = old.get(key)
        if before is not None and not before.deleted:
            delta.subtract(terms(before.title, before.body))
        if not deleted:
            delta.update(terms(title, body))
        row = {"deleted": deleted, "title": title, "body": body}
        if before is None:
            inserts.append({"branch_id": branch_id, "kind": kind_name, "record_key": key, **row})
        else:
            updates.append({"doc_id": before.id, **row})
    if updates:
        connection.execute(
            t.search_documents.update().where(docs.id == sa.bindparam("doc_id")), updates
        )
    if inserts:
        connection.execute(t.search_documents.insert(), inserts)
    if is_sqlite(connection):
        _sync_fts(connection, branch_id, kind_name, new, old)
    changed = [(term, n) for term, n in sorted(delta.items()) if n]
    if changed:
        connection.execute(
            _ADD_TERMS, [{"branch_id": branch_id, "term": term, "n": n} for term, n in changed]
        )
        if any(n < 0 for _, n in changed):
            connection.execute(_DROP_TERMS, {"b": branch_id})


def _sync_fts(
    connection: sa.Connection,
    branch_id: int,
    kind_name: str,
    new: Mapping[str, tuple[bool, str, str]],
    old: Mapping[str, Any],
) -> None:
    """The FTS5 table mirrors the live documents, under their row ids."""
    stale = [{"id": row.id} for row in old.values() if not row.deleted]
    if stale:
        connection.execute(_FTS_DELETE, stale)
    docs = t.search_documents.c
    ids = {key: row.id for key, row in old.items()}
    missing = sorted(key for key in new if key not in ids)
    for start in range(0, len(missing), _CHUNK):
        rows = connection.execute(
            sa.select(docs.id, docs.record_key).where(
                docs.branch_id == branch_id,
                docs.kind == kind_name,
                docs.record_key.in_(missing[start : start + _CHUNK]),
            )
        ).all()
        ids.update({row.record_key: row.id for row in rows})
    live = [
        {"id": ids[key], "title": title, "body": body}
        for key, (deleted, title, body) in new.items()
        if not deleted
    ]
    if live:
        connection.execute(_FTS_INSERT, live)


def reindex_branch(connection: sa.Connection, branch_id: int, schema: Schema) -> None:
    """Index again every head version the branch wrote (after its schema changed)."""
    if is_sqlite(connection):
        connection.execute(_FTS_DROP_BRANCH, {"b": branch_id})
    connection.execute(
        t.search_documents.delete().where(t.search_documents.c.branch_id == branch_id)
    )
    connection.execute(t.search_terms.delete().where(t.search_terms.c.branch_id == branch_id))
    build_index(connection, branch_id, schema)


def build_index(connection: sa.Connection, branch_id: int, schema: Schema) -> None:
    """The index of a branch that has none, in one pass over its head versions.

    Reads the branch's own head rows a page at a time (memory stays flat), writes their
    documents with the driver's executemany, the FTS5 rows in one INSERT ... SELECT and the
    vocabulary once. The result equals what `index_records` keeps commit by commit.
    """
    vocabulary: Counter[str] = Counter()
    for kind_name, kind in schema.kinds.items():
        after = ""
        while True:
            rows = connection.execute(
                _HEADS_AFTER, {"b": branch_id, "kind": kind_name, "after": after}
            ).all()
            if not rows:
                break
            documents = []
            for row in rows:
                if row.deleted:
                    documents.append((branch_id, kind_name, row.record_key, True, "", ""))
                    continue
                title, body = document(kind, row.record_key, row.values_json)
                vocabulary.update(terms(title, body))
                documents.append((branch_id, kind_name, row.record_key, False, title, body))
            insert_rows(connection, t.search_documents, _DOCUMENT_COLUMNS, documents)
            after = rows[-1].record_key
    if is_sqlite(connection):
        connection.execute(_FTS_OF_BRANCH, {"b": branch_id})
    if vocabulary:
        connection.execute(
            _ADD_TERMS,
            [
                {"branch_id": branch_id, "term": term, "n": n}
                for term, n in sorted(vocabulary.items())
            ],
        )


def rebuild_index(connection: sa.Connection) -> None:
    """Index the head versions of every live branch (migration 0004, for data stored before)."""
    branches = connection.execute(
        sa.select(t.branches.c.id, t.revisions.c.schema_digest)
        .join_from(t.branches, t.revisions, t.revisions.c.id == t.branches.c.head_revision)
        .where(t.branches.c.deleted.is_(False))
        .order_by(t.branches.c.id)
    ).all()
    for branch in branches:
        reindex_branch(connection, branch.id, schema_by_digest(connection, branch.schema_digest))
