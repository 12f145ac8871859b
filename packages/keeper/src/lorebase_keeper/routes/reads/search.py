"""POST /search (docs/search.md) and PUT .../vector, the vectors semantic search compares."""

from __future__ import annotations

from typing import Annotated

from fastapi import Body, Request, Response

from lorebase_core.errors import Issue, RecordNotFound, SearchInvalid, SemanticUnavailable, quoted
from lorebase_core.search_request import parse_search, vector_issues
from lorebase_core.values import JsonValue
from lorebase_keeper.http.bodies import branch_and_at, json_object
from lorebase_keeper.http.documented import READ_RESPONSES, answer, read_answer, request_body
from lorebase_keeper.http.segments import segment_router
from lorebase_keeper.reads.answers import plain
from lorebase_keeper.reads.reading import domain_read, keeper_of
from lorebase_keeper.shapes.reads.search import (
    SearchAnswer,
    SearchRequest,
    VectorRequest,
    VectorStored,
)
from lorebase_keeper.writes.write_scope import require_kind_writable

router = segment_router("/api/v1/domains/{domain}", "search", READ_RESPONSES)


@router.post(
    "/search",
    summary="Search Records by text or vector, by Kind, Trait or lens",
    responses=read_answer(SearchAnswer),
    openapi_extra=request_body(SearchRequest),
)
def search(
    request: Request,
    domain: str,
    body: Annotated[
        object,
        Body(
            description="q, kinds, traits, lens, mode (lexical, semantic, hybrid), query_vector, "
            "limit, values, branch (docs/search.md). Search reads the branch head.",
            examples=[{"q": "bering", "kinds": ["Part"], "limit": 10}],
        ),
    ],
) -> Response:
    document = json_object(body)
    branch, _at = branch_and_at(document)  # search reads the head: parse_search refuses `at`
    with domain_read(request, domain, branch=branch) as read:
        limits = read.keeper.settings.read.search
        parsed = parse_search(
            document,
            read.reader.schema,
            read.scope,
            default_limit=limits.default_limit,
            max_limit=limits.max_limit,
            max_q_chars=limits.max_q_chars,
        )
        stamp: dict[str, object] = {"request": body}
        if parsed.model is not None:  # vectors have no Revision: their state joins the ETag
            stamp["vectors"] = read.reader.vectors_stamp(parsed.model)

        def compute(_etag: str) -> dict[str, object]:
            result = read.reader.search(
                parsed,
                read.scope,
                min_similarity=limits.min_similarity,
                candidates=limits.candidates_per_term,
            )
            return {**read.stamp(), **result.to_json()}

        return read.answer(request, compute, body=stamp)


@router.put(
    "/kinds/{kind}/records/{key}/vector",
    summary="Store the embedding vector of a Record (needs operation.execute)",
    responses=answer(VectorStored, description="What was stored."),
    openapi_extra=request_body(VectorRequest),
)
def put_record_vector(
    request: Request,
    domain: str,
    kind: str,
    key: str,
    body: Annotated[
        object,
        Body(
            description="model (the schema's search.embedding model) and vector "
            "(search.embedding.dimensions numbers). Stored per Record, not per Revision.",
            examples=[{"model": "all-MiniLM-L6-v2", "vector": [0.1, 0.2, 0.3]}],
        ),
    ],
) -> Response:
    document = json_object(body)
    with domain_read(request, domain) as read:
        read.principal.require("operation.execute", domain, read.branch)
        schema = read.reader.schema
        read.scope.kind(schema, kind)
        require_kind_writable(read.principal, domain, read.branch, kind, "operation.execute")
        embedding = schema.search.embedding
        if embedding is None:
            raise SemanticUnavailable(
                f"Domain {quoted(domain)} declares no search.embedding: vectors cannot be stored",
                [Issue("model", "the schema declares no search.embedding", "semantic_unavailable")],
            )
        issues = vector_issues(document.get("vector"), embedding.dimensions, "vector")
        if document.get("model") != embedding.model:
            issues.append(
                Issue(
                    "model", f"expected the schema's model {quoted(embedding.model)}", "bad-value"
                )
            )
        issues += [
            Issue(str(name), "unknown member; use model, vector", "unknown-member")
            for name in document
            if name not in ("model", "vector")
        ]
        if issues:
            raise SearchInvalid("The vector was refused", issues)
        if read.reader.get_record(kind, key) is None:
            raise RecordNotFound(f"{kind} {quoted(key)} does not exist on {quoted(read.branch)}")
        domain_id = read.reader.view.domain.id
    stored = keeper_of(request).store.put_vector(
        domain_id,
        kind,
        key,
        model=embedding.model,
        vector=_numbers(document["vector"]),
        updated_by=read.principal.id,
    )
    return plain({"domain": domain, **stored})


def _numbers(vector: JsonValue) -> list[float]:
    """The numbers of a vector `vector_issues` found nothing wrong with, as they were sent."""
    return (
        [number for number in vector if isinstance(number, int | float)]
        if isinstance(vector, list)
        else []
    )
