"""Operations: a declared Operation plus the caller's parameters as a change set (docs/schema.md).

`plan_execution` checks the parameters against their rules, fills the Operation's edit templates
(literals, `$param` and `{expr: ...}` over the parameters and `invocation_id`) and evaluates its
review policy. It reports every problem in one `ValuesInvalid` and writes nothing: the store
commits the returned changes and validates their values against the Kinds and Relations.
`parameter_view` and `execution_summary` show parameters without the values of sensitive ones.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from lorebase_core.changes import Change, DeleteLink, DeleteRecord, UpsertLink, UpsertRecord
from lorebase_core.errors import Issue, OperationNotFound, ValuesInvalid, quoted, shortened
from lorebase_core.expressions import (
    Expression,
    ExpressionError,
    compile_expression,
    result_as_value,
)
from lorebase_core.records import check_value, key_text
from lorebase_core.schema.document import Schema
from lorebase_core.schema.model import EditDef, OperationDef, ValueRules
from lorebase_core.suggestions import hint
from lorebase_core.values import CanonicalValue, ValueProblem

MASK = "***"
INVOCATION_ID = "invocation_id"
_UNQUOTED_TYPES = frozenset({"integer", "decimal", "date", "datetime"})


@dataclass(frozen=True)
class Execution:
    """What running an Operation writes, before the store commits it."""

    operation: str
    parameters: dict[str, CanonicalValue]
    changes: list[Change]
    edits: list[dict[str, object]]
    review_required: bool


def plan_execution(
    schema: Schema, name: str, raw_parameters: object, invocation_id: str
) -> Execution:
    """The changes of Operation `name` run with `raw_parameters`; raises `ValuesInvalid` listing
    every problem (parameters first: templates and the review policy are only evaluated once the
    parameters are valid) or `OperationNotFound`."""
    operation = schema.operations.get(name)
    if operation is None:
        raise OperationNotFound.named(name, schema.domain.name)
    parameters, issues = _check_parameters(operation, raw_parameters)
    if issues:
        raise _invalid(name, issues)
    scope: dict[str, object] = {param: parameters.get(param) for param in operation.parameters}
    scope[INVOCATION_ID] = invocation_id
    changes: list[Change] = []
    edits: list[dict[str, object]] = []
    for index, edit in enumerate(operation.edits):
        planned = _plan_edit(edit, f"edits.{index}.{edit.op}", scope, issues)
        if planned is not None:
            changes.append(planned[0])
            edits.append(planned[1])
    review_required = False
    policy = operation.review_policy
    if policy is not None:
        try:
            review_required = _truthy(policy.evaluate(scope))
        except ExpressionError as exc:
            issues.append(Issue("review", str(exc), "expression"))
    if issues:
        raise _invalid(name, issues)
    return Execution(name, parameters, changes, edits, review_required)


def _invalid(name: str, issues: list[Issue]) -> ValuesInvalid:
    return ValuesInvalid(
        f"Operation {quoted(name)} was not run: {len(set(issues))} problem(s); nothing was written",
        issues,
    )


def _check_parameters(
    operation: OperationDef, raw_parameters: object
) -> tuple[dict[str, CanonicalValue], list[Issue]]:
    """The given parameters in canonical form, sorted by name, and the problems found."""
    if raw_parameters is None:
        raw_parameters = {}
    if not isinstance(raw_parameters, dict):
        return {}, [Issue("parameters", "expected a mapping of parameter names to values")]
    issues: list[Issue] = []
    declared = ", ".join(sorted(operation.parameters)) or "none"
    for unknown in sorted(str(n) for n in raw_parameters if n not in operation.parameters):
        issues.append(
            Issue(
                f"parameters.{shortened(unknown)}",
                f"{quoted(unknown)} is not a parameter of this Operation"
                f"{hint(unknown, operation.parameters, 'parameters', listed=0)} "
                f"(its parameters: {declared})",
                "parameter.unknown",
            )
        )
    parameters: dict[str, CanonicalValue] = {}
    for param, rules in sorted(operation.parameters.items()):
        raw = raw_parameters.get(param)
        if raw is None:
            if rules.required:
                issues.append(Issue(f"parameters.{param}", "a value is required", "value.required"))
            continue
        try:
            value = check_value(rules, raw)
        except ValueProblem as exc:
            issues.append(Issue(f"parameters.{param}", str(exc), "value.invalid"))
            continue
        if value is not None:
            parameters[param] = value
    return parameters, issues


def _plan_edit(
    edit: EditDef, path: str, scope: Mapping[str, object], issues: list[Issue]
) -> tuple[Change, dict[str, object]] | None:
    """One edit as a change and its JSON document; None (with issues added) when it fails."""
    found: list[Issue] = []
    values: dict[str, object] = {}
    for attribute, template in edit.values.items():
        value = _fill(template, scope, f"{path}.values.{attribute}", found)
        if value is not None:
            values[attribute] = value
    source = path
    if edit.op in {"upsert_record", "update_record", "delete_record"}:
        kind = str(edit.kind)
        key = _key(edit.key, scope, f"{path}.key", found)
        issues.extend(found)
        if found or key is None:
            return None
        if edit.op == "delete_record":
            return DeleteRecord(kind, key, source=source), {"op": edit.op, "kind": kind, "key": key}
        change = UpsertRecord(
            kind,
            key,
            dict(values),
            replace=False,
            source=source,
            must_exist=edit.op == "update_record",
        )
        return change, {"op": edit.op, "kind": kind, "key": key, "values": dict(values)}
    relation = str(edit.relation)
    from_key = _key(edit.from_ref, scope, f"{path}.from", found)
    to_key = _key(edit.to_ref, scope, f"{path}.to", found)
    issues.extend(found)
    if found or from_key is None or to_key is None:
        return None
    document: dict[str, object] = {
        "op": edit.op,
        "relation": relation,
        "from": from_key,
        "to": to_key,
    }
    if edit.op == "delete_link":
        return DeleteLink(relation, from_key, to_key, source=source), document
    link = UpsertLink(relation, from_key, to_key, dict(values), replace=False, source=source)
    return link, {**document, "values": dict(values)}


def _fill(template: object, scope: Mapping[str, object], path: str, issues: list[Issue]) -> object:
    """A template's value: `$name` reads the scope, `{expr: ...}` is evaluated, else a literal."""
    if isinstance(template, str) and template.startswith("$"):
        return scope.get(template[1:])
    if isinstance(template, dict) and set(template) == {"expr"}:
        try:
            return _plain(_compiled(str(template["expr"])).evaluate(scope))
        except ExpressionError as exc:
            issues.append(Issue(path, str(exc), "expression"))
            return None
    return template


