"""The SQL of graph reads: live Links of a Relation touching some keys, live Records by key.

Each read is one statement per batch of at most `CHUNK` keys, whatever the View: a UNION ALL with
one part per segment of the View (nearest first), each part leaving out the rows that a nearer
segment has touched (tombstones included), so that overlay branches and reads at an older
Revision see exactly what `current.py` and `reads.py` see. A branch read at its head with no
overlay base is a single indexed probe (`ix_links_head`, `ix_links_inverse`, `ix_records_head`).

Statements are built once per shape (the segments' `at_head` flags, the key column, whether
values are read) and cached, with bound parameters only, so SQLAlchemy reuses their compiled
form. These functions return raw rows; `traverse.py` and `neighborhood.py` shape them, and the
benchmark runs the same statements as its raw-SQL baseline.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import Any, Literal

import sqlalchemy as sa

from lorebase_store import tables as t
from lorebase_store.versioned.views import Segment

KeyColumn = Literal["from_key", "to_key"]
Shape = tuple[bool, ...]
CHUNK = 500
"""Keys bound in one statement (SQLite's default limit of variables is far above)."""


def shape_of(chain: tuple[Segment, ...]) -> Shape:
    """What a cached statement depends on: each segment's `at_head` flag, nearest first."""
    return tuple(segment.at_head for segment in chain)


def segment_parameters(chain: tuple[Segment, ...]) -> dict[str, int]:
    """The bound values of the segments: `branch_<i>` and `upto_<i>`."""
    parameters: dict[str, int] = {}
    for index, segment in enumerate(chain):
        parameters[f"branch_{index}"] = segment.branch_id
        parameters[f"upto_{index}"] = segment.upto
    return parameters


def chunks(keys: Iterable[str]) -> Iterator[list[str]]:
    """Distinct keys, sorted, in batches of at most `CHUNK`."""
    ordered = sorted(set(keys))
    for start in range(0, len(ordered), CHUNK):
        yield ordered[start : start + CHUNK]


def _live_in_segment(
    table: sa.Table, index: int, at_head: bool, identity: tuple[str, ...]
) -> list[sa.ColumnElement[bool]]:
    """Live rows segment `index` sees, not shadowed by the nearer segments (0 .. index-1)."""
    branch = sa.bindparam(f"branch_{index}", type_=sa.Integer)
    upto = sa.bindparam(f"upto_{index}", type_=sa.Integer)
    conditions: list[sa.ColumnElement[bool]] = [table.c.branch_id == branch]
    if at_head:
        conditions.append(table.c.to_seq.is_(None))
    else:
        conditions += [
            table.c.from_seq <= upto,
            sa.or_(table.c.to_seq.is_(None), table.c.to_seq > upto),
        ]
    conditions.append(table.c.deleted.is_(False))
    for nearer in range(index):
        shadow = table.alias(f"nearer_{nearer}")
        conditions.append(
            ~sa.exists().where(
                shadow.c.branch_id == sa.bindparam(f"branch_{nearer}", type_=sa.Integer),
                *(shadow.c[column] == table.c[column] for column in identity),
                shadow.c.from_seq <= sa.bindparam(f"upto_{nearer}", type_=sa.Integer),
            )
        )
    return conditions


@lru_cache(maxsize=256)
def link_statement(shape: Shape, column: KeyColumn, with_values: bool) -> sa.Executable:
    """Live Links of `:relation` whose `column` is one of `:keys` (expanding), in a View.

    Rows: `from_key`, `to_key` and, with values, `values_json`. Bound parameters: `relation`,
    `keys` and those of `segment_parameters`.
    """
    table = t.links
    selected = [table.c.from_key, table.c.to_key]
    if with_values:
        selected.append(table.c.values_json)
    parts = [
        sa.select(*selected).where(
            table.c.relation == sa.bindparam("relation", type_=sa.String),
            table.c[column].in_(sa.bindparam("keys", expanding=True)),
            *_live_in_segment(table, index, at_head, ("relation", "from_key", "to_key")),
        )
        for index, at_head in enumerate(shape)
    ]
    return parts[0] if len(parts) == 1 else sa.union_all(*parts)


@lru_cache(maxsize=64)
def record_statement(shape: Shape, with_values: bool) -> sa.Executable:
    """Live Records of `:kind` whose key is one of `:keys` (expanding), in a View.

    Rows: `record_key` and, with values, `values_json`. Bound parameters: `kind`, `keys` and
    those of `segment_parameters`.
    """
    table = t.records
    selected = [table.c.record_key]
    if with_values:
        selected.append(table.c.values_json)
    parts = [
        sa.select(*selected).where(
            table.c.kind == sa.bindparam("kind", type_=sa.String),
            table.c.record_key.in_(sa.bindparam("keys", expanding=True)),
            *_live_in_segment(table, index, at_head, ("kind", "record_key")),
        )
        for index, at_head in enumerate(shape)
    ]
    return parts[0] if len(parts) == 1 else sa.union_all(*parts)


def fetch_links(
    connection: sa.Connection,
    chain: tuple[Segment, ...],
    relation: str,
    column: KeyColumn,
    keys: Iterable[str],
    *,
    with_values: bool,
) -> list[sa.Row[Any]]:
    """Live Links of `relation` (forward name) whose `column` is one of `keys`, unordered."""
    statement = link_statement(shape_of(chain), column, with_values)
    parameters: dict[str, Any] = {**segment_parameters(chain), "relation": relation}
    rows: list[sa.Row[Any]] = []
    for chunk in chunks(keys):
        rows.extend(connection.execute(statement, {**parameters, "keys": chunk}))
    return rows


def fetch_records(
    connection: sa.Connection,
    chain: tuple[Segment, ...],
    kind: str,
    keys: Iterable[str],
    *,
    with_values: bool,
) -> list[sa.Row[Any]]:
    """Live Records of `kind` among `keys` (the others do not exist or are deleted), unordered."""
    statement = record_statement(shape_of(chain), with_values)
    parameters: dict[str, Any] = {**segment_parameters(chain), "kind": kind}
    rows: list[sa.Row[Any]] = []
    for chunk in chunks(keys):
        rows.extend(connection.execute(statement, {**parameters, "keys": chunk}))
    return rows
