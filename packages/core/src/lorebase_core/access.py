"""`ReadScope`: what one caller may read of one Domain on one branch.

Keeper builds a scope from the caller's grants (`lorebase_keeper.auth.authz`) and every read goes
through it: a grant narrowed to Kinds makes the other Kinds invisible (left out of the schema,
neighborhoods, counts and queries, and a request naming one answers like one naming an unknown
Kind), and values of sensitive Attributes are masked unless the caller holds their clearances.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from lorebase_core.errors import (
    AttributeForbidden,
    KindForbidden,
    KindNotFound,
    RelationNotFound,
    TraitNotFound,
    quoted,
)
from lorebase_core.schema import Schema
from lorebase_core.schema.document import RelationEnd
from lorebase_core.schema.model import KindDef, ValueRules

MASK = "***"
SENSITIVITY_TAGS = ("pii", "confidential", "restricted")


@dataclass(frozen=True)
class ReadScope:
    """The readable part of a Domain for one caller.

    Attributes:
        kinds: the readable Kinds, or None for every Kind.
        clearances: the sensitivity tags whose values the caller reads unmasked.
        invisible_kinds: answer Kinds outside `kinds` like unknown ones (404); when False they
            answer 403 `kind-forbidden`. Either way they are left out of lists and counts.
    """

    kinds: frozenset[str] | None = None
    clearances: frozenset[str] = field(default_factory=frozenset)
    invisible_kinds: bool = True

    @classmethod
    def everything(cls) -> ReadScope:
        return cls(None, frozenset(SENSITIVITY_TAGS))

    @property
    def history(self) -> bool:
        """Whether history reads (changes, events, history, lineage of the branch) are allowed."""
        return self.kinds is None

    @property
    def fingerprint(self) -> str:
        """A short digest of the scope: answers shaped by it differ when it differs."""
        text = "|".join(
            [
                ",".join(sorted(self.kinds)) if self.kinds is not None else "*",
                ",".join(sorted(self.clearances)),
                "1" if self.invisible_kinds else "0",
            ]
        )
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    # -- Kinds and Relations -----------------------------------------------------------------
    def kind_visible(self, name: str) -> bool:
        return self.kinds is None or name in self.kinds

    def visible_kinds(self, schema: Schema) -> list[str]:
        """The readable Kinds of the schema, in declared order."""
        return [name for name in schema.kinds if self.kind_visible(name)]

    def kind(self, schema: Schema, name: str) -> KindDef:
        """The Kind named in a request; unknown and unreadable Kinds answer alike (404), naming
        the closest readable Kinds."""
        kind = schema.kinds.get(name)
        if kind is not None and self.kind_visible(name):
            return kind
        if kind is not None and not self.invisible_kinds:
            raise KindForbidden(f"Your grants do not cover Kind {quoted(name)}", kind=name)
        raise KindNotFound.named(name, schema.domain.name, self.visible_kinds(schema))

    def relation_visible(self, schema: Schema, name: str) -> bool:
        relation = schema.relations.get(name)
        return relation is not None and (
            self.kind_visible(relation.from_kind) and self.kind_visible(relation.to_kind)
        )

    def relation_end(self, schema: Schema, name: str) -> RelationEnd:
        """A Relation by its forward or inverse name; one touching an unreadable Kind is unknown."""
        try:
            end = schema.relation_end(name)
        except RelationNotFound:
            end = None
        if end is not None and self.relation_visible(schema, end.name):
            return end
        if end is not None and not self.invisible_kinds:
            raise KindForbidden(f"Your grants do not cover both ends of Relation {quoted(name)}")
        raise RelationNotFound.named(name, schema.domain.name, self.relation_names(schema))

    def visible_relations(self, schema: Schema) -> list[str]:
        return [name for name in schema.relations if self.relation_visible(schema, name)]

    def relation_names(self, schema: Schema) -> list[str]:
        """The forward and inverse names of the readable Relations (what a request may name)."""
        names: list[str] = []
        for name in self.visible_relations(schema):
            inverse = schema.relations[name].inverse
            names.extend([name, inverse] if inverse else [name])
        return names

    def visible_traits(self, schema: Schema) -> list[str]:
        """The Traits some readable Kind carries."""
        return [name for name in schema.traits if self.trait_visible(schema, name)]

    def trait_visible(self, schema: Schema, name: str) -> bool:
        """Whether a Trait is declared and some readable Kind carries it."""
        return name in schema.traits and any(
            self.kind_visible(kind) for kind in schema.kinds_implementing(name)
        )

    def traits(self, schema: Schema, name: str) -> list[str]:
        """The readable Kinds implementing a Trait.

        A Trait none of whose Kinds is readable answers like an unknown one (404), as an invisible
        Kind does; with `invisible_kinds` off it answers 403 `kind-forbidden`.
        """
        if not self.trait_visible(schema, name):
            if name in schema.traits and not self.invisible_kinds:
                raise KindForbidden(f"Your grants do not cover a Kind of Trait {quoted(name)}")
            raise TraitNotFound.named(name, schema.domain.name, self.visible_traits(schema))
        return [kind for kind in schema.kinds_implementing(name) if self.kind_visible(kind)]

    # -- values ------------------------------------------------------------------------------
    def value_readable(self, rules: ValueRules) -> bool:
        """Whether the caller reads this Attribute's values unmasked."""
        return all(tag in self.clearances for tag in rules.sensitivity)

    def require_value_readable(self, kind_name: str, attribute: str, rules: ValueRules) -> None:
        if not self.value_readable(rules):
            raise AttributeForbidden(
                f"Values of {kind_name}.{attribute} are {', '.join(rules.sensitivity)}; "
                "your grants do not include that clearance",
                kind=kind_name,
                attribute=attribute,
            )

    def mask(
        self, attributes: Mapping[str, ValueRules], values: Mapping[str, Any]
    ) -> dict[str, Any]:
        """The values with those of Attributes the caller may not read replaced by `***`.

        A masked Attribute is `***` whether it holds a value or not: leaving out the unset ones
        would tell which are set. It takes its declared place among the values.
        """
        masked: dict[str, Any] = {}
        for name, rules in attributes.items():
            if not self.value_readable(rules):
                masked[name] = MASK
            elif name in values:
                masked[name] = values[name]
        masked.update((name, value) for name, value in values.items() if name not in masked)
        return masked

    def mask_given(
        self, attributes: Mapping[str, ValueRules], values: Mapping[str, Any]
    ) -> dict[str, Any]:
        """Only the given values, those the caller may not read as `***`: for what an edit
        writes, where an Attribute left out is one the edit does not touch (not a hidden one)."""
        return {
            name: MASK
            if name in attributes and not self.value_readable(attributes[name])
            else value
            for name, value in values.items()
        }

    def mask_edits(
        self, schema: Schema, edits: Iterable[Mapping[str, Any]]
    ) -> list[dict[str, Any]]:
        """Edits (an execution's, an operation event's) with the values the caller may not read
        as `***`: each edit's `values` masked by its Kind's or its Relation's Attributes."""
        masked: list[dict[str, Any]] = []
        for edit in edits:
            values = edit.get("values")
            if isinstance(values, Mapping):
                kind = schema.kinds.get(str(edit.get("kind"))) if edit.get("kind") else None
                relation = schema.relations.get(str(edit.get("relation")))
                attributes: Mapping[str, ValueRules] = (
                    kind.attributes if kind else relation.attributes if relation else {}
                )
                masked.append({**edit, "values": self.mask_given(attributes, values)})
            else:
                masked.append(dict(edit))
        return masked

    def changed_names(
        self, attributes: Mapping[str, ValueRules], names: Iterable[str], change: str
    ) -> list[str]:
        """The Attributes a change names. A creation or deletion names those that hold a value,
        so it names every masked Attribute too, set or not: the list tells nothing more."""
        listed = list(names)
        if change not in ("created", "deleted"):
            return listed
        masked = [name for name in self.masked_names(attributes) if name not in listed]
        return sorted([*listed, *masked]) if masked else listed

    def masked_names(self, attributes: Mapping[str, ValueRules]) -> Iterable[str]:
        return (name for name, rules in attributes.items() if not self.value_readable(rules))
