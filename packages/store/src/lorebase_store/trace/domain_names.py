"""Domain names of the API and the `domain_id` integers of the trace and audit tables."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import sqlalchemy as sa

from lorebase_store import tables as t


def domain_ids(connection: sa.Connection, names: Iterable[str | None]) -> dict[str, int]:
    """The ids of the Domains named; unknown names are left out (their steps have no Domain)."""
    return _lookup(connection, t.domains.c.name, t.domains.c.id, names)


def domain_names(connection: sa.Connection, ids: Iterable[int | None]) -> dict[int, str]:
    return _lookup(connection, t.domains.c.id, t.domains.c.name, ids)


def _lookup(
    connection: sa.Connection,
    by: sa.Column[Any],
    found: sa.Column[Any],
    wanted: Iterable[Any],
) -> dict[Any, Any]:
    """`found` by `by` for the Domains whose `by` is one of `wanted` (None left out), at once."""
    values = sorted({value for value in wanted if value is not None})
    if not values:
        return {}
    rows = connection.execute(sa.select(by, found).where(by.in_(values)))
    return {row[0]: row[1] for row in rows}
