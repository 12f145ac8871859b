"""What an execution reads before its write transaction, in one read transaction.

An execution needs its Domain (with its settings), the branch it writes, the schema at that
branch's head and, under an idempotency key, the execution made before with the same key.
`prepare_write` reads them together and loads the Domain's row once. The caller's checks run
between the reads, so that its errors answer in the order they always did: `check` once the
Domain is known (before an unknown branch is 404), `authorize` once the branch is (before the
schema is read).

Whether a key was used for another request is decided by `executions.replay_of`, here
(`PreparedWrite.replayed`) and again inside the write transaction (`executions.execute`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import sqlalchemy as sa

from lorebase_core.schema import Schema
from lorebase_store.engine import read_transaction
from lorebase_store.results import BranchInfo, DomainInfo
from lorebase_store.versioned.schemas import schema_at
from lorebase_store.versioned.views import Authorize, load_branch, load_domain
from lorebase_store.writes.executions import Invocation, find_invocation, replay_of

CheckDomain = Callable[[DomainInfo], None]
"""Raises when the request does not hold against the Domain (its settings, its limits)."""


@dataclass(frozen=True)
class PreparedWrite:
    """What an execution is checked and planned with."""

    domain: DomainInfo
    branch: BranchInfo
    schema: Schema
    """The schema at the branch's head (the Domain's first one before any commit)."""
    earlier: Invocation | None
    """The execution the principal made before under the same idempotency key, if any."""

    def replayed(self, digest: str) -> Invocation | None:
        """The earlier execution when this request (its digest) repeats it, None when there
        is none; 409 `idempotency-key-reused` when the key was used for another request."""
        if self.earlier is None:
            return None
        return replay_of(self.earlier, digest).invocation


def prepare_write(
    engine: sa.Engine,
    domain: str,
    branch: str | None,
    *,
    principal: str,
    idempotency_key: str | None,
    check: CheckDomain,
    authorize: Authorize,
) -> PreparedWrite:
    """The Domain, the branch (default: the Domain's), its schema and the earlier execution
    under `idempotency_key` (None: none is looked up), in one read transaction."""
    with read_transaction(engine) as connection:
        info = load_domain(connection, domain)
        check(info)
        found = load_branch(connection, info, branch or info.default_branch)
        authorize(found.name)
        schema = schema_at(connection, info, found.head_revision)
        earlier = (
            find_invocation(connection, info.id, principal, idempotency_key)
            if idempotency_key is not None
            else None
        )
    return PreparedWrite(info, found, schema, earlier)
