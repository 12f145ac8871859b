"""Which Records of a Domain need their vector (re)made, and where Scribe stands in them.

Scribe's `record_embeddings` job keeps each Domain's vectors in step with the head of its default
branch. Every commit writes new head row versions with the branch's next commit sequence
(`from_seq`), so the Records changed since a point are the head rows after it, in the order
(`from_seq`, Kind, key): the job's cursor is the last of them whose vector it stored, kept per
Domain in `embedding_cursors`. A commit after the cursor always writes rows after it (its
sequence is higher), so nothing is missed, and a Record changed twice is embedded once, as it is
now. Deleted Records are tombstone head rows: their vector is dropped.

A cursor at (0, "", "") is a backfill: every Record of the head, page by page. A Domain without
a cursor, or whose cursor was made under another model, branch or schema (the schema decides
the text: which Attributes are searchable, which one is the title), starts one. The vectors of a
page and the cursor's move are written in one transaction (`save_embeddings`), which first checks
the cursor is still where the page was read from, so a Scribe that lost its lease to another
writes nothing twice.

The text embedded for a Record is the one the lexical index holds (`text.document`): its title
and its `string` and `text` values, never those of sensitive Attributes; a value of an Attribute
declared with a `vocabulary:` is followed by its everyday words, as POST /resolve reads them
(`PL (Poland, Polish)`), so that a question about "Polish suppliers" is near the Records in PL.
It is a value: callers must never log it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from lorebase_core.errors import Conflict, quoted
from lorebase_core.resolve import standard_words
from lorebase_core.schema import KindDef
from lorebase_store import tables as t
from lorebase_store.clock import now_stamp
from lorebase_store.search.text import record_title, searchable_attributes
from lorebase_store.search.vectors import put_vector
from lorebase_store.versioned.schemas import schema_at
from lorebase_store.versioned.views import load_branch, load_domain

__all__ = [
    "EmbeddingCursor",
    "EmbeddingPosition",
    "EmbeddingWork",
    "RecordText",
    "SavedEmbeddings",
    "embedding_text",
    "embedding_work",
    "read_cursor",
    "reset_embeddings",
    "save_embeddings",
]


@dataclass(frozen=True, order=True)
class EmbeddingPosition:
    """A place in a branch's head rows, in the order they are embedded: after it, all is to do."""

    seq: int
    kind: str
    key: str


START = EmbeddingPosition(0, "", "")


@dataclass(frozen=True)
class EmbeddingCursor:
    """A Domain's row of `embedding_cursors`: what its vectors were made under, and how far.

    Attributes:
        model: the model of the vectors.
        branch_id: the default branch the Records were read on.
        schema_digest: the schema the texts were built with.
        position: the last Record whose vector was stored.
        backfilled_at: when the last backfill ended; None while one runs.
    """

    model: str
    branch_id: int
    schema_digest: str
    position: EmbeddingPosition
    backfilled_at: str | None


@dataclass(frozen=True)
class RecordText:
    """A Record whose vector is due: its text to embed, or None when its vector is to go
    (the Record is deleted, or its Kind is no longer in the schema). `text` is a value."""

    kind: str
    key: str
    text: str | None


@dataclass(frozen=True, kw_only=True)
class EmbeddingWork:
    """One page of a Domain's Records whose vectors are due (`embedding_work`).

    Attributes:
        domain: the Domain's name.
        schema_model: the model the schema at the head names in search.embedding (None: the
            schema has no search.embedding).
        schema_dimensions: the dimensions it names (None: no search.embedding).
        matches: whether that is the model asked for (name and dimensions): only then are
            `records` read.
        records: the page, in cursor order (empty when nothing is due or `matches` is False).
        backfill: whether the page belongs to a backfill (every Record of the head).
        done: whether the page is the last: nothing after it was due when it was read.
        remaining: how many Records after the page were due when it was read.
    """

    domain: str
    schema_model: str | None
    schema_dimensions: int | None
    matches: bool
    records: tuple[RecordText, ...]
    backfill: bool
    done: bool
    remaining: int
    domain_id: int
    branch_id: int
    schema_digest: str
    since: EmbeddingPosition
    until: EmbeddingPosition
    cursor: EmbeddingCursor | None
    """The cursor as it was read (None: the Domain has none yet)."""


@dataclass(frozen=True)
class SavedEmbeddings:
    """What `save_embeddings` wrote: vectors stored and dropped, and whether a backfill ended."""

    stored: int
    dropped: int
    backfilled: bool


def embedding_text(kind: KindDef, key: str, values: Mapping[str, Any]) -> str:
    """The text embedded for a Record: its title, then its other searchable values (one a
    line), each code of a declared vocabulary followed by its everyday words."""
    lines = [record_title(kind, key, values)]
    for name in searchable_attributes(kind):
        value = values.get(name)
        if name == kind.title or value is None:
            continue
        vocabulary = kind.attributes[name].vocabulary
        words = (
            [word for word, _ in standard_words(vocabulary).get(str(value), ())]
            if vocabulary
            else []
        )
        lines.append(f"{value} ({', '.join(words)})" if words else str(value))
    return "\n".join(lines)


