"""What changed between two Revisions of a Domain: Records and Links, with before and after."""

from __future__ import annotations

import sqlalchemy as sa

from lorebase_store import tables as t
from lorebase_store.current import current_links, current_records
from lorebase_store.results import Diff, DiffEntry, Values
from lorebase_store.views import Segment


def _touched(
    connection: sa.Connection, mine: tuple[Segment, ...], other: tuple[Segment, ...]
) -> tuple[set[tuple[str, str]], set[tuple[str, str, str]]]:
    """Records and Links written in the part of history `mine` that `other` does not share.

    Rows with `from_seq` 0 (a copy branch's copies of its base) are not changes: the base's
    segment in the history holds the changes they copy.
    """
    shared = {segment.branch_id: segment.upto for segment in other}
    records: set[tuple[str, str]] = set()
    links: set[tuple[str, str, str]] = set()
    for segment in mine:
        low = shared.get(segment.branch_id, -1)
        if segment.branch_id in shared and low >= segment.upto:
            continue
        low = min(low, segment.upto)
        for row in connection.execute(
            sa.select(t.records.c.kind, t.records.c.record_key).where(
                t.records.c.branch_id == segment.branch_id,
                t.records.c.from_seq > max(low, 0),
                t.records.c.from_seq <= segment.upto,
            )
        ):
            records.add((row.kind, row.record_key))
        for link_row in connection.execute(
            sa.select(t.links.c.relation, t.links.c.from_key, t.links.c.to_key).where(
                t.links.c.branch_id == segment.branch_id,
                t.links.c.from_seq > max(low, 0),
                t.links.c.from_seq <= segment.upto,
            )
        ):
            links.add((link_row.relation, link_row.from_key, link_row.to_key))
    return records, links


def _entry(ref: str, before: Values | None, after: Values | None) -> DiffEntry | None:
    if before == after:
        return None
    change = "created" if before is None else "deleted" if after is None else "modified"
    names = sorted(
        name
        for name in set(before or {}) | set(after or {})
        if (before or {}).get(name) != (after or {}).get(name)
    )
    return DiffEntry(ref, change, names, before, after)


def diff(
    connection: sa.Connection,
    reads: list[tuple[Segment, ...]],
    histories: list[tuple[Segment, ...]],
    from_revision: str,
    to_revision: str,
) -> Diff:
    """Changes between two Revisions: `reads` are their read segments, `histories` their lineage."""
    from_chain, to_chain = reads
    records_a, links_a = _touched(connection, histories[0], histories[1])
    records_b, links_b = _touched(connection, histories[1], histories[0])
    record_entries: list[DiffEntry] = []
    by_kind: dict[str, set[str]] = {}
    for kind, key in records_a | records_b:
        by_kind.setdefault(kind, set()).add(key)
    for kind, keys in sorted(by_kind.items()):
        before = current_records(connection, from_chain, kind, keys)
        after = current_records(connection, to_chain, kind, keys)
        for key in sorted(keys):
            old, new = before.get(key), after.get(key)
            entry = _entry(
                f"{kind}/{key}",
                old.values if old and not old.deleted else None,
                new.values if new and not new.deleted else None,
            )
            if entry is not None:
                record_entries.append(entry)
    link_entries: list[DiffEntry] = []
    by_relation: dict[str, set[tuple[str, str]]] = {}
    for relation, from_key, to_key in links_a | links_b:
        by_relation.setdefault(relation, set()).add((from_key, to_key))
    for relation, pairs in sorted(by_relation.items()):
        before_links = current_links(connection, from_chain, relation, pairs)
        after_links = current_links(connection, to_chain, relation, pairs)
        for pair in sorted(pairs):
            old_link, new_link = before_links.get(pair), after_links.get(pair)
            entry = _entry(
                f"{relation}:{pair[0]}->{pair[1]}",
                old_link.values if old_link and not old_link.deleted else None,
                new_link.values if new_link and not new_link.deleted else None,
            )
            if entry is not None:
                link_entries.append(entry)
    return Diff(from_revision, to_revision, record_entries, link_entries)
