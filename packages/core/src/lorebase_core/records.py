"""Validate Record and Link values against a schema and put them in canonical form.

Used by every write path (imports, change sets, Operations), so all of them accept and refuse the
same values. Each problem is an `Issue` whose path names the Attribute.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from lorebase_core.errors import Issue, quoted, shortened
from lorebase_core.expressions import ExpressionError, result_as_value
from lorebase_core.refs import join_key, split_key
from lorebase_core.schema.document import Schema
from lorebase_core.schema.model import AttributeDef, KindDef, ValueRules
from lorebase_core.values import CanonicalValue, ValueProblem, canonical

Values = dict[str, CanonicalValue]


@dataclass(frozen=True)
class CheckedValues:
    values: Values
    issues: list[Issue]


def check_value(rules: ValueRules, raw: object, *, from_text: bool = False) -> CanonicalValue:
    """One value in canonical form, checked against every rule of its definition."""
    return rules.checker(raw, from_text)


def check_values(
    attributes: Mapping[str, AttributeDef],
    raw_values: Mapping[str, object],
    *,
    from_text: bool = False,
    partial: bool = False,
) -> CheckedValues:
    """Canonical values of a Record or Link; `partial` skips required checks (a patch).

    Derived Attributes may not be written; missing values (None) are dropped from the result.
    """
    values: Values = {}
    issues: list[Issue] = []
    for name, raw in raw_values.items():
        attribute = attributes.get(name)
        if attribute is None:
            issues.append(
                Issue(
                    shortened(name), f"{quoted(name)} is not an Attribute here", "attribute.unknown"
                )
            )
            continue
        if attribute.derived is not None:
            if raw is not None and raw != "":
                issues.append(
                    Issue(
                        name,
                        f"{quoted(name)} is derived and cannot be written",
                        "attribute.derived",
                    )
                )
            continue
        if from_text and raw == "":
            raw = None
        try:
            value = check_value(attribute, raw, from_text=from_text)
        except ValueProblem as exc:
            issues.append(Issue(name, str(exc), "value.invalid"))
            continue
        if value is not None:
            values[name] = value
    if not partial:
        issues.extend(missing_required(attributes, values))
    return CheckedValues(values, issues)


def missing_required(
    attributes: Mapping[str, AttributeDef],
    values: Mapping[str, CanonicalValue],
    key: tuple[str, ...] = (),
) -> list[Issue]:
    return [
        Issue(name, "a value is required", "value.required")
        for name, attribute in attributes.items()
        if (attribute.required or name in key)
        and attribute.derived is None
        and values.get(name) is None
    ]


def derive(kind: KindDef, values: Values) -> Values:
    """`values` with every derived Attribute computed (absent when its Derivation fails)."""
    derived = kind.derived_attributes
    if not derived:
        return values
    result = {name: value for name, value in values.items() if name not in derived}
    for name, attribute in derived.items():
        derivation = attribute.derivation
        if derivation is None:  # pragma: no cover - derived_attributes holds derived ones only
            continue
        try:
            computed = canonical(attribute.value_type, result_as_value(derivation.evaluate(result)))
        except (ExpressionError, ValueProblem):
            continue
        if computed is not None:
            result[name] = computed
    return result


def record_key(kind: KindDef, values: Mapping[str, CanonicalValue]) -> str | None:
    """The key string of a Record's values, or None when a key Attribute has no value."""
    parts = []
    for name in kind.key:
        value = values.get(name)
        if value is None:
            return None
        parts.append(key_text(value))
    return join_key(parts)


def key_text(value: CanonicalValue) -> str:
    """A canonical value as it is written in a key string (booleans as true/false)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def record_title(kind: KindDef, values: Mapping[str, CanonicalValue]) -> str | None:
    if kind.title is None:
        return None
    value = values.get(kind.title)
    return None if value is None else str(value)


def key_values(schema: Schema, kind_name: str, key: str) -> Values:
    """The key Attributes' values named by a key string, canonicalized."""
    kind = schema.kind(kind_name)
    parts = split_key(key, len(kind.key))
    return {
        name: check_value(kind.attributes[name], part, from_text=True)
        for name, part in zip(kind.key, parts, strict=True)
    }
