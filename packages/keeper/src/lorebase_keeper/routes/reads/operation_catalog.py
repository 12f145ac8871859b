"""GET /operations and /operations/{op}: the Operations a caller may read, with their parameters.

The same documents GET /schema lists under `operations` (`lorebase_keeper.writes.operation_catalog`),
revision-stamped and cached like every read; executing one is POST /operations/{op}/execute.
"""

from __future__ import annotations

from fastapi import Request, Response

from lorebase_keeper.http.documented import READ_RESPONSES, read_answer
from lorebase_keeper.http.parameters import AT, BRANCH
from lorebase_keeper.http.segments import segment_router
from lorebase_keeper.reads.reading import domain_read
from lorebase_keeper.shapes.writes.operations import OperationAnswer, OperationsAnswer
from lorebase_keeper.writes.operation_catalog import OperationCatalog

router = segment_router("/api/v1/domains/{domain}", "operations", READ_RESPONSES)


@router.get(
    "/operations",
    summary="The Operations the caller may read: parameters, review, side effects, permissions",
    responses=read_answer(OperationsAnswer),
)
def list_operations(
    request: Request, domain: str, branch: BRANCH = None, at: AT = None
) -> Response:
    with domain_read(request, domain, branch=branch, at=at) as read:
        catalog = OperationCatalog(read)
        return read.answer(
            request,
            lambda _etag: {**read.stamp(), "operations": catalog.documents()},
            body=catalog.fingerprint,
        )


@router.get(
    "/operations/{operation}",
    summary="One Operation: parameters, review, side effects, permissions",
    responses=read_answer(OperationAnswer),
)
def get_operation(
    request: Request, domain: str, operation: str, branch: BRANCH = None, at: AT = None
) -> Response:
    with domain_read(request, domain, branch=branch, at=at) as read:
        catalog = OperationCatalog(read)
        catalog.require(operation)
        return read.answer(
            request,
            lambda _etag: {**read.stamp(), **catalog.document(operation)},
            body=catalog.fingerprint,
        )
