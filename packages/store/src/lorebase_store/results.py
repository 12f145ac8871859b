"""What the store returns: plain frozen dataclasses with JSON renderings."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lorebase_core.values import CanonicalValue
from lorebase_store.rows import field_document

Values = dict[str, CanonicalValue]


@dataclass(frozen=True, kw_only=True)
class DomainInfo:
    id: int
    name: str
    default_branch: str
    created_at: str
    created_by: str
    settings: dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class BranchInfo:
    id: int
    domain: str
    name: str
    mode: str
    head_revision: str | None
    head_seq: int
    base_branch: str | None
    base_revision: str | None
    base_branch_id: int | None
    base_seq: int | None
    protected: bool
    created_at: str
    created_by: str

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "mode": self.mode,
            "head": self.head_revision,
            "base_branch": self.base_branch,
            "base_revision": self.base_revision,
            "protected": self.protected,
            "created_at": self.created_at,
            "created_by": self.created_by,
        }


@dataclass(frozen=True, kw_only=True)
class RevisionInfo:
    pk: int
    id: str
    branch: str
    branch_id: int
    seq: int
    parents: list[str]
    generation: int
    stats: dict[str, Any]
    origin_type: str
    origin_ref: str | None
    author: str
    message: str
    created_at: str
    schema_digest: str

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "branch": self.branch,
            "parents": self.parents,
            "generation": self.generation,
            "stats": self.stats,
            "origin": {"type": self.origin_type, "ref": self.origin_ref},
            "author": self.author,
            "message": self.message,
            "created_at": self.created_at,
            "schema_digest": self.schema_digest,
        }


@dataclass(frozen=True, kw_only=True)
class Provenance:
    """Where one value came from: the Revision that set it and its origin, actor and time."""

    revision: str
    origin_type: str
    origin_ref: str | None
    actor: str
    at: str
    message: str
    operation: str | None = None
    """The Operation an execution ran (origin operation with an invocation as its ref)."""
    brought_by: Provenance | None = None
    """The Revision that brought a value merged from another branch: the merge Revision."""
    proposal: str | None = None
    """The Proposal whose merge brought the value (origin merge of a Proposal)."""

    def to_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {
            "revision": self.revision,
            "origin": {"type": self.origin_type, "ref": self.origin_ref},
            "actor": self.actor,
            "at": self.at,
            "message": self.message,
        }
        if self.operation is not None:
            found["operation"] = self.operation
        if self.brought_by is not None:
            found["brought_by"] = self.brought_by.to_json()
        if self.proposal is not None:
            found["proposal"] = self.proposal
        return found


@dataclass(frozen=True, kw_only=True)
class RecordVersion:
    kind: str
    key: str
    values: Values
    revision: str
    deleted: bool = False
    provenance: dict[str, int] = field(default_factory=dict, repr=False)


@dataclass(frozen=True, kw_only=True)
class LinkVersion:
    relation: str
    from_key: str
    to_key: str
    values: Values
    revision: str
    deleted: bool = False


@dataclass(frozen=True)
class CommitResult:
    """A commit's outcome: `revision` is None when nothing changed (no Revision was made)."""

    revision: RevisionInfo | None
    changes: int
    stats: dict[str, Any]
    event_sequence: int | None = None


@dataclass(frozen=True)
class HistoryEntry:
    revision: RevisionInfo
    change: str
    attributes: list[str]
    before: Values | None = None
    after: Values | None = None

    def to_json(self, *, with_values: bool = False) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "revision": self.revision.id,
            "author": self.revision.author,
            "at": self.revision.created_at,
            "message": self.revision.message,
            "origin": {"type": self.revision.origin_type, "ref": self.revision.origin_ref},
            "change": self.change,
            "attributes": self.attributes,
        }
        if with_values:
            entry["before"] = self.before
            entry["after"] = self.after
        return entry


@dataclass(frozen=True)
class HistoryPage:
    entries: list[HistoryEntry]
    next_cursor: str | None


@dataclass(frozen=True)
class Lineage:
    kind: str
    key: str
    attributes: dict[str, Provenance]
    changes: int
    changes_truncated: bool


@dataclass(frozen=True)
class DiffEntry:
    ref: str
    change: str
    attributes: list[str]
    before: Values | None
    after: Values | None

    def to_json(self) -> dict[str, Any]:
        return field_document(self)


@dataclass(frozen=True)
class Diff:
    from_revision: str
    to_revision: str
    records: list[DiffEntry]
    links: list[DiffEntry]

    def to_json(self) -> dict[str, Any]:
        return {
            "from": self.from_revision,
            "to": self.to_revision,
            "records": [entry.to_json() for entry in self.records],
            "links": [entry.to_json() for entry in self.links],
        }
