"""Run a parsed DSL query (`lorebase_core.query.Query`) through a View: one SQL statement per page.

`build_query_statement` turns the query into one SELECT over the Records the View sees (overlay
branches and reads at an older Revision included, as in `reads.visible_rows`): comparisons on
`values_json` typed by `query_sql`, Relation predicates as EXISTS (or a count) over the visible
Links joined to the visible Records at their other end, then ORDER BY, LIMIT and OFFSET; with an
aggregate, GROUP BY in SQL. `run_query` executes it, keeps the selected Attributes of each Record
and masks what the caller may not read. docs/query.md is the reference of the DSL.
"""

from __future__ import annotations

import operator
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import FunctionElement

from lorebase_core.access import MASK, ReadScope
from lorebase_core.query import (
    Aggregate,
    And,
    Comparison,
    Not,
    Or,
    Predicate,
    Query,
    RelationPredicate,
)
from lorebase_core.refs import RecordRef
from lorebase_core.schema import Schema
from lorebase_core.values import CanonicalValue, ValueType
from lorebase_store import tables as t
from lorebase_store.commits.typed_heads import KEY, TypedKind, layout_digest, typed_kind
from lorebase_store.reads.query_sql import (
    IN_LIST_PARAMETERS,
    average,
    binary,
    from_sort_key,
    json_text,
    number,
    sort_key,
    sort_literal,
    text_in,
    total,
)
from lorebase_store.reads.records import LINK_IDENTITY, RECORD_IDENTITY
from lorebase_store.versioned.views import View, not_shadowed, visible

Values = dict[str, CanonicalValue]
_COMPARE: dict[str, Callable[[Any, Any], sa.ColumnElement[bool]]] = {
    "eq": operator.eq,
    "ne": operator.ne,
    "lt": operator.lt,
    "lte": operator.le,
    "gt": operator.gt,
    "gte": operator.ge,
}


@dataclass(frozen=True)
class QueryRow:
    """One Record of an answer: its selected values, masked where the caller may not read them."""

    kind: str
    key: str
    values: Values

    @property
    def ref(self) -> str:
        return str(RecordRef(self.kind, self.key))

    def to_json(self) -> dict[str, Any]:
        return {"ref": self.ref, "kind": self.kind, "key": self.key, "values": self.values}


@dataclass(frozen=True)
class QueryGroup:
    """One group of an aggregate: its key (None: no value), its Record count and its metrics."""

    key: CanonicalValue
    count: int
    metrics: Values = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "count": self.count, **self.metrics}


@dataclass(frozen=True)
class QueryResult:
    """A page of an answer: Records, or groups for an aggregate, and where the next page starts."""

    records: list[QueryRow] = field(default_factory=list)
    groups: list[QueryGroup] | None = None
    next_offset: int | None = None

    def to_json(self) -> dict[str, Any]:
        """`{"records": [...]}`, or `{"groups": [...]}` for an aggregate."""
        if self.groups is not None:
            return {"groups": [group.to_json() for group in self.groups]}
        return {"records": [row.to_json() for row in self.records]}


def run_query(
    connection: sa.Connection,
    view: View,
    schema: Schema,
    query: Query,
    scope: ReadScope,
    *,
    offset: int = 0,
    typed_heads: bool = True,
) -> QueryResult:
    """The page of `query` starting at `offset`, read through `view` by one statement.

    At the head of the default branch the statement reads the typed head tables where they
    cover the query (`commits.typed_heads`); `typed_heads=False` keeps to `values_json` (the
    answers are the same: tests compare them).
    """
    statement = _statement_of(connection, view, schema, query, scope, typed_heads=typed_heads)
    rows = connection.execute(statement, _page(query, offset)).all()
    next_offset = offset + query.limit if len(rows) > query.limit else None
    rows = rows[: query.limit]
    if query.aggregate is not None:
        return QueryResult(groups=_groups(query.aggregate, rows), next_offset=next_offset)
    return QueryResult(records=_records(schema, query, scope, rows), next_offset=next_offset)


