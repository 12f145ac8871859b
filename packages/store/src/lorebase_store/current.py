"""Look up the visible versions of Records and Links for a batch of keys, nearest segment first."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from lorebase_store import tables as t
from lorebase_store.views import Segment, visible

_CHUNK = 500


@dataclass
class Current:
    """A visible version: its row id, whether it lives in the nearest segment, and its content."""

    row_id: int
    own: bool
    from_seq: int
    deleted: bool
    values: dict[str, Any]
    provenance: dict[str, Any]


def _chunks(items: list[Any]) -> Iterable[list[Any]]:
    for start in range(0, len(items), _CHUNK):
        yield items[start : start + _CHUNK]


def current_records(
    connection: sa.Connection, chain: tuple[Segment, ...], kind: str, keys: Iterable[str]
) -> dict[str, Current]:
    found: dict[str, Current] = {}
    remaining = sorted(set(keys))
    table = t.records
    for index, segment in enumerate(chain):
        if not remaining:
            break
        for chunk in _chunks(remaining):
            rows = connection.execute(
                sa.select(
                    table.c.id,
                    table.c.record_key,
                    table.c.from_seq,
                    table.c.deleted,
                    table.c.values_json,
                    table.c.provenance_json,
                ).where(
                    visible(table, segment), table.c.kind == kind, table.c.record_key.in_(chunk)
                )
            ).all()
            for row in rows:
                found[row.record_key] = Current(
                    row.id,
                    index == 0,
                    row.from_seq,
                    row.deleted,
                    dict(row.values_json),
                    dict(row.provenance_json),
                )
        remaining = [key for key in remaining if key not in found]
    return found


LinkId = tuple[str, str]


def current_links(
    connection: sa.Connection, chain: tuple[Segment, ...], relation: str, pairs: Iterable[LinkId]
) -> dict[LinkId, Current]:
    found: dict[LinkId, Current] = {}
    remaining = sorted(set(pairs))
    table = t.links
    for index, segment in enumerate(chain):
        if not remaining:
            break
        by_from: dict[str, set[str]] = {}
        for from_key, to_key in remaining:
            by_from.setdefault(from_key, set()).add(to_key)
        for chunk in _chunks(sorted(by_from)):
            rows = connection.execute(
                sa.select(
                    table.c.id,
                    table.c.from_key,
                    table.c.to_key,
                    table.c.from_seq,
                    table.c.deleted,
                    table.c.values_json,
                    table.c.provenance_json,
                ).where(
                    visible(table, segment),
                    table.c.relation == relation,
                    table.c.from_key.in_(chunk),
                )
            ).all()
            for row in rows:
                pair = (row.from_key, row.to_key)
                if row.to_key in by_from.get(row.from_key, ()) and pair not in found:
                    found[pair] = Current(
                        row.id,
                        index == 0,
                        row.from_seq,
                        row.deleted,
                        dict(row.values_json),
                        dict(row.provenance_json),
                    )
        remaining = [pair for pair in remaining if pair not in found]
    return found


def links_touching(
    connection: sa.Connection,
    chain: tuple[Segment, ...],
    relation: str,
    column: str,
    keys: list[str],
) -> list[tuple[str, str]]:
    """Visible, live Links of `relation` whose `column` (from_key or to_key) is one of `keys`."""
    table = t.links
    result: dict[LinkId, bool] = {}
    seen: set[LinkId] = set()
    for segment in chain:
        for chunk in _chunks(sorted(set(keys))):
            rows = connection.execute(
                sa.select(table.c.from_key, table.c.to_key, table.c.deleted).where(
                    visible(table, segment),
                    table.c.relation == relation,
                    table.c[column].in_(chunk),
                )
            ).all()
            for row in rows:
                pair = (row.from_key, row.to_key)
                if pair not in seen:
                    result[pair] = not row.deleted
            seen.update(result)
        # rows a nearer segment touched shadow the base, whether or not they are visible there
        for chunk in _chunks(sorted(set(keys))):
            touched = connection.execute(
                sa.select(table.c.from_key, table.c.to_key).where(
                    table.c.branch_id == segment.branch_id,
                    table.c.relation == relation,
                    table.c[column].in_(chunk),
                    table.c.from_seq <= segment.upto,
                )
            ).all()
            seen.update((row.from_key, row.to_key) for row in touched)
    return sorted(pair for pair, live in result.items() if live)
