"""The audit log: who did what to which object, one row per step of a write (docs/writes.md).

Entries name objects and actions only; values of Records never enter the log.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from lorebase_core.values import format_datetime
from lorebase_store import tables as t


@dataclass(frozen=True, kw_only=True)
class AuditEntry:
    id: int
    principal: str
    action: str
    target: str
    details: dict[str, Any]
    created_at: str

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "principal": self.principal,
            "action": self.action,
            "target": self.target,
            "details": self.details,
            "created_at": self.created_at,
        }


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
            "created_at": format_datetime(datetime.now(UTC)),
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
    return [
        AuditEntry(
            id=row["id"],
            principal=row["principal"],
            action=row["action"],
            target=row["target"],
            details=dict(row["details"]),
            created_at=row["created_at"],
        )
        for row in rows
    ]
