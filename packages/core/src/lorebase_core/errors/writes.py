"""Writes refused: schemas, values, imports, branches and Operation executions (docs/writes.md)."""

from __future__ import annotations

from collections.abc import Iterable

from lorebase_core.errors.base import (
    AlreadyExists,
    BadRequest,
    Conflict,
    InvalidInput,
    NotFound,
)


class SchemaInvalid(InvalidInput):
    code = "schema-invalid"
    title = "Invalid schema"


class ValuesInvalid(InvalidInput):
    code = "values-invalid"
    title = "Invalid values"


class ImportInvalid(InvalidInput):
    code = "import-invalid"
    title = "Import refused"


class StaleHead(Conflict):
    code = "stale-head"
    title = "Stale head"


class ImportOverwrites(Conflict):
    """Importing a folder again would replace values that Operations or merges set since.

    `overwrites` lists each (ref, attribute, current, imported, revision, origin); importing
    with `overwrite` writes them anyway.
    """

    code = "import-overwrites"
    title = "Import would overwrite later changes"


class BranchNameReserved(InvalidInput):
    """A branch name under the prefix of task branches, which only the agent flow creates."""

    code = "branch-name-reserved"
    title = "Branch name reserved"


class BranchNameTaken(AlreadyExists):
    """A live branch has the same name but for case (`Main` beside `main`)."""

    code = "branch-name-taken"
    title = "Branch name taken"


class OperationNotFound(NotFound):
    code = "operation-not-found"
    title = "Unknown Operation"

    @classmethod
    def named(cls, name: str, domain: str, visible: Iterable[str] = ()) -> OperationNotFound:
        """The error of an unknown Operation, also of one the caller's grants make invisible:
        `visible` holds the Operations whose Kinds the caller may read (and no other)."""
        return cls._named("Operation", name, domain, visible, "Operations", operation=name)


class IdempotencyKeyReused(Conflict):
    code = "idempotency-key-reused"
    title = "Idempotency key used for another request"


class AgentBranchLimit(Conflict):
    code = "agent-branch-limit"
    title = "Too many task branches"


class BranchesUnrelated(BadRequest):
    status = 422
    code = "branches-unrelated"
    title = "The branches share no history"
