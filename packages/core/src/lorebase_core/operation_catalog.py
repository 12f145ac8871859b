"""What an Operation declares, described for a caller who has not read schema.yaml (docs/writes.md).

`describe_operation` gives the document `GET /schema`, `GET /operations` and
`GET /operations/{op}` answer for one Operation (the caller's own part, whether it may execute
it, is added by Keeper): its parameters with their rules, what each one names (`refers_to`: the
Kinds whose key it is, `sets`: the Attributes it writes) and a sentence saying the same, the
edits it makes, its review in data and in words, its side effects and permissions. Everything
comes from the schema and the branch's protection: no store, no principal.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, Literal

from lorebase_core.expressions import Expression
from lorebase_core.schema.document import Schema
from lorebase_core.schema.model import EditDef, OperationDef, ValueRules

ReviewNeed = Literal["always", "conditional", "never"]
ReviewReason = Literal["protected-branch", "review-policy"]

_COMPARISONS: dict[type[ast.cmpop], str] = {
    ast.Eq: "is",
    ast.NotEq: "is not",
    ast.Lt: "is less than",
    ast.LtE: "is at most",
    ast.Gt: "is greater than",
    ast.GtE: "is at least",
    ast.In: "is one of",
    ast.NotIn: "is not one of",
}
_CONSTANT_NAMES = {"true": True, "false": False, "null": None}
_RULE_MEMBERS = ("pattern", "min", "max", "min_length", "max_length")


@dataclass
class ParameterUse:
    """What a parameter names in an Operation's edits."""

    refers_to: set[str] = field(default_factory=set)
    """Kinds whose key the parameter is (`key`, `from` or `to` given as `$param`)."""
    sets: list[str] = field(default_factory=list)
    """`Kind.attribute` or `relation.attribute` the parameter's value is written to."""


# -- parameters -----------------------------------------------------------------------------------


def parameter_uses(operation: OperationDef, schema: Schema) -> dict[str, ParameterUse]:
    """Per declared parameter, the Kinds it is the key of and the Attributes it sets."""
    uses = {name: ParameterUse() for name in operation.parameters}
    for edit in operation.edits:
        for template, kind in _key_templates(edit, schema):
            name = _parameter_of(template)
            if name in uses and kind is not None:
                uses[name].refers_to.add(kind)
        owner = edit.kind if edit.kind is not None else edit.relation
        for attribute, template in edit.values.items():
            name = _parameter_of(template)
            target = f"{owner}.{attribute}"
            if name in uses and target not in uses[name].sets:
                uses[name].sets.append(target)
    return uses


def _key_templates(edit: EditDef, schema: Schema) -> list[tuple[object, str | None]]:
    if edit.kind is not None:
        return [(edit.key, edit.kind)]
    relation = schema.relations.get(str(edit.relation))
    if relation is None:
        return []
    return [(edit.from_ref, relation.from_kind), (edit.to_ref, relation.to_kind)]


def _parameter_of(template: object) -> str | None:
    """The parameter a template is (`$name`), None for literals and expressions."""
    if isinstance(template, str) and template.startswith("$"):
        return template[1:]
    return None


def parameter_json(name: str, rules: ValueRules, use: ParameterUse) -> dict[str, Any]:
    """One parameter: its rules (members as GET /schema gives Attributes, `required` always) and
    what it names, with `summary`, the same in a sentence."""
    entry: dict[str, Any] = {"name": name, "type": rules.type, "required": rules.required}
    if rules.description:
        entry["description"] = rules.description
    for member in _RULE_MEMBERS:
        value = getattr(rules, member)
        if value is not None:  # a bound of 0 is a bound
            entry[member] = value
    if rules.values:
        entry["values"] = list(rules.values)
    if rules.sensitivity:
        entry["sensitivity"] = list(rules.sensitivity)
    if use.refers_to:
        entry["refers_to"] = sorted(use.refers_to)
    if use.sets:
        entry["sets"] = list(use.sets)
    entry["summary"] = parameter_summary(rules, use)
    return entry


