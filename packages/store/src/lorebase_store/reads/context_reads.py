"""What a context pack reads beyond the neighborhood: seeds' versions, recent changes, lineage.

Every read is batched: one statement per Kind (and per segment of the View) for the versions of
the pack's Records, one for the Revisions they name, whatever the number of Records.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import sqlalchemy as sa

from lorebase_core.context import LineageEntry, RecentChange
from lorebase_core.errors import RevisionNotOnBranch
from lorebase_store import tables as t
from lorebase_store.graph.sql import chunks
from lorebase_store.versioned.current import current_records
from lorebase_store.versioned.provenance import expand
from lorebase_store.versioned.views import (
    Authorize,
    View,
    position_in,
    resolve_revision,
    revisions_by_pk,
    visible_from,
)


@dataclass(frozen=True)
class SeedVersion:
    """The live version of a seed: the Revision that last changed it and its provenance."""

    ref: str
    revision: str
    provenance: dict[str, int]
    """The pk of the Revision that set each current value."""


def seed_versions(
    connection: sa.Connection, view: View, refs: Iterable[tuple[str, str]]
) -> dict[str, SeedVersion]:
    """The live versions of the seeds `(kind, key)`, by reference (missing ones left out)."""
    by_kind: dict[str, list[str]] = {}
    for kind, key in refs:
        by_kind.setdefault(kind, []).append(key)
    found: dict[str, SeedVersion] = {}
    for kind, keys in sorted(by_kind.items()):
        for key, current in current_records(connection, view.segments, kind, keys).items():
            if current.deleted:
                continue
            ref = f"{kind}/{key}"
            provenance = expand(current.provenance, current.values)
            found[ref] = SeedVersion(ref, current.revision_id, provenance)
    return found


def lineage_entries(connection: sa.Connection, seeds: Iterable[SeedVersion]) -> list[LineageEntry]:
    """Per seed (in the order given), the Attributes each Revision set last, newest first."""
    listed = list(seeds)
    revisions = revisions_by_pk(
        connection, {pk for seed in listed for pk in seed.provenance.values()}
    )
    entries: list[LineageEntry] = []
    for seed in listed:
        by_revision: dict[int, list[str]] = {}
        for name, pk in seed.provenance.items():
            by_revision.setdefault(pk, []).append(name)
        for pk in sorted(by_revision, key=lambda pk: (revisions[pk].created_at, pk), reverse=True):
            revision = revisions[pk]
            entries.append(
                LineageEntry(
                    seed.ref,
                    tuple(sorted(by_revision[pk])),
                    revision.origin_type,
                    revision.author,
                    revision.created_at,
                )
            )
    return entries


# -- recent changes --------------------------------------------------------------------------

_VERSIONS = sa.select(
    t.records.c.record_key,
    t.records.c.from_seq,
    t.records.c.revision_pk,
    t.records.c.deleted,
    t.records.c.values_json,
).where(
    t.records.c.branch_id == sa.bindparam("branch_id"),
    t.records.c.kind == sa.bindparam("kind"),
    t.records.c.record_key.in_(sa.bindparam("keys", expanding=True)),
    t.records.c.from_seq > 0,  # 0: the copies a copy branch took at its fork
    t.records.c.from_seq <= sa.bindparam("upto"),
)

Position = tuple[int, int]
"""Where a version sits in the first-parent history: (segment index, -from_seq); smaller is newer."""


@dataclass(frozen=True)
class _Version:
    position: Position
    revision_pk: int
    deleted: bool
    values: dict[str, Any]


def since_position(
    connection: sa.Connection, view: View, since: str, authorize: Authorize | None = None
) -> Position:
    """The position of Revision or tag `since` in the view's first-parent history.

    Raises:
        RevisionNotFound, TagNotFound: no such Revision or tag (or, off the branch's history,
            one of a branch `authorize` refuses).
        RevisionNotOnBranch: a Revision that is not in the branch's first-parent history.
    """
    revision = resolve_revision(
        connection, view.domain, since, visible_from(view.history, authorize)
    )
    index = position_in(view.history, revision)
    if index is not None:
        return (index, -revision.seq)
    raise RevisionNotOnBranch(
        f"Revision {revision.id[:12]} is not in the history of branch {view.branch.name!r}; "
        "give since a Revision or tag of this branch",
        revision=revision.id,
        branch=view.branch.name,
    )


def recent_changes(
    connection: sa.Connection,
    view: View,
    records: Mapping[str, Collection[str]],
    *,
    limit: int,
    since: str | None = None,
    authorize: Authorize | None = None,
) -> list[RecentChange]:
    """The latest changes of `records` (keys by Kind) on the view's history, newest first.

    At most `limit`; with `since`, only those after that Revision or tag.
    """
    after = since_position(connection, view, since, authorize) if since is not None else None
    versions = _versions(connection, view, records)
    changes: list[
        tuple[Position, str, _Version, Literal["created", "modified", "deleted"], tuple[str, ...]]
    ] = []
    for ref, listed in versions.items():
        listed.sort(key=lambda version: version.position)
        for index, version in enumerate(listed):
            if after is not None and version.position >= after:
                break
            older = listed[index + 1] if index + 1 < len(listed) else None
            change, attributes = _change(older, version)
            changes.append((version.position, ref, version, change, attributes))
    changes.sort(key=lambda entry: (entry[0], entry[1]))
    del changes[limit:]
    revisions = revisions_by_pk(connection, {entry[2].revision_pk for entry in changes})
    return [
        RecentChange(
            revision=revisions[version.revision_pk].id,
            at=revisions[version.revision_pk].created_at,
            ref=ref,
            change=change,
            attributes=attributes,
            actor=revisions[version.revision_pk].author,
            origin=revisions[version.revision_pk].origin_type,
            message=revisions[version.revision_pk].message,
        )
        for _position, ref, version, change, attributes in changes
    ]


def _versions(
    connection: sa.Connection, view: View, records: Mapping[str, Collection[str]]
) -> dict[str, list[_Version]]:
    """Every version of the Records in the view's history, by reference, unordered."""
    found: dict[str, list[_Version]] = {}
    for index, segment in enumerate(view.history):
        for kind, keys in sorted(records.items()):
            for chunk in chunks(keys):
                parameters = {
                    "branch_id": segment.branch_id,
                    "kind": kind,
                    "keys": chunk,
                    "upto": segment.upto,
                }
                for row in connection.execute(_VERSIONS, parameters):
                    found.setdefault(f"{kind}/{row.record_key}", []).append(
                        _Version(
                            (index, -row.from_seq),
                            int(row.revision_pk),
                            bool(row.deleted),
                            dict(row.values_json),
                        )
                    )
    return found


def _change(
    older: _Version | None, version: _Version
) -> tuple[Literal["created", "modified", "deleted"], tuple[str, ...]]:
    if version.deleted:
        return "deleted", ()
    if older is None or older.deleted:
        return "created", tuple(sorted(version.values))
    before, after = older.values, version.values
    changed = sorted(
        name for name in set(before) | set(after) if before.get(name) != after.get(name)
    )
    return "modified", tuple(changed)
