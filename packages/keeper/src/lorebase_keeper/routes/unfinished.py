"""What the REST API does not serve yet answers 501 with a problem document naming it."""

from __future__ import annotations

from fastapi import APIRouter

from lorebase_keeper.errors import NotImplementedYet

router = APIRouter(tags=["unfinished"])


@router.api_route(
    "/api/v1/{rest:path}",
    methods=["GET", "POST", "PUT", "PATCH", "DELETE"],
    include_in_schema=False,
)
def unfinished(rest: str) -> None:
    raise NotImplementedYet(
        f"/api/v1/{rest} is not served yet: the REST read API (domains, schema, records, queries) "
        "is the next piece of Keeper to be built",
        missing="keeper-read-api",
    )
