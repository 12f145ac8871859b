"""Untrusted text inside the Markdown answers (explain, context packs, health reports)."""

from __future__ import annotations

from typing import Any

SHORT = 12
"""Hex digits of a Revision id inside Markdown sections (headers carry the full id)."""


def table_cell(value: Any) -> str:
    """Untrusted text as one table cell: no pipes or line breaks that would break the table."""
    text = "" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\r", " ").replace("\n", " ")


def text_line(value: Any) -> str:
    """Untrusted text on one line of prose or a list: no line breaks."""
    return table_cell(value).replace("\\|", "|")