def build_query_statement(
    view: View, schema: Schema, query: Query, scope: ReadScope, offset: int = 0
) -> sa.Select[Any]:
    """The one SELECT of a page: `limit + 1` Records (or groups) from `offset` on.

    Records come ordered by the `order_by` keys (missing values first ascending, last
    descending), then Kind and key ascending; groups by key ascending, no value first.
    """
    return _STATEMENTS.get(view, schema, query, scope).params(_page(query, offset))


def _statement_of(
    connection: sa.Connection,
    view: View,
    schema: Schema,
    query: Query,
    scope: ReadScope,
    *,
    typed_heads: bool,
) -> sa.Select[Any]:
    """The statement of `query`'s pages on this connection, typed head tables included."""
    typed = typed_tables(connection, view, schema, query) if typed_heads else {}
    return _STATEMENTS.get(view, schema, query, scope, typed)


def _page(query: Query, offset: int) -> dict[str, int]:
    return {"query_limit": query.limit + 1, "query_offset": offset}


def _statement(
    view: View, query: Query, kinds: tuple[str, ...], typed: Mapping[str, TypedKind]
) -> sa.Select[Any]:
    """The statement of every page of a query (`query_limit` and `query_offset` are bound late)."""
    conditions = _Conditions(view, typed)
    rows = conditions.rows(kinds, query.where, _top_level_attributes(query))
    if rows.values is None and _filters_on_an_index(query.where):
        rows = replace(rows, indexed_filter=True)
    condition: list[sa.ColumnElement[bool]] = list(rows.live)
    if query.where is not None:
        condition.append(conditions.build(query.where, rows, kinds, negated=False))
    limit = sa.bindparam("query_limit", type_=sa.Integer)
    offset = sa.bindparam("query_offset", type_=sa.Integer)
    if query.aggregate is not None:
        statement = _aggregate_statement(query.aggregate, rows).where(*condition)
        return statement.limit(limit).offset(offset)
    if rows.values is not None:
        statement = (
            sa.select(rows.kind, rows.key, rows.values)
            .where(*condition)
            .order_by(*_record_order(query, rows, kinds))
        )
        return statement.limit(limit).offset(offset)
    # typed rows: the page's keys from the typed table, then their values from the head rows
    order = _order_keys(query, rows)
    page = (
        sa.select(
            rows.kind.label("kind"),
            rows.key.label("record_key"),
            *(expression.label(f"o{index}") for index, (expression, _asc) in enumerate(order)),
        )
        .where(*condition)
        .order_by(*_record_order(query, rows, kinds))
        .limit(limit)
        .offset(offset)
        .subquery()
    )
    records = t.records
    outer_order: list[sa.ColumnElement[Any]] = [
        page.c[f"o{index}"].asc().nulls_first() if asc else page.c[f"o{index}"].desc().nulls_last()
        for index, (_expression, asc) in enumerate(order)
    ]
    if len(kinds) > 1:
        outer_order.append(page.c.kind)
    outer_order.append(page.c.record_key)
    return (
        sa.select(page.c.kind, page.c.record_key, records.c.values_json)
        .join_from(
            page,
            records,
            sa.and_(
                records.c.branch_id == view.branch.id,
                records.c.kind == page.c.kind,
                records.c.record_key == page.c.record_key,
                records.c.to_seq.is_(None),
            ),
        )
        .order_by(*outer_order)
    )


