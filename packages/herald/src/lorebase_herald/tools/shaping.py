"""From a Keeper answer to a tool result: bounded, with the scope of an empty answer and
how to get the rest."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mcp.types import CallToolResult

from lorebase_client import Text
from lorebase_herald.answers import Scope, ToolAnswer, tool_result
from lorebase_herald.bounds import Budget, Fitted, Render, fit
from lorebase_herald.markdown import coverage_notes, empty_lines

PAGE_ON = "call again with limit={shown} and page on with the cursor of that answer, or narrow the request."
"""How to get the rest of a list cut by Herald, for tools that take limit and cursor."""
LIMIT = "call again with limit={shown}, or narrow the request."
"""... for tools that take a limit but no cursor."""


@dataclass(frozen=True)
class Shape:
    """How a tool shows a Keeper answer: its rendering and, for a list answer, the `member` cut
    to the budget, what its items are called (`what`) and how to get the rest (`rest`,
    formatted with `shown`: by default a smaller limit and the cursor)."""

    render: Render
    member: str | None = None
    what: str = "items"
    rest: str = PAGE_ON


def shaped(
    budget: Budget,
    tool: str,
    answer: Mapping[str, Any],
    shape: Shape,
    *,
    kinds: Sequence[str] = (),
    notes: Sequence[str] = (),
) -> CallToolResult:
    """The tool result of `answer`: its rendering within `budget`, cut at the items of
    `shape.member`.

    An empty list under the member adds what was searched (Domain, branch, Revision, `kinds`)
    and the coverage notes; a cut answer says how to get the rest (`shape.rest`); an answer
    with a next page says so with its cursor.
    """
    render, member, what = shape.render, shape.member, shape.what
    items = answer.get(member) if member is not None else None
    empty = isinstance(items, list) and not items
    coverage = coverage_notes(answer)
    line = f"coverage: {'; '.join(coverage)}" if coverage and not empty else None

    def rendering(document: Mapping[str, Any]) -> str:
        text = render(document)
        return text if line is None else f"{text}\n{line}"

    fitted = fit(answer, member, rendering, budget)
    more = _more(fitted, budget, answer, what=what, rest=shape.rest)
    text, scope = fitted.text, None
    if empty:
        text = "\n".join([text, *empty_lines(answer, kinds, what)])
        scope = Scope(
            domain=answer.get("domain"),
            branch=answer.get("branch"),
            revision=answer.get("revision"),
            kinds=list(kinds),
        )
    if more is not None:
        text = f"{text}\n\n{more}"
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


def _more(
    fitted: Fitted, budget: Budget, answer: Mapping[str, Any], *, what: str, rest: str
) -> str | None:
    """How to get the rest of a cut answer, or of an answer with a next page (None: all shown)."""
    if fitted.truncated and fitted.shown is not None:
        return (
            f"Herald showed {fitted.shown} of {fitted.total} {what} to stay within "
            f"{budget.max_tokens} tokens: " + rest.format(shown=max(fitted.shown, 1))
        )
    if fitted.truncated:
        return (
            f"Herald cut this answer to stay within {budget.max_tokens} tokens: narrow the "
            "request (fewer Kinds, a lens, a smaller depth) to see the rest."
        )
    if answer.get("next_cursor"):
        return f"More on the next page: call again with cursor={answer['next_cursor']}"
    return None


def rendered(
    budget: Budget,
    tool: str,
    text: Text,
    *,
    domain: str,
    branch: str | None,
    result: dict[str, Any],
) -> CallToolResult:
    """The tool result of a Markdown rendering Keeper made (context pack, explain, health):
    the text within `budget`, cut after its last whole line."""
    fitted = fit({"text": str(text)}, None, lambda document: str(document["text"]), budget)
    answer = ToolAnswer(
        tool=tool,
        domain=domain,
        branch=branch,
        revision=text.revision,
        truncated=fitted.truncated,
        result=result,
    )
    return tool_result(fitted.text, answer)
