"""Re-validation of stored Records against the current schema, for the health report.

Stored values were checked against the schema of the Revision that wrote them; a later schema may
be stricter. These checks reuse the write path's rules (`lorebase_core.records`,
`lorebase_core.values`) and name which rule a value breaks, so the report can group problems:

| rule | meaning |
| --- | --- |
| `attribute.unknown` | a stored value of an Attribute the Kind no longer declares |
| `value.type` | the value does not fit the Attribute's type (an enum value not declared, ...) |
| `value.canonical` | the value fits, but is not stored in its canonical form |
| `value.pattern`, `value.min_length`, `value.max_length`, `value.min`, `value.max` | a constraint |
| `value.required` | a required (or key) Attribute has no value |
| `key.mismatch` | the Record's key is not the one its key Attributes make |
| `trait.<rule>` | the value breaks a rule of a Trait the Kind implements (`trait.required`, ...) |
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lorebase_core.records import check_value, missing_required, record_key
from lorebase_core.schema import KindDef, Schema, ValueRules
from lorebase_core.values import ValueProblem, canonical, compare

Problem = tuple[str, str]
"""(rule, Attribute) of one problem of one Record."""

_SPACES = re.compile(r"\s+")


def normalized(value: object) -> str | None:
    """A value compared for duplicates: case folded, runs of spacing made one space, trimmed."""
    if value is None or isinstance(value, dict | list):
        return None
    text = _SPACES.sub(" ", str(value)).strip().casefold()
    return text or None


def _rule_broken(rules: ValueRules, value: Any) -> str | None:
    """Which constraint of `rules` a canonical value breaks (in `check_value`'s order)."""
    try:
        check_value(rules, value)
    except ValueProblem:
        pass
    else:
        return None
    pattern = rules.compiled_pattern
    if pattern is not None and isinstance(value, str) and not pattern.fullmatch(value):
        return "pattern"
    if isinstance(value, str) and rules.min_length is not None and len(value) < rules.min_length:
        return "min_length"
    if isinstance(value, str) and rules.max_length is not None and len(value) > rules.max_length:
        return "max_length"
    low, high = rules.bounds
    if low is not None and compare(rules.value_type, value, low) < 0:
        return "min"
    if high is not None and compare(rules.value_type, value, high) > 0:
        return "max"
    return "type"  # pragma: no cover - check_value raises for the rules above only


def value_problem(rules: ValueRules, value: Any) -> str | None:
    """The rule (without prefix) a stored value breaks: type, canonical or a constraint."""
    try:
        canonical_value = canonical(rules.value_type, value)
    except ValueProblem:
        return "type"
    if canonical_value != value or type(canonical_value) is not type(value):
        return "canonical"
    return _rule_broken(rules, value)


@dataclass
class KindChecks:
    """The checks of one Kind's Records, built once and applied to each stored row."""

    kind: KindDef
    traits: list[dict[str, ValueRules]] = field(default_factory=list)

    @classmethod
    def of(cls, schema: Schema, kind_name: str) -> KindChecks:
        kind = schema.kinds[kind_name]
        traits = [
            dict(schema.traits[name].attributes) for name in kind.traits if name in schema.traits
        ]
        return cls(kind, traits)

    def problems(self, key: str, values: Mapping[str, Any]) -> list[Problem]:
        """Every (rule, Attribute) a Record breaks, each once, sorted."""
        found: set[Problem] = set()
        attributes = self.kind.attributes
        for name, value in values.items():
            attribute = attributes.get(name)
            if attribute is None:
                found.add(("attribute.unknown", name))
                continue
            if attribute.derived is not None or value is None:
                continue  # derived values are the `derived` part of the report
            broken = value_problem(attribute, value)
            if broken is not None:
                found.add((f"value.{broken}", name))
        for issue in missing_required(attributes, values, self.kind.key):
            found.add((issue.code, issue.path))
        made = record_key(self.kind, values)
        if made is not None and made != key:
            found.add(("key.mismatch", ",".join(self.kind.key)))
        for trait in self.traits:
            for name, rules in trait.items():
                value = values.get(name)
                if value is None:
                    if rules.required:
                        found.add(("trait.required", name))
                    continue
                broken = value_problem(rules, value)
                if broken is not None:
                    found.add((f"trait.{broken}", name))
        return sorted(found)
