"""Operation executions: the commit, its invocation row and its operation events, in one transaction.

An execution with an idempotency key is found again by (Domain, principal, key): a retry answers
from the invocation row instead of committing twice. The unique index on those three columns
settles concurrent retries (SQLite serializes writers; on PostgreSQL the second insert fails and
its whole transaction, commit included, is rolled back, then the first one's row is read). Whether
a key was used for another request is decided by `replay_of` alone.

Side effects declared by the Operation become `operation.<side effect>` events in the events
table, in the commit's transaction, or later, once, when a reviewed execution's Proposal merges
(`pending_events`: the side effects declared when it ran).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from lorebase_core.changes import Change
from lorebase_core.errors import IdempotencyKeyReused, InvalidInput, Issue
from lorebase_core.schema import canonical_json
from lorebase_core.values import format_datetime
from lorebase_store import tables as t
from lorebase_store.commits.commit import CommitRequest, commit_on
from lorebase_store.engine import read_transaction, write_transaction
from lorebase_store.feed.notify import insert_event
from lorebase_store.results import CommitResult
from lorebase_store.versioned.views import load_domain
from lorebase_store.writes.audit import audit


@dataclass(frozen=True, kw_only=True)
class ExecutionRecord:
    """What is kept of an execution besides its Revision."""

    invocation_id: str
    operation: str
    principal: str
    idempotency_key: str | None
    request_digest: str
    branch: str
    parameters: dict[str, Any]
    """As events and summaries may show them (sensitive ones `***`)."""
    edits: list[dict[str, Any]]
    side_effects: tuple[str, ...] = ()
    target: str | None = None
    """The branch a reviewed execution's Proposal merges into (the agent flow)."""
    events_now: bool = True
    """False for an execution whose events wait for its Proposal's merge."""
    max_event_edits: int = 50


@dataclass(frozen=True, kw_only=True)
class Invocation:
    id: str
    operation: str
    principal: str
    idempotency_key: str | None
    request_digest: str
    branch: str
    target: str | None
    revision: str | None
    proposal_id: str | None
    parameters: dict[str, Any]
    edits: list[dict[str, Any]]
    pending_events: list[str]
    """Side effects whose events wait for the merge of the execution's Proposal."""
    result: dict[str, Any]
    created_at: str

    @property
    def events_pending(self) -> bool:
        return bool(self.pending_events)


@dataclass(frozen=True)
class Executed:
    invocation: Invocation
    replayed: bool


def request_digest(document: Any) -> str:
    """The digest that tells a retry from another request under the same key."""
    return hashlib.sha256(canonical_json(document).encode()).hexdigest()


def operation_id(domain: str, operation: str) -> str:
    """A stable id of an Operation of a Domain, as operation events name it."""
    return "opr_" + hashlib.sha256(f"{domain}/{operation}".encode()).hexdigest()[:20]


def _invocation(row: Any) -> Invocation:
    return Invocation(
        id=row["id"],
        operation=row["operation"],
        principal=row["principal"],
        idempotency_key=row["idempotency_key"],
        request_digest=row["request_digest"],
        branch=row["branch"],
        target=row["target"],
        revision=row["revision"],
        proposal_id=row["proposal_id"],
        parameters=dict(row["parameters"]),
        edits=list(row["edits"]),
        pending_events=list(row["pending_events"]),
        result=dict(row["result"]),
        created_at=row["created_at"],
    )


def find_invocation(
    connection: sa.Connection, domain_id: int, principal: str, key: str
) -> Invocation | None:
    row = (
        connection.execute(
            sa.select(t.invocations).where(
                t.invocations.c.domain_id == domain_id,
                t.invocations.c.principal == principal,
                t.invocations.c.idempotency_key == key,
            )
        )
        .mappings()
        .first()
    )
    return _invocation(row) if row is not None else None


def invocation_by_id(connection: sa.Connection, invocation_id: str) -> Invocation | None:
    row = (
        connection.execute(sa.select(t.invocations).where(t.invocations.c.id == invocation_id))
        .mappings()
        .first()
    )
    return _invocation(row) if row is not None else None


def invocations_of_proposal(connection: sa.Connection, proposal_id: str) -> list[Invocation]:
    rows = connection.execute(
        sa.select(t.invocations)
        .where(t.invocations.c.proposal_id == proposal_id)
        .order_by(t.invocations.c.created_at, t.invocations.c.id)
    ).mappings()
    return [_invocation(row) for row in rows]


def invocations_of_proposals(
    connection: sa.Connection, proposal_ids: Sequence[str]
) -> dict[str, list[Invocation]]:
    """The executions of several Proposals in one statement, by Proposal id."""
    found: dict[str, list[Invocation]] = {}
    if not proposal_ids:
        return found
    rows = connection.execute(
        sa.select(t.invocations)
        .where(t.invocations.c.proposal_id.in_(list(proposal_ids)))
        .order_by(t.invocations.c.created_at, t.invocations.c.id)
    ).mappings()
    for row in rows:
        found.setdefault(row["proposal_id"], []).append(_invocation(row))
    return found


def replay_of(existing: Invocation, digest: str) -> Executed:
    """The execution made before under the same idempotency key, replayed for a request with
    the same digest: the one place that decides whether a key is reused for another request
    (409 `idempotency-key-reused`), before a write and again in its transaction."""
    if existing.request_digest != digest:
        raise IdempotencyKeyReused(
            f"Idempotency key {existing.idempotency_key!r} was used for another request "
            f"({existing.operation}, invocation {existing.id}); send a new key",
            invocation_id=existing.id,
        )
    return Executed(existing, replayed=True)


