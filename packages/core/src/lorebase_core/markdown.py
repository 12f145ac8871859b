"""Untrusted text in the Markdown written for models: the rules Keeper, Herald and Guide share.

Values stored in the graph are data, never markup: whatever a value holds, it cannot start a
heading, a list item or an instruction line of its own, nor break the structure it stands in.
One rule per place text stands in:

| rule | where it stands | None | line breaks | pipes | backslashes |
| --- | --- | --- | --- | --- | --- |
| `table_cell` | a cell of a Markdown table (Keeper) | empty | a space | escaped | doubled |
| `text_line` | prose or a list item (Keeper) | empty | a space | kept | doubled |
| `inline_value` | a value among `name=value` pairs (Herald) | `null` | JSON string | JSON string | kept |
| `clipped` | a value cut to a length (Guide) | `null` | collapsed | escaped | doubled |

"Line breaks" are CR and LF for Keeper's two rules; `inline_value` writes any text that is not
printable (control characters, Unicode line and paragraph separators) as a JSON string, and
`clipped` collapses every run of whitespace to one space. Guide's tool results stand inside
marked data blocks, which is what keeps their text data; Herald's answers have no such block.
Pipes are never bare inside a value: Keeper's table cells and Guide's `Kind/key | values` lines
escape them, Herald quotes the value, so no value can fake the boundary of a cell or a part.

Booleans are `true` and `false` everywhere. `table_cell` and `text_line` are part of the bytes
of Keeper's Markdown answers, and so of their ETags: they do not change. `cut_at_line` cuts a
whole text at a line end and says so; `short_revision` is the Revision id inside Markdown.
"""

from __future__ import annotations

import json

SHORT = 12
"""Hex digits of a Revision id inside Markdown (Keeper takes a unique prefix for a Revision)."""

ELLIPSIS = "…"
"""What ends a value cut by `clip`."""


def short_revision(revision: object) -> str:
    """A Revision id cut to its first `SHORT` characters; `-` for none."""
    return str(revision)[:SHORT] if revision else "-"


def table_cell(value: object) -> str:
    """Untrusted text as one table cell: no pipes or line breaks that would break the table.

    None is empty, booleans are `true`/`false`, anything else is `str(value)`; backslashes are
    doubled, pipes escaped (`\\|`), CR and LF each become a space.
    """
    text = "" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\r", " ").replace("\n", " ")


def text_line(value: object) -> str:
    """Untrusted text on one line of prose or a list: no line breaks.

    As `table_cell`, with pipes left as they are (backslashes are still doubled).
    """
    return table_cell(value).replace("\\|", "|")


def inline_value(value: object) -> str:
    """One value as data on a line: scalars as written; text holding a line break, a control
    character or a pipe as a JSON string; lists and mappings as compact JSON."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        if value.isprintable() and "|" not in value:
            return value
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def one_line(text: str) -> str:
    """`text` with every run of whitespace (line breaks included) as one space, trimmed."""
    return " ".join(text.split())


def clip(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, the last one an ellipsis when it was cut."""
    return text if len(text) <= limit else text[: max(limit - 1, 1)] + ELLIPSIS


def clipped(value: object, limit: int) -> str:
    """One value on one line, cut to `limit` characters: text as `table_cell` writes it (pipes
    escaped, backslashes doubled), anything else as JSON, whitespace collapsed (`one_line`)."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return clip(one_line(table_cell(text)), limit)


def cut_at_line(text: str, limit: int, note: str) -> str:
    """`text` within `limit` characters, `note` included: cut at the last line end that keeps
    more than half of the room (else mid-line), then `note`. Text that fits is unchanged."""
    if len(text) <= limit:
        return text
    room = limit - len(note)
    cut = text.rfind("\n", 0, room)
    return text[: cut if cut > room // 2 else room] + note
