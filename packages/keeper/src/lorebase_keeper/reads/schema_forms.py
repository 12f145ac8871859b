"""The schema in a small window: GET /schema narrowed by `kinds=`, and its compact and Markdown forms.

Every form is made from the JSON document (`shapes.schema_json` and the Operation catalog), so it
names only what that document names for the caller: invisible Kinds and the Relations, Traits,
lenses and Operations that only they use are not there.

- `kinds=A,B` keeps the named Kinds, the Relations whose two ends are both named, the Traits a
  named Kind implements (with their Kinds narrowed), the lenses and Operations naming a named Kind.
- `compact` (JSON): the Relations first, each with both names, its ends and cardinality; then the
  Kinds with key, title and `{attribute: type}`; then lenses and Operations by name.
- `markdown`: the same text for a prompt, one line per Attribute.
"""

from __future__ import annotations

from collections.abc import Iterable

from lorebase_core.markdown import text_line as line
from lorebase_core.values import JsonValue
from lorebase_keeper.shapes.reads.schema import (
    CompactRelationJson,
    LensEntryJson,
    RulesJson,
    SchemaAnswerJson,
    SchemaCompactAnswerJson,
    TraitEntryJson,
)


def narrowed(document: SchemaAnswerJson, kinds: Iterable[str]) -> SchemaAnswerJson:
    """The schema document with the named Kinds only (already checked readable), in order."""
    named = set(kinds)
    traits: list[TraitEntryJson] = []
    for trait in document["traits"]:
        implementing = [kind for kind in trait["kinds"] if kind in named]
        if implementing:
            traits.append({**trait, "kinds": implementing})
    return {
        **document,
        "kinds": [kind for kind in document["kinds"] if kind["name"] in named],
        "relations": [
            relation
            for relation in document["relations"]
            if relation["from"] in named and relation["to"] in named
        ],
        "traits": traits,
        "lenses": [lens for lens in document["lenses"] if named & _lens_kinds(document, lens)],
        "operations": [
            operation for operation in document["operations"] if named & _names(operation["kinds"])
        ],
    }


def _names(listed: JsonValue) -> set[str]:
    """The names of a list of names (an Operation's `kinds`)."""
    return {name for name in listed if isinstance(name, str)} if isinstance(listed, list) else set()


def _lens_kinds(document: SchemaAnswerJson, lens: LensEntryJson) -> set[str]:
    through_traits = {
        kind
        for trait in document["traits"]
        if trait["name"] in lens["traits"]
        for kind in trait["kinds"]
    }
    return set(lens["kinds"]) | through_traits


def _type(rules: RulesJson) -> str:
    """The type, with an enum's values: `enum(active|suspended|blocked)`."""
    if rules["type"] == "enum" and rules.get("values"):
        return f"enum({'|'.join(str(value) for value in rules['values'])})"
    return str(rules["type"])


def _attributes(rules: list[RulesJson]) -> dict[str, str]:
    return {attribute["name"]: _type(attribute) for attribute in rules}


def compact(document: SchemaAnswerJson) -> SchemaCompactAnswerJson:
    """The compact form of a (narrowed) schema document, Relations first."""
    relations = []
    for relation in document["relations"]:
        entry: CompactRelationJson = {
            "name": relation["name"],
            "inverse": relation["inverse"],
            "from": relation["from"],
            "to": relation["to"],
            "cardinality": relation["cardinality"],
        }
        if relation["attributes"]:
            entry["attributes"] = _attributes(relation["attributes"])
        relations.append(entry)
    return {
        "domain": document["domain"],
        "branch": document["branch"],
        "revision": document["revision"],
        "digest": document["digest"],
        "title": document["title"],
        "relations": relations,
        "kinds": [
            {
                "name": kind["name"],
                "key": kind["key"],
                "title": kind["title"],
                "attributes": _attributes(kind["attributes"]),
            }
            for kind in document["kinds"]
        ],
        "lenses": [lens["name"] for lens in document["lenses"]],
        "operations": [str(operation["name"]) for operation in document["operations"]],
    }


def markdown(document: SchemaAnswerJson) -> str:
    """The compact form as Markdown: Relations, Kinds (one line per Attribute), lenses,
    Operations."""
    lean = compact(document)
    lines = [
        f"# Schema: {line(lean['domain'])}/{line(lean['branch'])}",
        f"revision {lean['revision'] or 'none'}"
        + (f"; {line(lean['title'])}" if lean["title"] else ""),
        "",
        "## Relations (forward name: From -> To; inverse name)",
    ]
    lines += [_relation_line(relation) for relation in lean["relations"]] or ["(none)"]
    lines += ["", "## Kinds"]
    for kind in lean["kinds"]:
        title = f"; title {line(kind['title'])}" if kind["title"] is not None else ""
        lines.append(f"### {line(kind['name'])} (key {line(', '.join(kind['key']))}{title})")
        lines += [
            f"- {line(name)}: {line(type_)}" + (" (key)" if name in kind["key"] else "")
            for name, type_ in kind["attributes"].items()
        ]
    for heading, names in (("Lenses", lean["lenses"]), ("Operations", lean["operations"])):
        if names:
            lines += ["", f"## {heading}", ", ".join(line(name) for name in names)]
    return "\n".join(lines) + "\n"


def _relation_line(relation: CompactRelationJson) -> str:
    inverse = f"; inverse {line(relation['inverse'])}" if relation["inverse"] else ""
    attributes = relation.get("attributes") or {}
    values = (
        " [" + ", ".join(f"{line(name)}: {line(type_)}" for name, type_ in attributes.items()) + "]"
        if attributes
        else ""
    )
    return (
        f"- {line(relation['name'])}: {line(relation['from'])} -> {line(relation['to'])}"
        f"{inverse}; {line(relation['cardinality'])}{values}"
    )
