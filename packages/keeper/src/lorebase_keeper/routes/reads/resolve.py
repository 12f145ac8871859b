"""POST /resolve: the words of a question grounded in the schema and the stored values.

See docs/resolve.md. The answer is Revision-stamped like every read; the phrases nothing matched
are recorded (a side effect, after the answer is made) on every request that reads a branch head
and allows it, whether the answer came from the cache, a 304 or was computed; only their words
that cannot identify anyone, within the bounds of read.resolve.misses.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Annotated

from fastapi import Body, Request, Response

from lorebase_core.errors import InvalidInput, Issue, LorebaseError
from lorebase_core.resolve import (
    UNKNOWN_REASON,
    Candidate,
    Suggestion,
    Term,
    TextResolution,
    Vocabulary,
    resolve_text,
    suggest,
    vocabulary_entries,
)
from lorebase_core.search_request import SearchRequest
from lorebase_keeper.http.documented import READ_RESPONSES, read_answer, request_body
from lorebase_keeper.http.segments import segment_router
from lorebase_keeper.reads.coverage import coverage_block, statistics_mark
from lorebase_keeper.reads.reading import Read, domain_read, keeper_of
from lorebase_keeper.routes.reads.queries import parse_for
from lorebase_keeper.shapes.common import JsonObject
from lorebase_keeper.shapes.reads import queries as shapes
from lorebase_platform.settings import ResolveSettings
from lorebase_store import ValueCounts, record_misses

router = segment_router("/api/v1/domains/{domain}", "queries", READ_RESPONSES)

MEMBERS = ("text", "query_vector", "record_misses", "coverage", "branch", "at")
MAX_VECTOR_DIMENSIONS = 16_000


@dataclass(frozen=True)
class ResolveRequest:
    text: str
    query_vector: tuple[float, ...] | None
    record_misses: bool
    coverage: bool
    branch: str | None
    at: str | None


def parse_resolve(body: object, limits: ResolveSettings) -> ResolveRequest:
    """The request, or 422 listing every problem with its path."""
    if not isinstance(body, dict):
        raise InvalidInput(
            "The request body must be a JSON object",
            [Issue("", 'expected an object such as {"text": "open orders"}', "bad-type")],
        )
    issues = [
        Issue(str(name), f"unknown member {name!r}; use {', '.join(MEMBERS)}", "unknown-member")
        for name in body
        if name not in MEMBERS
    ]
    text = body.get("text")
    if not isinstance(text, str):
        issues.append(Issue("text", "expected the words to resolve, as a string", "bad-type"))
    elif not text.strip():
        issues.append(Issue("text", "expected some words, not an empty text", "empty"))
    elif len(text) > limits.max_text_chars:
        issues.append(
            Issue(
                "text",
                f"{len(text)} characters; at most {limits.max_text_chars} are resolved",
                "too-long",
            )
        )
    vector = body.get("query_vector")
    if vector is not None and (
        not isinstance(vector, list)
        or not 1 <= len(vector) <= MAX_VECTOR_DIMENSIONS
        or not all(isinstance(x, int | float) and not isinstance(x, bool) for x in vector)
    ):
        issues.append(
            Issue(
                "query_vector",
                f"expected a list of 1 to {MAX_VECTOR_DIMENSIONS} numbers",
                "bad-type",
            )
        )
    for member in ("record_misses", "coverage"):
        if body.get(member) is not None and not isinstance(body[member], bool):
            issues.append(Issue(member, "expected true or false", "bad-type"))
    for member in ("branch", "at"):
        if body.get(member) is not None and not isinstance(body[member], str):
            issues.append(Issue(member, "expected a string", "bad-type"))
    if issues:
        raise InvalidInput("The resolve request is not valid", issues)
    return ResolveRequest(
        text=str(text),
        query_vector=tuple(float(x) for x in vector) if vector is not None else None,
        record_misses=body.get("record_misses") is not False,
        coverage=body.get("coverage") is not False,
        branch=body.get("branch"),
        at=body.get("at"),
    )


def _resolve(read: Read, parsed: ResolveRequest) -> tuple[TextResolution, str | None]:
    """The resolution of the text, and why the embedding level was skipped (None: it ran)."""
    limits = read.keeper.settings.read.resolve
    index = read.reader.value_index(
        max_indexed_values=limits.max_indexed_values, max_value_length=limits.max_value_length
    )
    vocabulary = Vocabulary(vocabulary_entries(read.reader.schema, read.scope, index.values))
    resolution = resolve_text(
        parsed.text,
        vocabulary,
        min_similarity=limits.min_similarity,
        max_candidates=limits.max_candidates,
        max_per_phrase=limits.max_candidates_per_phrase,
        schema=read.reader.schema,
    )
    reason = _skip_reason(read, parsed, resolution)
    if reason is None:
        found = _embedding_level(read, parsed, index.values)
        resolution = replace(
            resolution,
            candidates=found[: limits.max_candidates],
            truncated=len(found) > limits.max_candidates,
        )
    return resolution, reason


NEAREST_RECORDS = 3
"""Records the embedding level takes the values of (the nearest by cosine similarity)."""


def _skip_reason(read: Read, parsed: ResolveRequest, resolution: TextResolution) -> str | None:
    """Why the embedding level is not tried, or None when it is."""
    if resolution.candidates:
        return "other levels matched"
    if parsed.query_vector is None:
        return "the request has no query_vector"
    embedding = read.reader.schema.search.embedding
    if embedding is None:
        return "the Domain declares no embedding model (search.embedding)"
    if len(parsed.query_vector) != embedding.dimensions:
        return (
            f"query_vector has {len(parsed.query_vector)} numbers, the model {embedding.dimensions}"
        )
    return None


def _embedding_level(
    read: Read, parsed: ResolveRequest, index: ValueCounts
) -> tuple[Candidate, ...]:
    """Value candidates from the indexed values of the Records nearest to the query_vector."""
    schema = read.reader.schema
    embedding = schema.search.embedding
    assert embedding is not None
    assert parsed.query_vector is not None
    kinds = tuple(read.scope.visible_kinds(schema))
    request = SearchRequest(
        q="",
        kinds=kinds,
        mode="semantic",
        query_vector=tuple(parsed.query_vector),
        limit=NEAREST_RECORDS,
        values=True,
        model=embedding.model,
    )
    best: dict[tuple[str, str, str], Candidate] = {}
    for hit in read.reader.search(request, read.scope).hits:
        for attribute, value in sorted((hit.values or {}).items()):
            counts = index.get((hit.kind, attribute))
            if counts is None or not isinstance(value, str) or value not in counts:
                continue  # only indexed values: never sensitive ones, never free text
            rules = schema.kinds[hit.kind].attributes[attribute]
            term = Term("value", hit.kind, attribute, rules.type, (value,), counts[value])
            why = f"a value of a Record near the query_vector (cosine similarity {hit.score:.2f})"
            candidate = Candidate(term, round(hit.score, 6), "embedding", parsed.text, why)
            known = best.get((hit.kind, attribute, value))
            if known is None or known.score < candidate.score:
                best[(hit.kind, attribute, value)] = candidate
    return tuple(
        sorted(best.values(), key=lambda candidate: (-candidate.score, candidate.term.order))
    )


def _suggestions(read: Read, resolution: TextResolution) -> list[Suggestion]:
    """Queries composed from the candidates, each one POST /query accepts from this caller."""

    def valid(document: JsonObject) -> bool:
        try:
            parse_for(read, document)
        except LorebaseError:
            return False
        return True

    return suggest(
        resolution.candidates,
        read.reader.schema,
        read.scope,
        max_hops=read.keeper.settings.read.query.max_hops,
        max_suggestions=read.keeper.settings.read.resolve.max_suggestions,
        valid=valid,
    )


def _coverage(read: Read, resolution: TextResolution) -> shapes.CoverageJson:
    """The coverage block of /query for the Kinds and Attributes of the candidates, and unknown."""
    kinds = dict.fromkeys(candidate.term.kind for candidate in resolution.candidates)
    attributes = {
        (candidate.term.kind, candidate.term.attribute): ("resolve",)
        for candidate in resolution.candidates
        if candidate.term.attribute is not None
    }
    block = coverage_block(read, kinds, attributes)
    block["unknown"] = [
        {"phrase": phrase, "reason": UNKNOWN_REASON} for phrase in resolution.unknown
    ]
    block["notes"] = [
        *(f"{phrase!r}: {UNKNOWN_REASON}" for phrase in resolution.unknown),
        *block["notes"],
    ]
    return block


@router.post(
    "/resolve",
    summary="Ground the words of a question in the schema and values",
    responses=read_answer(shapes.ResolveAnswer),
    openapi_extra=request_body(shapes.ResolveTextRequest),
)
def resolve(
    request: Request,
    domain: str,
    body: Annotated[
        object,
        Body(
            description="text (the words), query_vector, record_misses, coverage, branch, at.",
            examples=[{"text": "open purchase orders of high risk suppliers"}],
        ),
    ],
) -> Response:
    settings = keeper_of(request).settings
    parsed = parse_resolve(body, settings.read.resolve)
    with domain_read(request, domain, branch=parsed.branch, at=parsed.at) as read:
        resolution, skip_reason = _resolve(read, parsed)

        def compute(_etag: str) -> shapes.ResolveAnswerJson:
            candidates = [candidate.to_json() for candidate in resolution.candidates]
            suggestions = [found.to_json() for found in _suggestions(read, resolution)]
            covered: shapes.WithCoverage = {}
            if parsed.coverage:
                covered["coverage"] = _coverage(read, resolution)
            return {
                **read.stamp(),
                "candidates": candidates,
                "suggestions": suggestions,
                "truncated": resolution.truncated,
                "unmatched": list(resolution.unmatched),
                "skipped": [{"level": "embedding", "reason": skip_reason}] if skip_reason else [],
                **covered,
            }

        embedding = read.reader.schema.search.embedding
        digested: object = body
        if skip_reason is None and embedding is not None:
            # stored vectors are not versioned: the answer follows them at the same Revision
            digested = {"request": body, "vectors": read.reader.vectors_stamp(embedding.model)}
        if parsed.coverage:
            digested = {"request": digested, "statistics": statistics_mark(read)}
        response = read.answer(request, compute, body=digested)
        domain_id = read.reader.view.domain.id
    if (
        parsed.record_misses
        and not parsed.at
        and settings.read.resolve.record_misses
        and resolution.recordable
    ):
        # never the caller's text as is: no identifying words, bounded (docs/resolve.md)
        record_misses(
            read.keeper.store.engine,
            domain_id,
            resolution.recordable,
            principal_id=read.principal.id,
            limits=settings.read.resolve.misses,
        )
    return response
