"""The expression language of Derivations and review policies (docs/schema.md, "Expressions")."""

from __future__ import annotations

from decimal import Decimal

import pytest

from lorebase_core.expressions import (
    FUNCTIONS,
    Expression,
    ExpressionError,
    compile_expression,
    result_as_value,
)


def evaluate(source: str, **scope: object) -> object:
    return compile_expression(source).evaluate(scope)


# --- compiling -------------------------------------------------------------------------------


def test_compile_returns_a_checked_expression() -> None:
    expression = compile_expression("'high' if risk_score >= 70 else 'normal'")
    assert isinstance(expression, Expression)
    assert expression.source == "'high' if risk_score >= 70 else 'normal'"
    assert expression.names == frozenset({"risk_score"})


@pytest.mark.parametrize(
    ("source", "names"),
    [
        pytest.param("1 + 2", set(), id="no-names"),
        pytest.param("a + b * c", {"a", "b", "c"}, id="several"),
        pytest.param(
            "concat('RF-', supplier, '-', invocation_id)", {"supplier", "invocation_id"}, id="call"
        ),
        pytest.param("lower(name) == 'x'", {"name"}, id="function-name-not-a-name"),
        pytest.param("x if true else null", {"x"}, id="constant-names"),
        pytest.param("True and False or None", set(), id="python-constants"),
        pytest.param("[a, (b, c)]", {"a", "b", "c"}, id="list-and-tuple"),
        pytest.param("lower", {"lower"}, id="uncalled-function-name-is-a-name"),
    ],
)
def test_compile_collects_free_names(source: str, names: set[str]) -> None:
    assert compile_expression(source).names == frozenset(names)


def test_compile_strips_surrounding_whitespace() -> None:
    assert evaluate("  1 + 1\n") == Decimal(2)


def test_every_documented_function_is_known() -> None:
    documented = {
        "lower",
        "upper",
        "trim",
        "concat",
        "coalesce",
        "len",
        "abs",
        "round",
        "min",
        "max",
        "str",
        "int",
        "decimal",
    }
    assert set(FUNCTIONS) == documented


@pytest.mark.parametrize(
    "source",
    [
        pytest.param("", id="empty"),
        pytest.param("1 +", id="incomplete"),
        pytest.param("x = 1", id="assignment"),
        pytest.param("import os", id="import-statement"),
        pytest.param("a; b", id="two-statements"),
        pytest.param("(1", id="unclosed"),
    ],
)
def test_compile_refuses_what_does_not_parse(source: str) -> None:
    with pytest.raises(ExpressionError, match="cannot parse"):
        compile_expression(source)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        pytest.param("risk.score", "Attribute is not allowed", id="attribute-access"),
        pytest.param("'x'.upper()", "only these functions", id="method-call"),
        pytest.param("().__class__", "Attribute is not allowed", id="dunder-class"),
        pytest.param(
            "().__class__.__bases__[0].__subclasses__()", "only these functions", id="subclasses"
        ),
        pytest.param("''.__class__.__mro__", "Attribute is not allowed", id="mro"),
        pytest.param("items[0]", "Subscript is not allowed", id="subscript"),
        pytest.param("name[1:]", "Subscript is not allowed", id="slice"),
        pytest.param("lambda: 1", "Lambda is not allowed", id="lambda"),
        pytest.param("(lambda x: x)(1)", "only these functions", id="called-lambda"),
        pytest.param("[x for x in items]", "ListComp is not allowed", id="list-comprehension"),
        pytest.param("{x for x in items}", "SetComp is not allowed", id="set-comprehension"),
        pytest.param("{x: 1 for x in items}", "DictComp is not allowed", id="dict-comprehension"),
        pytest.param("max(x for x in items)", "GeneratorExp is not allowed", id="generator"),
        pytest.param("{'a': 1}", "Dict is not allowed", id="dict"),
        pytest.param("{1, 2}", "Set is not allowed", id="set"),
        pytest.param("f'{x}'", "JoinedStr is not allowed", id="f-string"),
        pytest.param("(y := 1)", "NamedExpr is not allowed", id="walrus"),
        pytest.param("2 ** 100000", "Pow is not allowed", id="power"),
        pytest.param("7 // 2", "FloorDiv is not allowed", id="floor-division"),
        pytest.param("1 << 100000", "LShift is not allowed", id="shift"),
        pytest.param("1 & 3", "BitAnd is not allowed", id="bit-and"),
        pytest.param("~1", "Invert is not allowed", id="invert"),
        pytest.param("a is None", "Is is not allowed", id="is"),
        pytest.param("a is not None", "IsNot is not allowed", id="is-not"),
        pytest.param("await x", "Await is not allowed", id="await"),
        pytest.param("concat(*items)", "Starred is not allowed", id="starred"),
        pytest.param("b'bytes'", "constant b'bytes' is not allowed", id="bytes"),
        pytest.param("1j", "constant 1j is not allowed", id="complex"),
        pytest.param("...", "constant Ellipsis is not allowed", id="ellipsis"),
    ],
)
def test_compile_refuses_other_syntax(source: str, message: str) -> None:
    with pytest.raises(ExpressionError, match=message):
        compile_expression(source)


