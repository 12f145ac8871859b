"""Lexical ranking: BM25 over any of the terms, all-terms matches first, keys before all.

The candidates are the documents holding at least one term (`lexical.fetch`, at most `cap` per
term in Kind and key order, plus the first `cap` holding every term when a term had more) and the
Record a term names by key (`lexical.keyed`). Each is scored in Python from the documents' own
text, so SQLite and PostgreSQL answer the same hits in the same order:

    score = Σ over the terms it holds of idf × tf × (k1 + 1) / (tf + k1 × (1 - b + b × dl / avgdl))

with tf = 4 × occurrences in the title + occurrences in the body, dl = 4 × words of the title +
words of the body, avgdl the mean dl of the candidates, k1 = 1.2, b = 0.75 and
idf = ln(1 + (N - df + 0.5) / (df + 0.5)) (df: the live documents of the Kinds searched holding
the term; N: the candidates, or the largest df when a term holds more: counting every document
of the Kinds would cost a scan; with a single term the idf is left out, it would not change the
order).
Order: a Record named by key first, then more terms held, then score, then Kind and key.

A term of one or two characters is looked up on its own only when the text has no longer term;
otherwise it only ranks the candidates the others found. A term that alone finds nothing is
corrected to the most similar vocabulary term that finds something (`lexical.similar_terms`),
unless it is protected: a Kind, Attribute or Relation name, or a stored key.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import sqlalchemy as sa

from lorebase_core.resolve import normalize, singular
from lorebase_core.search_text import AttributeTerm, Interpretation
from lorebase_store.search.lexical import (
    Correction,
    Document,
    count,
    fetch,
    keyed,
    similar_terms,
)
from lorebase_store.search.text import MIN_TERM, words

K1 = 1.2
B = 0.75
TITLE_WEIGHT = 4
CANDIDATES_PER_TERM = 1000
"""The default of `read.search.candidates_per_term`."""


@dataclass(frozen=True)
class Ranked:
    """A candidate Record, scored."""

    kind: str
    key: str
    score: float
    matched_terms: tuple[str, ...]
    by_key: bool


@dataclass
class Lexical:
    """What the lexical phase found: ranked Records, corrections, the terms searched."""

    ranked: list[Ranked] = field(default_factory=list)
    corrected: list[Correction] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)
    attribute_terms: list[AttributeTerm] = field(default_factory=list)


def lexical(
    connection: sa.Connection,
    chain: Sequence[int],
    reading: Interpretation,
    *,
    min_similarity: float,
    cap: int = CANDIDATES_PER_TERM,
) -> Lexical:
    """Rank the documents of the Kinds searched against the interpreted terms."""
    kinds = reading.kinds
    outcome = Lexical()
    candidates: dict[tuple[str, str], Document] = {}
    frequency: dict[str, int] = {}
    by_key: set[tuple[str, str]] = set()
    restricted = {item.term for item in reading.attribute_terms}
    lookups = [term for term in reading.terms if len(term) >= MIN_TERM] or list(reading.terms)
    looked_up: list[str] = []
    capped = False
    for written in reading.terms:
        term, named = written, []
        if written not in restricted and len(written) > 1:
            named = keyed(connection, chain, kinds, written)
            by_key.update((doc.kind, doc.key) for doc in named)
            candidates.update({(doc.kind, doc.key): doc for doc in named})
        if written in lookups:
            docs, more = fetch(connection, chain, kinds, [written], cap)
            if not docs and not named and _correctable(written, reading):
                term, docs, more = _corrected(
                    connection, chain, kinds, written, min_similarity, cap
                )
                if term != written:
                    outcome.corrected.append(Correction(written, term))
            frequency[term] = count(connection, chain, kinds, [term]) if more else len(docs)
            capped = capped or more
            looked_up.append(term)
            candidates.update({(doc.kind, doc.key): doc for doc in docs})
        outcome.terms.append(term)
    outcome.terms = list(dict.fromkeys(outcome.terms))
    if capped and len(looked_up) > 1:  # the Records holding every term are candidates too
        everything, _ = fetch(connection, chain, kinds, looked_up, cap)
        candidates.update({(doc.kind, doc.key): doc for doc in everything})
    replaced = {item.written: item.corrected for item in outcome.corrected}
    outcome.attribute_terms = [
        AttributeTerm(item.attribute, replaced.get(item.term, item.term))
        for item in reading.attribute_terms
    ]
    required = {item.term for item in outcome.attribute_terms}
    found = _score(connection, chain, kinds, list(candidates.values()), outcome.terms, frequency)
    outcome.ranked = [
        Ranked(doc.kind, doc.key, score, held, (doc.kind, doc.key) in by_key)
        for doc, score, held in found
        if (held or (doc.kind, doc.key) in by_key) and required <= set(held)
    ]
    outcome.ranked.sort(
        key=lambda hit: (-hit.by_key, -len(hit.matched_terms), -hit.score, hit.kind, hit.key)
    )
    matched = {term for hit in outcome.ranked for term in hit.matched_terms}
    outcome.unmatched = [term for term in outcome.terms if term not in matched]
    return outcome


def _correctable(term: str, reading: Interpretation) -> bool:
    if len(term) < MIN_TERM or any(char.isdigit() for char in term):
        return False
    return singular(normalize(term)) not in reading.protected


def _corrected(
    connection: sa.Connection,
    chain: Sequence[int],
    kinds: Sequence[str],
    written: str,
    min_similarity: float,
    cap: int,
) -> tuple[str, list[Document], bool]:
    """The first similar term that finds something, with its documents (else the word)."""
    for term in similar_terms(connection, chain, written, min_similarity):
        docs, more = fetch(connection, chain, kinds, [term], cap)
        if docs:
            return term, docs, more
    return written, [], False


def _score(
    connection: sa.Connection,
    chain: Sequence[int],
    kinds: Sequence[str],
    docs: list[Document],
    terms: list[str],
    frequency: dict[str, int],
) -> list[tuple[Document, float, tuple[str, ...]]]:
    """Each candidate with its BM25 score and the terms it holds (see the module docstring)."""
    if not docs:
        return []
    texts = [(doc.title.lower(), doc.body.lower()) for doc in docs]
    lengths = [TITLE_WEIGHT * len(words(title)) + len(words(body)) for title, body in texts]
    average = max(sum(lengths) / len(lengths), 1.0)
    held_by = [[term for term in terms if term in title or term in body] for title, body in texts]
    for term in terms:
        if term not in frequency:  # a short term beside longer ones: its candidates count
            frequency[term] = sum(term in held for held in held_by)
    scored = [term for term in terms if frequency.get(term)]
    total = max([len(docs), *frequency.values()]) if len(scored) > 1 else 0
    found: list[tuple[Document, float, tuple[str, ...]]] = []
    for doc, (title, body), length, held in zip(docs, texts, lengths, held_by, strict=True):
        score = 0.0
        for term in held:
            tf = TITLE_WEIGHT * title.count(term) + body.count(term)
            idf = 1.0
            if total:
                df = max(frequency.get(term, 0), 1)
                idf = math.log(1 + (total - df + 0.5) / (df + 0.5))
            score += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / average))
        found.append((doc, round(score, 6), tuple(held)))
    return found
