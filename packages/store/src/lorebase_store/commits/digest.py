"""The digest of a commit's changes, from which its Revision id is made (with its header)."""

from __future__ import annotations

import hashlib
from typing import Any

from lorebase_core.schema import canonical_json
from lorebase_store.engine import JsonText

_member_names = {
    name: canonical_json(name) for name in ("op", "kind", "key", "values", "relation", "from", "to")
}


class ChangeDigest:
    """SHA-256 over the changes of a commit, one canonical JSON object a line, in order."""

    def __init__(self) -> None:
        self._sha = hashlib.sha256()

    def add(self, change: dict[str, Any]) -> None:
        """Add a change in canonical JSON (values already serialized as `JsonText` are reused)."""
        members = ",".join(
            f"{_member_names.get(name) or canonical_json(name)}:"
            f"{value if isinstance(value, JsonText) else canonical_json(value)}"
            for name, value in sorted(change.items())
        )
        self._sha.update(b"{" + members.encode() + b"}\n")

    def digest(self) -> bytes:
        return self._sha.digest()