@pytest.mark.parametrize(
    "source",
    [
        pytest.param("__import__('os')", id="import"),
        pytest.param("eval('1')", id="eval"),
        pytest.param("exec('x = 1')", id="exec"),
        pytest.param("open('/etc/passwd')", id="open"),
        pytest.param("getattr(x, '__class__')", id="getattr"),
        pytest.param("globals()", id="globals"),
        pytest.param("type(x)", id="type"),
        pytest.param("print(x)", id="print"),
        pytest.param("sum([1, 2])", id="sum"),
        pytest.param("lower(x)(y)", id="call-of-call"),
        pytest.param("(lower if x else upper)(y)", id="call-of-expression"),
        pytest.param("concat(lower, open('f'))", id="nested-unknown"),
    ],
)
def test_compile_refuses_unknown_functions(source: str) -> None:
    with pytest.raises(ExpressionError, match="only these functions may be called"):
        compile_expression(source)


@pytest.mark.parametrize(
    "source",
    [
        pytest.param("round(x, ndigits=2)", id="keyword"),
        pytest.param("concat(**parts)", id="double-star"),
        pytest.param("max(1, 2, key=abs)", id="key-function"),
    ],
)
def test_compile_refuses_keyword_arguments(source: str) -> None:
    with pytest.raises(ExpressionError, match="positional arguments only"):
        compile_expression(source)


def test_dunder_names_are_only_missing_values() -> None:
    expression = compile_expression("__builtins__")
    assert expression.names == frozenset({"__builtins__"})
    assert expression.evaluate({}) is None


def test_expression_error_is_a_value_error() -> None:
    assert issubclass(ExpressionError, ValueError)


# --- literals and names ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param("'text'", "text", id="single-quoted"),
        pytest.param('"text"', "text", id="double-quoted"),
        pytest.param("42", Decimal(42), id="integer-is-decimal"),
        pytest.param("2.50", Decimal("2.5"), id="decimal"),
        pytest.param("true", True, id="true"),
        pytest.param("false", False, id="false"),
        pytest.param("null", None, id="null"),
        pytest.param("True", True, id="True"),
        pytest.param("False", False, id="False"),
        pytest.param("None", None, id="None"),
        pytest.param("[1, 'a']", [Decimal(1), "a"], id="list"),
        pytest.param("(1, 'a')", [Decimal(1), "a"], id="tuple-is-a-list"),
        pytest.param("[]", [], id="empty-list"),
    ],
)
def test_literals(source: str, expected: object) -> None:
    result = evaluate(source)
    assert result == expected
    assert type(result) is type(expected)