class _StatementCache:
    """Built statements by query, View and readable Kinds, most recently used kept.

    Building a statement and computing its SQLAlchemy cache key costs more than running a
    selective query; agents and paging repeat queries, so the same statement object is reused.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self.lock = threading.Lock()
        self.entries: OrderedDict[tuple[Any, ...], sa.Select[Any]] = OrderedDict()

    def get(
        self,
        view: View,
        schema: Schema,
        query: Query,
        scope: ReadScope,
        typed: Mapping[str, TypedKind] | None = None,
    ) -> sa.Select[Any]:
        kinds = tuple(kind for kind in query.kinds if scope.kind_visible(kind))
        typed = typed or {}
        tables = tuple(sorted((kind, found.name) for kind, found in typed.items()))
        key = (query.digest(), schema.digest, kinds, view.segments, tables)
        with self.lock:
            found = self.entries.get(key)
            if found is not None:
                self.entries.move_to_end(key)
                return found
        statement = _statement(view, query, kinds, typed)
        with self.lock:
            self.entries[key] = statement
            while len(self.entries) > self.size:
                self.entries.popitem(last=False)
        return statement


_STATEMENTS = _StatementCache(512)


def query_sql(
    connection: sa.Connection,
    view: View,
    schema: Schema,
    query: Query,
    scope: ReadScope,
    *,
    offset: int = 0,
    typed_heads: bool = True,
) -> tuple[str, Sequence[Any] | Mapping[str, Any]]:
    """The SQL text and driver parameters of the statement `run_query` runs on this connection.

    `connection.exec_driver_sql(sql, parameters)` runs exactly what `run_query` runs (benchmarks
    time it as the raw-SQL baseline), typed head tables included.
    """
    statement = _statement_of(connection, view, schema, query, scope, typed_heads=typed_heads)
    dialect = connection.dialect
    compiled = statement.compile(dialect=dialect)
    expanded = compiled.construct_expanded_state(_page(query, offset))

    def processor(name: str) -> Callable[[Any], Any] | None:
        # the expanded state has the processors of expanded parameters only (IN lists)
        if name in expanded.processors:
            return expanded.processors[name]
        bind = compiled.binds.get(name)
        return None if bind is None else bind.type.dialect_impl(dialect).bind_processor(dialect)

    parameters = {}
    for name, value in expanded.parameters.items():
        process = processor(name)
        parameters[name] = value if process is None else process(value)
    if expanded.positiontup is not None:
        return expanded.statement, tuple(parameters[name] for name in expanded.positiontup)
    return expanded.statement, parameters


class _NoIndex(FunctionElement[Any]):
    """The same value, which SQLite's planner may not serve from an index (`+x`).

    Without statistics SQLite prefers walking the index of an ORDER BY or GROUP BY column (no
    sort) to the index of a filter; on a typed head that reads every row of the Kind. Where the
    query filters on an indexed column, the key or group expression is written `+x` so that the
    filter's index is read. PostgreSQL plans by its statistics: the expression is left as it is.
    """

    name = "no_index"
    inherit_cache = True


@compiles(_NoIndex)
def _no_index(element: _NoIndex, compiler: SQLCompiler, **kw: Any) -> str:
    return compiler.process(element.clauses, **kw)


@compiles(_NoIndex, "sqlite")
def _no_index_sqlite(element: _NoIndex, compiler: SQLCompiler, **kw: Any) -> str:
    return f"+{compiler.process(element.clauses, **kw)}"


def _filters_on_an_index(where: Predicate | None) -> bool:
    """Whether the query's top level requires a comparison an index of a typed column serves."""
    if isinstance(where, Comparison):
        return (
            where.op in ("eq", "in", "lt", "lte", "gt", "gte")
            and where.value_type.base != "boolean"
        )
    if isinstance(where, And):
        return any(_filters_on_an_index(child) for child in where.predicates)
    return False


@dataclass(frozen=True, kw_only=True)
class _Rows:
    """The visible Records of some Kinds a statement reads, and how to read their values.

    JSON rows are the visible row versions (any View), their values read from `values_json` by
    `query_sql`; typed rows are the typed head tables of the default branch's head, where each
    covered Attribute is a column holding what `query_sql.sort_key` computes.
    """

    kind: sa.ColumnElement[str]
    key: sa.ColumnElement[str]
    live: tuple[sa.ColumnElement[bool], ...]
    values: sa.ColumnElement[Any] | None
    """`values_json` (JSON rows), None for typed rows."""
    columns: Mapping[str, sa.ColumnElement[Any]] = field(default_factory=dict)
    indexed_filter: bool = False
    """Typed rows filtered through an index: keys and groups do not compete for the plan."""

    def unindexed(self, expression: sa.ColumnElement[Any]) -> sa.ColumnElement[Any]:
        if self.values is None and self.indexed_filter:
            return _NoIndex(expression)
        return expression

    def text(self, attribute: str) -> sa.ColumnElement[Any]:
        """NULL exactly when the Record has no value (and the canonical text for JSON rows)."""
        if self.values is not None:
            return json_text(self.values, attribute)
        return self.columns[attribute]

    def sort(self, attribute: str, value_type: ValueType) -> sa.ColumnElement[Any]:
        """What orders, groups, compares and sums the Attribute (`query_sql.sort_key`)."""
        if self.values is not None:
            return sort_key(self.values, attribute, value_type)
        return self.columns[attribute]


