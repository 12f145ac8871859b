"""`interpret`: what the text of a lexical search asks for (docs/search.md, "Reading the text").

Pure: the schema and the caller's scope decide it, before anything is read.

- **Terms**: the words of `q`, lower case. A word holding a digit keeps its punctuation
  (`S-1007`, `6204-2RS` are one term each); other words are split at punctuation as before.
- **Kind words**: a word or two that name a readable Kind (its name, plural or alias, compared as
  resolve compares names: `normalize` and `singular`) restrict the search to that Kind instead of
  being text: `supplier S-1007` searches `s-1007` in Supplier. With `kinds` (or traits, a lens) in
  the request the two are intersected; when that leaves nothing, or when every word is a Kind
  word, the words stay text.
- **Attribute terms**: `attr:value` (or `attr:"two words"`) searches `value` in that Attribute's
  text only. The Attribute must be a `string` or `text` Attribute of a Kind searched, readable and
  not sensitive; the Kinds searched narrow to those that have it. A sensitive, unreadable or
  non-text Attribute is refused (422, path `q`, with what to write instead); an unknown one is
  searched as plain words, with a note.
- **Protected words**: names of Kinds, Attributes and Relations (and their aliases), which a
  spelling correction never rewrites.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from lorebase_core.access import ReadScope
from lorebase_core.errors import Issue, quoted
from lorebase_core.resolve.text import normalize, singular
from lorebase_core.resolve.text import words as written_words
from lorebase_core.schema import KindDef, Schema

TEXT_TYPES = ("string", "text")
_CHUNK = re.compile(r'(?P<attr>[^\W\d]\w*):(?:"(?P<quoted>[^"]*)"|(?P<plain>\S+))|\S+')
_PLAIN = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class AttributeTerm:
    """A term searched in one Attribute's text only (`name:bering`)."""

    attribute: str
    term: str


@dataclass(frozen=True)
class Interpretation:
    """What a search text asks for.

    Attributes:
        kinds: the Kinds searched after Kind words and Attribute terms narrowed them.
        named: the Kinds that Kind words named (empty when none did).
        terms: the text terms, in order, without repeats (Attribute terms' text included).
        attribute_terms: the terms restricted to one Attribute.
        protected: normalized singular names that spelling corrections never rewrite.
        notes: what the reading of the text did that the caller should know.
    """

    kinds: tuple[str, ...]
    named: tuple[str, ...] = ()
    terms: tuple[str, ...] = ()
    attribute_terms: tuple[AttributeTerm, ...] = ()
    protected: frozenset[str] = frozenset()
    notes: tuple[str, ...] = field(default=())

    def to_json(self) -> dict[str, object]:
        """The answer's `interpreted` member."""
        return {
            "kinds": list(self.named) if self.named else None,
            "terms": list(self.terms),
            "attributes": [
                {"attribute": item.attribute, "term": item.term} for item in self.attribute_terms
            ],
        }


@dataclass(frozen=True)
class Names:
    """What a schema's names are to a search, for the Kinds one scope reads."""

    kinds: dict[str, list[str]]
    protected: frozenset[str]


def text_terms(text: str) -> list[str]:
    """The terms of some text: lower case; a word with a digit keeps its punctuation."""
    found: list[str] = []
    for word in written_words(text):
        if any(char.isdigit() for char in word):
            found.append(word.lower())
        else:
            found.extend(piece.lower() for piece in _PLAIN.findall(word))
    return found


_NAMES: dict[tuple[int, frozenset[str] | None], tuple[Schema, Names]] = {}
_NAMES_KEPT = 64


def _names(schema: Schema, scope: ReadScope) -> Names:
    """`Names` of a schema for the Kinds a scope reads, computed once per schema and Kinds."""
    key = (id(schema), scope.kinds)
    kept = _NAMES.get(key)
    if kept is not None and kept[0] is schema:
        return kept[1]
    if len(_NAMES) >= _NAMES_KEPT:
        _NAMES.clear()
    names = Names(_kind_names(schema, scope), _protected_names(schema, scope))
    _NAMES[key] = (schema, names)
    return names


def kind_names(schema: Schema, scope: ReadScope) -> dict[str, list[str]]:
    """Normalized singular names and aliases of the readable Kinds, with the Kinds they name."""
    return _names(schema, scope).kinds


def protected_names(schema: Schema, scope: ReadScope) -> frozenset[str]:
    """Names a correction never rewrites: readable Kinds, their Attributes, Relations."""
    return _names(schema, scope).protected


def _kind_names(schema: Schema, scope: ReadScope) -> dict[str, list[str]]:
    names: dict[str, list[str]] = {}
    for name in scope.visible_kinds(schema):
        for alias in (name, *schema.kinds[name].aliases):
            key = singular(normalize(alias))
            if key and name not in names.setdefault(key, []):
                names[key].append(name)
    return names


def _protected_names(schema: Schema, scope: ReadScope) -> frozenset[str]:
    found: set[str] = set(_kind_names(schema, scope))
    for name in scope.visible_kinds(schema):
        for attribute, rules in schema.kinds[name].attributes.items():
            found.update(singular(normalize(alias)) for alias in (attribute, *rules.aliases))
    for relation_name, relation in schema.relations.items():
        if scope.kind_visible(relation.from_kind) and scope.kind_visible(relation.to_kind):
            found.update(
                singular(normalize(name))
                for name in (relation_name, relation.inverse)
                if name is not None
            )
    return frozenset(word for part in found for word in (part, *part.split()))