def test_numbers_are_exact_decimals() -> None:
    assert isinstance(evaluate("1"), Decimal)
    assert isinstance(evaluate("0.1"), Decimal)
    assert not isinstance(evaluate("0.1 + 0.2"), float)


def test_names_read_the_scope() -> None:
    assert evaluate("name", name="Corvane") == "Corvane"


def test_absent_name_is_a_missing_value() -> None:
    assert evaluate("name") is None


def test_constant_names_win_over_the_scope() -> None:
    assert evaluate("true", true="shadow") is True
    assert evaluate("null", null="shadow") is None


# --- arithmetic ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param("0.1 + 0.2", Decimal("0.3"), id="no-float-creep"),
        pytest.param("0.1 + 0.2 == 0.3", True, id="no-float-creep-compare"),
        pytest.param("1.10 * 3", Decimal("3.30"), id="multiply"),
        pytest.param("10 - 0.01", Decimal("9.99"), id="subtract"),
        pytest.param("7 / 2", Decimal("3.5"), id="divide"),
        pytest.param("7 % 4", Decimal(3), id="modulo"),
        pytest.param("-5 + 2", Decimal(-3), id="unary-minus"),
        pytest.param("+5", Decimal(5), id="unary-plus"),
        pytest.param("2 + 3 * 4", Decimal(14), id="precedence"),
        pytest.param("(2 + 3) * 4", Decimal(20), id="parentheses"),
        pytest.param("1 / 8", Decimal("0.125"), id="exact-division"),
        pytest.param("'ab' + 'cd'", "abcd", id="string-concatenation"),
    ],
)
def test_arithmetic(source: str, expected: object) -> None:
    assert evaluate(source) == expected


@pytest.mark.parametrize(
    ("source", "scope", "expected"),
    [
        pytest.param(
            "price * quantity",
            {"price": "24.10", "quantity": "3"},
            Decimal("72.30"),
            id="canonical-strings",
        ),
        pytest.param("score + 1", {"score": "42"}, Decimal(43), id="integer-string"),
        pytest.param("-score", {"score": "42"}, Decimal(-42), id="negate-string"),
        pytest.param("a - b", {"a": "-3", "b": "0.50"}, Decimal("-3.50"), id="negative"),
    ],
)
def test_arithmetic_reads_canonical_number_strings(
    source: str, scope: dict[str, object], expected: Decimal
) -> None:
    assert compile_expression(source).evaluate(scope) == expected


@pytest.mark.parametrize(
    ("source", "message"),
    [
        pytest.param("1 / 0", "failed", id="division-by-zero"),
        pytest.param("1 % 0", "failed", id="modulo-by-zero"),
        pytest.param("'a' * 3", "expected a number, got 'a'", id="string-repetition"),
        pytest.param("'a' + 1", "expected a number, got 'a'", id="string-plus-number"),
        pytest.param("[1] + [2]", "expected a number", id="list-plus-list"),
        pytest.param("true + 1", "expected a number, got True", id="boolean-arithmetic"),
        pytest.param("-'x'", "expected a number", id="negate-word"),
    ],
)
def test_arithmetic_errors(source: str, message: str) -> None:
    with pytest.raises(ExpressionError, match=message):
        evaluate(source)


