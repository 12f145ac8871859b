"""The expression language of Derivations and review policies (docs/schema.md, "Expressions").

Expressions use Python's syntax, parsed with `ast` and checked against a closed list of node types
and functions before anything runs, so a schema can never execute arbitrary code. Numbers are exact
`Decimal`s; canonical integer and decimal strings are read as numbers when they meet arithmetic or
an ordering comparison with a number.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

FUNCTIONS: dict[str, Callable[..., Any]] = {}
_CONSTANT_NAMES = {"true": True, "false": False, "null": None}
_MISSING_AWARE = {"coalesce", "concat"}


class ExpressionError(ValueError):
    """An expression that cannot be parsed, refers to something unknown, or fails to evaluate."""


@dataclass(frozen=True)
class Expression:
    """A checked expression; `names` are the free names it reads."""

    source: str
    tree: ast.Expression
    names: frozenset[str]

    def evaluate(self, scope: Mapping[str, object]) -> object:
        """Evaluate with `scope` binding the names; a name absent from scope is a missing value."""
        try:
            return _Evaluator(scope).visit(self.tree.body)
        except ExpressionError:
            raise
        except (ArithmeticError, InvalidOperation, TypeError, ValueError) as exc:
            raise ExpressionError(f"{self.source!r} failed: {exc}") from exc


def compile_expression(source: str) -> Expression:
    """Parse and check `source`; raises `ExpressionError` saying what is not allowed."""
    try:
        tree = ast.parse(source.strip(), mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(f"cannot parse {source!r}: {exc.msg}") from exc
    names: set[str] = set()
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    for node in ast.walk(tree):
        _check_node(node, names, called)
    return Expression(source, tree, frozenset(names))


_ALLOWED_NODES = (
    ast.Expression,
    ast.BoolOp,
    ast.And,
    ast.Or,
    ast.UnaryOp,
    ast.Not,
    ast.USub,
    ast.UAdd,
    ast.BinOp,
    ast.Add,
    ast.Sub,
    ast.Mult,
    ast.Div,
    ast.Mod,
    ast.Compare,
    ast.Eq,
    ast.NotEq,
    ast.Lt,
    ast.LtE,
    ast.Gt,
    ast.GtE,
    ast.In,
    ast.NotIn,
    ast.IfExp,
    ast.Constant,
    ast.Name,
    ast.Load,
    ast.List,
    ast.Tuple,
    ast.Call,
)


def _check_node(node: ast.AST, names: set[str], called: set[int]) -> None:
    if not isinstance(node, _ALLOWED_NODES):
        raise ExpressionError(f"{type(node).__name__} is not allowed in an expression")
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            allowed = ", ".join(sorted(FUNCTIONS))
            raise ExpressionError(f"only these functions may be called: {allowed}")
        if node.keywords:
            raise ExpressionError("functions take positional arguments only")
    elif isinstance(node, ast.Name) and node.id not in _CONSTANT_NAMES and id(node) not in called:
        names.add(node.id)
    elif isinstance(node, ast.Constant) and not isinstance(
        node.value, str | int | float | bool | type(None)
    ):
        raise ExpressionError(f"constant {node.value!r} is not allowed")


class _Evaluator:
    def __init__(self, scope: Mapping[str, object]) -> None:
        self.scope = scope

    def visit(self, node: ast.AST) -> object:
        method = getattr(self, f"visit_{type(node).__name__}")
        return method(node)

    def visit_Constant(self, node: ast.Constant) -> object:
        if isinstance(node.value, float):
            return Decimal(repr(node.value))
        if isinstance(node.value, int) and not isinstance(node.value, bool):
            return Decimal(node.value)
        return node.value

    def visit_Name(self, node: ast.Name) -> object:
        if node.id in _CONSTANT_NAMES:
            return _CONSTANT_NAMES[node.id]
        return self.scope.get(node.id)

    def visit_List(self, node: ast.List) -> object:
        return [self.visit(item) for item in node.elts]

    visit_Tuple = visit_List

    def visit_BoolOp(self, node: ast.BoolOp) -> object:
        values = [_truthy(self.visit(item)) for item in node.values]
        return all(values) if isinstance(node.op, ast.And) else any(values)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> object:
        operand = self.visit(node.operand)
        if isinstance(node.op, ast.Not):
            return not _truthy(operand)
        if operand is None:
            return None
        number = _number(operand)
        return -number if isinstance(node.op, ast.USub) else number

    def visit_BinOp(self, node: ast.BinOp) -> object:
        left, right = self.visit(node.left), self.visit(node.right)
        if left is None or right is None:
            return None
        if isinstance(node.op, ast.Add) and isinstance(left, str) and isinstance(right, str):
            return left + right
        operations: dict[type[ast.operator], Callable[[Decimal, Decimal], Decimal]] = {
            ast.Add: operator.add,
            ast.Sub: operator.sub,
            ast.Mult: operator.mul,
            ast.Div: operator.truediv,
            ast.Mod: operator.mod,
        }
        return operations[type(node.op)](_number(left), _number(right))

    def visit_Compare(self, node: ast.Compare) -> object:
        left = self.visit(node.left)
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right = self.visit(comparator)
            result = _compare(op, left, right)
            if result is None:
                return None
            if not result:
                return False
            left = right
        return True

    def visit_IfExp(self, node: ast.IfExp) -> object:
        test = self.visit(node.test)
        if test is None:
            return None
        return self.visit(node.body) if _truthy(test) else self.visit(node.orelse)

    def visit_Call(self, node: ast.Call) -> object:
        assert isinstance(node.func, ast.Name)
        args = [self.visit(arg) for arg in node.args]
        if node.func.id not in _MISSING_AWARE and any(arg is None for arg in args):
            return None
        return FUNCTIONS[node.func.id](*args)


def _truthy(value: object) -> bool:
    return bool(value) if value is not None else False


def _number(value: object) -> Decimal:
    if isinstance(value, Decimal):
        return value
    if isinstance(value, bool):
        raise ExpressionError(f"expected a number, got {value!r}")
    if isinstance(value, int | str):
        try:
            return Decimal(str(value).strip())
        except InvalidOperation as exc:
            raise ExpressionError(f"expected a number, got {value!r}") from exc
    raise ExpressionError(f"expected a number, got {value!r}")


def _comparable(left: object, right: object) -> tuple[object, object]:
    if isinstance(left, Decimal) and isinstance(right, str):
        return left, _number(right)
    if isinstance(right, Decimal) and isinstance(left, str):
        return _number(left), right
    return left, right


def _compare(op: ast.cmpop, left: object, right: object) -> bool | None:
    """The comparison's truth; None (missing) when an ordering or `in` meets a missing value."""
    if isinstance(op, ast.In | ast.NotIn):
        if right is None or left is None:
            return None
        container = right if isinstance(right, list | str) else [right]
        found = (
            any(_equal(left, item) for item in container)
            if isinstance(container, list)
            else str(left) in container
        )
        return found if isinstance(op, ast.In) else not found
    if isinstance(op, ast.Eq):
        return _equal(left, right)
    if isinstance(op, ast.NotEq):
        return not _equal(left, right)
    if left is None or right is None:
        return None
    left, right = _comparable(left, right)
    ordering: dict[type[ast.cmpop], Callable[[Any, Any], bool]] = {
        ast.Lt: operator.lt,
        ast.LtE: operator.le,
        ast.Gt: operator.gt,
        ast.GtE: operator.ge,
    }
    return ordering[type(op)](left, right)