def _json_rows(view: View, kinds: tuple[str, ...]) -> _Rows:
    rows = _records_of(view, kinds)
    return _Rows(
        kind=rows.c.kind,
        key=rows.c.record_key,
        live=(rows.c.deleted.is_(False),),
        values=rows.c.values_json,
    )


def _typed_rows(typed: Mapping[str, TypedKind], kinds: tuple[str, ...]) -> _Rows:
    """The typed heads of `kinds` (one table, or a UNION ALL of their common columns)."""
    if len(kinds) == 1:
        found = typed[kinds[0]]
        table = found.table.alias()
        return _Rows(
            kind=sa.literal(kinds[0], sa.String(63)),
            key=table.c[KEY],
            live=(),
            values=None,
            columns={name: table.c[name] for name in found.columns},
        )
    common = [
        name
        for name in typed[kinds[0]].columns
        if all(name in typed[kind].columns for kind in kinds[1:])
    ]
    parts = []
    for kind in kinds:
        table = typed[kind].table
        parts.append(
            sa.select(
                sa.literal(kind, sa.String(63)).label("kind"),
                table.c[KEY].label("record_key"),
                *(table.c[name].label(f"a_{name}") for name in common),
            )
        )
    rows = sa.union_all(*parts).subquery()
    return _Rows(
        kind=rows.c.kind,
        key=rows.c.record_key,
        live=(),
        values=None,
        columns={name: rows.c[f"a_{name}"] for name in common},
    )


def _records_of(view: View, kinds: tuple[str, ...]) -> sa.Subquery:
    def of_kinds(table: sa.Table) -> sa.ColumnElement[bool]:
        if len(kinds) == 1:
            return table.c.kind == kinds[0]
        return table.c.kind.in_(kinds) if kinds else sa.false()

    return _visible_rows(t.records, view, RECORD_IDENTITY, of_kinds, _RECORD_COLUMNS)


_RECORD_COLUMNS = ("kind", "record_key", "deleted", "values_json")
_LINK_COLUMNS = ("from_key", "to_key", "deleted")


def _visible_rows(
    table: sa.Table,
    view: View,
    identity: tuple[str, ...],
    where: Callable[[sa.Table], sa.ColumnElement[bool]],
    columns: tuple[str, ...],
) -> sa.Subquery:
    """`reads.visible_rows` with only the columns a query reads (less to build per request)."""
    parts = [
        sa.select(*(table.c[name] for name in columns)).where(
            visible(table, segment),
            where(table),
            not_shadowed(table, table, view.segments[:index], identity),
        )
        for index, segment in enumerate(view.segments)
    ]
    return (parts[0] if len(parts) == 1 else sa.union_all(*parts)).subquery()


# -- which queries the typed heads answer ------------------------------------------------------
_REGISTRY = sa.select(
    t.typed_heads.c.kind,
    t.typed_heads.c.branch_id,
    t.typed_heads.c.table_name,
    t.typed_heads.c.layout,
).where(
    t.typed_heads.c.domain_id == sa.bindparam("domain_id"),
    t.typed_heads.c.kind.in_(sa.bindparam("kinds", expanding=True)),
)
_SAFE_NUMBER = 2**63
"""`eq`, `ne` and `in` on a typed number compare numbers, not canonical texts: the same answer
while the literal is a 64-bit integer (past that SQLite compares REALs); others use the JSON path."""