# --- comparisons -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "scope", "expected"),
    [
        pytest.param("score >= 70", {"score": "75"}, True, id="ge-true"),
        pytest.param("score >= 70", {"score": "69"}, False, id="ge-false"),
        pytest.param("score >= 70", {"score": "70"}, True, id="ge-equal"),
        pytest.param("score > 9", {"score": "10"}, True, id="numeric-not-text-order"),
        pytest.param("9 < score", {"score": "10"}, True, id="number-on-left"),
        pytest.param("score < 0", {"score": "-3"}, True, id="negative"),
        pytest.param("score == 42", {"score": "42"}, True, id="eq"),
        pytest.param("score == 42", {"score": "042"}, True, id="eq-leading-zero"),
        pytest.param("price == 24.1", {"price": "24.10"}, True, id="eq-decimal-scale"),
        pytest.param("score != 42", {"score": "43"}, True, id="ne"),
        pytest.param("price <= 24.10", {"price": "24.10"}, True, id="le-decimal"),
        pytest.param("a < b", {"a": "10", "b": "9"}, True, id="two-strings-compare-as-text"),
        pytest.param("name == 'Corvane'", {"name": "Corvane"}, True, id="string-eq"),
        pytest.param("name < 'D'", {"name": "Corvane"}, True, id="string-order"),
        pytest.param("1 < x < 3", {"x": "2"}, True, id="chain-true"),
        pytest.param("1 < x < 3", {"x": "3"}, False, id="chain-false"),
        pytest.param("flag == true", {"flag": True}, True, id="boolean-eq"),
    ],
)
def test_comparisons(source: str, scope: dict[str, object], expected: bool) -> None:
    assert compile_expression(source).evaluate(scope) is expected


@pytest.mark.parametrize(
    ("source", "scope", "expected"),
    [
        pytest.param("status in ['open', 'new']", {"status": "open"}, True, id="in-list"),
        pytest.param("status in ['open', 'new']", {"status": "closed"}, False, id="not-found"),
        pytest.param("status not in ['open']", {"status": "closed"}, True, id="not-in"),
        pytest.param("score in [1, 2, 42]", {"score": "42"}, True, id="number-string-in-numbers"),
        pytest.param("42 in codes", {"codes": ["41", "42"]}, True, id="number-in-strings"),
        pytest.param("'or' in name", {"name": "Corvane"}, True, id="substring"),
        pytest.param("'x' in name", {"name": "Corvane"}, False, id="no-substring"),
        pytest.param("status in ('a', 'b')", {"status": "b"}, True, id="in-tuple"),
    ],
)
def test_membership(source: str, scope: dict[str, object], expected: bool) -> None:
    assert compile_expression(source).evaluate(scope) is expected


def test_ordering_strings_and_lists_fails() -> None:
    with pytest.raises(ExpressionError, match="failed"):
        evaluate("[1] < 'a'")


# --- missing values --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "source",
    [
        pytest.param("x + 1", id="add"),
        pytest.param("1 - x", id="sub"),
        pytest.param("x * 2", id="mul"),
        pytest.param("x / 2", id="div"),
        pytest.param("x % 2", id="mod"),
        pytest.param("-x", id="neg"),
        pytest.param("+x", id="pos"),
        pytest.param("x + y", id="both"),
        pytest.param("'a' + x", id="string-add"),
        pytest.param("lower(x)", id="lower"),
        pytest.param("upper(x)", id="upper"),
        pytest.param("trim(x)", id="trim"),
        pytest.param("len(x)", id="len"),
        pytest.param("abs(x)", id="abs"),
        pytest.param("round(x, 2)", id="round"),
        pytest.param("min(1, x)", id="min"),
        pytest.param("max(x, 1)", id="max"),
        pytest.param("str(x)", id="str"),
        pytest.param("int(x)", id="int"),
        pytest.param("decimal(x)", id="decimal"),
        pytest.param("(x + 1) * 2", id="nested"),
        pytest.param("x", id="name"),
    ],
)
def test_missing_values_propagate(source: str) -> None:
    assert evaluate(source) is None


@pytest.mark.parametrize(
    "source",
    [
        pytest.param("x < 1", id="lt"),
        pytest.param("x >= 70", id="ge"),
        pytest.param("1 > x", id="missing-on-right"),
        pytest.param("x in [1, 2]", id="in"),
    ],
)
def test_ordering_with_a_missing_value_is_missing(source: str) -> None:
    assert evaluate(source) is None


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param("x == null", True, id="eq-null"),
        pytest.param("x == None", True, id="eq-None"),
        pytest.param("x == 1", False, id="eq-number"),
        pytest.param("x == ''", False, id="eq-empty-string"),
        pytest.param("x != 1", True, id="ne-number"),
        pytest.param("x != null", False, id="ne-null"),
        pytest.param("x == y", True, id="two-missing"),
    ],
)
def test_equality_with_a_missing_value_is_a_boolean(source: str, expected: bool) -> None:
    assert evaluate(source) is expected


