"""Grounding the words of a question in a Domain's schema and stored values (docs/resolve.md).

Pure: the store counts the indexed values (`lorebase_store.reads.value_index`), Keeper serves the answer.
A text is cut into words; phrases of one to three consecutive words are tried, longest first, at
these levels:

- `exact` (score 1.0): the name of a Kind or an Attribute, or an indexed value;
- `synonym` (score 0.95): an alias of a Kind or an Attribute, or a `value_aliases` entry of an
  Attribute (the spec's "schema aliases" level, named as in its example);
- `similar` (score 0.9 x trigram similarity): a close spelling of any of the above, for words the
  first two levels left over.

Names and phrases are compared normalized: camel case and underscores split into words, case
folded, accents dropped, and the last word singular ("purchase orders" finds PurchaseOrder).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from lorebase_core.access import ReadScope
from lorebase_core.schema import Schema
from lorebase_core.schema.model import AttributeDef

Target = Literal["kind", "attribute", "value"]
Level = Literal["exact", "synonym", "similar", "embedding"]
Indexing = Literal["always", "few", "never"]

MAX_PHRASE_WORDS = 3
SCORES: dict[Level, float] = {"exact": 1.0, "synonym": 0.95, "similar": 0.9, "embedding": 0.8}
SIMILAR_MIN_CHARS = 4  # shorter words match too much by spelling alone
SIMILAR_PER_PHRASE = 3
SIMILAR_SPREAD = 0.1  # close spellings within this much of the closest one are offered too
UNKNOWN_REASON = "term unknown in this Domain"

_WORD = re.compile(r"\w+(?:[-'’./]\w+)*")
_CONTACT = re.compile(r"\S+@\S+|\w+://\S+|www\.\S+")
"""E-mail addresses and URLs: their words are never kept as misses."""
MAX_RECORDED_WORD_CHARS = 32
"""Longer words are tokens, keys or secrets rather than vocabulary: never kept as misses."""
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_TARGET_ORDER = {"kind": 0, "attribute": 1, "value": 2}


# -- normalization ---------------------------------------------------------------------------
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


# -- what is indexed -------------------------------------------------------------------------
def indexing(rules: AttributeDef) -> Indexing:
    """Whether an Attribute's values are indexed: `always`, `few` (when few distinct) or `never`.

    Values of sensitive Attributes never are; `resolvable` forces it either way for strings,
    texts and enums; otherwise enums always are and strings are when they have few values.
    Numbers, dates and the rest are found by their Attribute's name, never by value.
    """
    base = rules.value_type.base
    if rules.sensitive or rules.resolvable is False or base not in ("string", "text", "enum"):
        return "never"
    if rules.resolvable or base == "enum":
        return "always"
    return "few" if base == "string" else "never"


# -- the vocabulary --------------------------------------------------------------------------
@dataclass(frozen=True)
class Term:
    """What a phrase can stand for: a Kind, an Attribute, or values of an Attribute."""

    target: Target
    kind: str
    attribute: str | None = None
    type: str | None = None
    values: tuple[str, ...] = ()
    records: int | None = None

    @property
    def order(self) -> tuple[int, str, str, tuple[str, ...]]:
        return (_TARGET_ORDER[self.target], self.kind, self.attribute or "", self.values)


@dataclass(frozen=True)
class Entry:
    key: str
    term: Term
    level: Literal["exact", "synonym"]


@dataclass(frozen=True)
class Candidate:
    term: Term
    score: float
    level: Level
    matched: str

    def to_json(self) -> dict[str, Any]:
        term = self.term
        document: dict[str, Any] = {"target": term.target, "kind": term.kind}
        if term.attribute is not None:
            document["attribute"] = term.attribute
            document["type"] = term.type
        if term.target == "value":
            document["values"] = list(term.values)
            document["predicate"] = (
                {"attr": term.attribute, "op": "eq", "value": term.values[0]}
                if len(term.values) == 1
                else {"attr": term.attribute, "op": "in", "value": list(term.values)}
            )
        document.update(score=self.score, level=self.level, matched=self.matched)
        if term.records is not None:
            document["records"] = term.records
        return document


def _value_terms(
    kind: str, attribute: str, rules: AttributeDef, counts: Mapping[str, int]
) -> Iterable[tuple[Term, list[str], list[str]]]:
    """Groups of equivalent values with the keys naming them exactly and by alias.

    A value and the aliases of it that are stored too form one group (`Rosso: [red]` with both
    stored: values Rosso and red); each other stored value is its own group.
    """
    grouped: set[str] = set()
    for canonical, aliases in rules.value_aliases.items():
        stored = [alias for alias in aliases if alias in counts and alias != canonical]
        values = (canonical, *stored)
        grouped.update(values)
        records = sum(counts.get(value, 0) for value in values)
        term = Term("value", kind, attribute, rules.type, values, records)
        exact = [canonical, *stored]
        yield term, exact, [alias for alias in aliases if alias not in counts]
    for value, records in counts.items():
        if value not in grouped:
            yield Term("value", kind, attribute, rules.type, (value,), records), [value], []


def vocabulary_entries(
    schema: Schema,
    scope: ReadScope,
    indexed: Mapping[tuple[str, str], Mapping[str, int]],
) -> list[Entry]:
    """Everything the caller may read that a phrase can name.

    `indexed` holds the indexed values of each (Kind, Attribute) with their Record counts.
    """
    entries: list[Entry] = []

    def add(keys: Iterable[str], term: Term, level: Literal["exact", "synonym"]) -> None:
        for text in keys:
            key = normalize(text)
            if key:
                entries.append(Entry(key, term, level))

    for kind_name in scope.visible_kinds(schema):
        kind = schema.kinds[kind_name]
        kind_term = Term("kind", kind_name)
        add([kind_name], kind_term, "exact")
        add(kind.aliases, kind_term, "synonym")
        for name, rules in kind.attributes.items():
            if not scope.value_readable(rules):
                continue
            attribute_term = Term("attribute", kind_name, name, rules.type)
            add([name], attribute_term, "exact")
            add(rules.aliases, attribute_term, "synonym")
            counts = indexed.get((kind_name, name))
            if counts is None:
                continue
            for term, exact, aliases in _value_terms(kind_name, name, rules, counts):
                add(exact, term, "exact")
                add(aliases, term, "synonym")
    return entries


class Vocabulary:
    """Entries looked up by key (and by singular key) and by shared trigrams."""

    def __init__(self, entries: Iterable[Entry]) -> None:
        self.entries = list(entries)
        self._by_key: dict[str, list[Entry]] = {}
        self._by_trigram: dict[str, list[int]] = {}
        self._trigrams: list[frozenset[str]] = []
        for position, entry in enumerate(self.entries):
            for key in {entry.key, singular(entry.key)}:
                self._by_key.setdefault(key, []).append(entry)
            grams = trigrams(singular(entry.key))
            self._trigrams.append(grams)
            for gram in grams:
                self._by_trigram.setdefault(gram, []).append(position)

    def lookup(self, key: str) -> list[Entry]:
        found = list(self._by_key.get(key, ()))
        if singular(key) != key:
            found += [entry for entry in self._by_key.get(singular(key), ()) if entry not in found]
        return found

    def similar(self, key: str, min_similarity: float) -> list[tuple[float, Entry]]:
        """Entries spelled like `key`, most similar first, at least `min_similarity`.

        Both sides are compared singular, so that a plural does not cost similarity.
        """
        grams = trigrams(singular(key))
        shared: Counter[int] = Counter()
        for gram in grams:
            shared.update(self._by_trigram.get(gram, ()))
        scored: list[tuple[float, Entry]] = []
        for position, common in shared.items():
            value = common / (len(grams) + len(self._trigrams[position]) - common)
            if value >= min_similarity:
                scored.append((value, self.entries[position]))
        scored.sort(key=lambda item: (-item[0], item[1].term.order, item[1].key))
        return scored


# -- resolving a text ------------------------------------------------------------------------
@dataclass(frozen=True)
class TextResolution:
    """What `resolve_text` found.

    `unknown` are the runs of consecutive unmatched words (normalized), as the answer lists them;
    `recordable` the same runs without the words that may identify someone or something (below),
    which are all a store may keep of the text.
    """

    candidates: tuple[Candidate, ...]
    unmatched: tuple[str, ...]
    unknown: tuple[str, ...]
    truncated: bool
    recordable: tuple[str, ...] = ()


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


def _spans(count: int) -> list[tuple[int, int]]:
    """Phrases as (start, end) word positions: longest first, then left to right."""
    return [
        (start, start + size)
        for size in range(min(MAX_PHRASE_WORDS, count), 0, -1)
        for start in range(count - size + 1)
    ]


def resolve_text(
    text: str, vocabulary: Vocabulary, *, min_similarity: float, max_candidates: int
) -> TextResolution:
    """The candidates for the phrases of `text`, the words left unmatched and unknown phrases."""
    written = words(text)
    keys = [normalize(word) for word in written]
    covered = [False] * len(written)
    best: dict[Term, Candidate] = {}

    def offer(candidate: Candidate) -> None:
        known = best.get(candidate.term)
        if known is None or candidate.score > known.score:
            best[candidate.term] = candidate

    for level_pass in ("names", "similar"):
        for start, end in _spans(len(written)):
            if any(covered[start:end]):
                continue
            key = " ".join(keys[start:end])
            matched = " ".join(written[start:end])
            if level_pass == "names":
                found = [
                    Candidate(entry.term, SCORES[entry.level], entry.level, matched)
                    for entry in vocabulary.lookup(key)
                ]
            elif len(key.replace(" ", "")) >= SIMILAR_MIN_CHARS:
                close = vocabulary.similar(key, min_similarity)
                found = [
                    Candidate(entry.term, round(SCORES["similar"] * value, 4), "similar", matched)
                    for value, entry in close[:SIMILAR_PER_PHRASE]
                    if value >= close[0][0] - SIMILAR_SPREAD
                ]
            else:
                found = []
            for candidate in found:
                offer(candidate)
            if found:
                covered[start:end] = [True] * (end - start)
    ranked = sorted(best.values(), key=lambda item: (-item.score, item.term.order))
    unmatched = list(dict.fromkeys(w for w, done in zip(written, covered, strict=True) if not done))
    identifying = identifying_words(text)
    return TextResolution(
        tuple(ranked[:max_candidates]),
        tuple(unmatched),
        tuple(_unknown_phrases(keys, covered)),
        len(ranked) > max_candidates,
        # an identifying word ends a run like a matched one, and is left out
        tuple(_unknown_phrases(keys, [a or b for a, b in zip(covered, identifying, strict=True)])),
    )


def _unknown_phrases(keys: list[str], covered: list[bool]) -> list[str]:
    """Runs of consecutive unmatched words (normalized), each once, in order."""
    runs: list[str] = []
    current: list[str] = []
    for key, done in [*zip(keys, covered, strict=True), ("", True)]:
        if done:
            if current:
                runs.append(" ".join(current))
            current = []
        else:
            current.append(key)
    return list(dict.fromkeys(runs))
