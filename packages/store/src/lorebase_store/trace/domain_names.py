"""Domain names of the API and the `domain_id` integers of the trace and audit tables."""

from __future__ import annotations

from collections.abc import Iterable

import sqlalchemy as sa

from lorebase_store import tables as t


def domain_ids(connection: sa.Connection, names: Iterable[str | None]) -> dict[str, int]:
    """The ids of the Domains named; unknown names are left out (their steps have no Domain)."""
    wanted = sorted({name for name in names if name is not None})
    if not wanted:
        return {}
    rows = connection.execute(
        sa.select(t.domains.c.name, t.domains.c.id).where(t.domains.c.name.in_(wanted))
    )
    return {row.name: row.id for row in rows}


def domain_names(connection: sa.Connection, ids: Iterable[int | None]) -> dict[int, str]:
    wanted = sorted({domain_id for domain_id in ids if domain_id is not None})
    if not wanted:
        return {}
    rows = connection.execute(
        sa.select(t.domains.c.id, t.domains.c.name).where(t.domains.c.id.in_(wanted))
    )
    return {row.id: row.name for row in rows}
