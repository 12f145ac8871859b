"""Typed value expressions of the query DSL, the same answers on SQLite and PostgreSQL.

Values are stored in canonical form in `values_json` (docs/storage.md): integers and decimals as
strings ("90", "24.01"), booleans as JSON booleans, dates and datetimes as ISO text, enums as their
names. The expressions here read one Attribute and compare, order, group and aggregate it by its
type:

- text: `json_extract(values_json, '$.a')` on SQLite, `(values_json ->> 'a')` on PostgreSQL;
- integers: `CAST(text AS NUMERIC)`; decimals: the scaled integer
  `CAST(REPLACE(text, '.', '') AS NUMERIC)` (a `decimal(p,s)` value always has exactly `s`
  decimals), which sums exactly on both backends;
- booleans: SQLite's 1/0, PostgreSQL's `CAST(text AS BOOLEAN)`;
- datetimes: the text with `.000000` added where it has no fraction, so that text order is time
  order;
- strings, dates and enums: the text in binary order (`COLLATE "C"` on PostgreSQL, whatever the
  database's collation; SQLite's default is binary);
- `in` with more than `IN_LIST_PARAMETERS` values: the text against one parameter holding the
  list, `IN (SELECT value FROM json_each(:values))` on SQLite and `IN (SELECT
  unnest(CAST(:values AS TEXT[])))` on PostgreSQL, instead of one parameter per value. The
  database then hashes the list once (a semi-join) instead of comparing each row with each value,
  and no list is too long for the driver's parameter limit.

Attribute names are written into the SQL as literals (they are schema names, checked against
`^[a-z][a-z0-9_]*$`), never as parameters, so that the same expression in SELECT, GROUP BY and
ORDER BY is the same text, and so that an expression index on it can serve the query.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from decimal import Context, Decimal
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import FunctionElement

from lorebase_core.values import CanonicalValue, ValueType

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_NO_FRACTION = len("2026-10-01T08:00:03Z")
_FRACTION = ".000000Z"
_EXACT = Context(prec=200)
AVERAGE_EXTRA_DECIMALS = 4
"""An average has the scale of its Attribute plus this many decimals (ROUND_HALF_EVEN)."""
IN_LIST_PARAMETERS = 16
"""An `in` of at most this many values binds one parameter per value; a longer one, one list."""


class JsonText(FunctionElement[str]):
    """The value of one Attribute of a `values_json` column, as text (NULL when absent)."""

    name = "json_text"
    inherit_cache = True
    type = sa.String()


class JsonBoolean(FunctionElement[bool]):
    """The value of one boolean Attribute (NULL when absent)."""

    name = "json_boolean"
    inherit_cache = True
    type = sa.Boolean()


class Binary(FunctionElement[str]):
    """Text compared and ordered by code point, as SQLite does by default."""

    name = "binary_text"
    inherit_cache = True
    type = sa.String()


class Numeric(FunctionElement[Any]):
    """`CAST(x AS NUMERIC)`, returned as the driver gives it (int on SQLite, Decimal on PG)."""

    name = "numeric_cast"
    inherit_cache = True
    type = sa.types.NullType()


def _parts(element: FunctionElement[Any], compiler: SQLCompiler, **kw: Any) -> tuple[str, str]:
    column, attribute = element.clauses.clauses
    name = str(getattr(attribute, "name", ""))
    if not _NAME.match(name):  # pragma: no cover - schema names never get here otherwise
        raise ValueError(f"{name!r} is not an Attribute name")
    return compiler.process(column, **kw), name


@compiles(JsonText)
@compiles(JsonText, "sqlite")
@compiles(JsonBoolean)
@compiles(JsonBoolean, "sqlite")
def _json_value_sqlite(element: JsonText | JsonBoolean, compiler: SQLCompiler, **kw: Any) -> str:
    column, name = _parts(element, compiler, **kw)
    return f"json_extract({column}, '$.{name}')"


@compiles(JsonText, "postgresql")
def _json_text_postgresql(element: JsonText, compiler: SQLCompiler, **kw: Any) -> str:
    column, name = _parts(element, compiler, **kw)
    return f"({column} ->> '{name}')"


@compiles(JsonBoolean, "postgresql")
def _json_boolean_postgresql(element: JsonBoolean, compiler: SQLCompiler, **kw: Any) -> str:
    column, name = _parts(element, compiler, **kw)
    return f"CAST(({column} ->> '{name}') AS BOOLEAN)"


@compiles(Binary)
@compiles(Binary, "sqlite")
def _binary_sqlite(element: Binary, compiler: SQLCompiler, **kw: Any) -> str:
    return compiler.process(element.clauses, **kw)


@compiles(Binary, "postgresql")
def _binary_postgresql(element: Binary, compiler: SQLCompiler, **kw: Any) -> str:
    return f'({compiler.process(element.clauses, **kw)} COLLATE "C")'


@compiles(Numeric)
def _numeric(element: Numeric, compiler: SQLCompiler, **kw: Any) -> str:
    return f"CAST({compiler.process(element.clauses, **kw)} AS NUMERIC)"


class _NumberParameter(sa.types.UserDefinedType[int]):
    """A whole number of any size as a parameter.

    SQLAlchemy binds a Python int as INTEGER (`::INTEGER` on PostgreSQL), which overflows past 32
    bits; this type adds no cast, so psycopg sends it as int8 or numeric by its value.
    """

    cache_ok = True

    def get_col_spec(self, **kw: Any) -> str:  # pragma: no cover - asked by DDL and casts only
        return "NUMERIC"

    def bind_processor(self, dialect: sa.Dialect) -> Callable[[Any], Any] | None:
        if dialect.name != "sqlite":
            return None

        def process(value: Any) -> Any:
            # past 64 bits SQLite's CAST gives a REAL too (infinite past its range): like with like
            if value is None or -(2**63) <= value < 2**63:
                return value
            try:
                return float(value)
            except OverflowError:
                return math.inf if value > 0 else -math.inf

        return process


def number(value: int) -> sa.BindParameter[int]:
    """A whole number as a parameter of any size on both backends."""
    return sa.bindparam(None, value, type_=_NumberParameter())


def _sql(text: str) -> sa.ColumnElement[Any]:
    """A constant written into the SQL (see the module docstring: no parameters here)."""
    return sa.literal_column(text)


class _TextList(sa.types.TypeDecorator[list[str]]):
    """A list of texts as one parameter: a JSON array on SQLite, a text[] on PostgreSQL."""

    impl = sa.types.String
    cache_ok = True

    def load_dialect_impl(self, dialect: sa.Dialect) -> sa.types.TypeEngine[Any]:
        if dialect.name == "postgresql":
            return dialect.type_descriptor(postgresql.ARRAY(sa.types.Text()))
        return dialect.type_descriptor(sa.types.String())

    def process_bind_param(self, value: list[str] | None, dialect: sa.Dialect) -> Any:
        if value is None or dialect.name == "postgresql":
            return value
        return json.dumps(value, ensure_ascii=False)


class ListValues(FunctionElement[str]):
    """The texts of one list parameter as a subquery of one column, to compare `IN` with."""

    name = "list_values"
    inherit_cache = True
    type = sa.String()


@compiles(ListValues)
@compiles(ListValues, "sqlite")
def _list_values_sqlite(element: ListValues, compiler: SQLCompiler, **kw: Any) -> str:
    return f"(SELECT value FROM json_each({compiler.process(element.clauses, **kw)}))"


@compiles(ListValues, "postgresql")
def _list_values_postgresql(element: ListValues, compiler: SQLCompiler, **kw: Any) -> str:
    return f"(SELECT unnest(CAST({compiler.process(element.clauses, **kw)} AS TEXT[])))"


def text_in(text: sa.ColumnElement[str], values: list[str]) -> sa.ColumnElement[bool]:
    """Whether `text` is one of `values`, compared as text the way `=` compares it.

    A short list is `IN (:v1, :v2 ...)`, which planners know best; past `IN_LIST_PARAMETERS`
    values the list is one parameter joined against (see the module docstring).
    """
    if len(values) <= IN_LIST_PARAMETERS:
        return text.in_(values)
    values_list = ListValues(sa.bindparam(None, list(values), type_=_TextList()))
    return text.op("IN", is_comparison=True)(values_list)


# -- expressions ---------------------------------------------------------------------------------
def json_text(values: sa.ColumnElement[Any], attribute: str) -> sa.ColumnElement[str]:
    return JsonText(values, sa.literal_column(attribute))


def binary(text: sa.ColumnElement[str]) -> sa.ColumnElement[str]:
    return Binary(text)


def sort_key(
    values: sa.ColumnElement[Any], attribute: str, value_type: ValueType
) -> sa.ColumnElement[Any]:
    """The expression that orders, groups, and takes min and max of an Attribute by its type."""
    base = value_type.base
    text = json_text(values, attribute)
    if base == "integer":
        return Numeric(text)
    if base == "decimal":
        return Numeric(sa.func.replace(text, _sql("'.'"), _sql("''"), type_=sa.String()))
    if base == "boolean":
        return JsonBoolean(values, sa.literal_column(attribute))
    if base == "datetime":
        padded = sa.func.substr(text, _sql("1"), _sql(str(_NO_FRACTION - 1)), type_=sa.String())
        return binary(
            sa.case(
                (
                    sa.func.length(text) == _sql(str(_NO_FRACTION)),
                    padded.op("||")(_sql(f"'{_FRACTION}'")),
                ),
                else_=text,
            )
        )
    return binary(text)


def sort_literal(value_type: ValueType, value: CanonicalValue) -> object:
    """A canonical value in the form `sort_key` compares it with."""
    base = value_type.base
    text = str(value)
    if base == "integer":
        return number(int(text))
    if base == "decimal":
        return number(int(text.replace(".", "")))
    if base == "datetime":
        return text[:-1] + _FRACTION if len(text) == _NO_FRACTION else text
    return value


def from_sort_key(value_type: ValueType, raw: object) -> CanonicalValue:
    """The canonical value of what a `sort_key` expression returned (a group key, a min, a max)."""
    if raw is None:
        return None
    base = value_type.base
    if base == "integer":
        return str(int(exact(raw)))
    if base == "decimal":
        return decimal_text(exact(raw), value_type.scale or 0)
    if base == "boolean":
        return bool(raw)
    text = str(raw)
    if base == "datetime" and text.endswith(_FRACTION):
        return text[: -len(_FRACTION)] + "Z"
    return text


def exact(raw: object) -> Decimal:
    """A number from the driver as a Decimal (exact unless SQLite fell back to a float)."""
    if isinstance(raw, Decimal):
        return raw
    if isinstance(raw, float):
        return Decimal(repr(raw))
    return Decimal(str(raw))


def decimal_text(scaled: Decimal, scale: int) -> str:
    """The canonical text of a scaled integer (`2401` at scale 2 is `24.01`)."""
    value = scaled.scaleb(-scale, context=_EXACT).quantize(
        Decimal(1).scaleb(-scale), context=_EXACT
    )
    return f"{abs(value) if value == 0 else value:f}"


def total(value_type: ValueType, raw: object) -> CanonicalValue:
    """The canonical value of a SUM of `sort_key` (None when no Record had a value)."""
    if raw is None:
        return None
    if value_type.base == "integer":
        return str(int(exact(raw)))
    return decimal_text(exact(raw), value_type.scale or 0)


def average(value_type: ValueType, raw_sum: object, count: int) -> CanonicalValue:
    """Exact sum over count, with `AVERAGE_EXTRA_DECIMALS` more decimals than the Attribute."""
    if raw_sum is None or count == 0:
        return None
    scale = (value_type.scale or 0) if value_type.base == "decimal" else 0
    quotient = _EXACT.divide(exact(raw_sum), Decimal(count).scaleb(scale, context=_EXACT))
    places = Decimal(1).scaleb(-(scale + AVERAGE_EXTRA_DECIMALS))
    value = quotient.quantize(places, rounding="ROUND_HALF_EVEN", context=_EXACT)
    return f"{abs(value) if value == 0 else value:f}"