def embedding_work(
    connection: sa.Connection, domain: str, *, model: str, dimensions: int, limit: int
) -> EmbeddingWork:
    """The next page of at most `limit` Records of `domain` whose vectors for `model` are due."""
    info = load_domain(connection, domain)
    branch = load_branch(connection, info, info.default_branch)
    schema = schema_at(connection, info, branch.head_revision)
    embedding = schema.search.embedding
    matches = (
        embedding is not None and embedding.model == model and embedding.dimensions == dimensions
    )
    cursor = read_cursor(connection, info.id)
    current = cursor is not None and (cursor.model, cursor.branch_id, cursor.schema_digest) == (
        model,
        branch.id,
        schema.digest,
    )
    since = cursor.position if cursor is not None and current else START
    backfill = cursor is None or not current or cursor.backfilled_at is None
    records: list[RecordText] = []
    remaining = 0
    until = since
    if matches:
        rows = connection.execute(_after(branch.id, since).limit(limit + 1)).all()
        for row in rows[:limit]:
            kind = schema.kinds.get(row.kind)
            text = None
            if kind is not None and not row.deleted:
                text = embedding_text(kind, row.record_key, row.values_json)
            records.append(RecordText(row.kind, row.record_key, text))
        if records:
            last = records[-1]
            until = EmbeddingPosition(rows[len(records) - 1].from_seq, last.kind, last.key)
        if len(rows) > limit:
            remaining = connection.execute(
                sa.select(sa.func.count()).select_from(_after(branch.id, until).subquery())
            ).scalar_one()
    return EmbeddingWork(
        domain=domain,
        schema_model=embedding.model if embedding is not None else None,
        schema_dimensions=embedding.dimensions if embedding is not None else None,
        matches=matches,
        records=tuple(records),
        backfill=backfill,
        done=remaining == 0,
        remaining=remaining,
        domain_id=info.id,
        branch_id=branch.id,
        schema_digest=schema.digest,
        since=since,
        until=until,
        cursor=cursor,
    )


def save_embeddings(
    connection: sa.Connection,
    work: EmbeddingWork,
    model: str,
    vectors: Sequence[Sequence[float] | None],
    *,
    updated_by: str,
) -> SavedEmbeddings:
    """Store the vectors of a page (one per Record, None where the vector goes) and move the
    cursor past it, in the caller's write transaction.

    Raises:
        Conflict: the cursor moved since the page was read (another Scribe wrote it).
    """
    if len(vectors) != len(work.records):
        raise ValueError(f"{len(vectors)} vectors for {len(work.records)} Records")
    if read_cursor(connection, work.domain_id, lock=True) != work.cursor:
        raise Conflict(
            f"The embedding cursor of Domain {quoted(work.domain)} moved while its page was "
            "embedded (another Scribe took the job); nothing was written"
        )
    stored = dropped = 0
    for record, vector in zip(work.records, vectors, strict=True):
        if vector is None:
            dropped += _drop_vector(connection, work.domain_id, record, model)
        else:
            put_vector(
                connection, work.domain_id, record.kind, record.key, model, vector, updated_by
            )
            stored += 1
    now = now_stamp()
    backfilled = work.backfill and work.done
    if work.backfill or work.cursor is None:
        backfilled_at = now if backfilled else None
    else:
        backfilled_at = work.cursor.backfilled_at
    row = {
        "model": model,
        "branch_id": work.branch_id,
        "schema_digest": work.schema_digest,
        "seq": work.until.seq,
        "kind": work.until.kind,
        "record_key": work.until.key,
        "backfilled_at": backfilled_at,
        "updated_at": now,
    }
    cursors = t.embedding_cursors
    if work.cursor is None:
        connection.execute(cursors.insert().values(domain_id=work.domain_id, **row))
    else:
        connection.execute(
            cursors.update().where(cursors.c.domain_id == work.domain_id).values(**row)
        )
    return SavedEmbeddings(stored, dropped, backfilled)


def reset_embeddings(connection: sa.Connection, domain: str) -> bool:
    """Forget where the job stands for `domain`: its next run backfills. Whether there was a
    cursor to forget (the vectors stay, and are replaced as the backfill goes)."""
    info = load_domain(connection, domain)
    cursors = t.embedding_cursors
    result = connection.execute(cursors.delete().where(cursors.c.domain_id == info.id))
    return bool(result.rowcount)


def read_cursor(
    connection: sa.Connection, domain_id: int, *, lock: bool = False
) -> EmbeddingCursor | None:
    """The embedding cursor of a Domain (by id), None when it has none; `lock`: for update."""
    cursors = t.embedding_cursors.c
    query = sa.select(
        cursors.model,
        cursors.branch_id,
        cursors.schema_digest,
        cursors.seq,
        cursors.kind,
        cursors.record_key,
        cursors.backfilled_at,
    ).where(cursors.domain_id == domain_id)
    row = connection.execute(query.with_for_update() if lock else query).first()
    if row is None:
        return None
    return EmbeddingCursor(
        model=row.model,
        branch_id=row.branch_id,
        schema_digest=row.schema_digest,
        position=EmbeddingPosition(row.seq, row.kind, row.record_key),
        backfilled_at=row.backfilled_at,
    )


def _after(
    branch_id: int, position: EmbeddingPosition
) -> sa.Select[tuple[int, str, str, bool, object]]:
    """The head rows of a branch after `position`, in cursor order."""
    records = t.records.c
    return (
        sa.select(
            records.from_seq, records.kind, records.record_key, records.deleted, records.values_json
        )
        .where(
            records.branch_id == branch_id,
            records.to_seq.is_(None),
            sa.tuple_(records.from_seq, records.kind, records.record_key)
            > sa.tuple_(
                sa.literal(position.seq), sa.literal(position.kind), sa.literal(position.key)
            ),
        )
        .order_by(records.from_seq, records.kind, records.record_key)
    )


def _drop_vector(connection: sa.Connection, domain_id: int, record: RecordText, model: str) -> int:
    vectors = t.record_vectors.c
    result = connection.execute(
        t.record_vectors.delete().where(
            vectors.domain_id == domain_id,
            vectors.kind == record.kind,
            vectors.record_key == record.key,
            vectors.model == model,
        )
    )
    return int(result.rowcount)
