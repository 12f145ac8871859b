"""Writing an event, with the change notice it sends on PostgreSQL.

`pg_notify` is transactional: listeners hear it when the transaction commits, never before and
never for one that rolls back. SQLite has no notices; its readers poll the event table.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from lorebase_store import tables as t
from lorebase_store.engine import ANNOUNCED, CHANNEL, inserted_id, is_sqlite

__all__ = ["CHANNEL", "insert_event"]


def insert_event(connection: sa.Connection, values: dict[str, Any]) -> int:
    """Insert one row of `events` (`values`: its columns) and return its sequence.

    On PostgreSQL the same statement announces it: the INSERT runs in a CTE whose sequence the
    `pg_notify` payload carries, one round trip instead of two.
    """
    if is_sqlite(connection):
        return inserted_id(connection.execute(t.events.insert(), values))
    written = t.events.insert().values(**values).returning(t.events.c.sequence).cte("written")
    payload = sa.func.concat(
        sa.func.current_schema(),
        f" {values['domain_id']} {values['branch_id']} ",
        written.c.sequence,
    )
    statement = sa.select(written.c.sequence, sa.func.pg_notify(CHANNEL, payload))
    sequence = int(connection.execute(statement).one()[0])
    connection.info[ANNOUNCED] = True  # `write_transaction` need not announce it again
    return sequence
