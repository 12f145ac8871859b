"""Citations: the Record refs (Kind/key) tool results showed, and the check of a final answer.

A model may cite only what it read: every ref of the answer must have appeared in a tool
result of the same question (its text or its structured content). The others are dropped and
the report says which.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

REF = re.compile(r"(?<![\w/])([A-Z][A-Za-z0-9_]*)/([A-Za-z0-9](?:[A-Za-z0-9._:-]*[A-Za-z0-9])?)")
"""A Record ref in text: a Kind (capitalized) and a key, `Supplier/S-1001`."""


def refs_in_text(text: str) -> set[str]:
    """The `Kind/key` refs written in `text`."""
    return {f"{kind}/{key}" for kind, key in REF.findall(text)}


def refs_in_content(content: Any) -> set[str]:
    """The refs of structured content: `ref` members, `kind` + `key` pairs, refs in strings."""
    found: set[str] = set()
    if isinstance(content, Mapping):
        kind, key = content.get("kind"), content.get("key")
        if isinstance(kind, str) and isinstance(key, str) and kind and key:
            found.add(f"{kind}/{key}")
        for item in content.values():
            found |= refs_in_content(item)
    elif isinstance(content, list):
        for item in content:
            found |= refs_in_content(item)
    elif isinstance(content, str):
        found |= refs_in_text(content)
    return found


@dataclass(frozen=True)
class CheckedCitations:
    """A final answer's citations: those a tool result showed, and the dropped rest."""

    kept: list[str]
    dropped: list[str]


def check_citations(cited: Iterable[str], seen: set[str]) -> CheckedCitations:
    """Keep the citations in `seen` (in the model's order, each once); drop the others.

    A citation is the first ref written in it: small models often copy a whole heading
    ("Contract/C-3013 in supply/main @ 9593454195d1") where the ref alone was asked for.
    """
    kept: list[str] = []
    dropped: list[str] = []
    for written in cited:
        found = REF.search(written)
        ref = f"{found.group(1)}/{found.group(2)}" if found else written.strip()
        if not ref or ref in kept or ref in dropped:
            continue
        (kept if ref in seen else dropped).append(ref)
    return CheckedCitations(kept, dropped)