def typed_tables(
    connection: sa.Connection, view: View, schema: Schema, query: Query
) -> dict[str, TypedKind]:
    """The typed head tables a query may read: at the default branch's head only, for the
    Kinds whose registered layout is that of `schema` (one look-up in the registry)."""
    if not (
        view.at_head and len(view.segments) == 1 and view.branch.name == view.domain.default_branch
    ):
        return {}
    wanted = sorted({*query.kinds, *_target_kinds(query.where)} & set(schema.kinds))
    if not wanted:
        return {}
    found: dict[str, TypedKind] = {}
    for row in connection.execute(_REGISTRY, {"domain_id": view.domain.id, "kinds": wanted}):
        if row.branch_id != view.branch.id or row.layout != layout_digest(schema, row.kind):
            continue
        typed = typed_kind(view.domain.id, schema, row.kind)
        if typed.name == row.table_name:
            found[row.kind] = typed
    return found


def _target_kinds(predicate: Predicate | None) -> Iterator[str]:
    if predicate is None or isinstance(predicate, Comparison):
        return
    if isinstance(predicate, And | Or):
        for child in predicate.predicates:
            yield from _target_kinds(child)
    elif isinstance(predicate, Not):
        yield from _target_kinds(predicate.predicate)
    else:
        yield predicate.target_kind
        yield from _target_kinds(predicate.where)


def _level_comparisons(predicate: Predicate | None) -> Iterator[Comparison]:
    """The comparisons on the Records themselves (not those across a Relation)."""
    if predicate is None or isinstance(predicate, RelationPredicate):
        return
    if isinstance(predicate, Comparison):
        yield predicate
    elif isinstance(predicate, And | Or):
        for child in predicate.predicates:
            yield from _level_comparisons(child)
    else:
        yield from _level_comparisons(predicate.predicate)


def _top_level_attributes(query: Query) -> tuple[str, ...]:
    """The Attributes of the queried Records that ordering and the aggregate read."""
    names = [key.attr for key in query.order_by]
    if query.aggregate is not None:
        if query.aggregate.group_by is not None:
            names.append(query.aggregate.group_by)
        names += [metric.attr for metric in query.aggregate.metrics if metric.attr is not None]
    return tuple(names)


def _typed_covers(comparison: Comparison) -> bool:
    """Whether a comparison on a typed column answers as the JSON path does."""
    base = comparison.value_type.base
    if base not in ("integer", "decimal") or comparison.op not in ("eq", "ne", "in"):
        return True
    values = comparison.value if isinstance(comparison.value, list) else [comparison.value]
    if len(values) > IN_LIST_PARAMETERS:
        return False
    for value in values:
        scaled = int(str(value).replace(".", ""))
        if not -_SAFE_NUMBER < scaled < _SAFE_NUMBER:
            return False
    return True


