"""The audit log: who did what to which object, one row per step of a write (docs/writes.md).

Entries name objects and actions only; values of Records never enter the log.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from lorebase_store import tables as t
from lorebase_store.clock import now_stamp
from lorebase_store.rows import field_document, from_row


@dataclass(frozen=True, kw_only=True)
class AuditEntry:
    id: int
    principal: str
    action: str
    target: str
    details: dict[str, Any]
    created_at: str

    def to_json(self) -> dict[str, Any]:
        return field_document(self)


def audit(
    connection: sa.Connection,
    domain_id: int | None,
    principal: str,
    action: str,
    subject: str,
    **details: Any,
) -> None:
    """One entry: `subject` names what the action was done to (a branch, a Proposal, ...)."""
    connection.execute(
        t.audit_log.insert(),
        {
            "domain_id": domain_id,
            "principal": principal,
            "action": action,
            "target": subject,
            "details": details,
            "created_at": now_stamp(),
        },
    )


def audit_entries(
    connection: sa.Connection, domain_id: int, *, after: int = 0, limit: int = 100
) -> list[AuditEntry]:
    rows = connection.execute(
        sa.select(t.audit_log)
        .where(t.audit_log.c.domain_id == domain_id, t.audit_log.c.id > after)
        .order_by(t.audit_log.c.id)
        .limit(limit)
    ).mappings()
    return [from_row(AuditEntry, row, details=dict(row["details"])) for row in rows]
