"""The sections of a context pack as data, and their JSON form (agents.md section 1).

A pack is immutable: the budget trimmer (`budget.py`) makes smaller packs from it. Section names
are those of the JSON pack: `seeds`, `neighbors`, `links`, `schema`, `recent_changes`, `lineage`.
An optional section left out by the request or its lens is None.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
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
    """A seed (depth 0, with `updated_revision`) or a neighbor; `values` None once trimmed.

    `heading` names the Attributes whose values the ref and title already show (a one-Attribute
    key, the title Attribute): the Markdown does not repeat them.
    """

    ref: str
    title: str | None
    values: dict[str, Any] | None
    depth: int = 0
    updated_revision: str | None = None
    heading: frozenset[str] = frozenset()

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
    """An Attribute of the schema section: its name and type (descriptions stay per Kind)."""

    name: str
    type: str


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


@dataclass(frozen=True, kw_only=True)
class ImportedRecords:
    """The Records of the pack that one import Revision created, as one entry of recent changes.

    `records` counts them; which they are is the pack itself (their lineage names the Revision).
    """

    revision: str
    at: str
    records: int
    actor: str
    origin: str
    message: str


IMPORT_ORIGIN = "import"
"""The origin of Revisions whose creations are summarised (`summarise_imports`)."""


def summarise_imports(
    changes: Iterable[RecentChange],
) -> tuple[RecentChange | ImportedRecords, ...]:
    """The changes with the creations of two or more Records by one import Revision as one entry.

    The entry takes the place of the Revision's first (newest) such creation; other changes
    keep theirs.
    """
    listed = list(changes)
    imported: dict[str, list[RecentChange]] = {}
    for change in listed:
        if change.change == "created" and change.origin == IMPORT_ORIGIN:
            imported.setdefault(change.revision, []).append(change)
    summarised: list[RecentChange | ImportedRecords] = []
    for change in listed:
        group = imported.get(change.revision, [])
        if len(group) < 2 or change not in group:
            summarised.append(change)
        elif change is group[0]:
            summarised.append(
                ImportedRecords(
                    revision=change.revision,
                    at=change.at,
                    records=len(group),
                    actor=change.actor,
                    origin=change.origin,
                    message=change.message,
                )
            )
    return tuple(summarised)


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
    recent_changes: tuple[RecentChange | ImportedRecords, ...] | None = None
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
    return [{"name": attribute.name, "type": attribute.type} for attribute in attributes]


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


def _change_json(change: RecentChange | ImportedRecords) -> dict[str, Any]:
    if isinstance(change, ImportedRecords):
        return {
            "revision": change.revision,
            "at": change.at,
            "change": "created",
            "records": change.records,
            "actor": change.actor,
            "origin": change.origin,
            "message": change.message,
        }
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
