"""Token estimates and the budget trimmer of context packs (agents.md section 1, "Budget").

Tokens are `ceil(characters / chars_per_token)` over the exact text each section renders to in
the requested format. An over-budget pack is trimmed step by step in `agents.context.trim_order`;
each step removes as few units as bring the pack within budget (found by bisection: the estimate
only shrinks as units go), or all of its units before the next step. Seeds are never trimmed.

| step | unit, in the order removed |
| --- | --- |
| `lineage` | an entry, last first |
| `recent_changes` | a change, oldest (last) first |
| `far_neighbor_values` | the values of a neighbor beyond depth 1, deepest and last first |
| `far_neighbors` | a neighbor beyond depth 1 with its Links, deepest and last first |
| `schema_descriptions` | the description of a Relation or Kind, Relations and last first |
| `near_neighbor_values` | the values of a depth-1 neighbor, last first |
| `near_neighbors` | a depth-1 neighbor with its Links, last first |
| `schema` | a Relation or Kind, Relations and last first |
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from lorebase_core.context.pack import (
    Pack,
    PackRecord,
    PackSchema,
    SchemaKind,
    SchemaRelation,
    Section,
)

Renderer = Callable[[Pack, Section], str]
"""The text of one section of a pack in the requested format."""


def estimate_tokens(text: str, chars_per_token: float) -> int:
    """`ceil(len(text) / chars_per_token)`."""
    return math.ceil(len(text) / chars_per_token)


@dataclass(frozen=True)
class Trimmed:
    """A pack within budget (or as small as trimming makes it) and what it cost.

    Attributes:
        pack: the trimmed pack.
        sections: estimated tokens per included section.
        trimmed: (step, units removed) in the order the steps ran.
    """

    pack: Pack
    sections: dict[str, int]
    trimmed: tuple[tuple[str, int], ...]

    @property
    def used_tokens(self) -> int:
        return sum(self.sections.values())


@dataclass(frozen=True)
class _Step:
    count: Callable[[Pack], int]
    apply: Callable[[Pack, int], Pack]
    sections: tuple[Section, ...]


def measure(pack: Pack, render: Renderer, chars_per_token: float) -> dict[str, int]:
    return {name: estimate_tokens(render(pack, name), chars_per_token) for name in pack.included()}


def trim(
    pack: Pack,
    render: Renderer,
    *,
    limit_tokens: int,
    chars_per_token: float,
    order: Sequence[str],
) -> Trimmed:
    """The pack trimmed to `limit_tokens` in `order` (unknown step names are skipped)."""
    cpt = chars_per_token
    sections = measure(pack, render, cpt)
    done: list[tuple[str, int]] = []
    for name in order:
        if sum(sections.values()) <= limit_tokens:
            break
        step = STEPS.get(name)
        if step is None or any(section not in sections for section in step.sections):
            continue
        units = step.count(pack)
        if units == 0:
            continue

        pack, sections, removed = _run(pack, sections, step, units, render, limit_tokens, cpt)
        done.append((name, removed))
    return Trimmed(pack, sections, tuple(done))


def _run(
    pack: Pack,
    sections: dict[str, int],
    step: _Step,
    units: int,
    render: Renderer,
    limit_tokens: int,
    chars_per_token: float,
) -> tuple[Pack, dict[str, int], int]:
    """Remove the fewest units of one step that bring the pack within budget (or all of them)."""

    def cost(removed: int) -> tuple[Pack, dict[str, int]]:
        smaller = step.apply(pack, removed)
        changed: dict[str, int] = {
            s: estimate_tokens(render(smaller, s), chars_per_token) for s in step.sections
        }
        return smaller, {**sections, **changed}

    low, high = 1, units
    best = cost(units)
    if sum(best[1].values()) <= limit_tokens:
        while low < high:  # the estimate only shrinks as units go: bisect
            middle = (low + high) // 2
            attempt = cost(middle)
            if sum(attempt[1].values()) <= limit_tokens:
                high, best = middle, attempt
            else:
                low = middle + 1
    return best[0], best[1], high


# -- the steps -------------------------------------------------------------------------------


def _far(record: PackRecord) -> bool:
    return record.depth > 1


def _near(record: PackRecord) -> bool:
    return record.depth == 1


def _targets(pack: Pack, wanted: Callable[[PackRecord], bool], *, with_values: bool) -> list[int]:
    """Indexes of the neighbors a step removes from, in removal order (deepest, last first)."""
    found = [
        index
        for index, neighbor in enumerate(pack.neighbors)
        if wanted(neighbor) and (not with_values or neighbor.values is not None)
    ]
    return sorted(found, key=lambda index: (-pack.neighbors[index].depth, -index))


def _drop_values(wanted: Callable[[PackRecord], bool]) -> _Step:
    def apply(pack: Pack, removed: int) -> Pack:
        chosen = set(_targets(pack, wanted, with_values=True)[:removed])
        neighbors = tuple(
            replace(neighbor, values=None) if index in chosen else neighbor
            for index, neighbor in enumerate(pack.neighbors)
        )
        return replace(pack, neighbors=neighbors)

    return _Step(lambda pack: len(_targets(pack, wanted, with_values=True)), apply, ("neighbors",))


def _drop_neighbors(wanted: Callable[[PackRecord], bool]) -> _Step:
    def apply(pack: Pack, removed: int) -> Pack:
        chosen = set(_targets(pack, wanted, with_values=False)[:removed])
        gone = {pack.neighbors[index].ref for index in chosen}
        return replace(
            pack,
            neighbors=tuple(n for i, n in enumerate(pack.neighbors) if i not in chosen),
            links=tuple(
                link for link in pack.links if link.from_ref not in gone and link.to_ref not in gone
            ),
        )

    return _Step(
        lambda pack: len(_targets(pack, wanted, with_values=False)),
        apply,
        ("neighbors", "links"),
    )


def _drop_tail(section: Section) -> _Step:
    def count(pack: Pack) -> int:
        return len(getattr(pack, section) or ())

    def apply(pack: Pack, removed: int) -> Pack:
        entries = getattr(pack, section)
        return replace(pack, **{section: entries[: len(entries) - removed]})

    return _Step(count, apply, (section,))


def _schema_elements(schema: PackSchema | None) -> list[tuple[str, int]]:
    """Relations then Kinds, last first: the order schema steps take them in."""
    if schema is None:
        return []
    relations = [("relation", index) for index in reversed(range(len(schema.relations)))]
    return relations + [("kind", index) for index in reversed(range(len(schema.kinds)))]


def _described(schema: PackSchema | None) -> list[tuple[str, int]]:
    if schema is None:
        return []
    found = []
    for element, index in _schema_elements(schema):
        item: SchemaKind | SchemaRelation = (
            schema.relations[index] if element == "relation" else schema.kinds[index]
        )
        if item.description:
            found.append((element, index))
    return found


def _apply_descriptions(pack: Pack, removed: int) -> Pack:
    assert pack.schema is not None
    chosen = set(_described(pack.schema)[:removed])
    schema = pack.schema
    kinds = tuple(
        replace(kind, description="") if ("kind", index) in chosen else kind
        for index, kind in enumerate(schema.kinds)
    )
    relations = tuple(
        replace(relation, description="") if ("relation", index) in chosen else relation
        for index, relation in enumerate(schema.relations)
    )
    return replace(pack, schema=PackSchema(kinds, relations))


def _apply_schema(pack: Pack, removed: int) -> Pack:
    assert pack.schema is not None
    chosen = set(_schema_elements(pack.schema)[:removed])
    schema = pack.schema
    kinds = tuple(k for i, k in enumerate(schema.kinds) if ("kind", i) not in chosen)
    relations = tuple(r for i, r in enumerate(schema.relations) if ("relation", i) not in chosen)
    return replace(pack, schema=PackSchema(kinds, relations))


STEPS: dict[str, _Step] = {
    "lineage": _drop_tail("lineage"),
    "recent_changes": _drop_tail("recent_changes"),
    "far_neighbor_values": _drop_values(_far),
    "far_neighbors": _drop_neighbors(_far),
    "schema_descriptions": _Step(
        lambda pack: len(_described(pack.schema)), _apply_descriptions, ("schema",)
    ),
    "near_neighbor_values": _drop_values(_near),
    "near_neighbors": _drop_neighbors(_near),
    "schema": _Step(lambda pack: len(_schema_elements(pack.schema)), _apply_schema, ("schema",)),
}
"""The trim steps by their name in `agents.context.trim_order`."""
