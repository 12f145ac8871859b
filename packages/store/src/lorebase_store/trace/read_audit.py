"""The read audit (keeper.auth.audit.reads) and the audit log of a Domain, reads and writes.

Keeper's recorder writes `ReadAuditEntry`s in batches, one statement each. `audit_log` merges
them with the write audit (the `audit_log` table, `writes/audit.py`) of one Domain into one list,
newest first, ordered by `(at desc, kind, id desc)`, with one keyset cursor over both. Both
sides sort and compare time stamps in the stored form (`moments.stored`; the write audit's are
`format_datetime` strings, turned into it in SQL) in byte order (collation "C" on PostgreSQL),
which is the order the two are merged in here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import sqlalchemy as sa

from lorebase_store import tables as t
from lorebase_store.engine import is_sqlite
from lorebase_store.rows import from_row
from lorebase_store.trace.domain_names import domain_ids
from lorebase_store.trace.keyset import check_limit, decode_keyset, encode_keyset
from lorebase_store.trace.moments import shown, stored
from lorebase_store.versioned.views import load_domain

AuditKind = Literal["read", "write"]
CHUNK = 1000
LIST = "audit log"
READS = t.read_audit
WRITES = t.audit_log


@dataclass(frozen=True, kw_only=True)
class ReadAuditEntry:
    """One audited read: who read which Records and Links (`refs`) of which Revision."""

    principal: str
    route: str
    domain: str | None
    branch: str | None
    revision: str | None
    refs: list[dict[str, Any]]
    status: int
    at: str


@dataclass(frozen=True, kw_only=True)
class AuditItem:
    """An entry of a Domain's audit log: a read (`route` ...) or a write (`action` ...)."""

    kind: AuditKind
    number: int
    principal: str
    at: str
    route: str | None = None
    branch: str | None = None
    revision: str | None = None
    refs: list[dict[str, Any]] | None = None
    status: int | None = None
    action: str | None = None
    target: str | None = None
    details: dict[str, Any] | None = None

    @property
    def id(self) -> str:
        return f"{self.kind}-{self.number}"

    def to_json(self) -> dict[str, Any]:
        item: dict[str, Any] = {
            "kind": self.kind,
            "id": self.id,
            "principal": self.principal,
            "at": self.at,
        }
        if self.kind == "read":
            item.update(
                route=self.route,
                branch=self.branch,
                revision=self.revision,
                refs=self.refs,
                status=self.status,
            )
        else:
            item.update(action=self.action, target=self.target, details=self.details)
        return item


@dataclass(frozen=True, kw_only=True)
class AuditPage:
    entries: list[AuditItem]
    next_cursor: str | None


def write_read_audit(connection: sa.Connection, entries: Sequence[ReadAuditEntry]) -> int:
    """Insert a batch of entries (one statement); an unknown Domain name is stored as none."""
    if not entries:
        return 0
    domains = domain_ids(connection, (entry.domain for entry in entries))
    connection.execute(
        READS.insert(),
        [
            {
                "domain_id": domains.get(entry.domain) if entry.domain is not None else None,
                "principal": entry.principal,
                "route": entry.route,
                "branch": entry.branch,
                "revision": entry.revision,
                "refs": entry.refs,
                "status": entry.status,
                "created_at": stored(entry.at),
            }
            for entry in entries
        ],
    )
    return len(entries)


def prune_read_audit_chunk(connection: sa.Connection, older_than: str) -> int | None:
    """Delete up to `CHUNK` entries with `at < older_than`: how many, None when none was left."""
    bound = stored(older_than)
    select = sa.select(READS.c.id).where(READS.c.created_at < bound).limit(CHUNK)
    if not is_sqlite(connection):
        select = select.with_for_update(skip_locked=True)
    ids = list(connection.execute(select).scalars())
    if not ids:
        return None
    return connection.execute(READS.delete().where(READS.c.id.in_(ids))).rowcount