def _equal(left: object, right: object) -> bool:
    left, right = _comparable(left, right)
    return left == right


def _concat(*parts: object) -> str:
    return "".join("" if part is None else _text(part) for part in parts)


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return f"{value:f}"
    return str(value)


def _coalesce(*values: object) -> object:
    return next((value for value in values if value is not None), None)


def _round(value: object, places: object = Decimal(0)) -> Decimal:
    digits = int(_number(places))
    return _number(value).quantize(Decimal(1).scaleb(-digits))


FUNCTIONS.update(
    {
        "lower": lambda value: _text(value).lower(),
        "upper": lambda value: _text(value).upper(),
        "trim": lambda value: _text(value).strip(),
        "concat": _concat,
        "coalesce": _coalesce,
        "len": lambda value: Decimal(len(value if isinstance(value, list) else _text(value))),
        "abs": lambda value: abs(_number(value)),
        "round": _round,
        "min": lambda *values: min(_number(value) for value in values),
        "max": lambda *values: max(_number(value) for value in values),
        "str": _text,
        "int": lambda value: Decimal(int(_number(value))),
        "decimal": _number,
    }
)


def result_as_value(result: object) -> object:
    """Turn an evaluation result into a plain value that `values.canonical` accepts."""
    if isinstance(result, Decimal):
        return f"{result.normalize():f}" if result == result.to_integral_value() else f"{result:f}"
    return result
