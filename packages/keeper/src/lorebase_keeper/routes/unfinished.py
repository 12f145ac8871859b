"""Routes that are planned and not built yet answer 501, naming the missing piece.

They are in the OpenAPI document, each method marked `x-lorebase-unfinished` with its 501.

They authenticate like every route (401 without a credential, 404 for a Domain the caller may
not read) before they answer 501. Everything else that no route serves is an honest 404.
"""

from __future__ import annotations

import re

from fastapi import APIRouter, Request

from lorebase_core.errors import NotImplementedYet
from lorebase_keeper.reading import keeper_of
from lorebase_keeper.routes.documented import unfinished_answer

router = APIRouter(tags=["unfinished"])

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
PLANNED: dict[str, tuple[str, ...]] = {
    "change-feed": ("webhooks",),
}


def _route(missing: str, path: str) -> None:
    full = f"/api/v1/domains/{{domain}}/{path}"

    def unfinished(request: Request) -> None:
        # the door first, as on every route: no credential is 401, a Domain the caller may
        # not read is unknown; only then does the route say it is not built
        principal = keeper_of(request).authenticator.principal(request)
        principal.require_domain(request.path_params["domain"])
        raise NotImplementedYet(
            f"{full} is part of the API and not served yet ({missing})", missing=missing
        )

    # the handler takes no arguments, so the document would not declare the path's parameters
    parameters = [
        {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
        for name in re.findall(r"{(\w+)}", full)
    ]
    # one route per method: each is its own operation of the document, marked as not built
    for method in METHODS:
        router.add_api_route(
            full,
            unfinished,
            methods=[method],
            name=f"{missing}_{method.lower()}",
            summary=f"Not built yet ({missing})",
            description=f"Planned and not built yet: answers 501 not-implemented ({missing}).",
            responses=unfinished_answer(missing),
            openapi_extra={"x-lorebase-unfinished": missing, "parameters": parameters},
        )


for _missing, _paths in PLANNED.items():
    for _path in _paths:
        _route(_missing, _path)
