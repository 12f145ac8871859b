"""What a phrase can name: the Kinds, Attributes and indexed values the caller may read.

`vocabulary_entries` lists them, `Vocabulary` looks them up by key and by close spelling.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from lorebase_core.access import ReadScope
from lorebase_core.resolve.text import normalize, singular, trigrams
from lorebase_core.schema import Schema
from lorebase_core.schema.model import AttributeDef

Target = Literal["kind", "attribute", "value", "relation", "comparison", "count"]
Level = Literal["exact", "synonym", "similar", "embedding", "number"]
Indexing = Literal["always", "few", "never"]

_TARGET_ORDER = {
    "kind": 0,
    "relation": 1,
    "attribute": 2,
    "value": 3,
    "comparison": 4,
    "count": 5,
}


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
    """What a phrase can stand for: a Kind, an Attribute, values of an Attribute, a Relation,
    a comparison on an Attribute or a count of the Records of a Kind (`numbers.py`).

    A comparison holds `op` and its `values` in canonical form (`between`: the lowest value and
    the first one past the range); a count holds `op` and the number in `values`.
    """

    target: Target
    kind: str
    attribute: str | None = None
    type: str | None = None
    values: tuple[str, ...] = ()
    records: int | None = None
    relation: str | None = None
    to_kind: str | None = None
    direction: Literal["forward", "inverse"] | None = None
    op: str | None = None

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
    """A Term a phrase may stand for; `span` is the phrase's word positions [start, end)."""

    term: Term
    score: float
    level: Level
    matched: str
    why: str = ""
    span: tuple[int, int] = (0, 0)

    def to_json(self) -> dict[str, Any]:
        term = self.term
        document: dict[str, Any] = {"target": term.target, "kind": term.kind}
        if term.attribute is not None:
            document["attribute"] = term.attribute
            document["type"] = term.type
        if term.target in ("comparison", "count"):
            document.update(numbers_json(term))
        elif term.target == "value":
            document["values"] = list(term.values)
            document["predicate"] = term_predicate(term)
        document.update(score=self.score, level=self.level, matched=self.matched)
        if self.why:
            document["why"] = self.why
        if term.records is not None:
            document["records"] = term.records
        return document


def comparison_predicate(term: Term) -> dict[str, Any]:
    """The `where` of a comparison Term: integers as JSON numbers, the rest as canonical text."""
    attr = term.attribute
    typed: list[object] = [int(v) if term.type == "integer" else v for v in term.values]
    if term.op == "between":
        return {
            "and": [
                {"attr": attr, "op": "gte", "value": typed[0]},
                {"attr": attr, "op": "lt", "value": typed[1]},
            ]
        }
    return {"attr": attr, "op": term.op, "value": typed[0]}


def term_predicate(term: Term) -> dict[str, Any]:
    """The `where` of a value Term (`eq` one value, `in` several) or of a comparison Term."""
    if term.target == "comparison":
        return comparison_predicate(term)
    if len(term.values) == 1:
        return {"attr": term.attribute, "op": "eq", "value": term.values[0]}
    return {"attr": term.attribute, "op": "in", "value": list(term.values)}


def numbers_json(term: Term) -> dict[str, Any]:
    """The members a comparison (`predicate`) or a count (`count`) candidate adds."""
    if term.target == "comparison":
        return {"predicate": comparison_predicate(term)}
    return {"count": {"op": term.op, "value": int(term.values[0])}}


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
