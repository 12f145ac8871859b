"""Value types and canonical forms (docs/schema.md, "Attribute types and canonical forms")."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal

import pytest

from lorebase_core.values import (
    BASE_TYPES,
    ValueProblem,
    ValueType,
    canonical,
    compare,
    format_datetime,
    parse_type,
)

STRING = ValueType("string")
TEXT = ValueType("text")
INTEGER = ValueType("integer")
BOOLEAN = ValueType("boolean")
DATE = ValueType("date")
DATETIME = ValueType("datetime")
JSON = ValueType("json")
STATUS = ValueType("enum", enum_values=("active", "Suspended", "ON_HOLD"))


def decimal_type(precision: int, scale: int) -> ValueType:
    return parse_type(f"decimal({precision},{scale})")


# --- parse_type ------------------------------------------------------------------------------


@pytest.mark.parametrize("base", [base for base in BASE_TYPES if base != "decimal"])
def test_parse_type_accepts_every_base_type(base: str) -> None:
    parsed = parse_type(base)
    assert parsed.base == base
    assert parsed.name == base
    assert parsed.precision is None
    assert parsed.scale is None


@pytest.mark.parametrize(
    ("spelling", "precision", "scale"),
    [
        pytest.param("decimal(10,2)", 10, 2, id="plain"),
        pytest.param("decimal( 10 , 2 )", 10, 2, id="spaces"),
        pytest.param("  decimal(5,0)  ", 5, 0, id="outer-spaces-scale-0"),
        pytest.param("decimal(38,38)", 38, 38, id="max-precision-all-fraction"),
        pytest.param("decimal(1,1)", 1, 1, id="smallest"),
    ],
)
def test_parse_type_decimal(spelling: str, precision: int, scale: int) -> None:
    parsed = parse_type(spelling)
    assert parsed == ValueType("decimal", precision, scale)
    assert parsed.name == f"decimal({precision},{scale})"


@pytest.mark.parametrize(
    ("spelling", "message"),
    [
        pytest.param("decimal", "needs a precision and a scale", id="decimal-bare"),
        pytest.param("decimal(0,0)", "precision must be 1 to 38", id="precision-0"),
        pytest.param("decimal(39,2)", "precision must be 1 to 38", id="precision-39"),
        pytest.param(
            "decimal(5,6)", "scale 6 is larger than its precision 5", id="scale-gt-precision"
        ),
        pytest.param("decimal(10)", "unknown type", id="decimal-one-arg"),
        pytest.param("decimal(-1,2)", "unknown type", id="decimal-negative"),
        pytest.param("String", "unknown type", id="capitalized"),
        pytest.param("float", "unknown type", id="float"),
        pytest.param("int", "unknown type", id="int"),
        pytest.param("", "unknown type", id="empty"),
    ],
)
def test_parse_type_refuses(spelling: str, message: str) -> None:
    with pytest.raises(ValueProblem, match=message):
        parse_type(spelling)


def test_value_problem_is_a_value_error() -> None:
    assert issubclass(ValueProblem, ValueError)


# --- no value --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value_type",
    [
        pytest.param(STRING, id="string"),
        pytest.param(TEXT, id="text"),
        pytest.param(INTEGER, id="integer"),
        pytest.param(decimal_type(10, 2), id="decimal"),
        pytest.param(BOOLEAN, id="boolean"),
        pytest.param(DATE, id="date"),
        pytest.param(DATETIME, id="datetime"),
        pytest.param(STATUS, id="enum"),
        pytest.param(JSON, id="json"),
    ],
)
@pytest.mark.parametrize(
    "from_text", [pytest.param(False, id="json"), pytest.param(True, id="text")]
)
def test_none_means_no_value(value_type: ValueType, from_text: bool) -> None:
    assert canonical(value_type, None, from_text=from_text) is None


# --- string and text -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param("Corvane", id="word"),
        pytest.param("", id="empty"),
        pytest.param("  padded  ", id="spaces-kept"),
        pytest.param("tab\there", id="tab"),
        pytest.param("Zürich ✓", id="unicode"),
    ],
)
def test_string_is_kept_as_is(raw: str) -> None:
    assert canonical(STRING, raw) == raw
    assert canonical(STRING, raw, from_text=True) == raw


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param("two\nlines", id="newline"),
        pytest.param("two\rlines", id="carriage-return"),
        pytest.param("two\r\nlines", id="crlf"),
        pytest.param("trailing\n", id="trailing-newline"),
    ],
)
def test_string_refuses_line_breaks(raw: str) -> None:
    with pytest.raises(ValueProblem, match="single line"):
        canonical(STRING, raw)


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param("two\nlines", id="newline"),
        pytest.param("a\r\nb\n", id="crlf"),
        pytest.param("", id="empty"),
    ],
)
def test_text_accepts_any_string(raw: str) -> None:
    assert canonical(TEXT, raw) == raw


@pytest.mark.parametrize(
    "value_type", [pytest.param(STRING, id="string"), pytest.param(TEXT, id="text")]
)
@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(42, id="int"),
        pytest.param(True, id="bool"),
        pytest.param(1.5, id="float"),
        pytest.param(["a"], id="list"),
        pytest.param({"a": 1}, id="dict"),
    ],
)
def test_string_and_text_refuse_non_strings(value_type: ValueType, raw: object) -> None:
    with pytest.raises(ValueProblem, match="expected a string"):
        canonical(value_type, raw)


# --- integer ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(7, "7", id="int"),
        pytest.param(-3, "-3", id="negative-int"),
        pytest.param(0, "0", id="zero"),
        pytest.param("7", "7", id="text"),
        pytest.param("+7", "7", id="plus-sign"),
        pytest.param("042", "42", id="leading-zero"),
        pytest.param("-03", "-3", id="negative-leading-zero"),
        pytest.param("-0", "0", id="negative-zero"),
        pytest.param("+0", "0", id="plus-zero"),
        pytest.param("000", "0", id="zeros"),
        pytest.param(" 42 ", "42", id="surrounding-spaces"),
        pytest.param(10**30, "1" + "0" * 30, id="big-int"),
        pytest.param("-" + "9" * 40, "-" + "9" * 40, id="big-text"),
    ],
)
def test_integer_canonical_form(raw: object, expected: str) -> None:
    assert canonical(INTEGER, raw) == expected
    if isinstance(raw, str):
        assert canonical(INTEGER, raw, from_text=True) == expected


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param("4.2", id="decimal-text"),
        pytest.param("42.0", id="decimal-zero-fraction"),
        pytest.param(4.5, id="fractional-float"),
        pytest.param("1e3", id="exponent"),
        pytest.param("", id="empty"),
        pytest.param("forty", id="word"),
        pytest.param("4 2", id="inner-space"),
        pytest.param("0x10", id="hex"),
        pytest.param("1_000", id="underscore"),
        pytest.param("--1", id="double-sign"),
        pytest.param(True, id="true"),
        pytest.param(False, id="false"),
        pytest.param([1], id="list"),
    ],
)
def test_integer_refuses(raw: object) -> None:
    with pytest.raises(ValueProblem, match="integer"):
        canonical(INTEGER, raw)


def test_integer_of_many_digits_is_canonical_or_a_value_problem() -> None:
    digits = "1" * 5000
    try:
        result = canonical(INTEGER, digits)
    except ValueProblem:
        return
    assert result == digits


# --- decimal ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spelling", "raw", "expected"),
    [
        pytest.param("decimal(10,2)", "24.1", "24.10", id="pads-to-scale"),
        pytest.param("decimal(10,2)", "24.01", "24.01", id="exact-scale"),
        pytest.param("decimal(10,2)", "3.5", "3.50", id="doc-example"),
        pytest.param("decimal(10,2)", "24", "24.00", id="integer-text"),
        pytest.param("decimal(10,2)", 24, "24.00", id="int"),
        pytest.param("decimal(10,2)", 0.1, "0.10", id="float-exact-repr"),
        pytest.param("decimal(10,2)", 24.5, "24.50", id="float"),
        pytest.param("decimal(10,2)", "+1.5", "1.50", id="plus-sign"),
        pytest.param("decimal(10,2)", "-1.5", "-1.50", id="negative"),
        pytest.param("decimal(10,2)", "-0.5", "-0.50", id="negative-below-one"),
        pytest.param("decimal(10,2)", "-0", "0.00", id="negative-zero"),
        pytest.param("decimal(10,2)", "-0.00", "0.00", id="negative-zero-fraction"),
        pytest.param(
            "decimal(3,3)",
            "-0.000",
            "0.000",
            id="negative-zero-all-fraction",
        ),
        pytest.param("decimal(5,0)", "-0", "0", id="negative-zero-scale-0"),
        pytest.param("decimal(10,2)", ".5", "0.50", id="leading-dot"),
        pytest.param("decimal(10,2)", "5.", "5.00", id="trailing-dot"),
        pytest.param("decimal(10,2)", "007.5", "7.50", id="leading-zeros"),
        pytest.param("decimal(10,2)", " 1.25 ", "1.25", id="spaces"),
        pytest.param("decimal(10,2)", "24.100", "24.10", id="trailing-zero-beyond-scale"),
        pytest.param("decimal(10,2)", "99999999.99", "99999999.99", id="largest"),
        pytest.param("decimal(10,2)", "-99999999.99", "-99999999.99", id="smallest"),
        pytest.param("decimal(5,0)", "12345", "12345", id="scale-0"),
        pytest.param("decimal(5,0)", "12345.0", "12345", id="scale-0-zero-fraction"),
        pytest.param("decimal(3,3)", "0.123", "0.123", id="all-fraction"),
        pytest.param("decimal(3,3)", "0", "0.000", id="all-fraction-zero"),
    ],
)
def test_decimal_canonical_form(spelling: str, raw: object, expected: str) -> None:
    value_type = parse_type(spelling)
    assert canonical(value_type, raw) == expected
    if isinstance(raw, str):
        assert canonical(value_type, raw, from_text=True) == expected


@pytest.mark.parametrize(
    ("spelling", "raw", "message"),
    [
        pytest.param(
            "decimal(10,2)", "24.011", "more than 2 decimal places", id="too-many-decimals"
        ),
        pytest.param("decimal(10,2)", 0.125, "more than 2 decimal places", id="float-too-many"),
        pytest.param(
            "decimal(10,2)", "123456789", "more than 8 integer digits", id="too-many-digits"
        ),
        pytest.param("decimal(10,2)", "100000000.00", "more than 8 integer digits", id="just-over"),
        pytest.param(
            "decimal(10,2)", "-123456789", "more than 8 integer digits", id="negative-over"
        ),
        pytest.param("decimal(5,0)", "1.5", "more than 0 decimal places", id="scale-0-fraction"),
        pytest.param("decimal(3,3)", "1", "more than 0 integer digits", id="all-fraction-one"),
        pytest.param("decimal(10,2)", "1e2", "expected a decimal number", id="exponent-text"),
        pytest.param("decimal(10,2)", "", "expected a decimal number", id="empty"),
        pytest.param("decimal(10,2)", ".", "expected a decimal number", id="dot"),
        pytest.param("decimal(10,2)", "1,5", "expected a decimal number", id="comma"),
        pytest.param("decimal(10,2)", "NaN", "expected a decimal number", id="nan-text"),
        pytest.param("decimal(10,2)", "Infinity", "expected a decimal number", id="inf-text"),
        pytest.param("decimal(10,2)", True, "boolean", id="bool"),
        pytest.param("decimal(10,2)", [1], "expected a decimal number", id="list"),
    ],
)
def test_decimal_refuses(spelling: str, raw: object, message: str) -> None:
    with pytest.raises(ValueProblem, match=message):
        canonical(parse_type(spelling), raw)


@pytest.mark.parametrize(
    ("spelling", "raw", "expected"),
    [
        pytest.param("decimal(38,2)", "1" * 36, "1" * 36 + ".00", id="36-integer-digits"),
        pytest.param("decimal(38,0)", "9" * 30, "9" * 30, id="30-digits-scale-0"),
    ],
)
def test_decimal_of_full_precision(spelling: str, raw: str, expected: str) -> None:
    assert canonical(parse_type(spelling), raw) == expected


@pytest.mark.parametrize(
    "raw", [pytest.param(float("nan"), id="nan"), pytest.param(float("inf"), id="inf")]
)
def test_decimal_refuses_non_finite_floats(raw: float) -> None:
    with pytest.raises(ValueProblem):
        canonical(decimal_type(10, 2), raw)


def test_decimal_canonical_is_stable() -> None:
    value_type = decimal_type(10, 2)
    first = canonical(value_type, "24.1")
    assert canonical(value_type, first) == first


# --- boolean ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(True, True, id="true"),
        pytest.param(False, False, id="false"),
        pytest.param("true", True, id="text-true"),
        pytest.param("FALSE", False, id="text-false-upper"),
        pytest.param(" True ", True, id="text-true-spaces"),
    ],
)
def test_boolean_from_json(raw: object, expected: bool) -> None:
    assert canonical(BOOLEAN, raw) is expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param("true", True, id="true"),
        pytest.param("false", False, id="false"),
        pytest.param("TRUE", True, id="TRUE"),
        pytest.param("False", False, id="False"),
        pytest.param("yes", True, id="yes"),
        pytest.param("no", False, id="no"),
        pytest.param("YES", True, id="YES"),
        pytest.param("No", False, id="No"),
        pytest.param("1", True, id="one"),
        pytest.param("0", False, id="zero"),
        pytest.param(" yes ", True, id="spaces"),
        pytest.param(True, True, id="bool"),
    ],
)
def test_boolean_from_text(raw: object, expected: bool) -> None:
    assert canonical(BOOLEAN, raw, from_text=True) is expected


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param("yes", id="yes"),
        pytest.param("no", id="no"),
        pytest.param("1", id="one-text"),
        pytest.param("0", id="zero-text"),
        pytest.param(1, id="one"),
        pytest.param(0, id="zero"),
        pytest.param("on", id="on"),
        pytest.param("", id="empty"),
    ],
)
def test_boolean_yes_no_only_from_text(raw: object) -> None:
    with pytest.raises(ValueProblem, match="expected true or false"):
        canonical(BOOLEAN, raw)


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param("on", id="on"),
        pytest.param("off", id="off"),
        pytest.param("y", id="y"),
        pytest.param("2", id="two"),
        pytest.param("", id="empty"),
        pytest.param("truthy", id="word"),
        pytest.param(1, id="int-one"),
    ],
)
def test_boolean_refuses_other_words_from_text(raw: object) -> None:
    with pytest.raises(ValueProblem, match="expected true or false"):
        canonical(BOOLEAN, raw, from_text=True)


# --- date ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param("2024-03-01", "2024-03-01", id="text"),
        pytest.param(" 2024-03-01 ", "2024-03-01", id="spaces"),
        pytest.param("2024-02-29", "2024-02-29", id="leap-day"),
        pytest.param("2000-02-29", "2000-02-29", id="leap-day-400"),
        pytest.param("0001-01-01", "0001-01-01", id="first-day"),
        pytest.param("9999-12-31", "9999-12-31", id="last-day"),
        pytest.param(date(2024, 3, 1), "2024-03-01", id="date-object"),
    ],
)
def test_date_canonical_form(raw: object, expected: str) -> None:
    assert canonical(DATE, raw) == expected


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        pytest.param("2023-02-29", "not a calendar date", id="not-leap"),
        pytest.param("1900-02-29", "not a calendar date", id="not-leap-100"),
        pytest.param("2024-02-30", "not a calendar date", id="feb-30"),
        pytest.param("2024-04-31", "not a calendar date", id="apr-31"),
        pytest.param("2024-13-01", "not a calendar date", id="month-13"),
        pytest.param("2024-00-10", "not a calendar date", id="month-0"),
        pytest.param("2024-01-00", "not a calendar date", id="day-0"),
        pytest.param("2024-1-5", "YYYY-MM-DD", id="short-parts"),
        pytest.param("20240105", "YYYY-MM-DD", id="basic-format"),
        pytest.param("2024/01/05", "YYYY-MM-DD", id="slashes"),
        pytest.param("05.01.2024", "YYYY-MM-DD", id="european"),
        pytest.param("2024-01-05T00:00:00Z", "YYYY-MM-DD", id="datetime-text"),
        pytest.param("", "YYYY-MM-DD", id="empty"),
        pytest.param(20240105, "expected a string", id="int"),
        pytest.param(datetime(2024, 1, 5, tzinfo=UTC), "expected a string", id="datetime-object"),
    ],
)
def test_date_refuses(raw: object, message: str) -> None:
    with pytest.raises(ValueProblem, match=message):
        canonical(DATE, raw)


# --- datetime --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param("2024-03-01T10:00:00Z", "2024-03-01T10:00:00Z", id="utc-z"),
        pytest.param("2024-03-01T10:00:00+00:00", "2024-03-01T10:00:00Z", id="utc-offset"),
        pytest.param("2024-03-01T12:00:00+02:00", "2024-03-01T10:00:00Z", id="plus-offset"),
        pytest.param("2024-03-01T05:30:00-04:30", "2024-03-01T10:00:00Z", id="minus-offset"),
        pytest.param("2024-03-01T01:00:00+02:00", "2024-02-29T23:00:00Z", id="crosses-date"),
        pytest.param("2024-12-31T23:30:00-01:00", "2025-01-01T00:30:00Z", id="crosses-year"),
        pytest.param("2024-03-01T10:00Z", "2024-03-01T10:00:00Z", id="no-seconds"),
        pytest.param("2024-03-01 10:00:00Z", "2024-03-01T10:00:00Z", id="space-separator"),
        pytest.param("2024-03-01T10:00:00.5Z", "2024-03-01T10:00:00.500000Z", id="fraction"),
        pytest.param(
            "2024-03-01T10:00:00.123456+01:00", "2024-03-01T09:00:00.123456Z", id="microseconds"
        ),
        pytest.param("2024-03-01T10:00:00.000Z", "2024-03-01T10:00:00Z", id="zero-fraction"),
        pytest.param(" 2024-03-01T10:00:00Z ", "2024-03-01T10:00:00Z", id="spaces"),
        pytest.param(
            datetime(2024, 3, 1, 12, tzinfo=timezone(timedelta(hours=2))),
            "2024-03-01T10:00:00Z",
            id="aware-object",
        ),
    ],
)
def test_datetime_canonical_form_is_utc_z(raw: object, expected: str) -> None:
    assert canonical(DATETIME, raw) == expected
    if isinstance(raw, str):
        assert canonical(DATETIME, raw, from_text=True) == expected


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        pytest.param("2024-03-01T10:00:00", "no time zone", id="naive-text"),
        pytest.param("2024-03-01 10:00", "no time zone", id="naive-space"),
        pytest.param(datetime(2024, 3, 1, 10), "no time zone", id="naive-object"),
        pytest.param("2024-03-01", "a date and a time", id="date-only"),
        pytest.param("2024-02-30T10:00:00Z", "ISO 8601", id="not-calendar"),
        pytest.param("2024-03-01T25:00:00Z", "ISO 8601", id="hour-25"),
        pytest.param("yesterday", "ISO 8601", id="word"),
        pytest.param("", "ISO 8601", id="empty"),
        pytest.param(1709287200, "expected a string", id="epoch-int"),
    ],
)
def test_datetime_refuses(raw: object, message: str) -> None:
    with pytest.raises(ValueProblem, match=message):
        canonical(DATETIME, raw)


def test_datetime_without_zone_says_which_zone_to_add() -> None:
    with pytest.raises(ValueProblem, match=r"add Z for UTC or an offset"):
        canonical(DATETIME, "2024-03-01T10:00:00")


@pytest.mark.parametrize(
    ("moment", "expected"),
    [
        pytest.param(datetime(2024, 3, 1, 10, tzinfo=UTC), "2024-03-01T10:00:00Z", id="whole"),
        pytest.param(
            datetime(2024, 3, 1, 10, 0, 0, 1, tzinfo=UTC), "2024-03-01T10:00:00.000001Z", id="micro"
        ),
        pytest.param(
            datetime(2024, 3, 1, 10, tzinfo=timezone(timedelta(hours=-5))),
            "2024-03-01T15:00:00Z",
            id="offset",
        ),
    ],
)
def test_format_datetime(moment: datetime, expected: str) -> None:
    assert format_datetime(moment) == expected


# --- enum ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param("active", "active", id="exact"),
        pytest.param("ACTIVE", "active", id="upper"),
        pytest.param("Active", "active", id="title"),
        pytest.param("suspended", "Suspended", id="declared-capital"),
        pytest.param("SUSPENDED", "Suspended", id="upper-to-declared"),
        pytest.param("on_hold", "ON_HOLD", id="lower-to-declared-upper"),
        pytest.param(" active ", "active", id="spaces"),
    ],
)
def test_enum_folds_case_to_the_declared_name(raw: str, expected: str) -> None:
    assert canonical(STATUS, raw) == expected
    assert canonical(STATUS, raw, from_text=True) == expected


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param("closed", id="unknown"),
        pytest.param("on hold", id="space-not-underscore"),
        pytest.param("", id="empty"),
        pytest.param("activ", id="prefix"),
    ],
)
def test_enum_refuses_other_names(raw: str) -> None:
    with pytest.raises(ValueProblem, match="is not one of active, Suspended, ON_HOLD"):
        canonical(STATUS, raw)


@pytest.mark.parametrize(
    "raw",
    [pytest.param(1, id="int"), pytest.param(True, id="bool"), pytest.param(["a"], id="list")],
)
def test_enum_refuses_non_strings(raw: object) -> None:
    with pytest.raises(ValueProblem, match="expected a string"):
        canonical(STATUS, raw)


# --- json ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param({"a": [1, 2.5, None, True]}, {"a": [1, 2.5, None, True]}, id="object"),
        pytest.param([1, "two"], [1, "two"], id="array"),
        pytest.param((1, 2), [1, 2], id="tuple-becomes-array"),
        pytest.param("text", "text", id="string-stays-string"),
        pytest.param('{"a": 1}', '{"a": 1}', id="json-text-stays-string"),
        pytest.param(3, 3, id="int"),
        pytest.param(False, False, id="bool"),
    ],
)
def test_json_from_json(raw: object, expected: object) -> None:
    assert canonical(JSON, raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param('{"a": [1, 2]}', {"a": [1, 2]}, id="object"),
        pytest.param("[1, 2, 3]", [1, 2, 3], id="array"),
        pytest.param('"quoted"', "quoted", id="string"),
        pytest.param("42", 42, id="number"),
        pytest.param("true", True, id="true"),
        pytest.param("null", None, id="null"),
    ],
)
def test_json_from_text_is_parsed(raw: str, expected: object) -> None:
    assert canonical(JSON, raw, from_text=True) == expected


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param("{a: 1}", id="unquoted-key"),
        pytest.param("plain words", id="words"),
        pytest.param("[1, 2", id="unclosed"),
        pytest.param("", id="empty"),
    ],
)
def test_json_from_text_refuses_bad_json(raw: str) -> None:
    with pytest.raises(ValueProblem, match="expected JSON text"):
        canonical(JSON, raw, from_text=True)


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param("NaN", id="nan"),
        pytest.param("Infinity", id="infinity"),
        pytest.param("[-Infinity]", id="nested"),
    ],
)
def test_json_from_text_refuses_non_json_numbers(raw: str) -> None:
    with pytest.raises(ValueProblem):
        canonical(JSON, raw, from_text=True)


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(float("nan"), id="nan"),
        pytest.param({"x": float("inf")}, id="nested-inf"),
        pytest.param({1, 2}, id="set"),
        pytest.param(object(), id="object"),
        pytest.param(Decimal("1.5"), id="decimal"),
    ],
)
def test_json_refuses_non_json_values(raw: object) -> None:
    with pytest.raises(ValueProblem, match="not a JSON value"):
        canonical(JSON, raw)


# --- compare ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value_type", "smaller", "larger"),
    [
        pytest.param(INTEGER, "9", "10", id="integer-numeric-not-text"),
        pytest.param(INTEGER, "-10", "-9", id="integer-negative"),
        pytest.param(decimal_type(10, 2), "9.50", "10.00", id="decimal"),
        pytest.param(decimal_type(10, 2), "-1.00", "0.50", id="decimal-negative"),
        pytest.param(DATE, "2023-12-31", "2024-01-01", id="date"),
        pytest.param(DATETIME, "2024-01-01T09:59:59Z", "2024-01-01T10:00:00Z", id="datetime"),
        pytest.param(
            DATETIME, "2024-01-01T09:59:59.999999Z", "2024-01-01T10:00:00Z", id="datetime-fraction"
        ),
    ],
)
def test_compare_orders_canonical_values(value_type: ValueType, smaller: str, larger: str) -> None:
    assert compare(value_type, smaller, larger) == -1
    assert compare(value_type, larger, smaller) == 1
    assert compare(value_type, smaller, smaller) == 0


def test_compare_numbers_by_value() -> None:
    assert compare(decimal_type(10, 2), "1.50", "1.5") == 0
    assert compare(INTEGER, "42", "42") == 0


def test_compare_orders_datetimes_with_fractions() -> None:
    whole = canonical(DATETIME, "2024-01-01T10:00:00Z")
    later = canonical(DATETIME, "2024-01-01T10:00:00.5Z")
    assert compare(DATETIME, whole, later) == -1