def parameter_summary(rules: ValueRules, use: ParameterUse | None = None) -> str:
    """A parameter's rules in one sentence: `Required. A string matching ^S-[0-9]{4}$: the key
    of a Supplier.`"""
    qualifiers = []
    if rules.pattern is not None:
        qualifiers.append(f"matching {rules.pattern}")
    bounds = _bound_words(rules.min, rules.max, "", "from ")
    if bounds:
        qualifiers.append(bounds)
    lengths = _bound_words(rules.min_length, rules.max_length, " characters", "")
    if lengths:
        qualifiers.append(f"of {lengths}")
    sentence = _type_words(rules) + (" " + ", ".join(qualifiers) if qualifiers else "")
    if use is not None and use.refers_to:
        sentence += f": the key of a {' or '.join(sorted(use.refers_to))}"
    elif use is not None and use.sets:
        sentence += f": sets {', '.join(use.sets)}"
    prefix = "Required" if rules.required else "Optional"
    suffix = f" Its value is {', '.join(rules.sensitivity)}." if rules.sensitivity else ""
    return f"{prefix}. {sentence[0].upper()}{sentence[1:]}.{suffix}"


def _type_words(rules: ValueRules) -> str:
    value_type = rules.value_type
    if value_type.base == "enum":
        return "one of " + ", ".join(repr(value) for value in rules.values or ())
    if value_type.base == "decimal":
        return (
            f"a {rules.type} (at most {value_type.precision} digits, "
            f"{value_type.scale} after the point)"
        )
    if value_type.base == "json":
        return "a JSON value"
    article = "an" if value_type.base[0] in "aeiou" else "a"
    return f"{article} {value_type.base}"


def _bound_words(low: object, high: object, unit: str, span: str) -> str:
    if low is not None and high is not None:
        return f"{span}{low} to {high}{unit}"
    if low is not None:
        return f"at least {low}{unit}"
    if high is not None:
        return f"at most {high}{unit}"
    return ""


# -- review -----------------------------------------------------------------------------------------


def review_need(operation: OperationDef, *, protected: bool) -> ReviewNeed:
    """Whether an execution on a branch needs review: `always` on a protected branch (or with a
    policy that is a true constant), `conditional` with a policy, else `never`."""
    policy = operation.review_policy
    constant = _constant(policy)
    if protected or (constant is not None and constant[0]):
        return "always"
    if policy is None or constant is not None:
        return "never"
    return "conditional"


def _constant(policy: Expression | None) -> tuple[bool] | None:
    """(truth,) of a policy that is a literal, None for any other (or no) policy."""
    if policy is None:
        return None
    body = policy.tree.body
    if isinstance(body, ast.Constant):
        return (bool(body.value),)
    if isinstance(body, ast.Name) and body.id in _CONSTANT_NAMES:
        return (bool(_CONSTANT_NAMES[body.id]),)
    return None


def policy_words(policy: Expression) -> str:
    """A review policy in words: `severity == 'critical'` is `severity is 'critical'`."""
    return _words(policy.tree.body)


def _words(node: ast.AST, nested: bool = False) -> str:
    if isinstance(node, ast.BoolOp):
        joiner = " and " if isinstance(node.op, ast.And) else " or "
        text = joiner.join(_words(value, nested=True) for value in node.values)
        return f"({text})" if nested else text
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        if isinstance(node.operand, ast.Name):
            return f"{node.operand.id} is false or not given"
        return f"not {_words(node.operand, nested=True)}"
    if isinstance(node, ast.Compare):
        return " and ".join(_comparison(node))
    if isinstance(node, ast.Name) and node.id not in _CONSTANT_NAMES:
        return f"{node.id} is true"
    return _operand(node)


def _comparison(node: ast.Compare) -> list[str]:
    found = []
    left = node.left
    for op, right in zip(node.ops, node.comparators, strict=True):
        if isinstance(op, ast.Eq | ast.NotEq) and _is_null(right):
            verb = "is not given" if isinstance(op, ast.Eq) else "is given"
            found.append(f"{_operand(left)} {verb}")
        else:
            found.append(f"{_operand(left)} {_COMPARISONS[type(op)]} {_operand(right)}")
        left = right
    return found


def _is_null(node: ast.AST) -> bool:
    return (isinstance(node, ast.Constant) and node.value is None) or (
        isinstance(node, ast.Name) and node.id == "null"
    )