@lru_cache(maxsize=256)
def _compiled(source: str) -> Expression:
    return compile_expression(source)


def _plain(result: object) -> object:
    """An evaluation result as a plain value: exact numbers as canonical number strings."""
    if isinstance(result, list):
        return [_plain(item) for item in result]
    return result_as_value(result)


def _key(
    template: object, scope: Mapping[str, object], path: str, issues: list[Issue]
) -> str | None:
    """The key string a template gives, or None with an issue when it gives no usable key."""
    found: list[Issue] = []
    value = _fill(template, scope, path, found)
    if found:
        issues.extend(found)
        return None
    if isinstance(value, str | int):  # key_text writes booleans true/false
        text = key_text(value)
        if text.strip():
            return text
        issues.append(Issue(path, "the key is empty", "key.invalid"))
        return None
    if value is None:
        issues.append(Issue(path, "the key has no value", "key.invalid"))
        return None
    issues.append(
        Issue(path, f"a key is a string, not {type(value).__name__} {quoted(value)}", "key.invalid")
    )
    return None


def _truthy(value: object) -> bool:
    return bool(value) if value is not None else False


def parameter_view(
    operation: OperationDef, parameters: Mapping[str, CanonicalValue]
) -> dict[str, CanonicalValue | str]:
    """`parameters` as events and summaries show them, sorted by name: sensitive ones are `***`."""
    view: dict[str, CanonicalValue | str] = {}
    for param in sorted(parameters):
        rules = operation.parameters.get(param)
        view[param] = MASK if rules is not None and rules.sensitive else parameters[param]
    return view


def execution_summary(
    operation_name: str,
    operation: OperationDef,
    parameters: Mapping[str, CanonicalValue],
    invocation_id: str,
    *,
    values: bool = True,
    value_chars: int = 80,
) -> str:
    """One line of a Proposal's description: `- name(a="x", b=2) [invocation]`.

    Names are sorted; text and enum values are JSON-quoted and cut to `value_chars` characters
    (then `…`), numbers, dates and datetimes are unquoted canonical strings, booleans true/false,
    json values compact JSON (cut likewise) and sensitive values `***`. `values=False` gives names only.
    """
    if values:
        shown = [
            f"{param}={_shown(operation.parameters.get(param), parameters[param], value_chars)}"
            for param in sorted(parameters)
        ]
    else:
        shown = sorted(parameters)
    return f"- {operation_name}({', '.join(shown)}) [{invocation_id}]"


def _shown(rules: ValueRules | None, value: CanonicalValue, value_chars: int) -> str:
    if rules is not None and rules.sensitive:
        return MASK
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    base = rules.value_type.base if rules is not None else None
    if isinstance(value, str):
        if base in _UNQUOTED_TYPES:
            return value
        return json.dumps(shortened(value, value_chars), ensure_ascii=False)
    return shortened(json.dumps(value, ensure_ascii=False, separators=(",", ":")), value_chars)