@pytest.mark.parametrize(
    ("source", "scope", "expected"),
    [
        pytest.param("coalesce(x, 'fallback')", {}, "fallback", id="first-missing"),
        pytest.param("coalesce(x, 'fallback')", {"x": "set"}, "set", id="first-present"),
        pytest.param("coalesce(x, y, 3)", {}, Decimal(3), id="third"),
        pytest.param("coalesce(x, '')", {}, "", id="empty-string-is-a-value"),
        pytest.param("coalesce(x, y)", {}, None, id="all-missing"),
        pytest.param("coalesce(false, true)", {}, False, id="false-is-a-value"),
    ],
)
def test_coalesce(source: str, scope: dict[str, object], expected: object) -> None:
    assert compile_expression(source).evaluate(scope) == expected


@pytest.mark.parametrize(
    ("source", "scope", "expected"),
    [
        pytest.param(
            "concat('RF-', s, '-', i)", {"s": "S-1", "i": "7"}, "RF-S-1-7", id="doc-example"
        ),
        pytest.param("concat('a', x, 'b')", {}, "ab", id="missing-reads-as-empty"),
        pytest.param("concat(x)", {}, "", id="only-missing"),
        pytest.param("concat()", {}, "", id="no-arguments"),
        pytest.param("concat('n=', 1.5)", {}, "n=1.5", id="decimal-plain-text"),
        pytest.param("concat('n=', p * 1)", {"p": "1.50"}, "n=1.50", id="decimal-keeps-scale"),
        pytest.param("concat('n=', 1 + 2)", {}, "n=3", id="integer"),
        pytest.param("concat(true, '/', false)", {}, "true/false", id="booleans-json-style"),
        pytest.param("concat('n=', 0.0000001)", {}, "n=0.0000001", id="no-exponent"),
    ],
)
def test_concat(source: str, scope: dict[str, object], expected: str) -> None:
    assert compile_expression(source).evaluate(scope) == expected


# --- boolean logic and conditionals ----------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "scope", "expected"),
    [
        pytest.param("a and b", {"a": True, "b": True}, True, id="and-true"),
        pytest.param("a and b", {"a": True, "b": False}, False, id="and-false"),
        pytest.param("a or b", {"a": False, "b": True}, True, id="or-true"),
        pytest.param("a or b", {"a": False, "b": False}, False, id="or-false"),
        pytest.param("not a", {"a": False}, True, id="not"),
        pytest.param("a or 'x'", {"a": ""}, True, id="or-gives-a-boolean"),
    ],
)
def test_boolean_logic(source: str, scope: dict[str, object], expected: bool) -> None:
    assert compile_expression(source).evaluate(scope) is expected


@pytest.mark.parametrize(
    ("scope", "expected"),
    [
        pytest.param({"risk_score": "75"}, "high", id="high"),
        pytest.param({"risk_score": "70"}, "high", id="boundary"),
        pytest.param({"risk_score": "12"}, "normal", id="normal"),
    ],
)
def test_conditional_expression(scope: dict[str, object], expected: str) -> None:
    expression = compile_expression("'high' if risk_score >= 70 else 'normal'")
    assert expression.evaluate(scope) == expected


def test_conditional_evaluates_only_the_chosen_branch() -> None:
    assert evaluate("1 if true else 1 / 0") == Decimal(1)
    assert evaluate("1 / 0 if false else 2") == Decimal(2)


def test_review_policy_example() -> None:
    policy = compile_expression("severity == 'critical'")
    assert policy.evaluate({"severity": "critical"}) is True
    assert policy.evaluate({"severity": "low"}) is False
    assert policy.evaluate({}) is False


