"""The parsed query of POST /query (docs/query.md): frozen dataclasses, checked and canonical.

`lorebase_core.query.parse.parse_query` builds a `Query` from the request document; the store
turns it into one SQL statement (`lorebase_store.reads.query`). Comparison values are already in the
canonical form of their Attribute, and every node carries the `ValueType` the store compares with.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal, TypeAlias

from lorebase_core.errors import QueryInvalid
from lorebase_core.schema.document import Direction, canonical_json
from lorebase_core.values import JsonValue, ValueType

Operator = Literal["eq", "ne", "lt", "lte", "gt", "gte", "in", "contains", "starts_with", "is_null"]
OPERATORS: tuple[Operator, ...] = (
    "eq",
    "ne",
    "lt",
    "lte",
    "gt",
    "gte",
    "in",
    "contains",
    "starts_with",
    "is_null",
)
CountOperator = Literal["eq", "ne", "lt", "lte", "gt", "gte"]
COUNT_OPERATORS: tuple[CountOperator, ...] = ("eq", "ne", "lt", "lte", "gt", "gte")
SortDirection = Literal["asc", "desc"]
MetricFunction = Literal["count", "sum", "avg", "min", "max"]
METRIC_FUNCTIONS: tuple[MetricFunction, ...] = ("count", "sum", "avg", "min", "max")
Place = Literal["where", "select", "order_by", "group_by", "metrics"]


@dataclass(frozen=True)
class Comparison:
    """`{"attr": ..., "op": ..., "value": ...}`.

    `value` is canonical: a list of canonical values for `in`, a bool for `is_null`, and the text
    as given for `contains` and `starts_with`.
    """

    attr: str
    op: Operator
    value: JsonValue
    value_type: ValueType

    def to_json(self) -> dict[str, JsonValue]:
        return {"attr": self.attr, "op": self.op, "value": self.value}


@dataclass(frozen=True)
class RelationCount:
    """`"count": {"op": "eq", "value": 1}` of a Relation predicate."""

    op: CountOperator
    value: int

    def to_json(self) -> dict[str, JsonValue]:
        return {"op": self.op, "value": self.value}


@dataclass(frozen=True)
class RelationPredicate:
    """`{"rel": name, "where": p, "count": c}`: Records across a Relation that match `where`.

    Without `count`, at least one must match; with it, their number compares with `count`.
    `relation` is the forward name stored with the Links and `direction` says which end the
    queried Record is (`forward`: the `from` end).
    """

    rel: str
    relation: str
    direction: Direction
    source_kind: str
    target_kind: str
    where: Predicate | None = None
    count: RelationCount | None = None

    def to_json(self) -> dict[str, JsonValue]:
        document: dict[str, JsonValue] = {"rel": self.rel}
        if self.where is not None:
            document["where"] = self.where.to_json()
        if self.count is not None:
            document["count"] = self.count.to_json()
        return document


@dataclass(frozen=True)
class And:
    predicates: tuple[Predicate, ...]

    def to_json(self) -> dict[str, JsonValue]:
        return {"and": [predicate.to_json() for predicate in self.predicates]}


@dataclass(frozen=True)
class Or:
    predicates: tuple[Predicate, ...]

    def to_json(self) -> dict[str, JsonValue]:
        return {"or": [predicate.to_json() for predicate in self.predicates]}


@dataclass(frozen=True)
class Not:
    predicate: Predicate

    def to_json(self) -> dict[str, JsonValue]:
        return {"not": self.predicate.to_json()}


Predicate: TypeAlias = And | Or | Not | Comparison | RelationPredicate


@dataclass(frozen=True)
class OrderKey:
    attr: str
    direction: SortDirection
    value_type: ValueType

    def to_json(self) -> dict[str, JsonValue]:
        return {"attr": self.attr, "dir": self.direction}


@dataclass(frozen=True)
class Metric:
    """One named metric of an aggregate: `function` over `attr` (None: `count` of `*`)."""

    name: str
    function: MetricFunction
    attr: str | None
    value_type: ValueType | None

    def to_json(self) -> dict[str, JsonValue]:
        return {self.function: "*" if self.attr is None else self.attr}


@dataclass(frozen=True)
class Aggregate:
    """Groups by one Attribute (or one group over everything) with named metrics."""

    group_by: str | None
    group_type: ValueType | None
    metrics: tuple[Metric, ...] = ()

    def to_json(self) -> dict[str, JsonValue]:
        return {
            "group_by": self.group_by,
            "metrics": {metric.name: metric.to_json() for metric in self.metrics},
        }


@dataclass(frozen=True)
class Query:
    """A checked query: what to read, how to filter, order, page and aggregate it.

    Attributes:
        kinds: the Kind queried, or the readable Kinds implementing the Trait, in schema order.
        trait: the Trait queried, or None for a Kind query.
        where: the filter, or None for every Record.
        select: the Attributes to return, or None for every Attribute of each Record's Kind.
        order_by: sort keys before the final tie-break (Kind, then key, ascending).
        limit: the page size (Records, or groups with `aggregate`).
        cursor: the cursor text of the request, not decoded (`lorebase_core.query.cursor`).
        aggregate: groups and metrics instead of Records, or None.
        branch, at, coverage: the members of the request that the caller (Keeper) interprets.
    """

    kinds: tuple[str, ...]
    trait: str | None
    where: Predicate | None = None
    select: tuple[str, ...] | None = None
    order_by: tuple[OrderKey, ...] = ()
    limit: int = 100
    cursor: str | None = None
    aggregate: Aggregate | None = None
    branch: JsonValue = None
    at: JsonValue = None
    coverage: JsonValue = None

    def to_json(self) -> dict[str, JsonValue]:
        """The query in canonical form, without cursor, branch, at and coverage."""
        document: dict[str, JsonValue] = (
            {"trait": self.trait} if self.trait is not None else {"kind": self.kinds[0]}
        )
        if self.where is not None:
            document["where"] = self.where.to_json()
        if self.select is not None:
            document["select"] = list(self.select)
        if self.order_by:
            document["order_by"] = [key.to_json() for key in self.order_by]
        document["limit"] = self.limit
        if self.aggregate is not None:
            document["aggregate"] = self.aggregate.to_json()
        return document

    def digest(self) -> str:
        """SHA-256 (hex) of the canonical JSON of `to_json()`: what a cursor is bound to."""
        return hashlib.sha256(canonical_json(self.to_json()).encode()).hexdigest()

    def attributes_used(self) -> dict[tuple[str, str], tuple[Place, ...]]:
        """Where each (Kind, Attribute) is used: "where", "select", "order_by", "group_by", "metrics".

        `select` counts only when it is listed explicitly; Attributes of the Kinds across
        Relation predicates count as "where". Sorted by Kind and Attribute, places sorted.
        """
        used: dict[tuple[str, str], set[Place]] = {}

        def add(kinds: tuple[str, ...], attr: str, place: Place) -> None:
            for kind in kinds:
                used.setdefault((kind, attr), set()).add(place)

        if self.where is not None:
            for kinds, comparison in _comparisons(self.where, self.kinds):
                add(kinds, comparison.attr, "where")
        for attr in self.select or ():
            add(self.kinds, attr, "select")
        for key in self.order_by:
            add(self.kinds, key.attr, "order_by")
        if self.aggregate is not None:
            if self.aggregate.group_by is not None:
                add(self.kinds, self.aggregate.group_by, "group_by")
            for metric in self.aggregate.metrics:
                if metric.attr is not None:
                    add(self.kinds, metric.attr, "metrics")
        return {name: tuple(sorted(used[name])) for name in sorted(used)}


def _comparisons(
    predicate: Predicate, kinds: tuple[str, ...]
) -> Iterator[tuple[tuple[str, ...], Comparison]]:
    """Every comparison of a predicate tree with the Kinds whose Attribute it reads."""
    if isinstance(predicate, Comparison):
        yield kinds, predicate
    elif isinstance(predicate, And | Or):
        for child in predicate.predicates:
            yield from _comparisons(child, kinds)
    elif isinstance(predicate, Not):
        yield from _comparisons(predicate.predicate, kinds)
    elif predicate.where is not None:
        yield from _comparisons(predicate.where, (predicate.target_kind,))


__all__ = [
    "COUNT_OPERATORS",
    "METRIC_FUNCTIONS",
    "OPERATORS",
    "Aggregate",
    "And",
    "Comparison",
    "CountOperator",
    "Metric",
    "MetricFunction",
    "Not",
    "Operator",
    "Or",
    "OrderKey",
    "Place",
    "Predicate",
    "Query",
    "QueryInvalid",
    "RelationCount",
    "RelationPredicate",
    "SortDirection",
]
