"""Bounded answers: every tool answer within herald.max_result_tokens, cut at item boundaries.

Tokens are estimated like context packs: `ceil(characters / agents.context.chars_per_token)` of
the text the model reads. A list answer keeps as many of its first items as fit (found by
bisection over the rendering itself); a text without items is cut after its last whole line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from lorebase_core.context import estimate_tokens

Render = Callable[[Mapping[str, Any]], str]


@dataclass(frozen=True)
class Budget:
    """The largest answer, in estimated tokens."""

    max_tokens: int
    chars_per_token: float

    def tokens(self, text: str) -> int:
        return estimate_tokens(text, self.chars_per_token)

    def fits(self, text: str) -> bool:
        return self.tokens(text) <= self.max_tokens


@dataclass(frozen=True, kw_only=True)
class Fitted:
    """An answer cut to a budget: the (cut) document and its text."""

    document: dict[str, Any]
    text: str
    truncated: bool
    shown: int | None = None
    total: int | None = None


def fit(document: Mapping[str, Any], member: str | None, render: Render, budget: Budget) -> Fitted:
    """`document` rendered within `budget`: the items of `document[member]` that fit.

    With no member (or no list under it) only the text is cut, at a line boundary.
    """
    items = document.get(member) if member is not None else None
    if member is None or not isinstance(items, list):
        text = render(document)
        if budget.fits(text):
            return Fitted(document=dict(document), text=text, truncated=False)
        return Fitted(document=dict(document), text=cut_lines(text, budget), truncated=True)
    total = len(items)
    text = render(document)
    if budget.fits(text):
        return Fitted(document=dict(document), text=text, truncated=False, shown=total, total=total)
    low, high = 0, total - 1
    while low < high:
        middle = (low + high + 1) // 2
        if budget.fits(render(_with(document, member, items[:middle]))):
            low = middle
        else:
            high = middle - 1
    kept = _with(document, member, items[:low])
    text = render(kept)
    if not budget.fits(text):
        text = cut_lines(text, budget)
    return Fitted(document=kept, text=text, truncated=True, shown=low, total=total)


def cut_lines(text: str, budget: Budget) -> str:
    """The whole lines of `text` that fit in `budget`, and a line saying how many were cut."""
    lines = text.splitlines()
    kept: list[str] = []
    used = 0
    room = budget.max_tokens * budget.chars_per_token - 80
    for line in lines:
        if used + len(line) + 1 > room:
            break
        kept.append(line)
        used += len(line) + 1
    cut = len(lines) - len(kept)
    return "\n".join([*kept, f"... ({cut} more lines cut to stay within the answer budget)"])


def _with(document: Mapping[str, Any], member: str, items: list[Any]) -> dict[str, Any]:
    cut = dict(document)
    cut[member] = items
    return cut
