"""What a caller may write under grants narrowed to Kinds (docs/auth.md, docs/writes.md).

A write reaches Kinds: an Operation those its declared edits touch (an edit of a Link touches
both end Kinds of its Relation, as in `proposal_scope`), a merge those of the Records, Links and
Conflicts its plan holds. The caller may write the Kinds it reads (`Principal.read_scope`) that
the grants giving the write's permission cover (`Principal.write_kinds`):

- an Operation touching a Kind the caller does not read is unknown to it: 404
  `operation-not-found`, word for word the answer for an unknown Operation (403 `kind-forbidden`
  with `keeper.auth.authz.invisible_kinds: false`), and it is left out of GET /schema and
  GET /operations (`visible_operation` decides for both); one touching a Kind it reads but its
  write grants do not cover is 403 `kind-forbidden`;
- a merge reaching beyond those Kinds is 403 `merge-outside-scope`, and writes nothing;
- a vector of a Record of a Kind the caller reads but does not write is 403 `kind-forbidden`.

Values the caller may not read stay masked in what a dry run answers, in the Conflicts a
refused branch merge lists and in `value.unique` refusals (writing is not reading).
"""

from __future__ import annotations

from collections.abc import Mapping

from lorebase_core.access import ReadScope
from lorebase_core.errors import (
    Issue,
    KindForbidden,
    MergeConflicts,
    OperationNotFound,
    ValuesInvalid,
    quoted,
)
from lorebase_core.operation_catalog import operation_kinds
from lorebase_core.operations import MASK
from lorebase_core.schema import OperationDef, Schema
from lorebase_core.values import JsonValue
from lorebase_keeper.auth.authz import Principal
from lorebase_keeper.reads.reading import Keeper
from lorebase_keeper.shapes.common import JsonObject
from lorebase_keeper.writes.proposal_scope import hidden_parameters, operation_visible
from lorebase_keeper.writes.proposal_shapes import conflict_masker


def write_permissions(operation: OperationDef) -> tuple[str, ...]:
    """The permissions whose grants may run an Operation (its own, or execute_custom)."""
    return (*operation.permissions, "operation.execute_custom")


def missing_permission(
    principal: Principal, domain: str, branch: str, permissions: tuple[str, ...]
) -> str | None:
    """The first permission the caller lacks to run an Operation on the branch, None when it
    may: its own permissions, or `operation.execute_custom` and those besides
    `operation.execute`."""
    held = principal.permissions(domain, branch)
    needed = set(permissions)
    if needed <= held:
        return None
    if "operation.execute_custom" in held and needed - {"operation.execute"} <= held:
        return None
    return sorted(needed - held)[0]


def _scope(keeper: Keeper, principal: Principal, domain: str, branch: str) -> ReadScope:
    return principal.read_scope(
        domain, branch, invisible_kinds=keeper.settings.keeper.auth.authz.invisible_kinds
    )


def _narrowed(scope: ReadScope, kinds: frozenset[str] | None) -> ReadScope:
    """The scope limited to `kinds` as well (None: no further limit)."""
    if kinds is None:
        return scope
    within = kinds if scope.kinds is None else scope.kinds & kinds
    return ReadScope(within, scope.clearances, scope.invisible_kinds)


def visible_operations(schema: Schema, scope: ReadScope) -> list[str]:
    """The Operations all of whose Kinds the scope reads: the ones a caller may learn of."""
    return [
        name
        for name, operation in schema.operations.items()
        if operation_visible(operation, schema, scope)
    ]


def operation_scope(
    keeper: Keeper, principal: Principal, domain: str, branch: str, schema: Schema, name: str
) -> ReadScope:
    """The caller's read scope on the branch, once the Operation is checked against it."""
    scope = _scope(keeper, principal, domain, branch)
    operation = visible_operation(schema, name, scope)
    writable = principal.write_kinds(domain, branch, write_permissions(operation))
    outside = sorted(set(operation_kinds(operation, schema)) - writable) if writable else []
    if outside:  # no grant giving the permissions at all: the permission check answers
        granted = ", ".join(sorted(writable or ())) or "none"
        raise KindForbidden(
            f"Operation {name!r} edits Kind {outside[0]!r}; your grants on branch {branch!r} "
            f"write Kinds {granted} only: ask an administrator for a grant",
            operation=name,
            kind=outside[0],
        )
    return scope


