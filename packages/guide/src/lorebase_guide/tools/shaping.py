"""Tool results as short text for the model, bounded by guide.limits.

JSON answers become one line per Record (`Kind/key: title; attr=value; ...`), values cut to
max_value_chars and lists to max_items; the whole text is cut to max_result_chars with a line
saying so. Keeper's own Markdown renderings (schema, context packs) are used as they are, cut
the same way. How a value is written is lorebase_core.markdown's `clipped` rule (Herald and
Keeper use that module's rules too).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from lorebase_core.markdown import clipped, cut_at_line
from lorebase_platform.settings import GuideLimitSettings

__all__ = ["bounded", "record_line", "record_lines", "value_text"]

CUT = "\n[cut: the result was longer; ask for less, or narrow it]"
"""The line that ends a result cut to max_result_chars."""

value_text = clipped
"""One value as text on one line, cut to a length (lorebase_core.markdown.clipped)."""


def record_line(record: Mapping[str, Any], limits: GuideLimitSettings, *, skip: str = "") -> str:
    """`Kind/key: title; attr=value; ...` (the title and `skip` not repeated among the values)."""
    ref = str(record.get("ref") or f"{record.get('kind')}/{record.get('key')}")
    parts = [ref]
    title = record.get("title")
    if isinstance(title, str) and title:
        parts[0] = f"{ref}: {value_text(title, limits.max_value_chars)}"
    values = record.get("values")
    if isinstance(values, Mapping):
        shown = [
            f"{name}={value_text(value, limits.max_value_chars)}"
            for name, value in values.items()
            if value is not None and value != title and name != skip
        ]
        if shown:
            parts.append("; ".join(shown))
    extra = [f"{name}={record[name]}" for name in ("depth", "score") if name in record]
    if extra:
        parts.append(", ".join(extra))
    return " | ".join(parts)


def record_lines(
    records: Iterable[Mapping[str, Any]], limits: GuideLimitSettings
) -> tuple[list[str], int]:
    """Lines of at most max_items Records, and how many were left out."""
    items = list(records)
    lines = ["- " + record_line(record, limits) for record in items[: limits.max_items]]
    return lines, max(len(items) - limits.max_items, 0)


def bounded(text: str, limits: GuideLimitSettings) -> str:
    """`text` cut to max_result_chars at a line end, saying that it was cut."""
    return cut_at_line(text, limits.max_result_chars, CUT)
