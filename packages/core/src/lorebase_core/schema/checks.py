"""Rules that look across a schema's elements (docs/schema.md). Each returns `Issue`s, never raises."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from lorebase_core.errors import Issue
from lorebase_core.expressions import ExpressionError, compile_expression
from lorebase_core.schema.document import Schema
from lorebase_core.schema.model import AttributeDef, EditDef, KindDef, OperationDef, ValueRules
from lorebase_core.values import (
    ORDERED_TYPES,
    TEXT_TYPES,
    ValueProblem,
    canonical,
    compare,
    parse_type,
)

DOMAIN_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,62}$")
KIND_NAME = re.compile(r"^[A-Z][A-Za-z0-9]{0,62}$")
MEMBER_NAME = re.compile(r"^[a-z][a-z0-9_]{0,62}$")
KEY_FORBIDDEN_TYPES = {"json", "text"}
TEMPLATE_EXTRA_NAMES = frozenset({"invocation_id"})


def check_schema(schema: Schema) -> list[Issue]:
    issues: list[Issue] = []
    if not DOMAIN_NAME.match(schema.domain.name):
        issues.append(
            Issue("domain.name", f"{schema.domain.name!r} must match {DOMAIN_NAME.pattern}")
        )
    issues.extend(_names(schema))
    for name, trait in schema.traits.items():
        for attr_name, rules in trait.attributes.items():
            issues.extend(check_value_rules(rules, f"traits.{name}.attributes.{attr_name}"))
    for name, kind in schema.kinds.items():
        issues.extend(_check_kind(schema, name, kind))
    issues.extend(_check_relations(schema))
    issues.extend(_check_lenses(schema))
    for name, operation in schema.operations.items():
        issues.extend(_check_operation(schema, name, operation))
    return issues


def _names(schema: Schema) -> Iterator[Issue]:
    for section, names, pattern in (
        ("traits", schema.traits, KIND_NAME),
        ("kinds", schema.kinds, KIND_NAME),
        ("relations", schema.relations, MEMBER_NAME),
        ("lenses", schema.lenses, MEMBER_NAME),
        ("operations", schema.operations, MEMBER_NAME),
    ):
        for name in names:
            if not pattern.match(name):
                yield Issue(f"{section}.{name}", f"the name must match {pattern.pattern}", "name")
    owners: list[tuple[str, str, Mapping[str, ValueRules]]] = [
        ("kinds", name, kind.attributes) for name, kind in schema.kinds.items()
    ]
    owners += [("traits", name, trait.attributes) for name, trait in schema.traits.items()]
    for section, name, attributes in owners:
        for attr_name in attributes:
            if not MEMBER_NAME.match(attr_name):
                yield Issue(
                    f"{section}.{name}.attributes.{attr_name}",
                    f"the name must match {MEMBER_NAME.pattern}",
                    "name",
                )
    seen: dict[str, str] = {name: f"relations.{name}" for name in schema.relations}
    for name, relation in schema.relations.items():
        if relation.inverse is None:
            continue
        path = f"relations.{name}.inverse"
        if not MEMBER_NAME.match(relation.inverse):
            yield Issue(path, f"the name must match {MEMBER_NAME.pattern}", "name")
        elif relation.inverse in seen:
            yield Issue(
                path,
                f"{relation.inverse!r} is already used by {seen[relation.inverse]}",
                "duplicate",
            )
        else:
            seen[relation.inverse] = path


def check_value_rules(rules: ValueRules, path: str) -> list[Issue]:
    """Checks of one Attribute or parameter definition on its own."""
    issues: list[Issue] = []
    try:
        base = parse_type(rules.type).base
    except ValueProblem as exc:
        return [Issue(f"{path}.type", str(exc), "type")]
    if base == "enum" and not rules.values:
        issues.append(Issue(f"{path}.values", "an enum needs its values", "missing"))
    if base != "enum" and rules.values is not None:
        issues.append(Issue(f"{path}.values", f"values are for enums, not {rules.type}"))
    if rules.values is not None and len(set(rules.values)) != len(rules.values):
        issues.append(Issue(f"{path}.values", "values must be distinct", "duplicate"))
    if rules.pattern is not None:
        if base not in TEXT_TYPES:
            issues.append(
                Issue(f"{path}.pattern", f"a pattern applies to string and text, not {rules.type}")
            )
        try:
            re.compile(rules.pattern)
        except re.error as exc:
            issues.append(Issue(f"{path}.pattern", f"not a regular expression: {exc}"))
    issues.extend(_check_bounds(rules, base, path))
    for member in ("min_length", "max_length"):
        if getattr(rules, member) is not None and base not in TEXT_TYPES:
            issues.append(
                Issue(
                    f"{path}.{member}", f"length bounds apply to string and text, not {rules.type}"
                )
            )
    if (
        rules.min_length is not None
        and rules.max_length is not None
        and rules.min_length > rules.max_length
    ):
        issues.append(Issue(f"{path}.max_length", "must be >= min_length"))
    return issues


def _check_bounds(rules: ValueRules, base: str, path: str) -> list[Issue]:
    issues: list[Issue] = []
    bounds = {}
    for member in ("min", "max"):
        raw = getattr(rules, member)
        if raw is None:
            continue
        if base not in ORDERED_TYPES:
            issues.append(
                Issue(
                    f"{path}.{member}",
                    f"bounds apply to integer, decimal, date and datetime, not {rules.type}",
                )
            )
            continue
        try:
            bounds[member] = canonical(rules.value_type, raw, from_text=True)
        except ValueProblem as exc:
            issues.append(Issue(f"{path}.{member}", f"not a {rules.type}: {exc}"))
    ordered = "min" in bounds and "max" in bounds
    if ordered and compare(rules.value_type, bounds["min"], bounds["max"]) > 0:
        issues.append(Issue(f"{path}.max", f"must be >= min ({bounds['min']})"))
    return issues


def _check_kind(schema: Schema, name: str, kind: KindDef) -> list[Issue]:
    path = f"kinds.{name}"
    issues: list[Issue] = []
    if not kind.attributes:
        issues.append(Issue(f"{path}.attributes", "a Kind needs at least one Attribute", "missing"))
    for attr_name, attribute in kind.attributes.items():
        issues.extend(
            _check_attribute(kind, attr_name, attribute, f"{path}.attributes.{attr_name}")
        )
    issues.extend(_check_key(name, kind, path))
    if kind.title is not None and kind.title not in kind.attributes:
        issues.append(
            Issue(f"{path}.title", f"{kind.title!r} is not an Attribute of {name}", "unknown")
        )
    issues.extend(_check_traits(schema, kind, path))
    return issues


def _check_key(name: str, kind: KindDef, path: str) -> list[Issue]:
    issues: list[Issue] = []
    if not kind.key:
        issues.append(
            Issue(f"{path}.key", "a Kind needs a key of one or more Attributes", "missing")
        )
    if len(set(kind.key)) != len(kind.key):
        issues.append(Issue(f"{path}.key", "key Attributes must be distinct", "duplicate"))
    for attr_name in kind.key:
        key_attribute = kind.attributes.get(attr_name)
        if key_attribute is None:
            issues.append(
                Issue(f"{path}.key", f"{attr_name!r} is not an Attribute of {name}", "unknown")
            )
            continue
        if _safe_base(key_attribute) in KEY_FORBIDDEN_TYPES:
            issues.append(
                Issue(
                    f"{path}.key",
                    f"{attr_name!r} is {key_attribute.type}; a key cannot be json or text",
                )
            )
        if key_attribute.derived is not None or key_attribute.sensitivity:
            issues.append(
                Issue(f"{path}.key", f"{attr_name!r} is derived or sensitive and cannot be a key")
            )
    return issues


def _check_traits(schema: Schema, kind: KindDef, path: str) -> list[Issue]:
    """Each Trait the Kind carries exists, and the Kind declares its Attributes alike."""
    issues: list[Issue] = []
    for trait_name in kind.traits:
        trait = schema.traits.get(trait_name)
        if trait is None:
            issues.append(
                Issue(f"{path}.traits", f"Trait {trait_name!r} does not exist", "unknown")
            )
            continue
        for attr_name, rules in trait.attributes.items():
            declared = kind.attributes.get(attr_name)
            if declared is None:
                issues.append(
                    Issue(
                        f"{path}.attributes",
                        f"Trait {trait_name} needs Attribute {attr_name!r}",
                        "trait",
                    )
                )
            elif declared.type.replace(" ", "") != rules.type.replace(" ", ""):
                issues.append(
                    Issue(
                        f"{path}.attributes.{attr_name}.type",
                        f"Trait {trait_name} declares {attr_name!r} as {rules.type}, not {declared.type}",
                        "trait",
                    )
                )
    return issues


def _safe_base(rules: ValueRules) -> str | None:
    try:
        return parse_type(rules.type).base
    except ValueProblem:
        return None


def _check_attribute(
    kind: KindDef, attr_name: str, attribute: AttributeDef, path: str
) -> list[Issue]:
    issues = check_value_rules(attribute, path)
    base = _safe_base(attribute)
    if base == "enum" and attribute.values:
        for value in attribute.value_aliases:
            if value not in attribute.values:
                issues.append(
                    Issue(
                        f"{path}.value_aliases.{value}",
                        f"{value!r} is not one of the enum's values",
                    )
                )
    if attribute.vocabulary is not None and base not in ("string", "enum"):
        issues.append(
            Issue(
                f"{path}.vocabulary",
                f"a vocabulary applies to string and enum, not {attribute.type}",
            )
        )
    if attribute.unique and base == "json":
        issues.append(Issue(f"{path}.unique", "json values cannot be unique"))
    if attribute.derived is not None:
        if attribute.required:
            issues.append(
                Issue(f"{path}.required", "a derived Attribute is computed and cannot be required")
            )
        try:
            expression = compile_expression(attribute.derived)
        except ExpressionError as exc:
            issues.append(Issue(f"{path}.derived", str(exc), "expression"))
        else:
            for unknown in sorted(expression.names - set(kind.attributes)):
                issues.append(
                    Issue(
                        f"{path}.derived", f"{unknown!r} is not an Attribute of the Kind", "unknown"
                    )
                )
            if attr_name in expression.names:
                issues.append(
                    Issue(f"{path}.derived", "a Derivation cannot read its own Attribute")
                )
            for other in sorted(expression.names & set(kind.attributes)):
                if kind.attributes[other].derived is not None:
                    issues.append(
                        Issue(
                            f"{path}.derived",
                            f"{other!r} is derived too; Derivations read stored Attributes only",
                        )
                    )
    return issues


def _check_relations(schema: Schema) -> list[Issue]:
    issues: list[Issue] = []
    for name, relation in schema.relations.items():
        path = f"relations.{name}"
        for member, kind_name in (("from", relation.from_kind), ("to", relation.to_kind)):
            if kind_name not in schema.kinds:
                issues.append(
                    Issue(f"{path}.{member}", f"Kind {kind_name!r} does not exist", "unknown")
                )
        issues.extend(_check_aliases(relation.aliases, f"{path}.aliases"))
        for attr_name, attribute in relation.attributes.items():
            attr_path = f"{path}.attributes.{attr_name}"
            if not MEMBER_NAME.match(attr_name):
                issues.append(
                    Issue(attr_path, f"the name must match {MEMBER_NAME.pattern}", "name")
                )
            issues.extend(check_value_rules(attribute, attr_path))
            if attribute.derived is not None or attribute.unique:
                issues.append(Issue(attr_path, "Link Attributes cannot be derived or unique"))
    return issues


def _check_aliases(aliases: tuple[str, ...], path: str) -> list[Issue]:
    """Aliases are words (not blank), each once."""
    issues = [
        Issue(f"{path}.{index}", "an alias needs a word", "empty")
        for index, alias in enumerate(aliases)
        if not any(char.isalnum() for char in alias)
    ]
    if len(set(aliases)) != len(aliases):
        issues.append(Issue(path, "aliases must be distinct", "duplicate"))
    return issues


def _check_lenses(schema: Schema) -> list[Issue]:
    issues: list[Issue] = []
    for name, lens in schema.lenses.items():
        path = f"lenses.{name}"
        issues.extend(
            Issue(f"{path}.kinds", f"Kind {kind!r} does not exist", "unknown")
            for kind in lens.kinds
            if kind not in schema.kinds
        )
        issues.extend(
            Issue(f"{path}.traits", f"Trait {trait!r} does not exist", "unknown")
            for trait in lens.traits
            if trait not in schema.traits
        )
        for relation in lens.relations:
            if not _relation_exists(schema, relation):
                issues.append(
                    Issue(f"{path}.relations", f"Relation {relation!r} does not exist", "unknown")
                )
    return issues


def _relation_exists(schema: Schema, name: str) -> bool:
    return name in schema.relations or any(r.inverse == name for r in schema.relations.values())


def _check_operation(schema: Schema, name: str, operation: OperationDef) -> list[Issue]:
    path = f"operations.{name}"
    issues: list[Issue] = []
    for param_name, rules in operation.parameters.items():
        param_path = f"{path}.parameters.{param_name}"
        if not MEMBER_NAME.match(param_name):
            issues.append(Issue(param_path, f"the name must match {MEMBER_NAME.pattern}", "name"))
        issues.extend(check_value_rules(rules, param_path))
    for effect in operation.side_effects:
        if not MEMBER_NAME.match(effect):
            issues.append(
                Issue(
                    f"{path}.side_effects", f"{effect!r} must match {MEMBER_NAME.pattern}", "name"
                )
            )
    if not operation.edits:
        issues.append(Issue(f"{path}.edits", "an Operation needs at least one edit", "missing"))
    names = set(operation.parameters) | TEMPLATE_EXTRA_NAMES
    if operation.review is not None:
        try:
            policy = compile_expression(operation.review)
        except ExpressionError as exc:
            issues.append(Issue(f"{path}.review", str(exc), "expression"))
        else:
            issues.extend(
                Issue(f"{path}.review", f"{unknown!r} is not a parameter", "unknown")
                for unknown in sorted(policy.names - set(operation.parameters))
            )
    for index, edit in enumerate(operation.edits):
        issues.extend(_check_edit(schema, edit, names, f"{path}.edits.{index}.{edit.op}"))
    return issues


def _check_edit(schema: Schema, edit: EditDef, names: set[str], path: str) -> list[Issue]:
    issues: list[Issue] = []
    attributes: dict[str, AttributeDef] = {}
    if edit.op in {"upsert_record", "update_record", "delete_record"}:
        if edit.kind not in schema.kinds:
            return _missing_target(f"{path}.kind", "Kind", edit.kind)
        attributes = schema.kinds[edit.kind].attributes
        issues.extend(_check_template(edit.key, names, f"{path}.key", required=True))
        if edit.from_ref is not None or edit.to_ref is not None or edit.relation is not None:
            issues.append(Issue(path, "record edits take kind, key and values"))
    else:
        if edit.relation not in schema.relations:
            return _missing_target(f"{path}.relation", "Relation", edit.relation)
        attributes = schema.relations[edit.relation].attributes
        issues.extend(_check_template(edit.from_ref, names, f"{path}.from", required=True))
        issues.extend(_check_template(edit.to_ref, names, f"{path}.to", required=True))
        if edit.kind is not None or edit.key is not None:
            issues.append(Issue(path, "link edits take relation, from, to and values"))
    if edit.op in {"delete_record", "delete_link"} and edit.values:
        issues.append(Issue(f"{path}.values", "a delete takes no values"))
    for attr_name, template in edit.values.items():
        attribute = attributes.get(attr_name)
        if attribute is None:
            issues.append(
                Issue(
                    f"{path}.values.{attr_name}",
                    f"{attr_name!r} is not an Attribute here",
                    "unknown",
                )
            )
        elif attribute.derived is not None:
            issues.append(
                Issue(
                    f"{path}.values.{attr_name}", f"{attr_name!r} is derived and cannot be written"
                )
            )
        issues.extend(_check_template(template, names, f"{path}.values.{attr_name}"))
    return issues


def _missing_target(path: str, noun: str, name: str | None) -> list[Issue]:
    """The one issue of an edit whose Kind or Relation does not exist (or is not given)."""
    return [Issue(path, f"{noun} {name!r} does not exist", "unknown" if name else "missing")]


def _check_template(
    template: object, names: set[str], path: str, *, required: bool = False
) -> list[Issue]:
    if template is None:
        return [Issue(path, "required", "missing")] if required else []
    if isinstance(template, str) and template.startswith("$"):
        if template[1:] not in names:
            return [Issue(path, f"{template!r} names no parameter", "unknown")]
        return []
    if isinstance(template, dict):
        if set(template) != {"expr"} or not isinstance(template["expr"], str):
            return [Issue(path, 'a computed value is written {expr: "..."}')]
        try:
            expression = compile_expression(template["expr"])
        except ExpressionError as exc:
            return [Issue(path, str(exc), "expression")]
        return [
            Issue(path, f"{unknown!r} names no parameter", "unknown")
            for unknown in sorted(expression.names - names)
        ]
    return []
