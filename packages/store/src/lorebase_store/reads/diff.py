"""What changed between two Revisions of a Domain: Records and Links, with before and after."""

from __future__ import annotations

import sqlalchemy as sa

from lorebase_store import tables as t
from lorebase_store.results import Diff, DiffEntry, Values
from lorebase_store.versioned.current import Current, current_links, current_records
from lorebase_store.versioned.views import Segment


def touched(
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
    """Changes between two Revisions: `reads` are their read segments, `histories` their ancestry."""
    from_chain, to_chain = reads
    records_a, links_a = touched(connection, histories[0], histories[1])
    records_b, links_b = touched(connection, histories[1], histories[0])
    by_kind: dict[str, set[str]] = {}
    for kind, key in records_a | records_b:
        by_kind.setdefault(kind, set()).add(key)
    record_entries = []
    for kind, keys in sorted(by_kind.items()):
        before = current_records(connection, from_chain, kind, keys)
        after = current_records(connection, to_chain, kind, keys)
        for key in sorted(keys):
            record_entries.append(
                _entry(f"{kind}/{key}", _live(before.get(key)), _live(after.get(key)))
            )
    by_relation: dict[str, set[tuple[str, str]]] = {}
    for relation, from_key, to_key in links_a | links_b:
        by_relation.setdefault(relation, set()).add((from_key, to_key))
    link_entries = []
    for relation, pairs in sorted(by_relation.items()):
        before_links = current_links(connection, from_chain, relation, pairs)
        after_links = current_links(connection, to_chain, relation, pairs)
        for pair in sorted(pairs):
            ref = f"{relation}:{pair[0]}->{pair[1]}"
            link_entries.append(
                _entry(ref, _live(before_links.get(pair)), _live(after_links.get(pair)))
            )
    return Diff(
        from_revision,
        to_revision,
        [entry for entry in record_entries if entry is not None],
        [entry for entry in link_entries if entry is not None],
    )


def _live(version: Current | None) -> Values | None:
    """The values of a visible version, or None when there is none or it is a tombstone."""
    return version.values if version is not None and not version.deleted else None
