"""`search`: one search at the head of a View, lexical, semantic or hybrid (docs/search.md).

Candidates come from the index (lexical) or the stored vectors (semantic); each is then read
through the View, so a hit always shows the Record as the branch sees it, masked by the caller's
scope, and a Record the branch deleted or never had is dropped. Hybrid ranks by reciprocal rank
fusion of the two lists: score = sum over the lists of 1 / (RRF_K + rank), rank from 1.

The text of lexical and hybrid searches is read first (`lorebase_core.search_text`): Kind words
narrow the Kinds, `attr:value` terms must hold in that Attribute's value; the lexical ranking is
`rank.py`'s. The answer says how the text was read (`interpreted`) and, in `notes`, which terms
matched nothing and what to try when nothing was found (`notes.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import sqlalchemy as sa

from lorebase_core.access import ReadScope
from lorebase_core.errors import SearchInvalid
from lorebase_core.schema import Schema
from lorebase_core.search_request import SearchRequest
from lorebase_core.search_text import AttributeTerm, Interpretation, interpret
from lorebase_store import tables as t
from lorebase_store.search.lexical import Correction
from lorebase_store.search.notes import search_notes
from lorebase_store.search.rank import CANDIDATES_PER_TERM, Lexical, Ranked, lexical
from lorebase_store.search.text import matched_attributes, record_title
from lorebase_store.search.vectors import nearest
from lorebase_store.versioned.current import Current, current_records
from lorebase_store.versioned.views import View

RRF_K = 60
HYBRID_CANDIDATES = 50
"""Each list of a hybrid search contributes its best max(HYBRID_CANDIDATES, 4 x limit)."""


@dataclass(frozen=True, kw_only=True)
class SearchHit:
    kind: str
    key: str
    title: str
    score: float
    matched: list[str]
    values: dict[str, Any] | None
    matched_terms: list[str] | None = None

    @property
    def ref(self) -> str:
        return f"{self.kind}/{self.key}"

    def to_json(self) -> dict[str, Any]:
        hit: dict[str, Any] = {
            "ref": self.ref,
            "kind": self.kind,
            "key": self.key,
            "title": self.title,
            "score": self.score,
            "matched": self.matched,
        }
        if self.matched_terms is not None:
            hit["matched_terms"] = self.matched_terms
        if self.values is not None:
            hit["values"] = self.values
        return hit


@dataclass(frozen=True, kw_only=True)
class SearchResult:
    q: str
    mode: str
    kinds: tuple[str, ...]
    hits: list[SearchHit]
    corrected: list[Correction] = field(default_factory=list)
    capped: bool = False
    interpreted: Interpretation | None = None
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        answer: dict[str, Any] = {"q": self.q, "mode": self.mode, "kinds": list(self.kinds)}
        if self.mode != "semantic":
            answer["corrected"] = [correction.to_json() for correction in self.corrected]
            if self.interpreted is not None:
                answer["interpreted"] = self.interpreted.to_json()
            answer["notes"] = self.notes
        answer["hits"] = [hit.to_json() for hit in self.hits]
        if self.mode != "lexical":
            answer["capped"] = self.capped
        return answer


def search_chain(connection: sa.Connection, view: View) -> list[int]:
    """The branch read, then its base, and so on: whose index documents a search sees."""
    chain = [view.branch.id]
    base = view.branch.base_branch_id
    while base is not None and base not in chain:
        chain.append(base)
        base = connection.execute(
            sa.select(t.branches.c.base_branch_id).where(t.branches.c.id == base)
        ).scalar()
    return chain


def search(
    connection: sa.Connection,
    view: View,
    schema: Schema,
    scope: ReadScope,
    request: SearchRequest,
    *,
    min_similarity: float,
    candidates: int = CANDIDATES_PER_TERM,
) -> SearchResult:
    """Run a checked search (`lorebase_core.search_request`) at the head of the View's branch.

    `candidates` is `read.search.candidates_per_term` (documents fetched per term at most).
    """
    kinds = tuple(kind for kind in request.kinds if scope.kind_visible(kind))
    reading = request.interpretation
    if reading is None and request.mode != "semantic":
        reading, issues = interpret(request.q, schema, scope, kinds)
        if issues:
            raise SearchInvalid(f"The search was refused: {len(issues)} problem(s)", issues)
    if reading is not None:
        kinds = tuple(kind for kind in reading.kinds if scope.kind_visible(kind))
        reading = replace(reading, kinds=kinds)
    chain = search_chain(connection, view)
    reader = _Hits(connection, view, schema, scope, request.values)
    if request.mode == "lexical":
        assert reading is not None
        found = lexical(connection, chain, reading, min_similarity=min_similarity, cap=candidates)
        hits = reader.hits(found, enough=request.limit, within=found.attribute_terms)
        return _answer(request, reading, found, hits[: request.limit], schema, scope)
    assert request.query_vector is not None
    assert request.model is not None
    ranked, capped = nearest(connection, view.domain.id, request.model, kinds, request.query_vector)
    semantic = Lexical(ranked=[Ranked(kind, key, score, (), False) for kind, key, score in ranked])
    if request.mode == "semantic":
        hits = reader.hits(semantic, enough=request.limit)
        return SearchResult(
            q=request.q, mode="semantic", kinds=kinds, hits=hits[: request.limit], capped=capped
        )
    assert reading is not None
    size = max(HYBRID_CANDIDATES, 4 * request.limit)
    found = lexical(connection, chain, reading, min_similarity=min_similarity, cap=candidates)
    lexical_hits = reader.hits(found, enough=size, within=found.attribute_terms)
    semantic_hits = reader.hits(semantic, enough=size, within=found.attribute_terms)
    fused: dict[tuple[str, str], float] = {}
    best: dict[tuple[str, str], SearchHit] = {}
    for ranking in (lexical_hits, semantic_hits):
        for rank, hit in enumerate(ranking, start=1):
            identity = (hit.kind, hit.key)
            fused[identity] = fused.get(identity, 0.0) + 1.0 / (RRF_K + rank)
            if identity not in best or hit.matched:
                best[identity] = hit
    order = sorted(fused, key=lambda identity: (-round(fused[identity], 9), *identity))
    hits = [
        replace(best[identity], score=round(fused[identity], 6))
        for identity in order[: request.limit]
    ]
    answer = _answer(request, reading, found, hits, schema, scope)
    return replace(answer, mode="hybrid", capped=capped)


def _answer(
    request: SearchRequest,
    reading: Interpretation,
    found: Lexical,
    hits: list[SearchHit],
    schema: Schema,
    scope: ReadScope,
) -> SearchResult:
    """A lexical (or hybrid) answer: how the text was read, its corrections and notes."""
    reading = replace(
        reading, terms=tuple(found.terms), attribute_terms=tuple(found.attribute_terms)
    )
    return SearchResult(
        q=request.q,
        mode=request.mode,
        kinds=reading.kinds,
        hits=hits,
        corrected=found.corrected,
        interpreted=reading,
        notes=search_notes(request.q, reading, found, bool(hits), schema, scope),
    )


class _Hits:
    """Candidates read through the View: visible Records only, values masked by scope."""

    def __init__(
        self,
        connection: sa.Connection,
        view: View,
        schema: Schema,
        scope: ReadScope,
        with_values: bool,
    ) -> None:
        self.connection = connection
        self.view = view
        self.schema = schema
        self.scope = scope
        self.with_values = with_values

    def hits(
        self,
        found: Lexical,
        *,
        enough: int,
        within: Sequence[AttributeTerm] = (),
    ) -> list[SearchHit]:
        """The first `enough` candidates the View sees whose values hold the Attribute terms."""
        hits: list[SearchHit] = []
        chunk = 200
        searched = found.terms
        for start in range(0, len(found.ranked), chunk):
            part = found.ranked[start : start + chunk]
            visible: dict[tuple[str, str], Current] = {}
            for kind in sorted({candidate.kind for candidate in part}):
                keys = [candidate.key for candidate in part if candidate.kind == kind]
                for key, current in current_records(
                    self.connection, self.view.segments, kind, keys
                ).items():
                    visible[(kind, key)] = current
            for candidate in part:
                seen = visible.get((candidate.kind, candidate.key))
                if seen is None or seen.deleted or not _holds(seen.values, within):
                    continue
                hits.append(self._hit(candidate, seen.values, searched))
            if len(hits) >= enough:
                break
        return hits

    def _hit(self, candidate: Ranked, values: dict[str, Any], searched: Sequence[str]) -> SearchHit:
        kind = self.schema.kinds[candidate.kind]
        return SearchHit(
            kind=candidate.kind,
            key=candidate.key,
            title=record_title(kind, candidate.key, values),
            score=candidate.score,
            matched=matched_attributes(kind, values, searched) if searched else [],
            values=self.scope.mask(kind.attributes, values) if self.with_values else None,
            matched_terms=list(candidate.matched_terms) if searched else None,
        )


def _holds(values: dict[str, Any], within: Sequence[AttributeTerm]) -> bool:
    """Whether each Attribute term occurs in its Attribute's value."""
    return all(
        values.get(item.attribute) is not None and item.term in str(values[item.attribute]).lower()
        for item in within
    )
