"""The schema, Records and their Links: GET /schema, /kinds/{kind}/records[/{key}[/links/{rel}]]."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import Query, Request, Response

from lorebase_core.errors import (
    InvalidInput,
    Issue,
    RelationNotFound,
    quoted,
)
from lorebase_core.suggestions import hint
from lorebase_keeper.http.documented import READ_RESPONSES, markdown_answer, read_answer
from lorebase_keeper.http.paging import decode_cursor, encode_cursor
from lorebase_keeper.http.parameters import AT, BRANCH, CURSOR, LIMIT
from lorebase_keeper.http.segments import segment_router
from lorebase_keeper.reads import schema_forms
from lorebase_keeper.reads.reading import Read, domain_read, page_limit
from lorebase_keeper.shapes import lineage_json, link_json, record_json, schema_json
from lorebase_keeper.shapes.reads.records import (
    LinksPage,
    LinksPageJson,
    RecordAnswer,
    RecordAnswerJson,
    RecordDetails,
    RecordsPage,
    RecordsPageJson,
)
from lorebase_keeper.shapes.reads.schema import (
    SchemaAnswer,
    SchemaAnswerJson,
    SchemaCompactAnswer,
    SchemaCompactAnswerJson,
)
from lorebase_keeper.writes.operation_catalog import OperationCatalog

router = segment_router("/api/v1/domains/{domain}", "records", READ_RESPONSES)


SCHEMA_FORMAT = Annotated[
    Literal["json", "compact", "markdown"],
    Query(
        description="json (the whole document), compact (names, keys and types, Relations "
        "first) or markdown (the compact form for a prompt)."
    ),
]
KINDS = Annotated[
    str | None,
    Query(
        description="Comma-separated Kinds: only they, the Relations between them, their Traits "
        "and the lenses and Operations naming them."
    ),
]


@router.get(
    "/schema",
    summary="The schema the caller may read",
    responses=markdown_answer(SchemaAnswer | SchemaCompactAnswer),
)
def get_schema(
    request: Request,
    domain: str,
    branch: BRANCH = None,
    at: AT = None,
    format: SCHEMA_FORMAT = "json",
    kinds: KINDS = None,
) -> Response:
    with domain_read(request, domain, branch=branch, at=at) as read:
        named = schema_kinds(read, kinds)
        catalog = OperationCatalog(read)

        def compute(_etag: str) -> SchemaAnswerJson | SchemaCompactAnswerJson | str:
            document: SchemaAnswerJson = {
                **read.stamp(),
                **schema_json(read.reader.schema, read.scope),
                "operations": catalog.documents(),
            }
            if named is not None:
                document = schema_forms.narrowed(document, named)
            if format == "compact":
                return schema_forms.compact(document)
            return schema_forms.markdown(document) if format == "markdown" else document

        return read.answer(
            request, compute, body=catalog.fingerprint, markdown=format == "markdown"
        )


def schema_kinds(read: Read, kinds: str | None) -> list[str] | None:
    """The Kinds of `kinds=`, each readable (404 `kind-not-found` else); None when not given."""
    if kinds is None:
        return None
    names = [name.strip() for name in kinds.split(",") if name.strip()]
    if not names:
        raise InvalidInput(
            "kinds names no Kind; give comma-separated Kind names or leave it out",
            [Issue("kinds", "expected one or more comma-separated Kind names", "missing")],
        )
    for name in names:
        read.kind(name)
    return names


@router.get(
    "/kinds/{kind}/records",
    summary="The Records of a Kind, in key order, paged",
    responses=read_answer(RecordsPage),
)
def list_records(
    request: Request,
    domain: str,
    kind: str,
    branch: BRANCH = None,
    at: AT = None,
    limit: LIMIT = None,
    cursor: CURSOR = None,
) -> Response:
    with domain_read(request, domain, branch=branch, at=at) as read:
        kind_def = read.kind(kind)
        size = page_limit(limit, read.keeper.settings.read.records)
        after = decode_cursor(f"records:{kind}", cursor)

        def compute(_etag: str) -> RecordsPageJson:
            found = read.reader.records(kind, limit=size + 1, after_key=after)
            page = found[:size]
            return {
                **read.stamp(),
                "kind": kind,
                "records": [record_json(kind, kind_def, record, read.scope) for record in page],
                "next_cursor": encode_cursor(f"records:{kind}", page[-1].key)
                if len(found) > size
                else None,
            }

        return read.answer(request, compute)


@router.get(
    "/kinds/{kind}/records/{key}",
    summary="One Record, with Link counts and lineage",
    responses=read_answer(RecordAnswer),
)
def get_record(
    request: Request,
    domain: str,
    kind: str,
    key: str,
    branch: BRANCH = None,
    at: AT = None,
    links: bool = Query(False, description="Add the number of Links per Relation."),
    lineage: bool = Query(False, description="Add where each value came from."),
) -> Response:
    with domain_read(request, domain, branch=branch, at=at) as read:
        kind_def = read.kind(kind)

        def compute(_etag: str) -> RecordAnswerJson:
            record = read.record(kind, key)
            details: RecordDetails = {}
            if links:
                details["links"] = _link_counts(read, kind, key)
            if lineage:
                details["lineage"] = lineage_json(kind_def, read.lineage(kind, key), read.scope)
            summary = record_json(kind, kind_def, record, read.scope)
            return {**read.stamp(), **summary, **details}

        return read.answer(request, compute)


def _link_counts(read: Read, kind: str, key: str) -> dict[str, int]:
    """Live Links of the Record per Relation name it can be read by (forward or inverse)."""
    schema = read.reader.schema
    counts: dict[str, int] = {}
    for name in read.scope.visible_relations(schema):
        relation = schema.relations[name]
        if relation.from_kind == kind:
            counts[name] = read.reader.count_links(name, from_key=key)
        if relation.to_kind == kind:
            counts[relation.inverse or f"{name}~inverse"] = read.reader.count_links(
                name, to_key=key
            )
    return dict(sorted(counts.items()))


@router.get(
    "/kinds/{kind}/records/{key}/links/{relation}",
    summary="The Links of a Record along a Relation (forward or inverse name)",
    responses=read_answer(LinksPage),
)
def record_links(
    request: Request,
    domain: str,
    kind: str,
    key: str,
    relation: str,
    branch: BRANCH = None,
    at: AT = None,
    limit: LIMIT = None,
    cursor: CURSOR = None,
) -> Response:
    with domain_read(request, domain, branch=branch, at=at) as read:
        schema = read.reader.schema
        read.kind(kind)
        end = read.scope.relation_end(schema, relation)
        if end.source_kind != kind:
            starting = [
                name
                for name in read.scope.relation_names(schema)
                if schema.relation_end(name).source_kind == kind
            ]
            raise RelationNotFound(
                f"Relation {quoted(relation)} does not start at Kind {quoted(kind)} "
                f"(it goes from {end.source_kind} to {end.target_kind})"
                + hint(relation, starting, f"Relations from {kind}", listed=len(starting))
            )
        size = page_limit(limit, read.keeper.settings.read.records)
        list_name = f"links:{kind}/{key}/{relation}"
        after = decode_cursor(list_name, cursor)

        def compute(_etag: str) -> LinksPageJson:
            read.record(kind, key)  # 404 without it
            forward = end.direction == "forward"
            found = read.reader.links(
                end.name,
                from_key=key if forward else None,
                to_key=None if forward else key,
                limit=size + 1,
                after=after,
            )
            page = found[:size]
            more = len(found) > size
            last = (page[-1].to_key if forward else page[-1].from_key) if more else ""
            return {
                **read.stamp(),
                "ref": f"{kind}/{key}",
                "relation": relation,
                "direction": end.direction,
                "target_kind": end.target_kind,
                "links": [
                    link_json(end.relation, link, read.scope, name=end.name) for link in page
                ],
                "next_cursor": encode_cursor(list_name, last) if more else None,
            }

        return read.answer(request, compute)
