"""What a message about an unknown name adds: the closest names, and all of them when few.

`Kind 'Suplier' does not exist in Domain 'supply'; did you mean 'Supplier'?` is the message of
one typo; when the names to choose from are few (`LISTED_NAMES`) the message lists them too.

The caller of `hint` passes only the names the requester may see (the readable Kinds, the
Domains it may read ...): an unknown name and an invisible one then answer from the same list,
so the two answers still differ only by the name each request sent. The names offered are
names of the system (declared in a schema, or made by an administrator), never caller text, so
they are quoted whole.
"""

from __future__ import annotations

from collections.abc import Iterable
from difflib import get_close_matches

LISTED_NAMES = 10
"""At most this many names to choose from, and a message lists every one."""

CLOSE_MATCHES = 3
"""The closest names a message offers."""

MATCHED_CHARS = 200
"""Names longer than this get no suggestion: comparing them costs more than it could help."""


def close_names(name: object, names: Iterable[str]) -> list[str]:
    """The names closest to `name` (difflib's ratio of at least 0.6), closest first."""
    if not isinstance(name, str) or not name or len(name) > MATCHED_CHARS:
        return []
    return get_close_matches(name, sorted(set(names)), n=CLOSE_MATCHES, cutoff=0.6)


def hint(name: object, names: Iterable[str], plural: str, *, listed: int = LISTED_NAMES) -> str:
    """The end of a message about the unknown `name`: `; did you mean 'Supplier'?` and, when
    `names` holds at most `listed`, the list: `; did you mean 'Supplier'? Kinds: Contract,
    Part, Supplier` (with `plural` `"Kinds"`; `; Kinds: ...` without a close name). Empty when
    there is nothing to suggest.

    Args:
        name: what the request named.
        names: the names the requester may see (and no other).
        plural: what the names are, for the list (`"Kinds"`, `"the Domains you may read"`).
        listed: the longest list a message shows whole.
    """
    choices = sorted(set(names))
    close = [candidate for candidate in close_names(name, choices) if candidate != name]
    text = f"; did you mean {' or '.join(repr(found) for found in close)}?" if close else ""
    if choices and len(choices) <= listed:
        text += f"{' ' if close else '; '}{plural}: {', '.join(choices)}"
    return text