def interpret(
    q: str, schema: Schema, scope: ReadScope, kinds: tuple[str, ...]
) -> tuple[Interpretation, list[Issue]]:
    """Read a search text against the Kinds searched (see the module docstring)."""
    issues: list[Issue] = []
    notes: list[str] = []
    plain: list[str] = []
    wanted: list[tuple[str, str]] = []
    for match in _CHUNK.finditer(q):
        if match.group("attr") is None:
            plain.extend(written_words(match.group()))
            continue
        value = match.group("quoted") if match.group("quoted") is not None else match.group("plain")
        wanted.append((match.group("attr"), value or ""))
    searched, named, free = _kind_words(plain, schema, scope, kinds, notes, bool(wanted))
    attribute_terms: list[AttributeTerm] = []
    for attribute, value in wanted:
        narrowed = _attribute_kinds(schema, scope, searched, attribute, value, issues, notes)
        if narrowed is None:
            free.extend([attribute, value])
            continue
        searched = narrowed
        attribute_terms.extend(AttributeTerm(attribute, term) for term in text_terms(value))
    terms = [term for word in free for term in text_terms(word)]
    terms += [item.term for item in attribute_terms]
    return (
        Interpretation(
            kinds=searched,
            named=named,
            terms=tuple(dict.fromkeys(terms)),
            attribute_terms=tuple(dict.fromkeys(attribute_terms)),
            protected=protected_names(schema, scope),
            notes=tuple(notes),
        ),
        issues,
    )


def _kind_words(
    plain: list[str],
    schema: Schema,
    scope: ReadScope,
    kinds: tuple[str, ...],
    notes: list[str],
    more: bool,
) -> tuple[tuple[str, ...], tuple[str, ...], list[str]]:
    """The Kinds searched, the Kinds named by words, and the words left as text.

    `more`: the text has Attribute terms, so Kind words are not all of it.
    """
    names = kind_names(schema, scope)
    named: list[str] = []
    kind_words: list[str] = []
    rest: list[str] = []
    index = 0
    while index < len(plain):
        for width in (2, 1):
            span = plain[index : index + width]
            if len(span) < width or any(char.isdigit() for word in span for char in word):
                continue
            found = names.get(singular(normalize(" ".join(span))))
            if found:
                named.extend(kind for kind in found if kind not in named)
                kind_words.append(" ".join(span))
                index += width
                break
        else:
            rest.append(plain[index])
            index += 1
    if not named or not (rest or more):
        return kinds, (), plain
    kept = tuple(kind for kind in kinds if kind in named)
    if not kept:
        notes.append(
            f"{', '.join(map(quoted, kind_words))} named {', '.join(named)}, not among the "
            "Kinds searched: searched as text"
        )
        return kinds, (), plain
    return kept, tuple(kind for kind in schema.kinds if kind in named), rest


def _attribute_kinds(
    schema: Schema,
    scope: ReadScope,
    kinds: tuple[str, ...],
    attribute: str,
    value: str,
    issues: list[Issue],
    notes: list[str],
) -> tuple[str, ...] | None:
    """The Kinds searched that hold `attribute` as searchable text (None: not an Attribute)."""
    holders = [kind for kind in kinds if attribute in schema.kinds[kind].attributes]
    if not holders:
        known = sorted(
            {name for kind in kinds for name in text_attributes(schema.kinds[kind], scope)}
        )
        notes.append(
            f"no Attribute {quoted(attribute)} in {', '.join(kinds) or 'the Kinds searched'}: "
            f"searched {quoted(f'{attribute}:{value}')} as text; Attributes searchable with "
            f"attr:value are {', '.join(known[:12]) or 'none'}"
        )
        return None
    usable = [kind for kind in holders if attribute in text_attributes(schema.kinds[kind], scope)]
    if usable:
        return tuple(usable)
    kind = schema.kinds[holders[0]]
    rules = kind.attributes[attribute]
    if rules.sensitive or not scope.value_readable(rules):
        issues.append(
            Issue(
                "q",
                f"{quoted(attribute)} of {holders[0]} holds values that are not searchable "
                f"(sensitive or not readable); search by other words, or leave out "
                f"{quoted(f'{attribute}:{value}')}",
                "attribute-not-searchable",
            )
        )
        return tuple(holders)
    body = {
        "kind": holders[0],
        "where": {"attr": attribute, "op": "eq", "value": _literal(value)},
    }
    issues.append(
        Issue(
            "q",
            f"{quoted(attribute)} of {holders[0]} is of type {rules.value_type.base} and search "
            f"covers text only; use POST /query {json.dumps(body)}",
            "attribute-not-searchable",
        )
    )
    return tuple(holders)


def text_attributes(kind: KindDef, scope: ReadScope) -> list[str]:
    """The Attributes of a Kind that `attr:value` may name: readable, not sensitive text."""
    return [
        name
        for name, rules in kind.attributes.items()
        if rules.value_type.base in TEXT_TYPES
        and not rules.sensitive
        and scope.value_readable(rules)
    ]


def _literal(value: str) -> object:
    """A value as the query DSL would take it: an integer or a number when it reads as one."""
    if not any(char.isdigit() for char in value):
        return value
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            continue
    return value