def previous_execution(
    connection: sa.Connection, domain_id: int, record: ExecutionRecord
) -> Executed | None:
    """The earlier execution under the same key, as a replay (409 when the request differs)."""
    if record.idempotency_key is None:
        return None
    existing = find_invocation(connection, domain_id, record.principal, record.idempotency_key)
    return replay_of(existing, record.request_digest) if existing is not None else None


def execute(
    engine: sa.Engine, request: CommitRequest, changes: Iterable[Change], record: ExecutionRecord
) -> Executed:
    """Commit an execution with its invocation and events, or replay the earlier one."""
    try:
        with write_transaction(engine) as connection:
            domain = load_domain(connection, request.domain)
            earlier = previous_execution(connection, domain.id, record)
            if earlier is not None:
                return earlier
            result = commit_on(connection, request, changes)
            invocation = record_execution(connection, domain.id, record, result)
            return Executed(invocation, replayed=False)
    except sa.exc.IntegrityError:
        # a concurrent execution under the same key committed first: this one wrote nothing
        if record.idempotency_key is None:
            raise
        with read_transaction(engine) as connection:
            domain = load_domain(connection, request.domain)
            existing = find_invocation(
                connection, domain.id, record.principal, record.idempotency_key
            )
        if existing is None:
            raise
        return replay_of(existing, record.request_digest)


def record_execution(
    connection: sa.Connection, domain_id: int, record: ExecutionRecord, result: CommitResult
) -> Invocation:
    """The invocation row of a committed execution and, when due now, its operation events."""
    revision = result.revision.id if result.revision is not None else None
    created_at = format_datetime(datetime.now(UTC))
    outcome = {
        "revision": revision,
        "revisions": [revision] if revision else [],
        "edit_count": result.changes,
    }
    pending = list(record.side_effects) if revision is not None and not record.events_now else []
    row = {
        "id": record.invocation_id,
        "domain_id": domain_id,
        "operation": record.operation,
        "principal": record.principal,
        "idempotency_key": record.idempotency_key,
        "request_digest": record.request_digest,
        "branch": record.branch,
        "target": record.target,
        "revision": revision,
        "proposal_id": None,
        "parameters": record.parameters,
        "edits": record.edits,
        "pending_events": pending,
        "result": outcome,
        "created_at": created_at,
    }
    connection.execute(t.invocations.insert(), row)
    invocation = _invocation(row)
    audit(
        connection,
        domain_id,
        record.principal,
        "operation.invoke",
        record.invocation_id,
        operation=record.operation,
        branch=record.branch,
        revision=revision,
    )
    if revision is not None and record.events_now and record.side_effects:
        domain_name = connection.execute(
            sa.select(t.domains.c.name).where(t.domains.c.id == domain_id)
        ).scalar_one()
        branch_id = result.revision.branch_id if result.revision is not None else 0
        write_operation_events(
            connection,
            domain_id,
            domain_name,
            branch_id,
            record.branch,
            revision,
            invocation,
            record.side_effects,
            record.max_event_edits,
        )
    return invocation


def write_operation_events(
    connection: sa.Connection,
    domain_id: int,
    domain: str,
    branch_id: int,
    branch: str,
    head: str,
    invocation: Invocation,
    side_effects: Sequence[str],
    max_edits: int,
    *,
    source_branch: str | None = None,
    proposal: str | None = None,
) -> None:
    """One `operation.<side effect>` event per declared side effect of a committed execution."""
    revisions = invocation.result.get("revisions") or ([head] if head else [])
    created_at = format_datetime(datetime.now(UTC))
    for side_effect in side_effects:
        payload: dict[str, Any] = {
            "type": f"operation.{side_effect}",
            "side_effect": side_effect,
            "domain": domain,
            "branch": branch,
            "operation": invocation.operation,
            "operation_id": operation_id(domain, invocation.operation),
            "invocation_id": invocation.id,
            "principal": invocation.principal,
            "revisions": revisions,
            "head": head,
            "parameters": invocation.parameters,
            "edit_count": len(invocation.edits),
            "edits": invocation.edits[:max_edits],
            "edits_truncated": len(invocation.edits) > max_edits,
        }
        if source_branch is not None:
            payload["source_branch"] = source_branch
            payload["proposal"] = proposal
        insert_event(
            connection,
            {
                "domain_id": domain_id,
                "branch_id": branch_id,
                "type": f"operation.{side_effect}",
                "revision_id": head,
                "created_at": created_at,
                "payload": payload,
            },
        )


class _DryRunDone(Exception):
    """Ends a dry run's transaction: everything it wrote is rolled back."""


@dataclass(frozen=True)
class DryRun:
    head: str | None
    changes: int
    violations: list[Issue]


def dry_run(engine: sa.Engine, request: CommitRequest, changes: Iterable[Change]) -> DryRun:
    """What an execution would change and the issues it would meet; nothing is written."""
    outcome: DryRun | None = None
    try:
        with write_transaction(engine) as connection:
            domain = load_domain(connection, request.domain)
            head = connection.execute(
                sa.select(t.branches.c.head_revision).where(
                    t.branches.c.domain_id == domain.id,
                    t.branches.c.name == (request.branch or domain.default_branch),
                    t.branches.c.deleted.is_(False),
                )
            ).scalar()
            try:
                result = commit_on(connection, request, changes)
            except InvalidInput as exc:
                outcome = DryRun(head, 0, list(exc.issues))
            else:
                outcome = DryRun(head, result.changes, [])
            raise _DryRunDone
    except _DryRunDone:
        pass
    assert outcome is not None
    return outcome


def attach_proposal(connection: sa.Connection, invocation_id: str, proposal_id: str) -> None:
    """Name the Proposal a task execution went into: a retry finds it, merged or not."""
    connection.execute(
        t.invocations.update()
        .where(t.invocations.c.id == invocation_id)
        .values(proposal_id=proposal_id)
    )
