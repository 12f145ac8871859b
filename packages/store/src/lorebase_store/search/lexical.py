"""Lexical search over the index: substring matching of every word, ranked, with corrections.

Every word of the text must occur in the Record's title or body (case-insensitive substrings:
`bear` finds bearings). SQLite matches with its FTS5 trigram table and ranks by bm25 (the title
weighs four times the body); PostgreSQL matches with the pg_trgm index on the lowered text and
ranks by `ts_rank` of the weighted tsvector. Words shorter than three characters are matched
with LIKE on both. Ranking is deterministic: score, then Kind, then key.

Spelling corrections: when the text finds nothing, each word that alone finds nothing is replaced
by the vocabulary term (`search_terms` of the branch and its bases) most similar to it by
trigram similarity (pg_trgm's `similarity`, computed by PostgreSQL there and in Python on SQLite,
same figures) at or above `min_similarity`, higher similarity first, then the term found in more
documents, then alphabetical order; a term is taken only if it alone finds something.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sqlalchemy as sa

from lorebase_store import tables as t
from lorebase_store.engine import is_sqlite
from lorebase_store.search.index import FTS_TABLE, PG_TEXT, PG_TSVECTOR
from lorebase_store.search.text import MIN_TERM, trigram_similarity, trigrams

CANDIDATE_TERMS = 5
"""Correction candidates tried per word, best first."""
VOCABULARY_SCAN = 50_000
"""Vocabulary terms compared with a word on SQLite at most (those of a similar length)."""


@dataclass(frozen=True)
class LexicalHit:
    kind: str
    key: str
    score: float


@dataclass(frozen=True)
class Correction:
    written: str
    corrected: str

    def to_json(self) -> dict[str, str]:
        return {"from": self.written, "to": self.corrected}


def match(
    connection: sa.Connection,
    chain: Sequence[int],
    kinds: Sequence[str],
    words: Sequence[str],
    limit: int,
) -> list[LexicalHit]:
    """The best `limit` documents holding every word, the nearest branch's shadowing its bases'."""
    if not words or not kinds:
        return []
    found: list[LexicalHit] = []
    for position, branch_id in enumerate(chain):
        found.extend(_match_segment(connection, branch_id, chain[:position], kinds, words, limit))
    found.sort(key=lambda hit: (-hit.score, hit.kind, hit.key))
    return found[:limit]


def _match_segment(
    connection: sa.Connection,
    branch_id: int,
    nearer: Sequence[int],
    kinds: Sequence[str],
    words: Sequence[str],
    limit: int,
) -> list[LexicalHit]:
    docs = t.search_documents.alias("d")
    conditions: list[sa.ColumnElement[bool]] = [
        docs.c.branch_id == branch_id,
        docs.c.kind.in_(list(kinds)),
        docs.c.deleted.is_(False),
    ]
    if nearer:
        shadow = t.search_documents.alias("n")
        conditions.append(
            ~sa.exists().where(
                shadow.c.branch_id.in_(list(nearer)),
                shadow.c.kind == docs.c.kind,
                shadow.c.record_key == docs.c.record_key,
            )
        )
    long_words = [word for word in words if len(word) >= MIN_TERM]
    short_words = [word for word in words if len(word) < MIN_TERM]
    lowered = sa.func.lower(docs.c.title + " " + docs.c.body)
    score: sa.ColumnElement[float]
    if is_sqlite(connection):
        for word in short_words:
            conditions.append(lowered.like(f"%{word}%"))
        if long_words:
            fts = sa.table(FTS_TABLE, sa.column("rowid"), sa.column(FTS_TABLE))
            expression = " ".join(f'"{word}"' for word in long_words)
            score = -sa.func.bm25(sa.literal_column(FTS_TABLE), 4.0, 1.0)
            query = (
                sa.select(docs.c.kind, docs.c.record_key, score.label("score"))
                .select_from(fts.join(docs, docs.c.id == fts.c.rowid))
                .where(sa.literal_column(FTS_TABLE).op("MATCH")(expression), *conditions)
            )
        else:
            query = sa.select(docs.c.kind, docs.c.record_key, sa.literal(0.0).label("score")).where(
                *conditions
            )
    else:
        for word in words:
            conditions.append(_qualified(PG_TEXT).like(f"%{word}%"))
        tsquery = " | ".join(f"{word}:*" for word in words)
        score = sa.func.ts_rank(
            _qualified(PG_TSVECTOR),
            sa.func.to_tsquery(sa.literal_column("'simple'"), tsquery),
        )
        query = sa.select(docs.c.kind, docs.c.record_key, score.label("score")).where(*conditions)
    query = query.order_by(sa.desc("score"), docs.c.kind, docs.c.record_key).limit(limit)
    return [
        LexicalHit(row.kind, row.record_key, round(float(row.score), 6))
        for row in connection.execute(query)
    ]


def _qualified(expression: str) -> sa.ColumnElement[str]:
    """An index expression of index.py on the alias `d`, so that PostgreSQL uses the index."""
    return sa.literal_column(expression.replace("title", "d.title").replace("body", "d.body"))


def corrections(
    connection: sa.Connection,
    chain: Sequence[int],
    kinds: Sequence[str],
    words: Sequence[str],
    *,
    min_similarity: float,
) -> list[Correction]:
    """Corrections of the words that alone find nothing (see the module docstring)."""
    made: list[Correction] = []
    for word in dict.fromkeys(words):
        if len(word) < MIN_TERM or word.isdigit():
            continue
        if match(connection, chain, kinds, [word], 1):
            continue
        for term in _similar_terms(connection, chain, word, min_similarity):
            if match(connection, chain, kinds, [term], 1):
                made.append(Correction(word, term))
                break
    return made


def _similar_terms(
    connection: sa.Connection, chain: Sequence[int], word: str, min_similarity: float
) -> list[str]:
    terms = t.search_terms.c
    if is_sqlite(connection):
        found = connection.execute(
            sa.select(terms.term, sa.func.sum(terms.documents).label("documents"))
            .where(
                terms.branch_id.in_(list(chain)),
                sa.func.length(terms.term).between(len(word) - 3, len(word) + 3),
            )
            .group_by(terms.term)
            .order_by(terms.term)
            .limit(VOCABULARY_SCAN)
        ).all()
        own = trigrams(word)  # once, not once per term of the vocabulary
        scored = [
            (trigram_similarity(own, trigrams(row.term)), int(row.documents), row.term)
            for row in found
            if row.term != word
        ]
    else:
        similar = sa.func.similarity(terms.term, word)
        rows = connection.execute(
            sa.select(
                terms.term,
                sa.func.max(similar).label("similarity"),
                sa.func.sum(terms.documents).label("documents"),
            )
            .where(terms.branch_id.in_(list(chain)), similar >= min_similarity)
            .group_by(terms.term)
        ).all()
        scored = [
            (float(row.similarity), int(row.documents), row.term)
            for row in rows
            if row.term != word
        ]
    scored = [entry for entry in scored if entry[0] >= min_similarity]
    scored.sort(key=lambda entry: (-round(entry[0], 6), -entry[1], entry[2]))
    return [term for _, _, term in scored[:CANDIDATE_TERMS]]
