"""The names of a Domain's schema, as the caller may read them: what tool arguments may name.

Read once at the start of an exploration (GET .../schema); the step schema's enums, the
validation of arguments and the hints after a miss all come from it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["DomainNames", "RelationEnd"]


@dataclass(frozen=True)
class RelationEnd:
    """A Relation read from one end: its api name there, and the Kinds at both ends."""

    name: str
    from_kind: str
    to_kind: str
    forward: bool


@dataclass(frozen=True)
class DomainNames:
    """Kinds (with their Attributes, key and title), Relations by each name, lenses."""

    kinds: dict[str, list[str]] = field(default_factory=dict)
    """Attribute names by Kind, in the schema's order."""
    titles: dict[str, str] = field(default_factory=dict)
    relations: dict[str, RelationEnd] = field(default_factory=dict)
    """Every name a Relation is read by (forward and inverse), from the Kind it is read from."""
    lenses: list[str] = field(default_factory=list)
    embedding_model: str | None = None
    """The model Keeper stores vectors under (search.embedding), None when there is none."""
    examples: list[str] = field(default_factory=list)
    inverses: dict[str, str] = field(default_factory=dict)
    """The inverse name of each forward Relation name that has one."""
    title: str = ""

    @classmethod
    def of(cls, schema: Mapping[str, Any]) -> DomainNames:
        """The names of a schema answer (the JSON format of GET .../schema)."""
        kinds: dict[str, list[str]] = {}
        titles: dict[str, str] = {}
        for kind in schema.get("kinds") or []:
            name = str(kind.get("name"))
            kinds[name] = [str(attr.get("name")) for attr in kind.get("attributes") or []]
            if kind.get("title"):
                titles[name] = str(kind["title"])
        relations: dict[str, RelationEnd] = {}
        inverses: dict[str, str] = {}
        for relation in schema.get("relations") or []:
            source, target = str(relation.get("from")), str(relation.get("to"))
            name = str(relation.get("name"))
            relations[name] = RelationEnd(name, source, target, True)
            inverse = relation.get("inverse")
            if isinstance(inverse, str) and inverse:
                relations[inverse] = RelationEnd(inverse, target, source, False)
                inverses[name] = inverse
        lenses = [str(lens.get("name")) for lens in schema.get("lenses") or []]
        search = schema.get("search") or {}
        embedding = search.get("embedding") if isinstance(search, Mapping) else None
        model = None
        if isinstance(embedding, Mapping) and isinstance(embedding.get("model"), str):
            model = str(embedding["model"])
        elif isinstance(embedding, str):
            model = embedding
        examples = [str(text) for text in schema.get("examples") or []]
        title = str(schema.get("title") or "")
        return cls(kinds, titles, relations, lenses, model, examples, inverses, title)

    def relations_from(self, kind: str) -> list[str]:
        """The Relation names readable from `kind`, sorted."""
        return sorted(name for name, end in self.relations.items() if end.from_kind == kind)

    def kind_of(self, ref: str) -> str | None:
        """The Kind of `Kind/key` when it is a Kind of this schema and the key is not empty."""
        kind, slash, key = ref.partition("/")
        return kind if slash and key and kind in self.kinds else None

    def kinds_hint(self) -> str:
        return "valid Kinds: " + ", ".join(sorted(self.kinds))

    def kind_hint(self, kind: str) -> str:
        """The Attributes and Relations of `kind`, for a message after a miss."""
        attributes = ", ".join(self.kinds.get(kind, []))
        relations = ", ".join(
            f"{name} (to {self.relations[name].to_kind})" for name in self.relations_from(kind)
        )
        return (
            f"Attributes of {kind}: {attributes or 'none'}. "
            f"Relations from {kind}: {relations or 'none'}."
        )
