"""POST /query, /traverse and /neighborhood: reads described by a JSON document."""

from __future__ import annotations

from typing import Annotated

from fastapi import Body, Request, Response

from lorebase_core.graph_requests import parse_neighborhood, parse_traverse
from lorebase_core.query import Query, QueryRequest, decode_cursor, encode_cursor, parse_query
from lorebase_keeper.http.bodies import branch_and_at, json_object
from lorebase_keeper.http.documented import READ_RESPONSES, read_answer, request_body
from lorebase_keeper.http.segments import segment_router
from lorebase_keeper.reads.coverage import query_coverage, statistics_mark
from lorebase_keeper.reads.empty_answers import explain_empty
from lorebase_keeper.reads.reading import Read, domain_read
from lorebase_keeper.shapes.common import JsonObject
from lorebase_keeper.shapes.reads.queries import (
    NeighborhoodAnswer,
    NeighborhoodRequest,
    QueryAnswer,
    QueryAnswerJson,
    QueryRows,
    QueryTarget,
    TraverseAnswer,
    TraverseRequest,
    WithCoverage,
)

router = segment_router("/api/v1/domains/{domain}", "queries", READ_RESPONSES)

QUERY_EXAMPLE = {
    "kind": "Supplier",
    "where": {
        "and": [
            {"attr": "tier", "op": "eq", "value": 1},
            {"attr": "risk_score", "op": "gte", "value": 80},
            {"rel": "supplier_orders", "where": {"attr": "status", "op": "eq", "value": "open"}},
        ]
    },
    "select": ["legal_name", "risk_score"],
    "order_by": [{"attr": "risk_score", "dir": "desc"}],
    "limit": 20,
}


def parse_for(read: Read, document: JsonObject) -> Query:
    """The query as POST /query parses it for this read (its limits and the caller's scope)."""
    limits = read.keeper.settings.read.query
    return parse_query(
        document,
        read.reader.schema,
        read.scope,
        default_limit=limits.default_limit,
        max_limit=limits.max_limit,
        max_predicates=limits.max_predicates,
        max_hops=limits.max_hops,
        max_string_length=limits.max_string_length,
        max_in_values=limits.max_in_values,
        max_metrics=limits.max_metrics,
    )


def _query_answer(
    request: Request, read: Read, query: Query, offset: int, body: object
) -> Response:
    def compute(_etag: str) -> QueryAnswerJson:
        result = read.reader.query(query, read.scope, offset=offset)
        target: QueryTarget = (
            {"trait": query.trait, "kinds": list(query.kinds)}
            if query.trait is not None
            else {"kind": query.kinds[0]}
        )
        rows: QueryRows = (
            {"groups": [group.to_json() for group in result.groups]}
            if result.groups is not None
            else {"records": [row.to_json() for row in result.records]}
        )
        next_cursor = (
            encode_cursor(read.reader.revision, result.next_offset, query.digest())
            if result.next_offset is not None
            else None
        )
        covered: WithCoverage = {}
        if query.coverage is not False:
            coverage = query_coverage(read, query)
            if offset == 0 and query.aggregate is None and not result.records:
                # only an empty first page pays for saying why (docs/query.md)
                notes, coverage["empty"] = explain_empty(read, query)
                coverage["notes"].extend(notes)
            covered["coverage"] = coverage
        return {**read.stamp(), **target, **rows, "next_cursor": next_cursor, **covered}

    if query.coverage is not False:
        body = {"request": body, "statistics": statistics_mark(read)}
    return read.answer(request, compute, body=body)


@router.post(
    "/query",
    summary="Records matching a filter, or groups with aggregates",
    responses=read_answer(QueryAnswer),
    openapi_extra=request_body(QueryRequest),
)
def query(
    request: Request,
    domain: str,
    body: Annotated[
        object,
        Body(
            description="The query DSL (docs/query.md), with branch, at and coverage.",
            examples=[QUERY_EXAMPLE],
        ),
    ],
) -> Response:
    document = json_object(body)
    branch, at = branch_and_at(document)
    with domain_read(request, domain, branch=branch, at=at) as read:
        parsed = parse_for(read, document)
        if parsed.cursor is None:
            return _query_answer(request, read, parsed, 0, body)
        cursor = decode_cursor(parsed.cursor, parsed.digest())
        if cursor.revision == read.reader.revision:
            return _query_answer(request, read, parsed, cursor.offset, body)
    # the next page is read where the first one was, however far the branch moved since
    with domain_read(request, domain, branch=branch, at=cursor.revision) as read:
        return _query_answer(request, read, parse_for(read, document), cursor.offset, body)


@router.post(
    "/traverse",
    summary="Follow a path of Relations from some Records",
    responses=read_answer(TraverseAnswer),
    openapi_extra=request_body(TraverseRequest),
)
def traverse(
    request: Request,
    domain: str,
    body: Annotated[
        object,
        Body(
            description="start (Record refs), path (Relation names), limit, branch, at.",
            examples=[{"start": ["Supplier/S-1007"], "path": ["supplies", "purchase_orders"]}],
        ),
    ],
) -> Response:
    document = json_object(body)
    branch, at = branch_and_at(document)
    with domain_read(request, domain, branch=branch, at=at) as read:
        settings = read.keeper.settings
        read_settings = settings.read.traverse
        parsed = parse_traverse(
            document,
            read.reader.schema,
            read.scope,
            max_hops=read_settings.max_hops,
            max_results=read_settings.max_results,
        )
        max_fanout = settings.store.traverse.max_fanout

        def compute(_etag: str) -> dict[str, object]:
            result = read.reader.traverse(parsed, read.scope, max_fanout=max_fanout)
            return {**read.stamp(), **result.to_json()}

        return read.answer(request, compute, body=body)


@router.post(
    "/neighborhood",
    summary="The graph around some Records",
    responses=read_answer(NeighborhoodAnswer),
    openapi_extra=request_body(NeighborhoodRequest),
)
def neighborhood(
    request: Request,
    domain: str,
    body: Annotated[
        object,
        Body(
            description="refs, depth, relations, values (false: headers and Link ends only).",
            examples=[{"refs": ["Supplier/S-1001"], "depth": 1}],
        ),
    ],
) -> Response:
    document = json_object(body)
    branch, at = branch_and_at(document)
    with domain_read(request, domain, branch=branch, at=at) as read:
        settings = read.keeper.settings
        limits = settings.read.neighborhood
        parsed = parse_neighborhood(
            document, read.reader.schema, read.scope, max_depth=limits.max_depth
        )

        def compute(_etag: str) -> dict[str, object]:
            result = read.reader.neighborhood(
                parsed,
                read.scope,
                max_records=limits.max_records,
                max_links=limits.max_links,
                max_fanout=settings.store.traverse.max_fanout,
            )
            return {**read.stamp(), **result.to_json()}

        return read.answer(request, compute, body=body)