class _Conditions:
    """Predicates as SQL conditions on a subquery of visible Records."""

    def __init__(self, view: View, typed: Mapping[str, TypedKind] | None = None) -> None:
        self.view = view
        self.typed = typed or {}

    def rows(
        self, kinds: tuple[str, ...], where: Predicate | None, attributes: tuple[str, ...] = ()
    ) -> _Rows:
        """Typed rows when every Kind has a typed head holding what the level reads."""
        if not kinds or not all(kind in self.typed for kind in kinds):
            return _json_rows(self.view, kinds)
        comparisons = list(_level_comparisons(where))
        needed = {*attributes, *(comparison.attr for comparison in comparisons)}
        if not all(name in self.typed[kind].columns for kind in kinds for name in needed):
            return _json_rows(self.view, kinds)
        if not all(_typed_covers(comparison) for comparison in comparisons):
            return _json_rows(self.view, kinds)
        return _typed_rows(self.typed, kinds)

    def build(
        self,
        predicate: Predicate,
        rows: _Rows,
        kinds: tuple[str, ...],
        *,
        negated: bool,
    ) -> sa.ColumnElement[bool]:
        """`negated`: under a `not`, where a comparison on a missing value must be false, not NULL."""
        if isinstance(predicate, Comparison):
            return _comparison(rows, predicate, guard=negated)
        if isinstance(predicate, And):
            return sa.and_(
                *(self.build(child, rows, kinds, negated=negated) for child in predicate.predicates)
            )
        if isinstance(predicate, Or):
            return sa.or_(
                *(self.build(child, rows, kinds, negated=negated) for child in predicate.predicates)
            )
        if isinstance(predicate, Not):
            return sa.not_(self.build(predicate.predicate, rows, kinds, negated=True))
        condition = self.relation(predicate, rows)
        if any(kind != predicate.source_kind for kind in kinds):
            # a Trait query: only the Kinds at the Relation's source end can match
            return sa.and_(rows.kind == predicate.source_kind, condition)
        return condition

    def relation(self, predicate: RelationPredicate, rows: _Rows) -> sa.ColumnElement[bool]:
        """Records across the Relation from each row: at least one matches, or their count does."""
        links = _visible_rows(
            t.links,
            self.view,
            LINK_IDENTITY,
            lambda table: table.c.relation == predicate.relation,
            _LINK_COLUMNS,
        )
        near, far = ("from_key", "to_key")
        if predicate.direction == "inverse":
            near, far = far, near
        condition: list[sa.ColumnElement[bool]] = [
            links.c.deleted.is_(False),
            links.c[near] == rows.key,
        ]
        across: sa.FromClause = links
        if predicate.where is not None:
            # a live Link has live ends (deleting a Record deletes its Links): join only to filter
            target_kinds = (predicate.target_kind,)
            target = self.rows(target_kinds, predicate.where)
            across = links.join(_from_of(target), target.key == links.c[far])
            condition += [
                *target.live,
                self.build(predicate.where, target, target_kinds, negated=False),
            ]
        if predicate.count is None:
            return sa.select(sa.literal_column("1")).select_from(across).where(*condition).exists()
        counted = sa.select(sa.func.count()).select_from(across).where(*condition)
        return _COMPARE[predicate.count.op](
            counted.scalar_subquery(), number(predicate.count.value)
        )


def _from_of(rows: _Rows) -> sa.FromClause:
    """The table or subquery the rows' key column belongs to."""
    table = getattr(rows.key, "table", None)
    assert isinstance(table, sa.FromClause)
    return table


def _comparison(rows: _Rows, comparison: Comparison, *, guard: bool) -> sa.ColumnElement[bool]:
    text = rows.text(comparison.attr)
    typed = rows.values is None
    op, value, value_type = comparison.op, comparison.value, comparison.value_type
    if op == "is_null":
        return text.is_(None) if value else text.is_not(None)
    condition: sa.ColumnElement[bool]
    if value_type.base == "boolean":
        condition = _COMPARE[op](rows.sort(comparison.attr, value_type), value)
    elif op in ("eq", "ne"):  # canonical text is one spelling per value
        if typed:  # the typed column holds the sort key: one value per canonical text
            literal = sort_literal(value_type, value)
            condition = _COMPARE[op](text, literal)
        else:
            condition = _COMPARE[op](text, value)
    elif op == "in":  # canonical text, as for eq: a list of str for every type `in` applies to
        assert isinstance(value, list)
        if typed and value_type.base in ("integer", "decimal"):
            condition = text.in_([sort_literal(value_type, item) for item in value])
        elif typed and value_type.base == "datetime":
            condition = text_in(text, [str(sort_literal(value_type, item)) for item in value])
        else:
            condition = text_in(text, [str(item) for item in value])
    elif op in ("contains", "starts_with"):
        folded = sa.func.lower(binary(text), type_=sa.String())
        needle = str(value)
        condition = (
            folded.contains(needle, autoescape=True)
            if op == "contains"
            else folded.startswith(needle, autoescape=True)
        )
    else:
        key = rows.sort(comparison.attr, value_type)
        condition = _COMPARE[op](key, sort_literal(value_type, value))
    if guard:
        return sa.and_(text.is_not(None), condition)
    return condition


