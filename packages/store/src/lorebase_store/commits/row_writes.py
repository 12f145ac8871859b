"""The row versions one batch of a commit writes: close the versions replaced, insert new ones."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from lorebase_store.bulk import insert_rows, update_rows
from lorebase_store.versioned.current import Current

_ROW = ("deleted", "values_json", "provenance_json")
_LINK_IDENTITY = ("relation", "from_key", "to_key")
_FIXED = ("branch_id", "from_seq", "to_seq", "revision_pk")


class RowWrites:
    """Versions to write to `table` (records or links) for one batch, flushed together."""

    def __init__(self, table: sa.Table, branch_id: int, seq: int, revision_pk: int) -> None:
        self.table = table
        self.fixed = (branch_id, seq, None, revision_pk)
        self.seq = seq
        self.identity = ("kind", "record_key") if table.name == "records" else _LINK_IDENTITY
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
            update_rows(
                connection,
                table,
                ("to_seq",),
                ("id",),
                [(self.seq, row_id) for row_id in self.close],
            )
        if self.rewrite:
            update_rows(
                connection,
                table,
                _ROW,
                ("id",),
                [(*(row[name] for name in _ROW), row_id) for row_id, row in self.rewrite.items()],
            )
        inserted = len(self.insert)
        if self.insert:
            columns = (*self.identity, *_ROW)
            insert_rows(
                connection,
                table,
                (*columns, *_FIXED),
                [(*(row[name] for name in columns), *self.fixed) for row in self.insert.values()],
            )
        self.close, self.rewrite, self.insert = [], {}, {}
        return inserted
