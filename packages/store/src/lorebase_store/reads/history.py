"""Per-Record history and per-Attribute lineage, read from the Record's row versions.

Both follow the segments of the view (an overlay branch's own versions, then its base's up to the
fork point), so their cost follows the number of changes of the Record, not the length of the
branch.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

import sqlalchemy as sa

from lorebase_core.errors import BadCursor, RecordNotFound, quoted, shortened
from lorebase_store import tables as t
from lorebase_store.cursors import cursor_document, cursor_text
from lorebase_store.results import (
    HistoryEntry,
    HistoryPage,
    Lineage,
    Provenance,
    RevisionInfo,
)
from lorebase_store.versioned.provenance import expand
from lorebase_store.versioned.views import View, revisions_by_pk


def _versions(connection: sa.Connection, view: View, kind: str, key: str) -> list[dict[str, Any]]:
    """Every version of the Record the view's history holds, newest first.

    Rows with `from_seq` 0 are the copies a copy branch took at its fork; the versions they copy
    are read from the base's history instead.
    """
    found: list[dict[str, Any]] = []
    for segment in view.history:
        rows = (
            connection.execute(
                sa.select(
                    t.records.c.from_seq,
                    t.records.c.revision_pk,
                    t.records.c.deleted,
                    t.records.c.values_json,
                    t.records.c.provenance_json,
                )
                .where(
                    t.records.c.branch_id == segment.branch_id,
                    t.records.c.kind == kind,
                    t.records.c.record_key == key,
                    t.records.c.from_seq <= segment.upto,
                    t.records.c.from_seq > 0,
                )
                .order_by(t.records.c.from_seq.desc())
            )
            .mappings()
            .all()
        )
        found.extend(dict(row) for row in rows)
    return found


def _changed(before: dict[str, Any] | None, after: dict[str, Any]) -> list[str]:
    before = before or {}
    return sorted(name for name in set(before) | set(after) if before.get(name) != after.get(name))


def encode_cursor(
    ref: str, position: int, revision: str | None, attributes: Sequence[str] | None = None
) -> str:
    """A history cursor: the Record it pages, the position, the Revision the pages read and
    the Attributes the history is narrowed to (a position counts only their changes)."""
    found: dict[str, Any] = {"p": position, "r": ref, "v": revision}
    if attributes is not None:
        found["a"] = sorted(attributes)
    return cursor_text(found)


def _cursor_document(cursor: str) -> dict[str, Any]:
    try:
        document = cursor_document(cursor)
    except ValueError as exc:
        raise BadCursor(f"cursor {quoted(cursor)} is not one this server issued") from exc
    if not isinstance(document, dict):
        raise BadCursor(f"cursor {quoted(cursor)} is not one this server issued")
    return document


def cursor_revision(cursor: str) -> str | None:
    """The Revision a history cursor's pages are read at (its next page is read there too)."""
    revision = _cursor_document(cursor).get("v")
    return revision if isinstance(revision, str) else None


def decode_cursor(
    ref: str,
    cursor: str,
    size: int,
    revision: str | None,
    attributes: Sequence[str] | None = None,
) -> int:
    """The position a history cursor of Record `ref` continues at (it has `size` versions)."""
    document = _cursor_document(cursor)
    position, owner = document.get("p"), document.get("r")
    if owner != ref:
        raise BadCursor(f"this cursor pages the history of {quoted(owner)}, not of {quoted(ref)}")
    if document.get("v") != revision:
        raise BadCursor("this cursor pages the history as of another Revision; read it there")
    narrowed = sorted(attributes) if attributes is not None else None
    if document.get("a") != narrowed:
        raise BadCursor(
            "this cursor pages the history narrowed to other Attributes; "
            "pass the attributes of the first page"
        )
    if type(position) is not int or not 0 < position < size:
        raise BadCursor(f"cursor {quoted(cursor)} is not one this server issued")
    return position


def history(
    connection: sa.Connection,
    view: View,
    kind: str,
    key: str,
    *,
    limit: int,
    cursor: str | None = None,
    with_values: bool = False,
    attributes: Sequence[str] | None = None,
) -> HistoryPage:
    """The changes of one Record, newest first; a deleted Record keeps its history.

    `attributes` narrows it to the changes that changed one of them (a creation that set one,
    a deletion of a Record that held one), each naming only those, and their values only.
    """
    versions = _versions(connection, view, kind, key)
    if not versions:
        raise RecordNotFound(
            f"{kind}/{shortened(key)} has no history on branch {quoted(view.branch.name)}"
        )
    ref = f"{kind}/{key}"
    changes = _changes(versions, attributes)
    start = decode_cursor(ref, cursor, len(changes), view.revision, attributes) if cursor else 0
    page = changes[start : start + limit]
    revisions = revisions_by_pk(connection, [row["revision_pk"] for row, *_ in page])
    entries = [
        HistoryEntry(
            revisions[row["revision_pk"]],
            change,
            changed,
            before if with_values else None,
            after if with_values else None,
        )
        for row, change, changed, before, after in page
    ]
    more = start + limit < len(changes)
    next_cursor = encode_cursor(ref, start + limit, view.revision, attributes) if more else None
    return HistoryPage(entries, next_cursor)


