"""What a phrase can name: the Kinds, Attributes, Relations and indexed values the caller may read.

`vocabulary_entries` lists them, `Vocabulary` looks them up by key, by word stem and by close
spelling.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Literal

from lorebase_core.access import ReadScope
from lorebase_core.resolve.codes import code_entries
from lorebase_core.resolve.relations import relation_entries
from lorebase_core.resolve.terms import Candidate, Entry, EntryLevel, Level, Target, Term
from lorebase_core.resolve.text import normalize, singular, stem_key, trigrams
from lorebase_core.schema import Schema
from lorebase_core.schema.model import AttributeDef

__all__ = [
    "Candidate",
    "Entry",
    "Indexing",
    "Level",
    "Target",
    "Term",
    "Vocabulary",
    "indexing",
    "vocabulary_entries",
]

Indexing = Literal["always", "few", "never"]


def indexing(rules: AttributeDef) -> Indexing:
    """Whether an Attribute's values are indexed: `always`, `few` (when few distinct) or `never`.

    Values of sensitive Attributes never are; `resolvable` forces it either way for strings,
    texts and enums; otherwise enums and Attributes with a `vocabulary` (codes) always are and
    strings are when they have few values. Numbers, dates and the rest are found by their
    Attribute's name, never by value.
    """
    base = rules.value_type.base
    if rules.sensitive or rules.resolvable is False or base not in ("string", "text", "enum"):
        return "never"
    if rules.resolvable or base == "enum" or rules.vocabulary is not None:
        return "always"
    return "few" if base == "string" else "never"


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
    Relations count only when the caller may read both their ends.
    """
    entries: list[Entry] = []

    def add(keys: Iterable[str], term: Term, level: EntryLevel, why: str) -> None:
        for text in keys:
            key = normalize(text)
            if key:
                entries.append(Entry(key, term, level, why))

    for kind_name in scope.visible_kinds(schema):
        kind = schema.kinds[kind_name]
        kind_term = Term("kind", kind_name)
        add([kind_name], kind_term, "exact", f"the name of the Kind {kind_name}")
        add(kind.aliases, kind_term, "synonym", f"an alias of the Kind {kind_name}")
        for name, rules in kind.attributes.items():
            if not scope.value_readable(rules):
                continue
            attribute_term = Term("attribute", kind_name, name, rules.type)
            path = f"{kind_name}.{name}"
            add([name], attribute_term, "exact", f"the name of the Attribute {path}")
            add(rules.aliases, attribute_term, "synonym", f"an alias of the Attribute {path}")
            counts = indexed.get((kind_name, name))
            if counts is None:
                continue
            for term, exact, aliases in _value_terms(kind_name, name, rules, counts):
                add(exact, term, "exact", f"a stored value of {path}")
                add(aliases, term, "synonym", f"a value alias of {path} ({term.values[0]})")
            entries.extend(code_entries(kind_name, name, rules, counts))
    entries.extend(relation_entries(schema, scope))
    return entries


class Vocabulary:
    """Entries looked up by key (and by singular key), by word stems and by shared trigrams."""

    def __init__(self, entries: Iterable[Entry]) -> None:
        listed = list(entries)
        self.entries = [entry for entry in listed if entry.level in ("exact", "synonym")]
        self._by_stem: dict[str, list[Entry]] = {}
        for entry in listed:
            if entry.level in ("stem", "description"):
                self._by_stem.setdefault(entry.key, []).append(entry)
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
        """The `exact` and `synonym` entries of a normalized key, or of its singular."""
        found = list(self._by_key.get(key, ()))
        if singular(key) != key:
            found += [entry for entry in self._by_key.get(singular(key), ()) if entry not in found]
        return found

    def stemmed(self, key: str) -> list[Entry]:
        """The `stem` and `description` entries of a normalized key, by the stems of its words."""
        return list(self._by_stem.get(stem_key(key), ()))

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
