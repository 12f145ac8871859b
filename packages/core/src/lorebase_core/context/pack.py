"""The sections of a context pack as data, and their JSON form (agents.md section 1).

A pack is immutable: the budget trimmer (`budget.py`) makes smaller packs from it. Section names
are those of the JSON pack: `seeds`, `neighbors`, `links`, `schema`, `recent_changes`, `lineage`.
An optional section left out by the request or its lens is None.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

Section = Literal["seeds", "neighbors", "links", "schema", "recent_changes", "lineage"]
SECTIONS: tuple[Section, ...] = (
    "seeds",
    "neighbors",
    "links",
    "schema",
    "recent_changes",
    "lineage",
)


@dataclass(frozen=True)
class PackRecord:
    """A seed (depth 0, with `updated_revision`) or a neighbor; `values` None once trimmed."""

    ref: str
    title: str | None
    values: dict[str, Any] | None
    depth: int = 0
    updated_revision: str | None = None

    @property
    def kind(self) -> str:
        return self.ref.partition("/")[0]


@dataclass(frozen=True)
class PackLink:
    """A Link among the Records of the pack, under its Relation's forward name."""

    relation: str
    from_ref: str
    to_ref: str
    values: dict[str, Any] | None = None


@dataclass(frozen=True)
class SchemaAttribute:
    name: str
    type: str
    description: str = ""


@dataclass(frozen=True)
class SchemaKind:
    name: str
    description: str
    key: tuple[str, ...]
    title: str | None
    attributes: tuple[SchemaAttribute, ...]


@dataclass(frozen=True)
class SchemaRelation:
    name: str
    inverse: str | None
    from_kind: str
    to_kind: str
    cardinality: str
    description: str
    attributes: tuple[SchemaAttribute, ...] = ()


@dataclass(frozen=True)
class PackSchema:
    """The Kinds and Relations present in the pack, in the schema's declared order."""

    kinds: tuple[SchemaKind, ...] = ()
    relations: tuple[SchemaRelation, ...] = ()


@dataclass(frozen=True, kw_only=True)
class RecentChange:
    """One change of a Record of the pack, from the branch's first-parent history."""

    revision: str
    at: str
    ref: str
    change: Literal["created", "modified", "deleted"]
    attributes: tuple[str, ...]
    actor: str
    origin: str
    message: str


@dataclass(frozen=True)
class LineageEntry:
    """The Attributes of a seed whose current values one Revision set."""

    ref: str
    attributes: tuple[str, ...]
    origin: str
    actor: str
    at: str


@dataclass(frozen=True)
class Pack:
    seeds: tuple[PackRecord, ...]
    neighbors: tuple[PackRecord, ...] = ()
    links: tuple[PackLink, ...] = ()
    schema: PackSchema | None = None
    recent_changes: tuple[RecentChange, ...] | None = None
    lineage: tuple[LineageEntry, ...] | None = None

    def included(self) -> tuple[Section, ...]:
        """The sections the pack holds, in their order."""
        return tuple(name for name in SECTIONS if getattr(self, name) is not None)


# -- JSON ------------------------------------------------------------------------------------


def dumps(value: Any) -> str:
    """Compact JSON, as Keeper renders answers (the text tokens are estimated over)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def section_json(pack: Pack, section: Section) -> Any:
    """The JSON value of one section of the pack."""
    if section == "seeds":
        return [_seed_json(seed) for seed in pack.seeds]
    if section == "neighbors":
        return [_neighbor_json(neighbor) for neighbor in pack.neighbors]
    if section == "links":
        return links_json(pack.links)
    if section == "schema":
        return schema_json(pack.schema or PackSchema())
    if section == "recent_changes":
        return [_change_json(change) for change in pack.recent_changes or ()]
    return [_lineage_json(entry) for entry in pack.lineage or ()]


def render_json_section(pack: Pack, section: Section) -> str:
    return dumps(section_json(pack, section))


def _seed_json(seed: PackRecord) -> dict[str, Any]:
    document: dict[str, Any] = {"ref": seed.ref, "title": seed.title, "values": seed.values}
    document["updated_revision"] = seed.updated_revision
    return document


def _neighbor_json(neighbor: PackRecord) -> dict[str, Any]:
    document: dict[str, Any] = {
        "ref": neighbor.ref,
        "title": neighbor.title,
        "depth": neighbor.depth,
    }
    if neighbor.values is not None:
        document["values"] = neighbor.values
    return document


def links_json(links: tuple[PackLink, ...]) -> dict[str, list[dict[str, Any]]]:
    """The Links grouped by Relation name (names sorted, then from and to)."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    for link in sorted(links, key=lambda link: (link.relation, link.from_ref, link.to_ref)):
        entry: dict[str, Any] = {"from": link.from_ref, "to": link.to_ref}
        if link.values:
            entry["values"] = link.values
        grouped.setdefault(link.relation, []).append(entry)
    return grouped


def _attributes_json(attributes: tuple[SchemaAttribute, ...]) -> list[dict[str, Any]]:
    found = []
    for attribute in attributes:
        entry = {"name": attribute.name, "type": attribute.type}
        if attribute.description:
            entry["description"] = attribute.description
        found.append(entry)
    return found


def schema_json(schema: PackSchema) -> dict[str, Any]:
    kinds = []
    for kind in schema.kinds:
        entry: dict[str, Any] = {"name": kind.name}
        if kind.description:
            entry["description"] = kind.description
        entry.update(
            key=list(kind.key), title=kind.title, attributes=_attributes_json(kind.attributes)
        )
        kinds.append(entry)
    relations = []
    for relation in schema.relations:
        item: dict[str, Any] = {
            "name": relation.name,
            "inverse": relation.inverse,
            "from": relation.from_kind,
            "to": relation.to_kind,
            "cardinality": relation.cardinality,
        }
        if relation.description:
            item["description"] = relation.description
        if relation.attributes:
            item["attributes"] = _attributes_json(relation.attributes)
        relations.append(item)
    return {"kinds": kinds, "relations": relations}


def _change_json(change: RecentChange) -> dict[str, Any]:
    return {
        "revision": change.revision,
        "at": change.at,
        "ref": change.ref,
        "change": change.change,
        "attributes": list(change.attributes),
        "actor": change.actor,
        "origin": change.origin,
        "message": change.message,
    }


def _lineage_json(entry: LineageEntry) -> dict[str, Any]:
    return {
        "ref": entry.ref,
        "attributes": list(entry.attributes),
        "origin": entry.origin,
        "actor": entry.actor,
        "at": entry.at,
    }
