"""From a Keeper answer to a tool result: bounded, with the scope of an empty answer and
how to get the rest."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mcp.types import CallToolResult

from lorebase_herald.answers import Scope, ToolAnswer, tool_result
from lorebase_herald.bounds import Budget, Render, fit
from lorebase_herald.markdown import coverage_notes, empty_lines

PAGE_ON = "call again with limit={shown} and page on with the cursor of that answer, or narrow the request."
"""How to get the rest of a list cut by Herald, for tools that take limit and cursor."""
LIMIT = "call again with limit={shown}, or narrow the request."
"""... for tools that take a limit but no cursor."""


def shaped(
    budget: Budget,
    tool: str,
    answer: Mapping[str, Any],
    *,
    render: Render,
    member: str | None = None,
    kinds: Sequence[str] = (),
    what: str = "items",
    notes: Sequence[str] = (),
    rest: str = PAGE_ON,
) -> CallToolResult:
    """The tool result of `answer`: its rendering within `budget`, cut at the items of `member`.

    An empty list under `member` adds what was searched (Domain, branch, Revision, `kinds`) and
    the coverage notes; a cut answer says how to get the rest (`rest`, formatted with `shown`:
    by default a smaller limit and the cursor); an answer with a next page says so with its
    cursor.
    """
    items = answer.get(member) if member is not None else None
    empty = isinstance(items, list) and not items
    coverage = coverage_notes(answer)
    line = f"coverage: {'; '.join(coverage)}" if coverage and not empty else None

    def rendering(document: Mapping[str, Any]) -> str:
        text = render(document)
        return text if line is None else f"{text}\n{line}"

    fitted = fit(answer, member, rendering, budget)
    more: str | None = None
    if fitted.truncated and fitted.shown is not None:
        more = (
            f"Herald showed {fitted.shown} of {fitted.total} {what} to stay within "
            f"{budget.max_tokens} tokens: " + rest.format(shown=max(fitted.shown, 1))
        )
    elif fitted.truncated:
        more = (
            f"Herald cut this answer to stay within {budget.max_tokens} tokens: narrow the "
            "request (fewer Kinds, a lens, a smaller depth) to see the rest."
        )
    elif answer.get("next_cursor"):
        more = f"More on the next page: call again with cursor={answer['next_cursor']}"
    text = fitted.text
    if empty:
        text = "\n".join([text, *empty_lines(answer, kinds, what)])
    if more is not None:
        text = f"{text}\n\n{more}"
    scope = None
    if empty:
        scope = Scope(
            domain=answer.get("domain"),
            branch=answer.get("branch"),
            revision=answer.get("revision"),
            kinds=list(kinds),
        )
    structured = ToolAnswer(
        tool=tool,
        domain=answer.get("domain"),
        branch=answer.get("branch"),
        revision=answer.get("revision"),
        truncated=fitted.truncated,
        shown=fitted.shown,
        total=fitted.total,
        more=more,
        empty=empty,
        scope=scope,
        notes=[*coverage, *notes],
        result=fitted.document,
    )
    return tool_result(text, structured)


def rendered(
    budget: Budget,
    tool: str,
    text: str,
    *,
    domain: str,
    branch: str | None,
    revision: str | None,
    result: dict[str, Any],
) -> CallToolResult:
    """The tool result of a Markdown rendering Keeper made (context pack, explain, health):
    the text within `budget`, cut after its last whole line."""
    fitted = fit({"text": text}, None, lambda document: str(document["text"]), budget)
    answer = ToolAnswer(
        tool=tool,
        domain=domain,
        branch=branch,
        revision=revision,
        truncated=fitted.truncated,
        result=result,
    )
    return tool_result(fitted.text, answer)