def audit_log(
    connection: sa.Connection,
    domain: str,
    *,
    kind: AuditKind | None,
    principal: str | None,
    since: str | None,
    until: str | None,
    limit: int,
    cursor: str | None,
) -> AuditPage:
    """Reads and writes of `domain` newest first; `since` inclusive, `until` exclusive."""
    check_limit(limit)
    domain_id = load_domain(connection, domain).id
    after = decode_keyset(LIST, cursor, (str, str, int)) if cursor is not None else None
    bounds = (
        stored(since) if since is not None else None,
        stored(until) if until is not None else None,
    )
    found: list[tuple[str, AuditItem]] = []
    for table, item_kind in ((READS, "read"), (WRITES, "write")):
        if kind is None or kind == item_kind:
            found.extend(
                _items(connection, table, item_kind, domain_id, principal, bounds, after, limit + 1)
            )
    found.sort(key=_order)
    page = found[:limit]
    next_cursor = None
    if len(found) > limit:
        at, last = page[-1]
        next_cursor = encode_keyset(LIST, [at, last.kind, last.number])
    return AuditPage(entries=[item for _, item in page], next_cursor=next_cursor)


def _order(found: tuple[str, AuditItem]) -> tuple[Any, ...]:
    # newest first: stored time stamps (all of one width) descending, kind, ids descending
    at, item = found
    return (tuple(-byte for byte in at.encode()), item.kind, -item.number)


def _stored_at(connection: sa.Connection, table: sa.Table) -> sa.ColumnElement[str]:
    """The table's time stamps in the stored form, compared in byte order."""
    column: sa.ColumnElement[str] = table.c.created_at
    if table is WRITES:
        # format_datetime leaves out the microseconds of a time stamp on the second
        on_the_second = sa.func.length(column) == len("2026-01-31T12:00:00Z")
        column = sa.case(
            (on_the_second, sa.func.substr(column, 1, 19) + sa.literal(".000000Z")),
            else_=column,
        )
    return column if is_sqlite(connection) else sa.collate(column, "C")


def _items(
    connection: sa.Connection,
    table: sa.Table,
    item_kind: str,
    domain_id: int,
    principal: str | None,
    bounds: tuple[str | None, str | None],
    after: list[Any] | None,
    limit: int,
) -> list[tuple[str, AuditItem]]:
    """Up to `limit` entries of one table after the cursor, with their stored time stamps."""
    at = _stored_at(connection, table).label("stored_at")
    conditions: list[sa.ColumnElement[bool]] = [table.c.domain_id == domain_id]
    if principal is not None:
        conditions.append(table.c.principal == principal)
    since, until = bounds
    if since is not None:
        conditions.append(at >= since)
    if until is not None:
        conditions.append(at < until)
    if after is not None:
        conditions.append(_after(table, item_kind, at, after))
    rows = connection.execute(
        sa.select(table, at)
        .where(*conditions)
        .order_by(sa.desc("stored_at"), table.c.id.desc())
        .limit(limit)
    ).mappings()
    return [(row["stored_at"], _item(item_kind, row)) for row in rows]


def _after(
    table: sa.Table, item_kind: str, at: sa.ColumnElement[str], after: list[Any]
) -> sa.ColumnElement[bool]:
    """The entries of one table past the cursor's (time stamp, kind, id), newest first."""
    after_at: str = after[0]
    after_kind: str = after[1]
    after_id: int = after[2]
    if item_kind > after_kind:
        return at <= after_at
    if item_kind == after_kind:
        return sa.or_(at < after_at, sa.and_(at == after_at, table.c.id < after_id))
    return at < after_at


def _item(item_kind: str, row: Any) -> AuditItem:
    """An entry from a row of `read_audit` ("read") or of `audit_log` ("write")."""
    common = {"kind": item_kind, "number": row["id"], "at": shown(row["created_at"])}
    if item_kind == "read":
        return from_row(AuditItem, row, **common, refs=list(row["refs"]))
    return from_row(AuditItem, row, **common, details=dict(row["details"]))
