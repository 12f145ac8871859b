"""The first checks of a JSON request body, made before a Reader opens.

`branch` and `at` decide which Reader to open; the rest of a body is checked against the schema
the Reader reads, by the parser of each request (query, graph, search ...).
"""

from __future__ import annotations

from lorebase_core.errors import InvalidInput, Issue
from lorebase_keeper.shapes.common import JsonObject


def json_object(body: object) -> JsonObject:
    """The body as an object: 422 for a JSON array, string or number."""
    if not isinstance(body, dict):
        raise InvalidInput(
            "The request body must be a JSON object", [Issue("", "expected an object", "type")]
        )
    return body


def branch_and_at(document: JsonObject) -> tuple[str | None, str | None]:
    """`branch` and `at` of a request body: strings or absent, 422 otherwise."""
    branch, at = document.get("branch"), document.get("at")
    issues = [
        Issue(member, "expected a string", "type")
        for member, value in (("branch", branch), ("at", at))
        if value is not None and not isinstance(value, str)
    ]
    if issues:
        raise InvalidInput("branch and at must be strings", issues)
    return (branch if isinstance(branch, str) else None), (at if isinstance(at, str) else None)
