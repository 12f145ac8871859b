"""How resolve cuts and compares words: normalization, the singular rule, trigrams.

Pure string work shared by the vocabulary (`vocabulary.py`) and the matching (`matching.py`).
"""

from __future__ import annotations

import re
import unicodedata

_WORD = re.compile(r"\w+(?:[-'’./]\w+)*")
_CONTACT = re.compile(r"\S+@\S+|\w+://\S+|www\.\S+")
"""E-mail addresses and URLs: their words are never kept as misses."""
MAX_RECORDED_WORD_CHARS = 32
"""Longer words are tokens, keys or secrets rather than vocabulary: never kept as misses."""
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def words(text: str) -> list[str]:
    """The words of a text as written ("S-1001" and "o.o" are one word each)."""
    return _WORD.findall(text)


def normalize(text: str) -> str:
    """A phrase or a name in the form compared: lower case words without accents."""
    split = _CAMEL.sub(" ", text).replace("_", " ")
    folded = unicodedata.normalize("NFKD", split).casefold()
    plain = "".join(char for char in folded if not unicodedata.combining(char))
    return " ".join(_WORD.findall(plain))


def singular(key: str) -> str:
    """The key with its last word made singular by the common English rules (cheap, not perfect)."""
    head, _, last = key.rpartition(" ")
    if len(last) > 4 and last.endswith("ies"):
        last = last[:-3] + "y"
    elif len(last) > 4 and last.endswith(("sses", "ches", "shes", "xes")):
        last = last[:-2]
    elif len(last) > 2 and last.endswith("s") and not last.endswith(("ss", "us", "is")):
        last = last[:-1]
    return f"{head} {last}" if head else last


def trigrams(key: str) -> frozenset[str]:
    """The trigrams of a key, each word padded as PostgreSQL's pg_trgm does."""
    found: set[str] = set()
    for word in key.split():
        padded = f"  {word} "
        found.update(padded[index : index + 3] for index in range(len(padded) - 2))
    return frozenset(found)


def similarity(left: str, right: str) -> float:
    """Shared trigrams over all trigrams of both keys (0 to 1)."""
    a, b = trigrams(left), trigrams(right)
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def identifying_words(text: str) -> list[bool]:
    """For each word of `text` (as `words` cuts it), whether it may identify someone or something.

    Such words are never kept as misses: words with a digit (numbers, dates, VAT numbers such as
    PL5260250995, IBANs, UUIDs, keys such as S-1001), the words of e-mail addresses and URLs, and
    words longer than `MAX_RECORDED_WORD_CHARS`.
    """
    contacts = [match.span() for match in _CONTACT.finditer(text)]
    flags = []
    for match in _WORD.finditer(text):
        word = match.group()
        start, end = match.span()
        flags.append(
            any(char.isdigit() for char in word)
            or len(word) > MAX_RECORDED_WORD_CHARS
            or any(start < stop and begin < end for begin, stop in contacts)
        )
    return flags
