"""The searchable text of a Record, its words, and trigram similarity (pg_trgm's, in Python).

A Record's search document is its title and the values of its `string` and `text` Attributes,
never those of sensitive Attributes (tags `pii`, `confidential`, `restricted`): they are not
indexed at all, so no search can find a Record by them, whatever the caller's clearances.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from lorebase_core.schema import KindDef

SEARCHABLE_TYPES = ("string", "text")
MIN_TERM = 3
MAX_TERM = 64
_WORD = re.compile(r"[^\W_]+")


def searchable_attributes(kind: KindDef) -> list[str]:
    """The Attributes whose values are indexed, in declared order."""
    return [
        name
        for name, attribute in kind.attributes.items()
        if attribute.value_type.base in SEARCHABLE_TYPES and not attribute.sensitive
    ]


def record_title(kind: KindDef, key: str, values: Mapping[str, Any]) -> str:
    """The title of a Record: its title Attribute's value (when readable), else its key."""
    if kind.title is not None:
        attribute = kind.attributes.get(kind.title)
        value = values.get(kind.title)
        if attribute is not None and not attribute.sensitive and value is not None:
            return str(value)
    return key


def document(kind: KindDef, key: str, values: Mapping[str, Any]) -> tuple[str, str]:
    """The (title, body) indexed for a Record: the body holds the other searchable values."""
    title = record_title(kind, key, values)
    body = "\n".join(
        str(values[name])
        for name in searchable_attributes(kind)
        if name != kind.title and values.get(name) is not None
    )
    return title, body


def words(text: str) -> list[str]:
    """The words of a text, lowered, in order (letters and digits; `_` separates)."""
    return [word.lower() for word in _WORD.findall(text)]


def terms(*texts: str) -> set[str]:
    """The vocabulary terms of texts: words of 3 to 64 characters with at least one letter."""
    return {
        word
        for text in texts
        for word in words(text)
        if MIN_TERM <= len(word) <= MAX_TERM and not word.isdigit()
    }


def trigrams(word: str) -> set[str]:
    """pg_trgm's trigrams of one word: padded with two spaces in front and one behind."""
    padded = f"  {word.lower()} "
    return {padded[index : index + 3] for index in range(len(padded) - 2)}


def similarity(left: str, right: str) -> float:
    """pg_trgm's `similarity` of two words: shared trigrams over all trigrams."""
    return trigram_similarity(trigrams(left), trigrams(right))


def trigram_similarity(a: set[str], b: set[str]) -> float:
    """`similarity` of two words given by their trigrams."""
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def matched_attributes(kind: KindDef, values: Mapping[str, Any], found: Iterable[str]) -> list[str]:
    """The searchable Attributes whose value contains one of the words, in declared order."""
    wanted = [word.lower() for word in found]
    names = searchable_attributes(kind)
    if kind.title is not None and kind.title not in names:
        names.insert(0, kind.title)
    return [
        name
        for name in names
        if name in kind.attributes
        and not kind.attributes[name].sensitive
        and values.get(name) is not None
        and any(word in str(values[name]).lower() for word in wanted)
    ]
