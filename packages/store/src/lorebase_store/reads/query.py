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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from lorebase_core.access import MASK, ReadScope
from lorebase_core.query.model import (
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
from lorebase_core.values import CanonicalValue
from lorebase_store import tables as t
from lorebase_store.reads.query_sql import (
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
) -> QueryResult:
    """The page of `query` starting at `offset`, read through `view` by one statement."""
    statement = _STATEMENTS.get(view, schema, query, scope)
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


def _page(query: Query, offset: int) -> dict[str, int]:
    return {"query_limit": query.limit + 1, "query_offset": offset}


def _statement(view: View, query: Query, kinds: tuple[str, ...]) -> sa.Select[Any]:
    """The statement of every page of a query (`query_limit` and `query_offset` are bound late)."""
    rows = _records_of(view, kinds)
    condition: list[sa.ColumnElement[bool]] = [rows.c.deleted.is_(False)]
    if query.where is not None:
        condition.append(_Conditions(view).build(query.where, rows, kinds, negated=False))
    if query.aggregate is not None:
        statement = _aggregate_statement(query.aggregate, rows).where(*condition)
    else:
        statement = (
            sa.select(rows.c.kind, rows.c.record_key, rows.c.values_json)
            .where(*condition)
            .order_by(*_record_order(query, rows, kinds))
        )
    return statement.limit(sa.bindparam("query_limit", type_=sa.Integer)).offset(
        sa.bindparam("query_offset", type_=sa.Integer)
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

    def get(self, view: View, schema: Schema, query: Query, scope: ReadScope) -> sa.Select[Any]:
        kinds = tuple(kind for kind in query.kinds if scope.kind_visible(kind))
        key = (query.digest(), schema.digest, kinds, view.segments)
        with self.lock:
            found = self.entries.get(key)
            if found is not None:
                self.entries.move_to_end(key)
                return found
        statement = _statement(view, query, kinds)
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
) -> tuple[str, Sequence[Any] | Mapping[str, Any]]:
    """The SQL text and driver parameters of `build_query_statement` on this connection.

    `connection.exec_driver_sql(sql, parameters)` runs exactly what `run_query` runs (benchmarks
    time it as the raw-SQL baseline).
    """
    statement = _STATEMENTS.get(view, schema, query, scope)
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


class _Conditions:
    """Predicates as SQL conditions on a subquery of visible Records."""

    def __init__(self, view: View) -> None:
        self.view = view

    def build(
        self,
        predicate: Predicate,
        rows: sa.Subquery,
        kinds: tuple[str, ...],
        *,
        negated: bool,
    ) -> sa.ColumnElement[bool]:
        """`negated`: under a `not`, where a comparison on a missing value must be false, not NULL."""
        if isinstance(predicate, Comparison):
            return _comparison(rows.c.values_json, predicate, guard=negated)
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
            return sa.and_(rows.c.kind == predicate.source_kind, condition)
        return condition

    def relation(self, predicate: RelationPredicate, rows: sa.Subquery) -> sa.ColumnElement[bool]:
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
            links.c[near] == rows.c.record_key,
        ]
        across: sa.FromClause = links
        if predicate.where is not None:
            # a live Link has live ends (deleting a Record deletes its Links): join only to filter
            target = _records_of(self.view, (predicate.target_kind,))
            across = links.join(target, target.c.record_key == links.c[far])
            condition += [
                target.c.deleted.is_(False),
                self.build(predicate.where, target, (predicate.target_kind,), negated=False),
            ]
        if predicate.count is None:
            return sa.select(sa.literal_column("1")).select_from(across).where(*condition).exists()
        counted = sa.select(sa.func.count()).select_from(across).where(*condition)
        return _COMPARE[predicate.count.op](
            counted.scalar_subquery(), number(predicate.count.value)
        )


def _comparison(
    values: sa.ColumnElement[Any], comparison: Comparison, *, guard: bool
) -> sa.ColumnElement[bool]:
    text = json_text(values, comparison.attr)
    op, value, value_type = comparison.op, comparison.value, comparison.value_type
    if op == "is_null":
        return text.is_(None) if value else text.is_not(None)
    condition: sa.ColumnElement[bool]
    if value_type.base == "boolean":
        condition = _COMPARE[op](sort_key(values, comparison.attr, value_type), value)
    elif op in ("eq", "ne"):  # canonical text is one spelling per value
        condition = _COMPARE[op](text, value)
    elif op == "in":  # canonical text, as for eq: a list of str for every type `in` applies to
        assert isinstance(value, list)
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
        key = sort_key(values, comparison.attr, value_type)
        condition = _COMPARE[op](key, sort_literal(value_type, value))
    if guard:
        return sa.and_(text.is_not(None), condition)
    return condition


def _record_order(
    query: Query, rows: sa.Subquery, kinds: tuple[str, ...]
) -> list[sa.ColumnElement[Any]]:
    order: list[sa.ColumnElement[Any]] = []
    for key in query.order_by:
        expression = sort_key(rows.c.values_json, key.attr, key.value_type)
        order.append(
            expression.asc().nulls_first()
            if key.direction == "asc"
            else expression.desc().nulls_last()
        )
    # the key columns in their own collation, so that an index gives the order (docs/query.md)
    if len(kinds) > 1:
        order.append(rows.c.kind)
    order.append(rows.c.record_key)
    return order


def _aggregate_statement(aggregate: Aggregate, rows: sa.Subquery) -> sa.Select[Any]:
    values = rows.c.values_json
    group = None
    if aggregate.group_by is not None and aggregate.group_type is not None:
        group = sort_key(values, aggregate.group_by, aggregate.group_type)
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
            columns.append(sa.func.count(json_text(values, metric.attr)).label(name))
            continue
        key = sort_key(values, metric.attr, metric.value_type)
        if metric.function in ("sum", "avg"):
            columns.append(sa.func.sum(key).label(name))
            columns.append(sa.func.count(key).label(f"{name}_count"))
        else:
            function = sa.func.min if metric.function == "min" else sa.func.max
            columns.append(function(key).label(name))
    statement = sa.select(*columns).select_from(rows)
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
