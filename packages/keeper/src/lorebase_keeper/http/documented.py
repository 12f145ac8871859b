"""What the OpenAPI document says routes answer: their typed 2xx, problem documents, headers.

A route declares its answer in its decorator (`responses=answer(Model)`, the model from
`lorebase_keeper.shapes`) and renders it as before; the document is typed and the bytes do not
move. Every status a route does not list is a problem document (`default`).
"""

from __future__ import annotations

from typing import TypeAlias

from pydantic import BaseModel

from lorebase_keeper.shapes.common import JsonObject, Problem

Responses: TypeAlias = dict[int | str, dict[str, object]]
"""What a route's `responses=` declares: by status, FastAPI's members of a response (`model`,
`description`, `headers`, `content`)."""

PROBLEM_REF: JsonObject = {"$ref": "#/components/schemas/Problem"}

DOCUMENTED_MODELS: list[type[BaseModel]] = [Problem]
"""Models the document holds besides FastAPI's own: the problem document and the request bodies
routes read themselves (`openapi.openapi_document` adds them to components.schemas)."""


def _problem(description: str) -> dict[str, object]:
    return {
        "description": description,
        "content": {"application/problem+json": {"schema": PROBLEM_REF}},
    }


def request_body(model: type[BaseModel]) -> dict[str, object]:
    """`openapi_extra` declaring the JSON body of a route that parses the raw body itself (the
    parsers of `lorebase_core` stay the validators: they list every issue with its path)."""
    if model not in DOCUMENTED_MODELS:
        DOCUMENTED_MODELS.append(model)
    schema = {"$ref": f"#/components/schemas/{model.__name__}"}
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}}


STAMPED_HEADERS = {
    "Lorebase-Revision": {
        "description": "The Revision the answer was read at.",
        "schema": {"type": "string"},
    },
    "ETag": {
        "description": '"<revision>.<digest>": send it in If-None-Match.',
        "schema": {"type": "string"},
    },
}

READ_RESPONSES: Responses = {
    304: {
        "description": "Not modified: If-None-Match matched the ETag.",
        "headers": STAMPED_HEADERS,
    },
    400: _problem("Malformed input: bad-cursor, malformed-json, bad-request."),
    401: _problem("No API key, or one Keeper does not accept."),
    403: _problem("forbidden, history-forbidden, attribute-forbidden, kind-forbidden."),
    404: _problem("domain-, branch-, revision-, kind-, relation-, record-not-found ..."),
    409: _problem("ambiguous-revision, already-exists."),
    413: _problem("The body is larger than keeper.max_body_bytes."),
    422: _problem(
        "invalid-input, invalid-text, query-invalid, graph-request-invalid: every issue listed."
    ),
}
"""What the OpenAPI document says a read may answer besides its success (`read_answer`)."""

UNSTAMPED_READ_RESPONSES = {status: doc for status, doc in READ_RESPONSES.items() if status != 304}
"""What a read of mutable state (no ETag, never 304) may answer besides its success."""


WRITE_RESPONSES: Responses = {
    400: _problem("Malformed input: malformed-json, bad-request."),
    401: _problem("No API key, or one Keeper does not accept."),
    403: _problem(
        "forbidden: a permission the caller lacks on the branch; kind-forbidden,"
        " merge-outside-scope: a Kind its grants do not write."
    ),
    404: _problem("domain-, branch-, operation-, proposal-, conflict-not-found."),
    409: _problem(
        "review-required, stale-head, already-exists, agent-branch-limit, idempotency-key-reused,"
        " merge-conflicts, merge-blocked, proposal-not-open, self-approval."
    ),
    413: _problem("The body is larger than keeper.max_body_bytes."),
    422: _problem(
        "invalid-input, invalid-text, values-invalid (every issue listed), branches-unrelated."
    ),
}
"""What the OpenAPI document says a write may answer besides its success."""


def answer(
    model: object,
    status: int = 200,
    description: str = "The answer.",
    *,
    stamped: bool = False,
) -> Responses:
    """The typed success answer of a route (`stamped`: a revision-stamped read's headers).

    `model` is a model of `lorebase_keeper.shapes`, or a union of them.
    """
    response: dict[str, object] = {"model": model, "description": description}
    if stamped:
        response["headers"] = STAMPED_HEADERS
    return {status: response}


def read_answer(model: type[BaseModel]) -> Responses:
    """The 200 of a revision-stamped read."""
    return answer(model, description="The answer, naming its Revision.", stamped=True)


def markdown_answer(model: object) -> Responses:
    """The 200 of a read that answers Markdown when asked (`format=markdown`); `model` is a
    model of `lorebase_keeper.shapes`, or a union of them."""
    return {
        200: {
            "model": model,
            "description": "The answer: JSON, or Markdown for a prompt when `format` is markdown.",
            "headers": STAMPED_HEADERS,
            "content": {"application/json": {}, "text/markdown": {"schema": {"type": "string"}}},
        }
    }
