"""What the OpenAPI document says every read may answer besides its 200."""

from __future__ import annotations

from typing import Any

PROBLEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["type", "title", "status", "detail", "code"],
    "properties": {
        "type": {"type": "string"},
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "detail": {"type": "string"},
        "code": {"type": "string", "description": "Stable code, e.g. kind-not-found."},
        "instance": {"type": "string"},
        "issues": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "message": {"type": "string"},
                    "code": {"type": "string"},
                },
            },
        },
    },
}


def _problem(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/problem+json": {"schema": PROBLEM_SCHEMA}},
    }


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

READ_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"description": "The answer, naming its Revision.", "headers": STAMPED_HEADERS},
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


WRITE_RESPONSES: dict[int | str, dict[str, Any]] = {
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


MARKDOWN_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The answer: JSON, or Markdown for a prompt when `format` is markdown.",
        "headers": STAMPED_HEADERS,
        "content": {"application/json": {}, "text/markdown": {"schema": {"type": "string"}}},
    }
}
"""The 200 of a read that answers Markdown when asked (`format=markdown`)."""
