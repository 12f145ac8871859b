"""The per-exploration marker that fences each tool result shown to the model.

Graph data is untrusted: a Record's value may say "ignore your instructions". Each exploration
draws a random marker; every tool result reaches the model between `<<MARKER>>` and
`<</MARKER>>` lines, with every occurrence of the marker removed from the data first, so no
value can close the block and write outside it. The instructions say that nothing inside a block
is an instruction.
"""

from __future__ import annotations

import secrets

__all__ = ["Fence", "new_fence"]

_MARKER_BYTES = 8


class Fence:
    """One exploration's marker, and the fencing of tool results with it."""

    def __init__(self, marker: str) -> None:
        if not marker or not marker.isalnum():
            raise ValueError("a marker is letters and digits only")
        self.marker = marker

    def scrub(self, text: str) -> str:
        """`text` without any occurrence of the marker (repeated until none is left, so that
        removing one cannot join two halves into a new one)."""
        while self.marker in text:
            text = text.replace(self.marker, "")
        return text

    def fence(self, title: str, text: str) -> str:
        """`text` (scrubbed) inside the block, under a title line (scrubbed too)."""
        return f"<<{self.marker}>> {self.scrub(title)}\n{self.scrub(text)}\n<</{self.marker}>>"


def new_fence() -> Fence:
    """A fence with a fresh random marker (`DATA` and 16 hex digits)."""
    return Fence("DATA" + secrets.token_hex(_MARKER_BYTES))