def visible_operation(schema: Schema, name: str, scope: ReadScope) -> OperationDef:
    """Operation `name` as the caller sees it, for executing and for reading alike.

    An unknown one and one whose edits reach a Kind the scope does not read answer the same 404
    `operation-not-found` (403 `kind-forbidden` for the latter with `invisible_kinds` false).
    """
    operation = schema.operations.get(name)
    if operation is None or (
        not operation_visible(operation, schema, scope) and scope.invisible_kinds
    ):  # an invisible Operation answers as an unknown one, naming the same visible ones
        raise OperationNotFound.named(name, schema.domain.name, visible_operations(schema, scope))
    if not operation_visible(operation, schema, scope):
        raise KindForbidden(
            f"Your grants do not cover every Kind that Operation {quoted(name)} edits",
            operation=name,
        )
    return operation


def require_kind_writable(
    principal: Principal, domain: str, branch: str, kind: str, permission: str
) -> None:
    """403 kind-forbidden when the grants giving `permission` on the branch skip a read Kind."""
    writable = principal.write_kinds(domain, branch, (permission,))
    if writable and kind not in writable:
        granted = ", ".join(sorted(writable)) or "none"
        raise KindForbidden(
            f"Your grants give {permission} on branch {branch!r} for Kinds {granted} only, not "
            f"for {kind!r}: ask an administrator for a grant",
            kind=kind,
        )


def masked_run(
    operation: OperationDef,
    schema: Schema,
    scope: ReadScope,
    parameters: Mapping[str, JsonValue],
    edits: list[dict[str, object]],
) -> tuple[dict[str, JsonValue], list[JsonObject]]:
    """A dry run's parameters and edits with the values the caller may not read as `***`."""
    hidden = hidden_parameters(operation, schema, scope)
    shown = {name: MASK if name in hidden else value for name, value in parameters.items()}
    masked = scope.mask_edits(schema, edits)
    return shown, masked


def merge_scope(
    keeper: Keeper,
    principal: Principal,
    domain: str,
    target: str,
    permissions: tuple[str, ...] = ("proposal.merge",),
) -> ReadScope | None:
    """The write scope of a merge into `target`: the Kinds the caller reads there that its
    grants giving `permissions` cover (None: every Kind). The store refuses a merge plan
    reaching beyond it (403 `merge-outside-scope`)."""
    scope = _narrowed(
        _scope(keeper, principal, domain, target),
        principal.write_kinds(domain, target, permissions),
    )
    return None if scope.kinds is None else scope


def masked_conflicts(
    keeper: Keeper, principal: Principal, domain: str, target: str, refused: MergeConflicts
) -> MergeConflicts:
    """The 409 of a branch merge with the values the caller may not read as `***`."""
    listed = refused.extra.get("conflicts")
    if not isinstance(listed, list):
        return refused
    scope = _scope(keeper, principal, domain, target)
    schema = keeper.store.schema(domain, branch=target)
    masked = [_masked_conflict(conflict, schema, scope) for conflict in listed]
    return MergeConflicts(refused.detail, **{**refused.extra, "conflicts": masked})


def _masked_conflict(
    conflict: Mapping[str, object], schema: Schema, scope: ReadScope
) -> dict[str, object]:
    """One listed Conflict (`ref`, `attribute`, `base`, `source`, `target`) masked."""
    attribute = conflict.get("attribute")
    shown = conflict_masker(
        str(conflict["entity"]),
        str(conflict["ref"]),
        str(attribute) if attribute else None,
        schema,
        scope,
    )
    sides = ("base", "source", "target")
    return {**conflict, **{side: shown(conflict[side]) for side in sides if side in conflict}}


def masked_issues(issues: list[Issue], schema: Schema, scope: ReadScope) -> list[Issue]:
    """Refusals that would show an unreadable value of other Records, without them.

    A `value.unique` issue (`Kind key, key attribute`) names the Records sharing the value;
    for an Attribute the caller may not read it keeps the Kind, the Attribute and the code only.
    """
    shown = []
    for issue in issues:
        words = issue.path.split(" ")
        kind = schema.kinds.get(words[0])
        rules = kind.attributes.get(words[-1]) if kind is not None and len(words) > 1 else None
        if issue.code == "value.unique" and rules is not None and not scope.value_readable(rules):
            issue = Issue(
                f"{words[0]} {words[-1]}",
                f"the value is not unique; the Records holding it are not shown (the Attribute "
                f"is {', '.join(rules.sensitivity)} and your grants lack that clearance)",
                issue.code,
            )
        shown.append(issue)
    return shown


def masked_invalid(refused: ValuesInvalid, schema: Schema, scope: ReadScope) -> ValuesInvalid:
    """A 422 values-invalid with `masked_issues`."""
    issues = masked_issues(list(refused.issues), schema, scope)
    if issues == list(refused.issues):
        return refused
    return ValuesInvalid(refused.detail, issues, **refused.extra)
