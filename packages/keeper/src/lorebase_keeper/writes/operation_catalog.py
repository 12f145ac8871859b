"""The Operations one caller sees, as GET /schema, GET /operations and GET /operations/{op} answer
them (docs/writes.md, "Discover the Operations").

A caller who reads the branch reads its Operations, except those whose edits reach a Kind its
grants do not read: `write_scope.visible_operation` decides, so a listed Operation is one that
execute knows and an unlisted one answers execute with 404 `operation-not-found`. Each document
is `lorebase_core.operation_catalog.describe_operation` plus `execute`: where to send it and
whether this caller's grants let it run there (`refusal` is the code execute would answer).
"""

from __future__ import annotations

from typing import Literal, TypedDict

from lorebase_core.operation_catalog import describe_operation, operation_kinds
from lorebase_core.schema import OperationDef, Schema
from lorebase_keeper.auth.authz import Principal
from lorebase_keeper.reads.reading import Read
from lorebase_keeper.shapes.common import JsonObject
from lorebase_keeper.shapes.writes.operations import ExecuteLinkJson
from lorebase_keeper.writes.write_scope import (
    missing_permission,
    visible_operation,
    visible_operations,
    write_permissions,
)

Refusal = Literal["forbidden", "kind-forbidden"]


class Fingerprint(TypedDict):
    """What shapes a catalog beyond the request, the Revision and the read scope."""

    protected: bool
    refusals: dict[str, Refusal | None]


def execute_refusal(
    principal: Principal, domain: str, branch: str, operation: OperationDef, schema: Schema
) -> Refusal | None:
    """What execute answers this caller on the branch before running anything, None when it
    may run: `kind-forbidden` when its write grants skip a Kind the Operation edits,
    `forbidden` without the Operation's permissions (or `operation.execute_custom` and those
    besides `operation.execute`)."""
    writable = principal.write_kinds(domain, branch, write_permissions(operation))
    if writable and set(operation_kinds(operation, schema)) - writable:
        return "kind-forbidden"
    if missing_permission(principal, domain, branch, operation.permissions) is None:
        return None
    return "forbidden"


class OperationCatalog:
    """The Operations of one read (its branch and Revision) as its caller sees them."""

    def __init__(self, read: Read) -> None:
        self.read = read
        self.schema = read.reader.schema
        self.names = visible_operations(self.schema, read.scope)
        self.refusals = {
            name: execute_refusal(
                read.principal, read.domain, read.branch, self.schema.operations[name], self.schema
            )
            for name in self.names
        }

    @property
    def fingerprint(self) -> Fingerprint:
        """What shapes the answer beyond the request, the Revision and the read scope: the
        ETag is computed over it, so a grant or a protection that changes changes the ETag."""
        return {
            "protected": self.read.reader.view.branch.protected,
            "refusals": self.refusals,
        }

    def require(self, name: str) -> None:
        """404 `operation-not-found` for an Operation the caller does not see, as execute."""
        visible_operation(self.schema, name, self.read.scope)

    def document(self, name: str) -> JsonObject:
        """The document of one visible Operation."""
        read = self.read
        found = describe_operation(
            self.schema, name, branch=read.branch, protected=read.reader.view.branch.protected
        )
        refusal = self.refusals[name]
        execute: ExecuteLinkJson = {
            "method": "POST",
            "href": f"/api/v1/domains/{read.domain}/operations/{name}/execute",
            "allowed": refusal is None,
            "refusal": refusal,
        }
        found["execute"] = execute
        return found

    def documents(self) -> list[JsonObject]:
        """Every visible Operation, in the schema's order."""
        return [self.document(name) for name in self.names]
