"""Lexical search over the index: the documents holding terms, Record keys, correction terms.

A document holds a term when the term occurs in its title or body (case-insensitive substrings:
`bear` finds bearings). SQLite finds them with its FTS5 trigram table, PostgreSQL with the
pg_trgm index on the lowered text; terms shorter than three characters are matched with LIKE on
both. Documents come in Kind and key order (at most `cap` per fetch), so both backends fetch the
same ones; `rank.py` scores them.

Spelling correction candidates: the vocabulary terms (`search_terms` of the branch and its bases)
most similar to a word by trigram similarity (pg_trgm's `similarity`, computed by PostgreSQL there
and in Python on SQLite, same figures) at or above `min_similarity`, higher similarity first, then
the term found in more documents, then alphabetical order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from lorebase_store import tables as t
from lorebase_store.engine import is_sqlite
from lorebase_store.search.index import FTS_TABLE, PG_TEXT
from lorebase_store.search.text import MIN_TERM, trigram_similarity, trigrams

CANDIDATE_TERMS = 5
"""Correction candidates tried per word, best first."""
VOCABULARY_SCAN = 50_000
"""Vocabulary terms compared with a word on SQLite at most (those of a similar length)."""
KEY_PROBES = 10
"""Keys read per branch when a term is looked up as a key or a key prefix."""
_LAST = "\U0010ffff"


@dataclass(frozen=True)
class Document:
    """A live search document: the Record it stands for and its indexed text."""

    kind: str
    key: str
    title: str
    body: str


@dataclass(frozen=True)
class Correction:
    """A word of the text replaced by a vocabulary term."""

    written: str
    corrected: str

    def to_json(self) -> dict[str, str]:
        """`{"from": ..., "to": ...}` as answers show it."""
        return {"from": self.written, "to": self.corrected}


def fetch(
    connection: sa.Connection,
    chain: Sequence[int],
    kinds: Sequence[str],
    terms: Sequence[str],
    cap: int,
) -> tuple[list[Document], bool]:
    """The first `cap` documents (by Kind, key) holding every term, and whether there were more.

    The nearest branch's documents shadow its bases' (tombstones included).
    """
    if not terms or not kinds:
        return [], False
    found: list[Document] = []
    more = False
    for position, branch_id in enumerate(chain):
        docs, conditions, source = _segment(connection, branch_id, chain[:position], kinds, terms)
        query = (
            sa.select(docs.c.kind, docs.c.record_key, docs.c.title, docs.c.body)
            .select_from(source)
            .where(*conditions)
            .order_by(*_ordering(connection, docs))
            .limit(cap + 1)
        )
        rows = connection.execute(query).all()
        more = more or len(rows) > cap
        found.extend(Document(row.kind, row.record_key, row.title, row.body) for row in rows)
    found.sort(key=lambda doc: (doc.kind, doc.key))
    return found[:cap], more or len(found) > cap


def count(
    connection: sa.Connection, chain: Sequence[int], kinds: Sequence[str], terms: Sequence[str]
) -> int:
    """How many live documents hold every term (every live document when `terms` is empty)."""
    total = 0
    for position, branch_id in enumerate(chain):
        _docs, conditions, source = _segment(connection, branch_id, chain[:position], kinds, terms)
        query = sa.select(sa.func.count()).select_from(source).where(*conditions)
        total += int(connection.execute(query).scalar_one())
    return total


def keyed(
    connection: sa.Connection, chain: Sequence[int], kinds: Sequence[str], term: str
) -> list[Document]:
    """The live documents whose key is `term` (any case), else the one key it is a prefix of.

    Keys are probed in the unique index as written, upper case and capitalized: a prefix is
    unique when exactly one live key of the Kinds searched starts with it (of the first
    KEY_PROBES per branch). Prefixes need three characters.
    """
    docs = t.search_documents.c
    arms = [
        sa.select(docs.kind, docs.record_key, docs.deleted, docs.title, docs.body).where(
            docs.kind.in_(list(kinds)),
            docs.record_key >= variant,
            docs.record_key < variant + _LAST,
            docs.branch_id == sa.bindparam("branch"),
        )
        for variant in sorted({term, term.upper(), term.lower(), term.capitalize()})
    ]
    seen: dict[tuple[str, str], Document | None] = {}
    for branch_id in chain:
        rows = [
            row
            for arm in arms  # one range of the unique index each (an OR of them scans the Kind)
            for row in connection.execute(arm.limit(KEY_PROBES), {"branch": branch_id})
        ]
        rows.sort(key=lambda row: (row.kind, row.record_key))
        for row in rows:
            if row.record_key.lower().startswith(term):
                identity = (row.kind, row.record_key)
                document = Document(row.kind, row.record_key, row.title, row.body)
                seen.setdefault(identity, None if row.deleted else document)
    live = [document for document in seen.values() if document is not None]
    exact = [document for document in live if document.key.lower() == term]
    if exact:
        return sorted(exact, key=lambda document: (document.kind, document.key))
    return live if len(live) == 1 and len(term) >= MIN_TERM else []


def _segment(
    connection: sa.Connection,
    branch_id: int,
    nearer: Sequence[int],
    kinds: Sequence[str],
    terms: Sequence[str],
) -> tuple[Any, list[sa.ColumnElement[bool]], sa.FromClause]:
    """The documents alias, the conditions and the FROM of one branch's documents."""
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
    source: sa.FromClause = docs
    if not is_sqlite(connection):
        conditions.extend(_qualified(PG_TEXT).like(f"%{term}%") for term in terms)
        return docs, conditions, source
    lowered = sa.func.lower(docs.c.title + " " + docs.c.body)
    conditions.extend(lowered.like(f"%{term}%") for term in terms if len(term) < MIN_TERM)
    long_terms = [term for term in terms if len(term) >= MIN_TERM]
    if long_terms:
        fts = sa.table(FTS_TABLE, sa.column("rowid"))
        expression = " ".join(f'"{term}"' for term in long_terms)
        source = fts.join(docs, docs.c.id == fts.c.rowid)
        conditions.append(sa.literal_column(FTS_TABLE).op("MATCH")(expression))
        # `+ 0`: the documents' index must not drive the join (it would probe the FTS table once
        # per document of the Kinds to spare the sort): the FTS matches do
        conditions[0] = docs.c.branch_id + 0 == branch_id
    return docs, conditions, source


def _ordering(connection: sa.Connection, docs: Any) -> list[sa.ColumnElement[str]]:
    """Kind, then key, in code point order on both backends."""
    if is_sqlite(connection):
        return [docs.c.kind, docs.c.record_key]
    return [docs.c.kind.collate("C"), docs.c.record_key.collate("C")]


def _qualified(expression: str) -> sa.ColumnElement[str]:
    """An index expression of index.py on the alias `d`, so that PostgreSQL uses the index."""
    return sa.literal_column(expression.replace("title", "d.title").replace("body", "d.body"))


def similar_terms(
    connection: sa.Connection, chain: Sequence[int], word: str, min_similarity: float
) -> list[str]:
    """The vocabulary terms a word may be corrected to, best first (see the module docstring)."""
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
