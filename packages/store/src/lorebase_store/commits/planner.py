"""PostgreSQL's planner statistics kept in step while a large commit grows a table."""

from __future__ import annotations

from collections import Counter

import sqlalchemy as sa

from lorebase_store.engine import is_sqlite


class PlannerStatistics:
    """Keeps PostgreSQL's planner statistics in step while a large commit grows a table.

    The look-ups of a batch (`record_key IN (...)`) use the key index only while the planner
    knows the table is large; statistics taken when it was empty make it scan the whole Kind for
    every batch, which makes an import quadratic. PostgreSQL's ANALYZE counts the rows the
    running transaction inserted, so it is run each time a commit has doubled what it wrote.
    """

    FIRST = 5000

    def __init__(self, connection: sa.Connection) -> None:
        self.connection = connection
        self.enabled = not is_sqlite(connection)
        self.written: Counter[str] = Counter()
        self.next: dict[str, int] = {}

    def wrote(self, table: sa.Table, rows: int) -> None:
        if not self.enabled or rows == 0:
            return
        self.written[table.name] += rows
        if self.written[table.name] >= self.next.setdefault(table.name, self.FIRST):
            self.connection.exec_driver_sql(f"ANALYZE {table.name}")
            self.next[table.name] = 2 * self.written[table.name]
