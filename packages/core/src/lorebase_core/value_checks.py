"""One value checker per definition, compiled once: its type's parser and only the rules it has.

`check_value` (records.py) used to branch on the type's name and test every rule for every value
of every Record; an import checks millions. `compile_checker` makes that choice once per
definition (`ValueRules.checker` keeps the result), so a value runs only what applies to it. The
checks and their messages are those of `canonical` and the rules, unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from lorebase_core.errors import quoted
from lorebase_core.values import CanonicalValue, ValueProblem, ValueType, canonical, compare

Checker = Callable[[object, bool], CanonicalValue]
"""A compiled check: (raw value, from_text) -> the canonical value, or raises `ValueProblem`."""


Check = Callable[[CanonicalValue], None]


def compile_checker(
    value_type: ValueType,
    *,
    pattern: re.Pattern[str] | None,
    min_length: int | None,
    max_length: int | None,
    bounds: tuple[CanonicalValue, CanonicalValue],
) -> Checker:
    """The checker of one definition: canonical form, then its pattern, lengths and bounds."""
    low, high = bounds
    checks = [
        check
        for check in (
            None if pattern is None else _matches(pattern),
            None if min_length is None else _long_enough(min_length),
            None if max_length is None else _short_enough(max_length),
            None if low is None else _above(value_type, low),
            None if high is None else _below(value_type, high),
        )
        if check is not None
    ]

    def checked(raw: object, from_text: bool) -> CanonicalValue:
        value = canonical(value_type, raw, from_text=from_text)
        if value is not None:
            for check in checks:
                check(value)
        return value

    return checked


def _matches(pattern: re.Pattern[str]) -> Check:
    def check(value: CanonicalValue) -> None:
        if isinstance(value, str) and not pattern.fullmatch(value):
            raise ValueProblem(f"{quoted(value)} does not match the pattern {pattern.pattern}")

    return check


def _long_enough(least: int) -> Check:
    def check(value: CanonicalValue) -> None:
        if isinstance(value, str) and len(value) < least:
            raise ValueProblem(f"is shorter than {least} characters")

    return check


def _short_enough(most: int) -> Check:
    def check(value: CanonicalValue) -> None:
        if isinstance(value, str) and len(value) > most:
            raise ValueProblem(f"is longer than {most} characters")

    return check


def _above(value_type: ValueType, low: CanonicalValue) -> Check:
    def check(value: CanonicalValue) -> None:
        if compare(value_type, value, low) < 0:
            raise ValueProblem(f"{value} is below the minimum {low}")

    return check


def _below(value_type: ValueType, high: CanonicalValue) -> Check:
    def check(value: CanonicalValue) -> None:
        if compare(value_type, value, high) > 0:
            raise ValueProblem(f"{value} is above the maximum {high}")

    return check
