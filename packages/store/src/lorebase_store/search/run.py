"""`search`: one search at the head of a View, lexical, semantic or hybrid (docs/search.md).

Candidates come from the index (lexical) or the stored vectors (semantic); each is then read
through the View, so a hit always shows the Record as the branch sees it, masked by the caller's
scope, and a Record the branch deleted or never had is dropped. Hybrid ranks by reciprocal rank
fusion of the two lists: score = sum over the lists of 1 / (RRF_K + rank), rank from 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from lorebase_core.access import ReadScope
from lorebase_core.schema import Schema
from lorebase_core.search_request import SearchRequest
from lorebase_store import tables as t
from lorebase_store.search.lexical import Correction, corrections, match
from lorebase_store.search.text import matched_attributes, record_title, words
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

    def to_json(self) -> dict[str, Any]:
        answer: dict[str, Any] = {"q": self.q, "mode": self.mode, "kinds": list(self.kinds)}
        if self.mode != "semantic":
            answer["corrected"] = [correction.to_json() for correction in self.corrected]
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
) -> SearchResult:
    """Run a checked search (`lorebase_core.search_request`) at the head of the View's branch."""
    kinds = tuple(kind for kind in request.kinds if scope.kind_visible(kind))
    chain = search_chain(connection, view)
    reader = _Hits(connection, view, schema, scope, request.values)
    if request.mode == "lexical":
        found, corrected, searched = _lexical(
            connection, chain, kinds, request.q, request.limit * 2 + 10, min_similarity
        )
        hits = reader.hits([(kind, key, score) for kind, key, score in found], searched)
        return SearchResult(
            q=request.q,
            mode="lexical",
            kinds=kinds,
            hits=hits[: request.limit],
            corrected=corrected,
        )
    assert request.query_vector is not None
    assert request.model is not None
    ranked, capped = nearest(connection, view.domain.id, request.model, kinds, request.query_vector)
    if request.mode == "semantic":
        hits = reader.hits(ranked, [], enough=request.limit)
        return SearchResult(
            q=request.q,
            mode="semantic",
            kinds=kinds,
            hits=hits[: request.limit],
            corrected=[],
            capped=capped,
        )
    size = max(HYBRID_CANDIDATES, 4 * request.limit)
    found, corrected, searched = _lexical(connection, chain, kinds, request.q, size, min_similarity)
    lexical_hits = reader.hits(found, searched, enough=size)
    semantic_hits = reader.hits(ranked, [], enough=size)
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
        SearchHit(
            kind=kind,
            key=key,
            title=best[(kind, key)].title,
            score=round(fused[(kind, key)], 6),
            matched=best[(kind, key)].matched,
            values=best[(kind, key)].values,
        )
        for kind, key in order[: request.limit]
    ]
    return SearchResult(
        q=request.q, mode="hybrid", kinds=kinds, hits=hits, corrected=corrected, capped=capped
    )


def _lexical(
    connection: sa.Connection,
    chain: Sequence[int],
    kinds: Sequence[str],
    q: str,
    size: int,
    min_similarity: float,
) -> tuple[list[tuple[str, str, float]], list[Correction], list[str]]:
    searched = list(dict.fromkeys(words(q)))
    found = match(connection, chain, kinds, searched, size)
    corrected: list[Correction] = []
    if not found and searched:
        corrected = corrections(connection, chain, kinds, searched, min_similarity=min_similarity)
        if corrected:
            replaced = {correction.written: correction.corrected for correction in corrected}
            searched = list(dict.fromkeys(replaced.get(word, word) for word in searched))
            found = match(connection, chain, kinds, searched, size)
    return [(hit.kind, hit.key, hit.score) for hit in found], corrected, searched


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
        candidates: Sequence[tuple[str, str, float]],
        searched: Sequence[str],
        *,
        enough: int | None = None,
    ) -> list[SearchHit]:
        found: list[SearchHit] = []
        chunk = 200
        for start in range(0, len(candidates), chunk):
            part = candidates[start : start + chunk]
            visible: dict[tuple[str, str], Current] = {}
            for kind in sorted({kind for kind, _, _ in part}):
                keys = [key for k, key, _ in part if k == kind]
                for key, current in current_records(
                    self.connection, self.view.segments, kind, keys
                ).items():
                    visible[(kind, key)] = current
            for kind, key, score in part:
                seen = visible.get((kind, key))
                if seen is None or seen.deleted:
                    continue
                found.append(self._hit(kind, key, score, seen.values, searched))
            if enough is not None and len(found) >= enough:
                break
        return found

    def _hit(
        self,
        kind_name: str,
        key: str,
        score: float,
        values: dict[str, Any],
        searched: Sequence[str],
    ) -> SearchHit:
        kind = self.schema.kinds[kind_name]
        return SearchHit(
            kind=kind_name,
            key=key,
            title=record_title(kind, key, values),
            score=score,
            matched=matched_attributes(kind, values, searched) if searched else [],
            values=self.scope.mask(kind.attributes, values) if self.with_values else None,
        )
