"""Citations: the Records tool results returned, and the check of a final answer's refs.

An answer may cite only Records a tool returned data for during the exploration. Refs are
collected from each answer Keeper gave (`ref` members, `kind` + `key` pairs, and `Kind/key`
written in Markdown renderings, for Kinds of the Domain's schema); the model's citations are
kept when they are among them and dropped otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["CheckedCitations", "Citation", "check_citations", "refs_in_content", "refs_in_text"]

_REF = re.compile(r"(?<![\w/])([A-Z][A-Za-z0-9_]*)/([A-Za-z0-9](?:[A-Za-z0-9._:-]*[A-Za-z0-9])?)")
"""A Record ref in text: a Kind (capitalized) and a key, `Supplier/S-1001`."""


@dataclass(frozen=True)
class Citation:
    """A cited Record: `ref` (`Kind/key`), its Kind and its key."""

    ref: str
    kind: str
    key: str

    def as_event(self) -> dict[str, str]:
        return {"ref": self.ref, "kind": self.kind, "key": self.key}


def refs_in_text(text: str, kinds: Collection[str]) -> set[str]:
    """The `Kind/key` refs written in `text` whose Kind is one of `kinds`."""
    return {f"{kind}/{key}" for kind, key in _REF.findall(text) if kind in kinds}


def refs_in_content(content: Any, kinds: Collection[str]) -> set[str]:
    """The refs of a JSON answer: `ref` members, `kind` + `key` pairs, refs in strings."""
    found: set[str] = set()
    if isinstance(content, Mapping):
        kind, key = content.get("kind"), content.get("key")
        if isinstance(kind, str) and isinstance(key, str) and kind in kinds and key:
            found.add(f"{kind}/{key}")
        ref = content.get("ref")
        if isinstance(ref, str) and ref.partition("/")[0] in kinds and ref.partition("/")[2]:
            found.add(ref)
        for name, item in content.items():
            if name != "ref":
                found |= refs_in_content(item, kinds)
    elif isinstance(content, list):
        for item in content:
            found |= refs_in_content(item, kinds)
    elif isinstance(content, str):
        found |= refs_in_text(content, kinds)
    return found


@dataclass(frozen=True)
class CheckedCitations:
    """A final answer's citations: those a tool returned (in the model's order), the rest."""

    kept: list[Citation]
    dropped: list[str]


def check_citations(cited: Iterable[str], seen: Collection[str]) -> CheckedCitations:
    """Keep the citations in `seen`, each once, in the model's order; drop the others.

    A citation is the first ref written in it: small models copy a heading ("Contract/C-3013 in
    supply/main") where the ref alone was asked for.
    """
    kept: list[Citation] = []
    dropped: list[str] = []
    done: set[str] = set()
    for written in cited:
        found = _REF.search(written)
        ref = f"{found.group(1)}/{found.group(2)}" if found else written.strip()
        if not ref or ref in done:
            continue
        done.add(ref)
        if ref in seen:
            kind, _, key = ref.partition("/")
            kept.append(Citation(ref, kind, key))
        else:
            dropped.append(ref)
    return CheckedCitations(kept, dropped)
