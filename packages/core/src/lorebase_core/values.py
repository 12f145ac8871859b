"""Value types of Attributes and their canonical forms (see docs/schema.md).

`canonical(value_type, raw, from_text=...)` turns an input value into the one form Lorebase stores
and returns, or raises `ValueProblem` with a message that says what was expected.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Context, Decimal, InvalidOperation
from functools import lru_cache
from typing import Literal, TypeAlias

from lorebase_core.errors import quoted

JsonValue: TypeAlias = bool | int | float | str | list["JsonValue"] | dict[str, "JsonValue"] | None
CanonicalValue: TypeAlias = JsonValue

BaseType = Literal[
    "string", "text", "integer", "decimal", "boolean", "date", "datetime", "enum", "json"
]
BASE_TYPES: tuple[BaseType, ...] = (
    "string",
    "text",
    "integer",
    "decimal",
    "boolean",
    "date",
    "datetime",
    "enum",
    "json",
)
_DECIMAL_TYPE = re.compile(r"^decimal\(\s*(\d+)\s*,\s*(\d+)\s*\)$")
_INTEGER_TEXT = re.compile(r"^[+-]?\d+$")
_DECIMAL_TEXT = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)$")
_DATE_TEXT = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TRUE = frozenset({"true", "yes", "1"})
_FALSE = frozenset({"false", "no", "0"})
MAX_INTEGER_DIGITS = 4000
_EXACT = Context(prec=200)
ORDERED_TYPES: frozenset[BaseType] = frozenset({"integer", "decimal", "date", "datetime"})
TEXT_TYPES: frozenset[BaseType] = frozenset({"string", "text"})


class ValueProblem(ValueError):
    """A value that does not fit its type or a constraint; the message says why."""


@dataclass(frozen=True)
class ValueType:
    """A parsed type: `decimal(10,2)` is `ValueType("decimal", 10, 2)`."""

    base: BaseType
    precision: int | None = None
    scale: int | None = None
    enum_values: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        if self.base == "decimal":
            return f"decimal({self.precision},{self.scale})"
        return self.base


def parse_type(spelling: str) -> ValueType:
    """Parse a type name as written in a schema; raises `ValueProblem` for an unknown one."""
    text = spelling.strip()
    match = _DECIMAL_TYPE.match(text)
    if match:
        precision, scale = int(match.group(1)), int(match.group(2))
        if not 1 <= precision <= 38:
            raise ValueProblem(f"decimal precision must be 1 to 38, not {precision}")
        if scale > precision:
            raise ValueProblem(f"decimal scale {scale} is larger than its precision {precision}")
        return ValueType("decimal", precision, scale)
    if text == "decimal":
        raise ValueProblem("decimal needs a precision and a scale, for example decimal(10,2)")
    for base in BASE_TYPES:
        if text == base:
            return ValueType(base)
    raise ValueProblem(
        f"unknown type {quoted(spelling)}; use one of {', '.join(BASE_TYPES)} or decimal(p,s)"
    )


def canonical(value_type: ValueType, raw: object, *, from_text: bool = False) -> CanonicalValue:
    """The canonical form of `raw` for `value_type`; `None` stays `None` (no value).

    `from_text` says the value comes from a text file (a CSV cell), where every value is a string:
    booleans may then be spelled yes/no/1/0 and json values are JSON text.
    """
    if raw is None:
        return None
    base = value_type.base
    if base == "string":
        text = _require_str(raw)
        if "\n" in text or "\r" in text:
            raise ValueProblem("a string holds a single line; use the text type for longer text")
        return text
    if base == "text":
        return _require_str(raw)
    if base == "integer":
        return _canonical_integer(raw)
    if base == "decimal":
        return _canonical_decimal(value_type, raw)
    if base == "boolean":
        return _canonical_boolean(raw, from_text)
    if base == "date":
        return _canonical_date(raw)
    if base == "datetime":
        return _canonical_datetime(raw)
    if base == "enum":
        return _canonical_enum(value_type, raw)
    return _canonical_json(raw, from_text)


def _require_str(raw: object) -> str:
    if not isinstance(raw, str):
        raise ValueProblem(f"expected a string, got {type(raw).__name__} {quoted(raw)}")
    return raw


_CANONICAL_INTEGER = re.compile(r"^-?(?:0|[1-9][0-9]{0,17})$")


def _canonical_integer(raw: object) -> str:
    if isinstance(raw, str) and _CANONICAL_INTEGER.match(raw) and raw != "-0":
        return raw  # already canonical: the common case of text files
    if isinstance(raw, bool):
        raise ValueProblem(f"expected an integer, got boolean {quoted(raw)}")
    if isinstance(raw, int):
        return str(raw)
    if isinstance(raw, float) and raw.is_integer():
        return str(int(raw))
    if isinstance(raw, str) and _INTEGER_TEXT.match(raw.strip()):
        digits = raw.strip().lstrip("+-").lstrip("0")
        if len(digits) > MAX_INTEGER_DIGITS:
            raise ValueProblem(f"an integer has at most {MAX_INTEGER_DIGITS} digits")
        return str(int(raw.strip()))
    raise ValueProblem(f"expected an integer, got {quoted(raw)}")


@lru_cache(maxsize=64)
def _canonical_decimal_text(precision: int, scale: int) -> re.Pattern[str]:
    integer = f"(?:0|[1-9][0-9]{{0,{max(precision - scale - 1, 0)}}})"
    fraction = rf"\.[0-9]{{{scale}}}" if scale else ""
    return re.compile(rf"^-?{integer}{fraction}$")


def _canonical_decimal(value_type: ValueType, raw: object) -> str:
    scale = value_type.scale or 0
    precision = value_type.precision or 38
    if (
        isinstance(raw, str)
        and _canonical_decimal_text(precision, scale).match(raw)
        and not (raw.startswith("-") and raw.strip("-0.") == "")
    ):
        return raw  # already canonical, and not a negative zero
    if isinstance(raw, bool):
        raise ValueProblem(f"expected a decimal number, got boolean {quoted(raw)}")
    if isinstance(raw, float) and not math.isfinite(raw):
        raise ValueProblem(f"expected a decimal number, got {quoted(raw)}")
    if isinstance(raw, int | float):
        text = repr(raw)
    elif isinstance(raw, str) and _DECIMAL_TEXT.match(raw.strip()):
        text = raw.strip()
    else:
        raise ValueProblem(f"expected a decimal number, got {quoted(raw)}")
    try:
        number = Decimal(text)
    except InvalidOperation as exc:  # pragma: no cover - the pattern above admits only numbers
        raise ValueProblem(f"expected a decimal number, got {quoted(raw)}") from exc
    exponent = number.normalize().as_tuple().exponent
    if isinstance(exponent, int) and -exponent > scale:
        raise ValueProblem(f"{text} has more than {scale} decimal places ({value_type.name})")
    integer_digits = number.adjusted() + 1 if number != 0 else 0
    if integer_digits > precision - scale:
        raise ValueProblem(
            f"{text} has more than {precision - scale} integer digits ({value_type.name})"
        )
    quantized = number.quantize(Decimal(1).scaleb(-scale), context=_EXACT)
    return f"{abs(quantized) if quantized == 0 else quantized:f}"


def _canonical_boolean(raw: object, from_text: bool) -> bool:
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str):
        word = raw.strip().lower()
        if word in {"true", "false"} or from_text:
            if word in _TRUE:
                return True
            if word in _FALSE:
                return False
    raise ValueProblem(f"expected true or false, got {quoted(raw)}")


def _canonical_date(raw: object) -> str:
    if isinstance(raw, date) and not isinstance(raw, datetime):
        return raw.isoformat()
    text = _require_str(raw).strip()
    if not _DATE_TEXT.match(text):
        raise ValueProblem(f"expected a date as YYYY-MM-DD, got {quoted(raw)}")
    try:
        return date.fromisoformat(text).isoformat()
    except ValueError as exc:
        raise ValueProblem(f"{quoted(text)} is not a calendar date") from exc


def _canonical_datetime(raw: object) -> str:
    if isinstance(raw, datetime):
        moment = raw
    else:
        text = _require_str(raw).strip()
        try:
            moment = datetime.fromisoformat(text)
        except ValueError as exc:
            raise ValueProblem(f"expected an ISO 8601 date and time, got {quoted(raw)}") from exc
        if "T" not in text.upper() and " " not in text:
            raise ValueProblem(f"expected a date and a time, got {quoted(raw)}")
    if moment.tzinfo is None:
        raise ValueProblem(f"{raw!s} has no time zone; add Z for UTC or an offset like +02:00")
    return format_datetime(moment)


def format_datetime(moment: datetime) -> str:
    """ISO 8601 in UTC with a Z, microseconds only when there are some."""
    utc = moment.astimezone(UTC)
    if utc.microsecond:
        return utc.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return utc.strftime("%Y-%m-%dT%H:%M:%SZ")


def _canonical_enum(value_type: ValueType, raw: object) -> str:
    text = _require_str(raw).strip()
    if text in value_type.enum_values:
        return text
    folded = text.casefold()
    for name in value_type.enum_values:
        if name.casefold() == folded:
            return name
    raise ValueProblem(f"{quoted(raw)} is not one of {', '.join(value_type.enum_values)}")


def _refuse_constant(name: str) -> JsonValue:
    raise ValueError(f"{name} is not a JSON value")


def _canonical_json(raw: object, from_text: bool) -> JsonValue:
    if from_text and isinstance(raw, str):
        try:
            parsed: JsonValue = json.loads(raw, parse_constant=_refuse_constant)
        except json.JSONDecodeError as exc:
            raise ValueProblem(f"expected JSON text: {exc.msg} at character {exc.pos}") from exc
        except ValueError as exc:
            raise ValueProblem(f"expected JSON text: {exc}") from exc
        return parsed
    try:
        return json.loads(json.dumps(raw, allow_nan=False))  # type: ignore[no-any-return]
    except (TypeError, ValueError) as exc:
        raise ValueProblem(f"not a JSON value: {exc}") from exc


def compare(value_type: ValueType, left: CanonicalValue, right: CanonicalValue) -> int:
    """-1, 0 or 1 as canonical `left` sorts before, with or after `right` (numbers as numbers)."""
    if value_type.base == "integer":
        whole_a, whole_b = int(str(left)), int(str(right))
        return (whole_a > whole_b) - (whole_a < whole_b)
    if value_type.base == "decimal":
        a, b = Decimal(str(left)), Decimal(str(right))
        return (a > b) - (a < b)
    if value_type.base == "datetime":
        moment_a, moment_b = _moment(str(left)), _moment(str(right))
        return (moment_a > moment_b) - (moment_a < moment_b)
    text_a, text_b = str(left), str(right)
    return (text_a > text_b) - (text_a < text_b)


def _moment(canonical_datetime: str) -> datetime:
    return datetime.fromisoformat(canonical_datetime.replace("Z", "+00:00"))
