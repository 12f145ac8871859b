"""Why a Record is what it is: history, lineage and explain (agents.md section 3)."""

from __future__ import annotations

from fastapi import Query, Request, Response

from lorebase_core.access import ReadScope
from lorebase_core.errors import InvalidInput, Issue
from lorebase_core.schema import KindDef
from lorebase_keeper.http.documented import READ_RESPONSES, markdown_answer, read_answer
from lorebase_keeper.http.parameters import (
    AT,
    ATTRIBUTES,
    BRANCH,
    CURSOR,
    FORMAT,
    LIMIT,
    listed_names,
    unknown_names,
)
from lorebase_keeper.http.segments import segment_router
from lorebase_keeper.reads.explanation import explain_json, explain_markdown
from lorebase_keeper.reads.reading import domain_read, page_limit
from lorebase_keeper.shapes import lineage_json
from lorebase_keeper.shapes.common import JsonObject
from lorebase_keeper.shapes.reads.history import (
    ExplainAnswer,
    ExplainAnswerJson,
    HistoryPage,
    HistoryPageJson,
    LineageAnswer,
    LineageAnswerJson,
)
from lorebase_store import cursor_revision

router = segment_router(
    "/api/v1/domains/{domain}/kinds/{kind}/records/{key}", "history", READ_RESPONSES
)


@router.get(
    "/history",
    summary="Every change of one Record on the branch, newest first",
    responses=read_answer(HistoryPage),
)
def record_history(
    request: Request,
    domain: str,
    kind: str,
    key: str,
    branch: BRANCH = None,
    at: AT = None,
    values: bool = Query(False, description="Add the values before and after each change."),
    limit: LIMIT = None,
    cursor: CURSOR = None,
    attributes: ATTRIBUTES = None,
) -> Response:
    # the next pages are read where the first one was, however far the branch moved since
    pinned = cursor_revision(cursor) if cursor else None
    with domain_read(request, domain, branch=branch, at=pinned or at) as read:
        kind_def = read.kind(kind)
        read.require_history()
        size = page_limit(limit, read.keeper.settings.read.history)
        narrowed = _narrowed(read.scope, kind, kind_def, listed_names(attributes))
        rules = (
            kind_def.attributes
            if narrowed is None
            else {name: kind_def.attributes[name] for name in narrowed}
        )

        def compute(_etag: str) -> HistoryPageJson:
            page = read.reader.history(
                kind, key, limit=size, cursor=cursor, with_values=values, attributes=narrowed
            )
            changes: list[JsonObject] = []
            for entry in page.entries:
                document = entry.to_json(with_values=values)
                document["attributes"] = read.scope.changed_names(
                    rules, document["attributes"], document["change"]
                )
                if values:
                    for side in ("before", "after"):
                        if document[side] is not None:
                            document[side] = read.scope.mask(rules, document[side])
                changes.append(document)
            return {
                **read.stamp(),
                "ref": f"{kind}/{key}",
                "changes": changes,
                "next_cursor": page.next_cursor,
            }

        return read.answer(request, compute)


def _narrowed(
    scope: ReadScope, kind_name: str, kind: KindDef, names: list[str] | None
) -> list[str] | None:
    """The Attributes a history is narrowed to: each one of the Kind whose values the caller
    may read (422 for an unknown one, 403 for one it may not read, as a query's filter)."""
    if names is None:
        return None
    unknown = unknown_names("attributes", names, kind.attributes, owner=kind_name, noun="Attribute")
    if unknown or not names:
        empty = Issue("attributes", f"expected Attribute names of {kind_name}", "empty")
        raise InvalidInput(f"attributes must name Attributes of {kind_name}", unknown or [empty])
    for name in names:
        scope.require_value_readable(kind_name, name, kind.attributes[name])
    return names


@router.get(
    "/lineage",
    summary="Where each current value of a Record came from",
    responses=read_answer(LineageAnswer),
)
def record_lineage(
    request: Request, domain: str, kind: str, key: str, branch: BRANCH = None, at: AT = None
) -> Response:
    with domain_read(request, domain, branch=branch, at=at) as read:
        kind_def = read.kind(kind)

        def compute(_etag: str) -> LineageAnswerJson:
            found = read.lineage(kind, key)
            return {
                **read.stamp(),
                "ref": f"{kind}/{key}",
                "attributes": lineage_json(kind_def, found, read.scope),
                "changes": found.changes,
                "changes_truncated": found.changes_truncated,
            }

        return read.answer(request, compute)


@router.get(
    "/explain",
    summary="Why a Record exists and why its values are what they are",
    responses=markdown_answer(ExplainAnswer),
)
def explain(
    request: Request,
    domain: str,
    kind: str,
    key: str,
    branch: BRANCH = None,
    at: AT = None,
    format: FORMAT = "json",
) -> Response:
    with domain_read(request, domain, branch=branch, at=at) as read:
        read.kind(kind)
        markdown = format == "markdown"

        def compute(_etag: str) -> ExplainAnswerJson | str:
            document = explain_json(read, kind, key)
            return explain_markdown(document) if markdown else document

        return read.answer(request, compute, markdown=markdown)
