"""The entries naming Relations: names, inverse names, aliases, their word stems, descriptions."""

from __future__ import annotations

from collections.abc import Iterator

from lorebase_core.access import ReadScope
from lorebase_core.resolve.terms import Entry, EntryLevel, Term
from lorebase_core.resolve.text import STOP_WORDS, normalize, stem, stem_key
from lorebase_core.schema import Schema
from lorebase_core.schema.model import RelationDef

MIN_DESCRIPTION_WORD = 4
"""Shorter words of a description are too common to name its Relation."""


def _ends(name: str, relation: RelationDef) -> list[Term]:
    """The Relation read from each end: forward from `from`, inverse (when named) from `to`."""
    ends = [
        Term(
            "relation",
            relation.from_kind,
            relation=name,
            to_kind=relation.to_kind,
            direction="forward",
        )
    ]
    if relation.inverse:
        ends.append(
            Term(
                "relation",
                relation.to_kind,
                relation=relation.inverse,
                to_kind=relation.from_kind,
                direction="inverse",
            )
        )
    return ends


def relation_entries(schema: Schema, scope: ReadScope) -> Iterator[Entry]:
    """Entries for the Relations whose both ends the caller may read.

    Every name of a Relation (its name, inverse name and aliases) names it in both directions,
    exactly and by the stems of its words (with and without its stop words: "stocked at" is
    "stock at" and "stock"); each word of its description (stems of four letters or more, no stop
    words) names it at the `description` level.
    """
    visible = set(scope.visible_kinds(schema))
    for name, relation in schema.relations.items():
        if not {relation.from_kind, relation.to_kind} <= visible:
            continue
        ends = _ends(name, relation)
        arrow = f"{name} ({relation.from_kind} -> {relation.to_kind})"
        named: list[tuple[str, EntryLevel, str]] = [
            (name, "exact", f"the name of the Relation {arrow}")
        ]
        if relation.inverse:
            named.append((relation.inverse, "exact", f"the inverse name of the Relation {arrow}"))
        named += [
            (alias, "synonym", f"an alias of the Relation {arrow}") for alias in relation.aliases
        ]
        for text, level, why in named:
            key = normalize(text)
            stems = dict.fromkeys((stem_key(key), stem_key(key, content_only=True)))
            for term in ends:
                yield Entry(key, term, level, why)
                yield from (Entry(s, term, "stem", why) for s in stems if s)
        words = dict.fromkeys(
            stem(word)
            for word in normalize(relation.description).split()
            if word not in STOP_WORDS and len(word) >= MIN_DESCRIPTION_WORD
        )
        for word in words:
            for term in ends:
                yield Entry(word, term, "description", f"a word of the description of {arrow}")
