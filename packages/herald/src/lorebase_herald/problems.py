"""Keeper's problem documents as tool errors a model can read and act on.

The text names the status, the code and the detail, then what the document adds for the next
step: the issues of an invalid request, the `next` hints of a review-required answer,
suggestions. The structured content is the document itself (`ToolProblem`).
"""

from __future__ import annotations

import json
from typing import Any

import httpx
from mcp.types import CallToolResult

from lorebase_client import problem_of
from lorebase_core.errors import LorebaseError
from lorebase_herald.answers import ToolProblem, tool_error

ACTIONABLE = ("issues", "next", "suggestions", "allowed", "expected", "missing")
"""Members of a problem document worth showing a model besides its detail."""


def keeper_error(tool: str, error: LorebaseError) -> CallToolResult:
    """The tool error of a problem document Keeper answered (or of a request the client
    refused to build, such as a key that cannot be a path segment)."""
    answered = problem_of(error)
    document: dict[str, Any] = answered or error.to_problem()
    status = document.get("status", error.status)
    code = document.get("code", error.code)
    who = "Keeper refused the call" if answered else "The call cannot be sent to Keeper"
    lines = [f"{who} ({status} {code}): {document.get('detail', error.detail)}"]
    for member in ACTIONABLE:
        if document.get(member):
            shown = json.dumps(document[member], ensure_ascii=False, separators=(",", ":"))
            lines.append(f"{member}: {shown}")
    if status == 501:
        lines.append("This part of Keeper is not built yet; use another tool for now.")
    return tool_error("\n".join(lines), ToolProblem(tool=tool, problem=document))


def unreachable(tool: str, base_url: str, error: httpx.TransportError) -> CallToolResult:
    """The tool error of a Keeper that did not answer (refused, timed out, closed)."""
    detail = f"Keeper at {base_url} did not answer ({type(error).__name__}); try again later."
    document = {"status": 502, "code": "keeper-unreachable", "title": "Keeper unreachable"}
    document["detail"] = detail
    return tool_error(detail, ToolProblem(tool=tool, problem=document))


def refused(
    tool: str, detail: str, *, code: str = "bad-request", status: int = 400
) -> CallToolResult:
    """A tool error Herald answers itself (a read-only Herald, a bad argument)."""
    document = {"status": status, "code": code, "title": "Refused by Herald", "detail": detail}
    return tool_error(detail, ToolProblem(tool=tool, problem=document))


class Refusal(Exception):
    """Raised inside a tool call to refuse it with a tool error Herald answers itself."""

    def __init__(self, detail: str, *, code: str = "invalid-arguments", status: int = 422) -> None:
        super().__init__(detail)
        self.detail = detail
        self.code = code
        self.status = status
