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

import functools
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
        statement, parameters = _segment(connection, chain[:position], terms, counting=False)
        parameters.update(branch=branch_id, kinds=list(kinds), limit=cap + 1)
        rows = connection.execute(statement, parameters).all()
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
        statement, parameters = _segment(connection, chain[:position], terms, counting=True)
        parameters.update(branch=branch_id, kinds=list(kinds))
        total += int(connection.execute(statement, parameters).scalar_one())
    return total


def keyed(
    connection: sa.Connection, chain: Sequence[int], kinds: Sequence[str], term: str
) -> list[Document]:
    """The live documents whose key is `term` (any case), else the one key it is a prefix of.

    Keys are probed in the unique index as written, upper case and capitalized: a prefix is
    unique when exactly one live key of the Kinds searched starts with it (of the first
    KEY_PROBES per variant and branch). Prefixes need three characters.
    """
    variants = sorted({term, term.upper(), term.capitalize()})
    parameters: dict[str, Any] = {"kinds": list(kinds), "limit": KEY_PROBES}
    for index, variant in enumerate(variants):
        parameters.update({f"v{index}": variant, f"e{index}": variant + _LAST})
    seen: dict[tuple[str, str], Document | None] = {}
    for branch_id in chain:
        rows = connection.execute(_keys_statement(len(variants)), {**parameters, "b": branch_id})
        for row in sorted(rows, key=lambda row: (row.kind, row.record_key)):
            if row.record_key.lower().startswith(term):
                identity = (row.kind, row.record_key)
                document = Document(row.kind, row.record_key, row.title, row.body)
                seen.setdefault(identity, None if row.deleted else document)
    live = [document for document in seen.values() if document is not None]
    exact = [document for document in live if document.key.lower() == term]
    if exact:
        return sorted(exact, key=lambda document: (document.kind, document.key))
    return live if len(live) == 1 and len(term) >= MIN_TERM else []


@functools.lru_cache(maxsize=8)
def _keys_statement(variants: int) -> sa.CompoundSelect[Any]:
    """One range of the unique index per variant (an OR of them would scan the Kinds)."""
    docs = t.search_documents.c
    arms = [
        sa.select(docs.kind, docs.record_key, docs.deleted, docs.title, docs.body)
        .where(
            docs.branch_id == sa.bindparam("b"),
            docs.kind.in_(sa.bindparam("kinds", expanding=True)),
            docs.record_key >= sa.bindparam(f"v{index}"),
            docs.record_key < sa.bindparam(f"e{index}"),
        )
        .limit(sa.bindparam("limit"))
        .subquery()
        for index in range(variants)
    ]
    return sa.union_all(*(sa.select(arm) for arm in arms))


def _segment(
    connection: sa.Connection, nearer: Sequence[int], terms: Sequence[str], *, counting: bool
) -> tuple[sa.Select[Any], dict[str, Any]]:
    """The statement reading one branch's documents holding the terms, and its parameters."""
    sqlite = is_sqlite(connection)
    long_terms = [term for term in terms if sqlite and len(term) >= MIN_TERM]
    like = [term for term in terms if term not in long_terms]
    parameters: dict[str, Any] = {f"t{index}": f"%{term}%" for index, term in enumerate(like)}
    if long_terms:
        parameters["match"] = " ".join(f'"{term}"' for term in long_terms)
    if nearer:
        parameters["nearer"] = list(nearer)
    statement = _statement(sqlite, bool(long_terms), len(like), bool(nearer), counting)
    return statement, parameters


@functools.lru_cache(maxsize=128)
def _statement(
    sqlite: bool, matching: bool, likes: int, nearer: bool, counting: bool
) -> sa.Select[Any]:
    """Built once per shape: the documents of a branch holding the terms, in Kind and key order."""
    docs = t.search_documents.alias("d")
    conditions: list[sa.ColumnElement[bool]] = [
        docs.c.branch_id == sa.bindparam("branch"),
        docs.c.kind.in_(sa.bindparam("kinds", expanding=True)),
        docs.c.deleted.is_(False),
    ]
    if nearer:
        shadow = t.search_documents.alias("n")
        conditions.append(
            ~sa.exists().where(
                shadow.c.branch_id.in_(sa.bindparam("nearer", expanding=True)),
                shadow.c.kind == docs.c.kind,
                shadow.c.record_key == docs.c.record_key,
            )
        )
    text = _qualified(PG_TEXT) if not sqlite else sa.func.lower(docs.c.title + " " + docs.c.body)
    conditions.extend(text.like(sa.bindparam(f"t{index}")) for index in range(likes))
    source: sa.FromClause = docs
    if matching:
        fts = sa.table(FTS_TABLE, sa.column("rowid"))
        source = fts.join(docs, docs.c.id == fts.c.rowid)
        conditions.append(sa.literal_column(FTS_TABLE).op("MATCH")(sa.bindparam("match")))
        # `+ 0`: the documents' index must not drive the join (it would probe the FTS table once
        # per document of the Kinds to spare the sort): the FTS matches do
        conditions[0] = docs.c.branch_id + 0 == sa.bindparam("branch")
    if counting:
        return sa.select(sa.func.count()).select_from(source).where(*conditions)
    ordering = (
        [docs.c.kind, docs.c.record_key]
        if sqlite
        else [docs.c.kind.collate("C"), docs.c.record_key.collate("C")]
    )
    return (
        sa.select(docs.c.kind, docs.c.record_key, docs.c.title, docs.c.body)
        .select_from(source)
        .where(*conditions)
        .order_by(*ordering)
        .limit(sa.bindparam("limit"))
    )


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