# --- functions -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param("lower('AbC')", "abc", id="lower"),
        pytest.param("upper('AbC')", "ABC", id="upper"),
        pytest.param("trim('  a b  ')", "a b", id="trim"),
        pytest.param("lower(true)", "true", id="lower-boolean"),
        pytest.param("upper(2.5)", "2.5", id="upper-number"),
        pytest.param("len('abc')", Decimal(3), id="len-string"),
        pytest.param("len([1, 2])", Decimal(2), id="len-list"),
        pytest.param("len(123)", Decimal(3), id="len-number-as-text"),
        pytest.param("len('')", Decimal(0), id="len-empty"),
        pytest.param("abs(-3.5)", Decimal("3.5"), id="abs"),
        pytest.param("abs('-2')", Decimal(2), id="abs-string"),
        pytest.param("round(2.675, 2)", Decimal("2.68"), id="round-exact"),
        pytest.param("round(1.234, 1)", Decimal("1.2"), id="round-one-place"),
        pytest.param("round(7.4)", Decimal(7), id="round-default-places"),
        pytest.param("min(3, '2', 5)", Decimal(2), id="min"),
        pytest.param("max(3, '12', 5)", Decimal(12), id="max-numeric"),
        pytest.param("str(1.5)", "1.5", id="str-decimal"),
        pytest.param("str(0.1 + 0.2)", "0.3", id="str-exact-sum"),
        pytest.param("str(true)", "true", id="str-boolean"),
        pytest.param("str('x')", "x", id="str-string"),
        pytest.param("int(3.7)", Decimal(3), id="int-truncates"),
        pytest.param("int(-3.7)", Decimal(-3), id="int-negative"),
        pytest.param("int('42')", Decimal(42), id="int-string"),
        pytest.param("decimal('1.50')", Decimal("1.50"), id="decimal-string"),
        pytest.param("decimal(' 2 ')", Decimal(2), id="decimal-spaces"),
    ],
)
def test_functions(source: str, expected: object) -> None:
    result = evaluate(source)
    assert result == expected
    assert type(result) is type(expected)


def test_round_uses_exact_decimals_not_floats() -> None:
    assert round(2.675, 2) == 2.67  # the float trap the language avoids
    assert evaluate("round(2.675, 2)") == Decimal("2.68")


@pytest.mark.parametrize(
    ("source", "message"),
    [
        pytest.param("int('abc')", "expected a number, got 'abc'", id="int-word"),
        pytest.param("decimal('1,5')", "expected a number", id="decimal-comma"),
        pytest.param("abs(true)", "expected a number, got True", id="abs-boolean"),
        pytest.param("len()", "failed", id="too-few-arguments"),
        pytest.param("lower('a', 'b')", "failed", id="too-many-arguments"),
        pytest.param("min()", "failed", id="min-empty"),
        pytest.param("decimal([1])", "expected a number", id="decimal-list"),
    ],
)
def test_function_errors(source: str, message: str) -> None:
    with pytest.raises(ExpressionError, match=message):
        evaluate(source)


# --- result_as_value -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        pytest.param(Decimal(100), "100", id="integral-no-exponent"),
        pytest.param(Decimal("1E+2"), "100", id="exponent-form"),
        pytest.param(Decimal("3.00"), "3", id="integral-with-zeros"),
        pytest.param(Decimal("72.30"), "72.30", id="fraction-keeps-scale"),
        pytest.param(Decimal("0.0000001"), "0.0000001", id="small"),
        pytest.param(Decimal(-5), "-5", id="negative"),
        pytest.param("text", "text", id="string"),
        pytest.param(True, True, id="boolean"),
        pytest.param(None, None, id="missing"),
        pytest.param([1], [1], id="list"),
    ],
)
def test_result_as_value(result: object, expected: object) -> None:
    assert result_as_value(result) == expected
