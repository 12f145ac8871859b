"""The row versions one batch of a commit writes: close the versions replaced, insert new ones."""

from __future__ import annotations

from functools import cache
from typing import Any

import sqlalchemy as sa

from lorebase_store.versioned.current import Current


@cache
def _close_statement(table: sa.Table) -> sa.Update:
    return table.update().where(table.c.id == sa.bindparam("row_id"))


class RowWrites:
    """Versions to write to `table` (records or links) for one batch, flushed together."""

    def __init__(self, table: sa.Table, branch_id: int, seq: int, revision_pk: int) -> None:
        self.table = table
        self.fixed = {
            "branch_id": branch_id,
            "from_seq": seq,
            "to_seq": None,
            "revision_pk": revision_pk,
        }
        self.seq = seq
        self.close: list[int] = []
        self.rewrite: dict[int, dict[str, Any]] = {}
        self.insert: dict[tuple[str, ...], dict[str, Any]] = {}

    def put(self, identity: tuple[str, ...], before: Current | None, row: dict[str, Any]) -> None:
        """Write `row` as the new version of `identity`, replacing `before` (the visible one)."""
        if identity in self.insert:  # changed again in this batch
            self.insert[identity] = row
        elif (
            before is not None and before.own and before.from_seq == self.seq and before.row_id >= 0
        ):
            self.rewrite[before.row_id] = row  # changed again in this commit, an earlier batch
        else:
            if before is not None and before.own and before.row_id >= 0:
                self.close.append(before.row_id)
            self.insert[identity] = row

    def flush(self, connection: sa.Connection) -> int:
        """Write the batch; returns how many versions it inserted."""
        table = self.table
        if self.close:
            connection.execute(
                _close_statement(table),
                [{"row_id": row_id, "to_seq": self.seq} for row_id in self.close],
            )
        for row_id, row in self.rewrite.items():
            connection.execute(
                table.update()
                .where(table.c.id == row_id)
                .values(
                    deleted=row["deleted"],
                    values_json=row["values_json"],
                    provenance_json=row["provenance_json"],
                )
            )
        inserted = len(self.insert)
        if self.insert:
            connection.execute(
                table.insert(), [{**row, **self.fixed} for row in self.insert.values()]
            )
        self.close, self.rewrite, self.insert = [], {}, {}
        return inserted