def _order_keys(query: Query, rows: _Rows) -> list[tuple[sa.ColumnElement[Any], bool]]:
    """The `order_by` expressions and whether each is ascending."""
    return [(rows.sort(key.attr, key.value_type), key.direction == "asc") for key in query.order_by]


def _record_order(query: Query, rows: _Rows, kinds: tuple[str, ...]) -> list[sa.ColumnElement[Any]]:
    order: list[sa.ColumnElement[Any]] = [
        rows.unindexed(expression).asc().nulls_first()
        if asc
        else rows.unindexed(expression).desc().nulls_last()
        for expression, asc in _order_keys(query, rows)
    ]
    # the key columns in their own collation, so that an index gives the order (docs/query.md)
    if len(kinds) > 1:
        order.append(rows.kind)
    order.append(rows.unindexed(rows.key))
    return order


def _aggregate_statement(aggregate: Aggregate, rows: _Rows) -> sa.Select[Any]:
    group = None
    if aggregate.group_by is not None and aggregate.group_type is not None:
        group = rows.unindexed(rows.sort(aggregate.group_by, aggregate.group_type))
    columns: list[sa.ColumnElement[Any]] = [
        (group if group is not None else sa.null()).label("key"),
        sa.func.count().label("count"),
    ]
    for index, metric in enumerate(aggregate.metrics):
        name = f"m{index}"
        if metric.attr is None or metric.value_type is None:
            columns.append(sa.func.count().label(name))
            continue
        if metric.function == "count":
            columns.append(sa.func.count(rows.text(metric.attr)).label(name))
            continue
        key = rows.sort(metric.attr, metric.value_type)
        if metric.function in ("sum", "avg"):
            columns.append(sa.func.sum(key).label(name))
            columns.append(sa.func.count(key).label(f"{name}_count"))
        else:
            function = sa.func.min if metric.function == "min" else sa.func.max
            columns.append(function(key).label(name))
    statement = sa.select(*columns).select_from(_from_of(rows))
    if group is not None:
        statement = statement.group_by(group).order_by(group.asc().nulls_first())
    return statement


def _groups(aggregate: Aggregate, rows: Sequence[sa.Row[Any]]) -> list[QueryGroup]:
    groups = []
    for row in rows:
        found = row._mapping
        key = (
            from_sort_key(aggregate.group_type, found["key"])
            if aggregate.group_type is not None
            else None
        )
        metrics: Values = {}
        for index, metric in enumerate(aggregate.metrics):
            raw = found[f"m{index}"]
            if metric.function == "count" or metric.value_type is None:
                metrics[metric.name] = int(raw)
            elif metric.function == "sum":
                metrics[metric.name] = total(metric.value_type, raw)
            elif metric.function == "avg":
                metrics[metric.name] = average(
                    metric.value_type, raw, int(found[f"m{index}_count"])
                )
            else:
                metrics[metric.name] = from_sort_key(metric.value_type, raw)
        groups.append(QueryGroup(key, int(found["count"]), metrics))
    return groups


def _records(
    schema: Schema,
    query: Query,
    scope: ReadScope,
    rows: Sequence[sa.Row[str, str, Mapping[str, CanonicalValue]]],
) -> list[QueryRow]:
    selected: dict[str, tuple[tuple[str, ...], frozenset[str]]] = {}
    records = []
    for row in rows:
        kind_name, key, stored = row[0], row[1], row[2]
        if kind_name not in selected:
            kind = schema.kinds[kind_name]
            names = query.select if query.select is not None else tuple(kind.attributes)
            selected[kind_name] = (names, frozenset(scope.masked_names(kind.attributes)))
        names, masked = selected[kind_name]
        values: Values = {  # a masked Attribute is *** whether set or not: unset ones tell too
            name: MASK if name in masked else stored[name]
            for name in names
            if name in masked or stored.get(name) is not None
        }
        records.append(QueryRow(kind_name, key, values))
    return records
