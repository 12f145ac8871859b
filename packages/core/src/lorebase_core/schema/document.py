"""`Schema`: a loaded, checked schema with the look-ups the rest of Lorebase needs."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

from pydantic import BaseModel

from lorebase_core.errors import KindNotFound, RelationNotFound
from lorebase_core.schema.model import (
    AttributeDef,
    DomainDef,
    KindDef,
    LensDef,
    OperationDef,
    RelationDef,
    SearchDef,
    TraitDef,
)

Direction = Literal["forward", "inverse"]


@dataclass(frozen=True)
class RelationEnd:
    """A Relation seen from one end: `supplies` is `supplied_by` read in the inverse direction."""

    name: str
    relation: RelationDef
    direction: Direction

    @property
    def source_kind(self) -> str:
        return self.relation.from_kind if self.direction == "forward" else self.relation.to_kind

    @property
    def target_kind(self) -> str:
        return self.relation.to_kind if self.direction == "forward" else self.relation.from_kind


@dataclass(frozen=True)
class Schema:
    """A Domain's schema; build it with `lorebase_core.schema.load_schema`."""

    domain: DomainDef
    search: SearchDef
    traits: dict[str, TraitDef]
    kinds: dict[str, KindDef]
    relations: dict[str, RelationDef]
    lenses: dict[str, LensDef]
    operations: dict[str, OperationDef]
    source: str = field(repr=False, compare=False)
    _inverse_names: dict[str, str] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name, relation in self.relations.items():
            if relation.inverse:
                self._inverse_names[relation.inverse] = name

    @cached_property
    def digest(self) -> str:
        """SHA-256 of the canonical JSON of the document: equal schemas have equal digests."""
        return hashlib.sha256(canonical_json(self.to_document()).encode()).hexdigest()

    def kind(self, name: str) -> KindDef:
        try:
            return self.kinds[name]
        except KeyError:
            raise KindNotFound.named(name, self.domain.name) from None

    def attribute(self, kind_name: str, attribute_name: str) -> AttributeDef | None:
        return self.kind(kind_name).attributes.get(attribute_name)

    def relation(self, name: str) -> RelationDef:
        try:
            return self.relations[name]
        except KeyError:
            raise RelationNotFound.named(name, self.domain.name) from None

    def relation_end(self, name: str) -> RelationEnd:
        """A Relation by its forward or its inverse name."""
        if name in self.relations:
            return RelationEnd(name, self.relations[name], "forward")
        if name in self._inverse_names:
            return RelationEnd(
                self._inverse_names[name], self.relations[self._inverse_names[name]], "inverse"
            )
        raise RelationNotFound.named(name, self.domain.name)

    def kinds_implementing(self, trait_name: str) -> list[str]:
        return sorted(name for name, kind in self.kinds.items() if trait_name in kind.traits)

    def to_document(self) -> dict[str, Any]:
        """The schema as a JSON-compatible document (aliases as written: `from`, `to`)."""
        return {
            "domain": self.domain.model_dump(mode="json"),
            "search": self.search.model_dump(mode="json"),
            "traits": _dumped(self.traits),
            "kinds": _dumped(self.kinds),
            "relations": _dumped(self.relations, by_alias=True),
            "lenses": _dumped(self.lenses),
            "operations": _dumped(self.operations),
        }


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical_json(value: object) -> str:
    """Compact JSON with sorted keys: the one serialization hashed and compared everywhere."""
    return _CANONICAL.encode(value)


def _dumped(
    definitions: Mapping[str, BaseModel], *, by_alias: bool | None = None
) -> dict[str, Any]:
    """Each definition as JSON without its defaults, by name."""
    return {
        name: definition.model_dump(mode="json", by_alias=by_alias, exclude_defaults=True)
        for name, definition in definitions.items()
    }
