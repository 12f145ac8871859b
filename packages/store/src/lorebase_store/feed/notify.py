"""The change notice a transaction that writes an event sends on PostgreSQL.

`pg_notify` is transactional: listeners hear it when the transaction commits, never before and
never for one that rolls back. SQLite has no notices; its readers poll the event table.
"""

from __future__ import annotations

import sqlalchemy as sa

from lorebase_store.engine import is_sqlite

CHANNEL = "lorebase_events"
"""The one channel of every notice; the payload is `<schema> <domain id> <branch id>
<sequence>`: databases in other schemas of the same PostgreSQL database share the channel, and
listeners keep the notices of their own schema only."""

_NOTIFY = sa.text("SELECT pg_notify(:channel, current_schema() || ' ' || :payload)")


def notify_event(connection: sa.Connection, domain_id: int, branch_id: int, sequence: int) -> None:
    """Announce an event written in this transaction (PostgreSQL only; a no-op on SQLite)."""
    if is_sqlite(connection):
        return
    connection.execute(
        _NOTIFY, {"channel": CHANNEL, "payload": f"{domain_id} {branch_id} {sequence}"}
    )
