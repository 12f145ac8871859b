"""The schema document as typed, frozen models (docs/schema.md).

These models check the shape of each member; `loader.load_schema` adds the rules that look across
elements (names that must exist, types that must agree) and reports all problems together.
"""

from __future__ import annotations

import re
from functools import cached_property
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from lorebase_core.expressions import Expression, compile_expression
from lorebase_core.value_checks import Checker, compile_checker
from lorebase_core.values import CanonicalValue, ValueType, canonical, parse_type

Sensitivity = Literal["pii", "confidential", "restricted"]
Cardinality = Literal["one_to_one", "one_to_many", "many_to_one", "many_to_many"]
Bound = int | float | str
Standard = Literal["iso3166", "iso4217"]
"""Standard vocabularies of codes: ISO 3166-1 alpha-2 countries, ISO 4217 currencies."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, ignored_types=(cached_property,))


class ValueRules(_Model):
    """What a value must be: shared by Attributes, Link Attributes and Operation parameters."""

    type: str
    description: str = ""
    required: bool = False
    pattern: str | None = None
    min: Bound | None = None
    max: Bound | None = None
    min_length: int | None = Field(default=None, ge=0)
    max_length: int | None = Field(default=None, ge=0)
    values: tuple[str, ...] | None = None
    sensitivity: tuple[Sensitivity, ...] = ()

    @cached_property
    def value_type(self) -> ValueType:
        """The parsed type (the loader has checked that it parses)."""
        parsed = parse_type(self.type)
        return ValueType(parsed.base, parsed.precision, parsed.scale, tuple(self.values or ()))

    @cached_property
    def bounds(self) -> tuple[CanonicalValue, CanonicalValue]:
        """`min` and `max` in canonical form (None where absent; the loader has checked them)."""
        return (
            None if self.min is None else canonical(self.value_type, self.min, from_text=True),
            None if self.max is None else canonical(self.value_type, self.max, from_text=True),
        )

    @cached_property
    def compiled_pattern(self) -> re.Pattern[str] | None:
        return re.compile(self.pattern) if self.pattern is not None else None

    @cached_property
    def checker(self) -> Checker:
        """The compiled check of a value (`lorebase_core.value_checks`), made once."""
        return compile_checker(
            self.value_type,
            pattern=self.compiled_pattern,
            min_length=self.min_length,
            max_length=self.max_length,
            bounds=self.bounds,
        )

    @property
    def sensitive(self) -> bool:
        return bool(self.sensitivity)


class AttributeDef(ValueRules):
    unique: bool = False
    value_aliases: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    aliases: tuple[str, ...] = ()
    resolvable: bool | None = None
    vocabulary: Standard | None = None
    derived: str | None = None

    @cached_property
    def derivation(self) -> Expression | None:
        return compile_expression(self.derived) if self.derived is not None else None


class TraitDef(_Model):
    description: str = ""
    attributes: dict[str, ValueRules] = Field(default_factory=dict)


class KindDef(_Model):
    description: str = ""
    key: tuple[str, ...]
    title: str | None = None
    aliases: tuple[str, ...] = ()
    traits: tuple[str, ...] = ()
    attributes: dict[str, AttributeDef]

    @cached_property
    def derived_attributes(self) -> dict[str, AttributeDef]:
        """The Attributes computed by a Derivation, in declared order."""
        return {
            name: attribute
            for name, attribute in self.attributes.items()
            if attribute.derived is not None
        }


class RelationDef(_Model):
    from_kind: str = Field(alias="from")
    to_kind: str = Field(alias="to")
    inverse: str | None = None
    aliases: tuple[str, ...] = ()
    cardinality: Cardinality = "many_to_many"
    required_from: bool = False
    description: str = ""
    attributes: dict[str, AttributeDef] = Field(default_factory=dict)

    model_config = ConfigDict(
        extra="forbid", frozen=True, populate_by_name=True, ignored_types=(cached_property,)
    )


class LensDef(_Model):
    description: str = ""
    kinds: tuple[str, ...] = ()
    traits: tuple[str, ...] = ()
    relations: tuple[str, ...] = ()
    depth: int | None = Field(default=None, ge=0)
    budget_tokens: int | None = Field(default=None, ge=1)
    include_schema: bool | None = None
    include_recent_changes: bool | None = None
    include_lineage: bool | None = None


EditOp = Literal["upsert_record", "update_record", "delete_record", "upsert_link", "delete_link"]
EDIT_OPS: tuple[EditOp, ...] = (
    "upsert_record",
    "update_record",
    "delete_record",
    "upsert_link",
    "delete_link",
)


class EditDef(_Model):
    """One declared edit of an Operation; template values are literals, `$param` or `{expr: ...}`."""

    op: EditOp
    kind: str | None = None
    relation: str | None = None
    key: object = None
    from_ref: object = None
    to_ref: object = None
    values: dict[str, object] = Field(default_factory=dict)


class OperationDef(_Model):
    description: str = ""
    parameters: dict[str, ValueRules] = Field(default_factory=dict)
    edits: tuple[EditDef, ...]
    permissions: tuple[str, ...] = ("operation.execute",)
    review: str | None = None
    side_effects: tuple[str, ...] = ()

    @cached_property
    def review_policy(self) -> Expression | None:
        return compile_expression(self.review) if self.review is not None else None


class EmbeddingDef(_Model):
    model: str
    dimensions: int = Field(ge=1, le=16000)


class SearchDef(_Model):
    embedding: EmbeddingDef | None = None


class DomainDef(_Model):
    name: str
    title: str = ""
    description: str = ""
    examples: tuple[str, ...] = ()
