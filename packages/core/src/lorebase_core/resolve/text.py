"""How resolve cuts and compares words: normalization, the singular rule, stems, trigrams.

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


STOP_WORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "him",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
    ]
)
"""Small English words that never match a value unless written exactly as it is stored."""


def is_noise(written: list[str]) -> bool:
    """Whether a phrase (its words as written) is only stop words, or one word of two letters."""
    keys = [normalize(word) for word in written]
    return all(key in STOP_WORDS for key in keys) or (len(keys) == 1 and len(keys[0]) <= 2)


_VOWELS = frozenset("aeiouy")
_UNDOUBLED = frozenset("aeiouylsz")  # "filled" stays "fill", "agreed" "agree"


def stem(word: str) -> str:
    """A light English stem of one normalized word: "stocked", "stocking", "stocks" -> "stock".

    Rules, not a dictionary: -ies/-ied -> -y ("supplied" -> "supply"), -ing and -ed dropped
    (with a doubled last consonant undoubled: "shipped" -> "ship"), -es after s/x/ch/sh and a
    plural -s dropped, and a last silent -e dropped ("raise", "raised" -> "rais"). Words of three
    letters or fewer are left as they are; so are nouns in -er ("supplier" is not "supply").
    """
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith(("ies", "ied")) and len(word) > 4:
        return word[:-3] + "y"
    for suffix in ("ing", "ed"):
        base = word[: -len(suffix)] if not word.endswith("eed") else word[:-1]
        if word.endswith(suffix) and len(base) >= 3 and _VOWELS & set(base):
            if len(base) > 3 and base[-1] == base[-2] and base[-1] not in _UNDOUBLED:
                base = base[:-1]
            return base[:-1] if base.endswith("e") and len(base) > 3 else base
    if word.endswith(("sses", "ches", "shes", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


def stem_key(key: str, *, content_only: bool = False) -> str:
    """The stems of the words of a normalized key; `content_only` leaves stop words out."""
    return " ".join(stem(word) for word in key.split() if not (content_only and word in STOP_WORDS))


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
