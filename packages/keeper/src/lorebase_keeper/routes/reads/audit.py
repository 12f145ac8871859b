"""GET /domains/{domain}/audit: who read and who wrote what in a Domain (docs/trace.md).

For the Domain's administrators only (domain.settings through a grant on every branch and Kind):
the read audit names every Record a principal's reads touched, the write audit every step of
their writes, so an administrator narrowed to Kinds or branches would read beyond its grant.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import Query, Request, Response

from lorebase_core.errors import InvalidInput, Issue
from lorebase_core.values import ValueProblem, canonical, parse_type
from lorebase_keeper.http.documented import UNSTAMPED_READ_RESPONSES, answer
from lorebase_keeper.http.parameters import CURSOR, LIMIT
from lorebase_keeper.http.segments import segment_router
from lorebase_keeper.reads.answers import plain
from lorebase_keeper.reads.reading import domain_caller, page_limit
from lorebase_keeper.shapes.reads.audit import AuditPageAnswer, AuditPageAnswerJson
from lorebase_keeper.trace.visibility import require_domain_wide
from lorebase_platform.settings import AUDIT_PAGE

DATETIME = parse_type("datetime")

router = segment_router("/api/v1/domains/{domain}", "audit", UNSTAMPED_READ_RESPONSES)


def _moment(name: str, value: str | None) -> str | None:
    """`since` / `until` in the stored form of times (ISO 8601 UTC); 422 for anything else."""
    if value is None:
        return None
    try:
        moment = canonical(DATETIME, value)
    except ValueProblem as error:
        raise InvalidInput(
            f"{name} must be a date and time", [Issue(name, str(error), "bad-value")]
        ) from error
    assert isinstance(moment, str)
    return moment


@router.get(
    "/audit",
    summary="The read and write audit of a Domain, newest first (Domain administrators)",
    responses=answer(AuditPageAnswer),
)
def domain_audit(
    request: Request,
    domain: str,
    kind: Annotated[
        Literal["read", "write"] | None, Query(description="Only reads, or only writes.")
    ] = None,
    principal: Annotated[str | None, Query(description="Only this principal's entries.")] = None,
    since: Annotated[str | None, Query(description="Entries at or after this time.")] = None,
    until: Annotated[str | None, Query(description="Entries before this time.")] = None,
    limit: LIMIT = None,
    cursor: CURSOR = None,
) -> Response:
    keeper, caller = domain_caller(request, domain)
    # entries name every branch and Kind of the Domain: a narrowed grant would see beyond it
    require_domain_wide(
        caller, domain, "domain.settings", "the audit log names every branch and Kind"
    )
    size = page_limit(limit, AUDIT_PAGE)
    page = keeper.store.audit_log(
        domain,
        kind=kind,
        principal=principal,
        since=_moment("since", since),
        until=_moment("until", until),
        limit=size,
        cursor=cursor,
    )
    found: AuditPageAnswerJson = {
        "domain": domain,
        "entries": [entry.to_json() for entry in page.entries],
        "next_cursor": page.next_cursor,
    }
    return plain(found)