def _operand(node: ast.AST) -> str:
    if isinstance(node, ast.List | ast.Tuple):
        return ", ".join(_operand(item) for item in node.elts)
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool):
            return "true" if node.value else "false"
        if node.value is None:
            return "no value"
        return repr(node.value)
    if isinstance(node, ast.Name):
        return node.id
    return ast.unparse(node)


def review_reasons(operation: OperationDef, *, protected: bool) -> list[ReviewReason]:
    """The reasons a `409 review-required` of this Operation may give on the branch."""
    reasons: list[ReviewReason] = ["protected-branch"] if protected else []
    if operation.review is not None and review_need(operation, protected=False) != "never":
        reasons.append("review-policy")
    return reasons


def review_sentence(operation: OperationDef, *, branch: str, protected: bool) -> str:
    """Whether and when an execution on `branch` needs review, and what to do then."""
    policy = operation.review_policy
    alone = review_need(operation, protected=False)
    if alone == "conditional" and policy is not None:
        when = f"when {policy_words(policy)} (its review policy)"
    else:
        when = "always (its review policy)" if alone == "always" else ""
    if protected:
        sentence = f"Every execution on branch {branch!r} needs review: the branch is protected."
        if when:
            sentence += f" On any branch it needs review {when}."
    elif when:
        sentence = f"An execution on branch {branch!r} needs review {when}; otherwise it commits."
    else:
        return f"No review: an execution on branch {branch!r} commits directly."
    return (
        sentence + " Name a task (and an intent) to have Keeper open the task branch and its"
        " Proposal; without one the write answers 409 review-required."
    )


def review_json(operation: OperationDef, *, branch: str, protected: bool) -> dict[str, Any]:
    """The review of an Operation on a branch, as data and as a sentence."""
    policy = operation.review_policy
    return {
        "needed": review_need(operation, protected=protected),
        "reasons": review_reasons(operation, protected=protected),
        "protected_branch": protected,
        "policy": operation.review,
        "policy_parameters": sorted(policy.names & set(operation.parameters))
        if policy is not None
        else [],
        "when": policy_words(policy) if policy is not None and _constant(policy) is None else None,
        "description": review_sentence(operation, branch=branch, protected=protected),
    }


# -- the Operation ----------------------------------------------------------------------------------


def operation_kinds(operation: OperationDef, schema: Schema) -> list[str]:
    """The Kinds an Operation's edits write (a Link edit: both end Kinds), sorted."""
    found: set[str] = set()
    for edit in operation.edits:
        if edit.kind is not None:
            found.add(edit.kind)
        elif edit.relation is not None and edit.relation in schema.relations:
            relation = schema.relations[edit.relation]
            found |= {relation.from_kind, relation.to_kind}
    return sorted(found)


def edit_json(edit: EditDef, schema: Schema) -> dict[str, Any]:
    """One declared edit: what it writes (Kind or Relation with its ends, Attribute names), not
    its templates."""
    entry: dict[str, Any] = {"op": edit.op}
    if edit.kind is not None:
        entry["kind"] = edit.kind
    else:
        relation = schema.relations[str(edit.relation)]
        entry |= {"relation": edit.relation, "from": relation.from_kind, "to": relation.to_kind}
    if edit.op not in ("delete_record", "delete_link"):
        entry["attributes"] = list(edit.values)
    return entry


def describe_operation(
    schema: Schema, name: str, *, branch: str, protected: bool
) -> dict[str, Any]:
    """The document of Operation `name` (it must exist) read on `branch`; members in a fixed
    order, parameters and edits as declared, Kinds sorted."""
    operation = schema.operations[name]
    uses = parameter_uses(operation, schema)
    return {
        "name": name,
        "description": operation.description,
        "parameters": [
            parameter_json(param, rules, uses[param])
            for param, rules in operation.parameters.items()
        ],
        "edits": [edit_json(edit, schema) for edit in operation.edits],
        "kinds": operation_kinds(operation, schema),
        "review": review_json(operation, branch=branch, protected=protected),
        "side_effects": [
            {"name": effect, "event": f"operation.{effect}"} for effect in operation.side_effects
        ],
        "permissions": list(operation.permissions),
    }
