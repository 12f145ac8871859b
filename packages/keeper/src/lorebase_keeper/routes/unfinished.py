"""Routes of agents.md that are planned and not built yet answer 501, naming the missing piece.

Everything else that no route serves is an honest 404.
"""

from __future__ import annotations

from fastapi import APIRouter

from lorebase_core.errors import NotImplementedYet

router = APIRouter(tags=["unfinished"])

PLANNED: dict[str, tuple[str, ...]] = {
    "change-feed": ("branches/{branch}/events", "branches/{branch}/changes", "webhooks"),
}


def _route(missing: str, path: str) -> None:
    full = f"/api/v1/domains/{{domain}}/{path}"

    def unfinished() -> None:
        raise NotImplementedYet(
            f"{full} is part of the API and not served yet ({missing})", missing=missing
        )

    router.add_api_route(
        full,
        unfinished,
        methods=["GET", "POST", "PUT", "PATCH", "DELETE"],
        include_in_schema=False,
    )


for _missing, _paths in PLANNED.items():
    for _path in _paths:
        _route(_missing, _path)