_Change = tuple[dict[str, Any], str, list[str], dict[str, Any] | None, dict[str, Any] | None]


def _changes(versions: list[dict[str, Any]], attributes: Sequence[str] | None) -> list[_Change]:
    """Each version with its change, the Attributes it changed and the values around it."""
    narrowed = None if attributes is None else frozenset(attributes)
    found: list[_Change] = []
    for index, row in enumerate(versions):
        older = versions[index + 1] if index + 1 < len(versions) else None
        before = dict(older["values_json"]) if older is not None and not older["deleted"] else None
        after = None if row["deleted"] else dict(row["values_json"])
        change = "deleted" if row["deleted"] else "created" if before is None else "updated"
        changed = _changed(before, after or {})
        if narrowed is not None:
            changed = [name for name in changed if name in narrowed]
            if not changed:
                continue
            before, after = _only(before, narrowed), _only(after, narrowed)
        found.append((row, change, changed, before, after))
    return found


def _only(values: dict[str, Any] | None, names: frozenset[str]) -> dict[str, Any] | None:
    return None if values is None else {name: values[name] for name in values if name in names}


def lineage(
    connection: sa.Connection, view: View, kind: str, key: str, *, count_max: int
) -> Lineage:
    """Where each current value of a Record came from (the materialized provenance)."""
    return _lineage(connection, view, kind, key, _versions(connection, view, kind, key), count_max)


def created_in(versions: list[dict[str, Any]]) -> int | None:
    """The row key of the Revision that created the live Record (its latest creation)."""
    if not versions or versions[0]["deleted"]:
        return None
    for index, row in enumerate(versions):
        older = versions[index + 1] if index + 1 < len(versions) else None
        if older is None or older["deleted"]:
            return int(row["revision_pk"])
    return None  # pragma: no cover - the loop always finds the oldest live version


def explain(
    connection: sa.Connection, view: View, kind: str, key: str, *, count_max: int
) -> tuple[RevisionInfo, Lineage]:
    """The Revision that created a Record and the lineage of its values, from one read."""
    versions = _versions(connection, view, kind, key)
    found = _lineage(connection, view, kind, key, versions, count_max)
    created = created_in(versions)
    assert created is not None  # _lineage refused a missing or deleted Record
    return revisions_by_pk(connection, [created])[created], found


def _lineage(
    connection: sa.Connection,
    view: View,
    kind: str,
    key: str,
    versions: list[dict[str, Any]],
    count_max: int,
) -> Lineage:
    if not versions or versions[0]["deleted"]:
        raise RecordNotFound(
            f"{kind}/{shortened(key)} does not exist on branch {quoted(view.branch.name)}"
        )
    provenance = expand(versions[0]["provenance_json"], versions[0]["values_json"])
    brought = {name: _bringing(versions, name, pk) for name, pk in provenance.items()}
    revisions = revisions_by_pk(connection, [*provenance.values(), *brought.values()])
    operations = _operations(connection, revisions.values())

    def entry(pk: int) -> Provenance:
        revision = revisions[pk]
        return Provenance(
            revision=revision.id,
            origin_type=revision.origin_type,
            origin_ref=revision.origin_ref,
            actor=revision.author,
            at=revision.created_at,
            message=revision.message,
            operation=operations.get(revision.origin_ref or ""),
        )

    attributes = {}
    for name, pk in sorted(provenance.items()):
        value = entry(pk)
        if brought[name] != pk:  # set on another branch, merged into this one
            merge = revisions[brought[name]]
            proposal = merge.origin_ref if (merge.origin_ref or "").startswith("prp_") else None
            value = replace(value, brought_by=entry(brought[name]), proposal=proposal)
        attributes[name] = value
    return Lineage(kind, key, attributes, min(len(versions), count_max), len(versions) > count_max)


def _bringing(versions: list[dict[str, Any]], name: str, pk: int) -> int:
    """The Revision of the oldest version in a row, from the newest, holding the value of `pk`.

    It is `pk` itself for a value set on this branch; for a value a merge brought, the merge.
    """
    found = pk
    for version in versions:
        if version["deleted"] or expand(version["provenance_json"], [name]).get(name) != pk:
            break
        found = int(version["revision_pk"])
    return found


def _operations(connection: sa.Connection, revisions: Iterable[RevisionInfo]) -> dict[str, str]:
    """The Operation behind each invocation an operation Revision names."""
    refs = {
        r.origin_ref
        for r in revisions
        if r.origin_type == "operation" and (r.origin_ref or "").startswith("inv_")
    }
    if not refs:
        return {}
    rows = connection.execute(
        sa.select(t.invocations.c.id, t.invocations.c.operation).where(
            t.invocations.c.id.in_(sorted(refs))
        )
    )
    return {row.id: row.operation for row in rows}
