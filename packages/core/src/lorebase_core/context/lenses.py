"""Lenses and Traits of a context pack (agents.md section 1, "Lenses and Traits").

A lens is a read preset, not a permission: the Kinds, Traits and Relations of a lens that the
caller may not read are dropped, and a lens none of whose Kinds is readable answers like an
unknown one (422 `lens_unknown`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from lorebase_core.access import ReadScope
from lorebase_core.errors import LensUnknown
from lorebase_core.schema import Schema
from lorebase_core.schema.model import LensDef


@dataclass(frozen=True)
class LensView:
    """A lens as one caller sees it.

    Attributes:
        name: the lens's name.
        kinds: the readable Kinds it names, directly or through its Traits (never empty).
        relations: forward names of its readable Relations, sorted.
        definition: the lens as declared (depth, budget and sections).
    """

    name: str
    kinds: frozenset[str]
    relations: tuple[str, ...]
    definition: LensDef


def resolve_lens(schema: Schema, scope: ReadScope, name: str) -> LensView:
    """The lens `name` as the caller may read it.

    Raises:
        LensUnknown: no such lens, or none of its Kinds is readable.
    """
    lens = schema.lenses.get(name)
    if lens is None:
        raise _unknown(schema, scope, name)
    kinds = {kind for kind in lens.kinds if scope.kind_visible(kind)}
    for trait in lens.traits:
        kinds.update(kind for kind in schema.kinds_implementing(trait) if scope.kind_visible(kind))
    if not kinds:
        raise _unknown(schema, scope, name)
    relations = {schema.relation_end(relation).name for relation in lens.relations}
    return LensView(
        name,
        frozenset(kinds),
        tuple(sorted(r for r in relations if scope.relation_visible(schema, r))),
        lens,
    )


def _unknown(schema: Schema, scope: ReadScope, name: str) -> LensUnknown:
    known = [lens for lens in schema.lenses if _readable(schema, scope, lens)]
    return LensUnknown.named(name, schema.domain.name, known)


def _readable(schema: Schema, scope: ReadScope, name: str) -> bool:
    lens = schema.lenses[name]
    traits = (kind for trait in lens.traits for kind in schema.kinds_implementing(trait))
    return any(scope.kind_visible(kind) for kind in (*lens.kinds, *traits))


def trait_kinds(schema: Schema, scope: ReadScope, traits: Iterable[str]) -> frozenset[str]:
    """The readable Kinds implementing any of `traits` (an unknown Trait answers 404)."""
    kinds: set[str] = set()
    for trait in traits:
        kinds.update(scope.traits(schema, trait))
    return frozenset(kinds)
