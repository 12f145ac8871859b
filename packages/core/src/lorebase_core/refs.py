"""Record keys and references: `Supplier/S-1001` (docs/schema.md, "Keys and references")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lorebase_core.errors import BadRequest, quoted


def join_key(parts: Sequence[str]) -> str:
    """The key string of a key made of canonical values (one part: the value itself)."""
    if len(parts) == 1:
        return parts[0]
    return ",".join(part.replace("%", "%25").replace(",", "%2C") for part in parts)


def split_key(key: str, size: int) -> list[str]:
    """The canonical values of a key string of `size` parts."""
    if size == 1:
        return [key]
    parts = key.split(",")
    if len(parts) != size:
        raise BadRequest(f"key {quoted(key)} should have {size} parts separated by ','")
    return [part.replace("%2C", ",").replace("%25", "%") for part in parts]


@dataclass(frozen=True, order=True)
class RecordRef:
    kind: str
    key: str

    def __str__(self) -> str:
        return f"{self.kind}/{self.key}"

    @classmethod
    def parse(cls, text: str) -> RecordRef:
        kind, sep, key = text.partition("/")
        if not sep or not kind or not key:
            raise BadRequest(
                f"{quoted(text)} is not a Record reference; write Kind/key, for example Supplier/S-1001"
            )
        return cls(kind, key)
