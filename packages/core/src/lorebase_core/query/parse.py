"""`parse_query`: check a POST /query document against a schema and a caller's scope.

Every problem is collected and reported at once in one `QueryInvalid` (422), each `Issue` with
its JSON path (`where.and[1].value`) and a stable code (docs/query.md lists them). Names that do
not resolve answer like the reads that name them, before anything else: an unknown or unreadable
Kind 404 `kind-not-found`, Trait 404 `trait-not-found`, Relation 404 `relation-not-found`. Then a
filter, order, group or metric on an Attribute whose values the caller may not read answers 403
`attribute-forbidden`; selecting one is allowed (its values come back masked).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lorebase_core.access import ReadScope
from lorebase_core.errors import Issue, quoted, shortened
from lorebase_core.query import request
from lorebase_core.query.model import (
    COUNT_OPERATORS,
    METRIC_FUNCTIONS,
    OPERATORS,
    Aggregate,
    And,
    Comparison,
    Metric,
    MetricFunction,
    Not,
    Operator,
    Or,
    OrderKey,
    Predicate,
    Query,
    QueryInvalid,
    RelationCount,
    RelationPredicate,
    SortDirection,
)
from lorebase_core.schema import Schema, ValueRules
from lorebase_core.schema.document import canonical_json
from lorebase_core.suggestions import hint
from lorebase_core.values import BaseType, JsonValue, ValueProblem, canonical

MEMBERS = request.members(request.QueryRequest)
"""The members of a query document: the ones its description (`query.request`) declares."""
_COMPARISON_MEMBERS = request.members(request.Comparison)
_RELATION_MEMBERS = request.members(request.RelationPredicate)
_COUNT_MEMBERS = request.members(request.RelationCount)
_ORDER_MEMBERS = request.members(request.OrderKey)
_AGGREGATE_MEMBERS = request.members(request.Aggregate)
_COMBINATIONS = (
    *request.members(request.AllOf),
    *request.members(request.AnyOf),
    *request.members(request.NoneOf),
)
"""and, or, not."""
MAX_NESTING = 32
"""and, or and not nested inside one another at most this deep (Relation hops have their own)."""

_COMPARISON_ORDER: tuple[Operator, ...] = ("eq", "ne", "lt", "lte", "gt", "gte", "in", "is_null")
OPERATORS_BY_TYPE: dict[BaseType, tuple[Operator, ...]] = {
    "string": OPERATORS,
    "text": ("eq", "ne", "in", "contains", "starts_with", "is_null"),
    "integer": _COMPARISON_ORDER,
    "decimal": _COMPARISON_ORDER,
    "date": _COMPARISON_ORDER,
    "datetime": _COMPARISON_ORDER,
    "boolean": ("eq", "ne", "is_null"),
    "enum": ("eq", "ne", "in", "is_null"),
    "json": ("is_null",),
}
_ORDERED: tuple[BaseType, ...] = ("integer", "decimal", "date", "datetime", "string")
_NUMBERS: tuple[BaseType, ...] = ("integer", "decimal")
METRIC_TYPES: dict[MetricFunction, tuple[BaseType, ...] | None] = {
    "count": None,
    "sum": _NUMBERS,
    "avg": _NUMBERS,
    "min": _ORDERED,
    "max": _ORDERED,
}
RESERVED_METRICS = ("key", "count")
_METRIC_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_EXAMPLE_PREDICATE = (
    'a predicate is {"and": [...]}, {"or": [...]}, {"not": p}, '
    '{"attr": "country", "op": "eq", "value": "IT"} or {"rel": "with_supplier", "where": p}'
)


_NOT_STORABLE = "a value is Unicode text without NUL characters (no stored value holds others)"


def _storable(text: str) -> bool:
    """Whether both databases take the text as a parameter (PostgreSQL refuses NUL)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return "\x00" not in text


def ascii_lower(text: str) -> str:
    """`text` with the ASCII letters A-Z lowered: how `contains` and `starts_with` fold case."""
    return text.translate(_ASCII_LOWER)


def parse_query(
    document: object,
    schema: Schema,
    scope: ReadScope,
    *,
    default_limit: int,
    max_limit: int,
    max_predicates: int,
    max_hops: int,
    max_string_length: int,
    max_in_values: int,
    max_metrics: int,
) -> Query:
    """Check a query document and return it as a `Query` with canonical values.

    Args:
        document: the parsed JSON body of POST /query (or the `query` seed of POST /context).
        schema: the schema of the View the query reads.
        scope: what the caller may read.
        default_limit: the page size when the document gives no `limit`.
        max_limit: the largest `limit` accepted.
        max_predicates: comparisons and Relation predicates allowed in `where`, all levels;
            parsing stops past it, so a huge `where` costs no more than a refused one.
        max_hops: Relation predicates nested inside one another, at most.
        max_string_length: the longest string a comparison takes (each `in` item too).
        max_in_values: the most values of one `in` list.
        max_metrics: the most metrics of one aggregate.

    Raises:
        KindNotFound, TraitNotFound, RelationNotFound: a name that does not resolve (or names
            something the caller may not read); KindForbidden when invisible Kinds answer 403.
        AttributeForbidden: a filter, order, group or metric on an Attribute whose values the
            caller may not read.
        QueryInvalid: every other problem, each with its path and code.
    """
    parser = _Parser(
        schema,
        scope,
        _Limits(max_predicates, max_hops, max_string_length, max_in_values, max_metrics),
    )
    return parser.query(document, default_limit=default_limit, max_limit=max_limit)


@dataclass(frozen=True)
class _Target:
    """What a level of the query reads: its Kinds and their Attributes (None when unknown)."""

    label: str
    kinds: tuple[str, ...] | None
    attributes: Mapping[str, ValueRules] | None
    trait: str | None = None


_UNKNOWN = _Target("the query", None, None)


@dataclass(frozen=True)
class _Limits:
    max_predicates: int
    max_hops: int
    max_string_length: int
    max_in_values: int
    max_metrics: int


class _Parser:
    def __init__(self, schema: Schema, scope: ReadScope, limits: _Limits) -> None:
        self.schema = schema
        self.scope = scope
        self.max_predicates = limits.max_predicates
        self.max_hops = limits.max_hops
        self.limits = limits
        self.issues: list[Issue] = []
        self.forbidden: list[tuple[str, str, ValueRules]] = []
        self.predicates = 0

    def issue(self, path: str, message: str, code: str) -> None:
        self.issues.append(Issue(path, message, code))

    def unknown_members(self, raw: Mapping[Any, Any], allowed: tuple[str, ...], path: str) -> None:
        for name in raw:
            if name not in allowed:
                where = f"{path}.{shortened(str(name))}" if path else shortened(str(name))
                self.issue(
                    where,
                    f"unknown member {quoted(name)}; use {', '.join(allowed)}",
                    "unknown-member",
                )

    # -- the document ------------------------------------------------------------------------
    def query(self, document: object, *, default_limit: int, max_limit: int) -> Query:
        if not isinstance(document, dict):
            raise QueryInvalid(
                "A query is a JSON object",
                [Issue("", 'expected a JSON object such as {"kind": "Supplier"}', "bad-type")],
            )
        self.unknown_members(document, MEMBERS, "")
        target = self.target(document)
        where = self.where(document.get("where"), target)
        select = self.select(document.get("select"), target)
        order_by = self.order_by(document.get("order_by"), target)
        limit = self.limit(document.get("limit"), default_limit, max_limit)
        cursor = document.get("cursor")
        if cursor is not None and not isinstance(cursor, str):
            self.issue("cursor", "expected the next_cursor text of an earlier answer", "bad-type")
            cursor = None
        aggregate = self.aggregate(document.get("aggregate"), target)
        if aggregate is not None:
            for member in ("select", "order_by"):
                if document.get(member) is not None:
                    self.issue(
                        member,
                        f"{member} does not apply with aggregate: the answer is groups, "
                        "in ascending order of their key",
                        "conflicting-members",
                    )
        for kind, attribute, rules in self.forbidden:
            self.scope.require_value_readable(kind, attribute, rules)
        if self.issues:
            count = len(set(self.issues))
            raise QueryInvalid(
                f"The query has {count} problem{'s' if count > 1 else ''}", self.issues
            )
        assert target.kinds is not None  # an unknown target is always an issue
        return Query(
            kinds=target.kinds,
            trait=target.trait,
            where=where,
            select=select,
            order_by=order_by,
            limit=limit,
            cursor=cursor,
            aggregate=aggregate,
            branch=document.get("branch"),
            at=document.get("at"),
            coverage=document.get("coverage"),
        )

    def target(self, document: Mapping[str, Any]) -> _Target:
        """The Kind or Trait queried; unknown names raise (404) before any other problem."""
        if "kind" in document and "trait" in document:
            self.issue("trait", "give either kind or trait, not both", "conflicting-members")
        if "kind" in document:
            name = document["kind"]
            if not isinstance(name, str):
                self.issue("kind", "expected the name of a Kind, for example Supplier", "bad-type")
                return _UNKNOWN
            kind = self.scope.kind(self.schema, name)
            return _Target(f"Kind {quoted(name)}", (name,), kind.attributes)
        if "trait" in document:
            name = document["trait"]
            if not isinstance(name, str):
                self.issue("trait", "expected the name of a Trait, for example Located", "bad-type")
                return _UNKNOWN
            implementing = set(self.scope.traits(self.schema, name))
            kinds = tuple(kind for kind in self.schema.kinds if kind in implementing)
            return _Target(
                f"Trait {quoted(name)}", kinds, self.schema.traits[name].attributes, name
            )
        self.issue(
            "", 'name a Kind ("kind": "Supplier") or a Trait ("trait": ...)', "missing-member"
        )
        return _UNKNOWN

    def kind_target(self, name: str) -> _Target:
        return _Target(f"Kind {quoted(name)}", (name,), self.schema.kinds[name].attributes)

    # -- Attributes --------------------------------------------------------------------------
    def attribute(
        self, name: object, path: str, target: _Target, *, read_values: bool
    ) -> tuple[str, ValueRules] | None:
        """An Attribute of the target; `read_values` notes it when the caller may not read it."""
        if not isinstance(name, str):
            self.issue(path, "expected the name of an Attribute", "bad-type")
            return None
        if target.attributes is None or target.kinds is None:
            return None
        rules = target.attributes.get(name)
        if rules is None:
            known = ", ".join(sorted(target.attributes))
            self.issue(
                path,
                f"{target.label} has no Attribute {quoted(name)}"
                f"{hint(name, target.attributes, 'Attributes', listed=0)}; use one of {known}",
                "unknown-attribute",
            )
            return None
        if read_values:
            self.require_readable(target, name, rules)
        return name, rules

    def require_readable(self, target: _Target, name: str, rules: ValueRules) -> None:
        for kind in target.kinds or ():
            declared = self.schema.kinds[kind].attributes.get(name, rules)
            for checked in (declared, rules):
                if not self.scope.value_readable(checked):
                    self.forbidden.append((kind, name, checked))

    # -- where -------------------------------------------------------------------------------
    def where(self, raw: object, target: _Target) -> Predicate | None:
        if raw is None:
            return None
        predicate = self.predicate(raw, "where", target, hop=1, nesting=0)
        if self.past_max_predicates:
            self.issue(
                "where",
                f"more than {self.max_predicates} comparisons and Relation predicates "
                "(read.query.max_predicates): compare with a list of values by in",
                "too-many-predicates",
            )
            return None
        return predicate

    @property
    def past_max_predicates(self) -> bool:
        return self.predicates > self.max_predicates

    def leaf(self) -> bool:
        """Count one predicate that is not and, or, not; False past `max_predicates`.

        Malformed ones count too, so that no `where` is read further than the limit allows.
        """
        self.predicates += 1
        return not self.past_max_predicates

    def predicate(
        self, raw: object, path: str, target: _Target, *, hop: int, nesting: int
    ) -> Predicate | None:
        if self.past_max_predicates:
            return None
        if nesting > MAX_NESTING:
            self.issue(path, f"predicates nest at most {MAX_NESTING} deep", "too-deep")
            return None
        if not isinstance(raw, dict):
            if self.leaf():
                self.issue(path, f"expected a predicate: {_EXAMPLE_PREDICATE}", "bad-predicate")
            return None
        if "attr" in raw:
            return self.comparison(raw, path, target) if self.leaf() else None
        if "rel" in raw:
            return (
                self.relation(raw, path, target, hop=hop, nesting=nesting) if self.leaf() else None
            )
        operators = [name for name in _COMBINATIONS if name in raw]
        if len(operators) != 1:
            if self.leaf():
                message = "use exactly one of and, or, not" if operators else _EXAMPLE_PREDICATE
                self.issue(path, message, "bad-predicate")
            return None
        name = operators[0]
        self.unknown_members(raw, (name,), path)
        if name == "not":
            inner = self.predicate(raw["not"], f"{path}.not", target, hop=hop, nesting=nesting + 1)
            return None if inner is None else Not(inner)
        items = raw[name]
        if not isinstance(items, list):
            self.issue(f"{path}.{name}", "expected a list of predicates", "bad-type")
            return None
        if not items:
            self.issue(f"{path}.{name}", "expected at least one predicate", "bad-value")
            return None
        children = []
        for index, item in enumerate(items):
            if self.past_max_predicates:
                return None
            children.append(
                self.predicate(
                    item, f"{path}.{name}[{index}]", target, hop=hop, nesting=nesting + 1
                )
            )
        if any(child is None for child in children):
            return None
        checked = tuple(child for child in children if child is not None)
        return And(checked) if name == "and" else Or(checked)

    def comparison(self, raw: Mapping[str, Any], path: str, target: _Target) -> Comparison | None:
        self.unknown_members(raw, _COMPARISON_MEMBERS, path)
        found = self.attribute(raw["attr"], f"{path}.attr", target, read_values=True)
        if "op" not in raw:
            self.issue(f"{path}.op", f"missing; use one of {' '.join(OPERATORS)}", "missing-member")
            return None
        op = raw["op"]
        if op not in OPERATORS:
            self.issue(
                f"{path}.op",
                f"unknown operator {quoted(op)}; use one of {' '.join(OPERATORS)}",
                "bad-operator",
            )
            return None
        if found is None:
            return None
        name, rules = found
        allowed = OPERATORS_BY_TYPE[rules.value_type.base]
        if op not in allowed:
            self.issue(
                f"{path}.op",
                f"{op} does not apply to {name} ({rules.type}); use one of {' '.join(allowed)}",
                "bad-operator",
            )
            return None
        valid, value = self.comparison_value(op, raw, f"{path}.value", rules)
        return Comparison(name, op, value, rules.value_type) if valid else None

    def comparison_value(
        self, op: Operator, raw: Mapping[str, Any], path: str, rules: ValueRules
    ) -> tuple[bool, JsonValue]:
        """The canonical value of a comparison, or (False, None) after noting the issue."""
        if op == "is_null":
            value = raw.get("value", True)
            if not isinstance(value, bool):
                self.issue(path, "is_null takes true (no value) or false (a value)", "bad-value")
                return False, None
            return True, value
        if "value" not in raw:
            self.issue(path, f"{op} needs a value", "missing-member")
            return False, None
        value = raw["value"]
        if op in ("contains", "starts_with"):
            if not isinstance(value, str):
                self.issue(path, f"{op} takes a string", "bad-value")
                return False, None
            if not self.short_enough(value, path):
                return False, None
            if not _storable(value):
                self.issue(path, _NOT_STORABLE, "bad-value")
                return False, None
            return True, ascii_lower(value)
        if op == "in":
            if not isinstance(value, list) or not value:
                self.issue(path, "in takes a non-empty list of values", "bad-value")
                return False, None
            most = self.limits.max_in_values
            if len(value) > most:
                self.issue(
                    path,
                    f"{len(value)} values; in takes at most {most} (read.query.max_in_values): "
                    "filter by a Relation or another Attribute instead",
                    "too-many-values",
                )
                return False, None
            values: list[JsonValue] = []
            seen: set[str] = set()
            valid = True
            for index, item in enumerate(value):
                ok, one = self.canonical_value(item, f"{path}[{index}]", rules)
                valid = valid and ok
                # canonical JSON tells values apart: a set, not a scan of the list so far
                spelling = canonical_json(one)
                if ok and spelling not in seen:
                    seen.add(spelling)
                    values.append(one)
            return valid, values
        return self.canonical_value(value, path, rules)

    def short_enough(self, value: str, path: str) -> bool:
        """Whether a compared string is at most `max_string_length` long (an issue if not)."""
        most = self.limits.max_string_length
        if len(value) <= most:
            return True
        self.issue(
            path,
            f"{len(value)} characters; a comparison takes at most {most} "
            "(read.query.max_string_length)",
            "too-long",
        )
        return False

    def canonical_value(
        self, value: object, path: str, rules: ValueRules
    ) -> tuple[bool, JsonValue]:
        if value is None:
            self.issue(path, 'null is no value: use {"op": "is_null"}', "bad-value")
            return False, None
        if isinstance(value, str) and not self.short_enough(value, path):
            return False, None
        try:
            found = canonical(rules.value_type, value)
        except ValueProblem as problem:
            self.issue(path, f"{problem} ({rules.type})", "bad-value")
            return False, None
        if isinstance(found, str) and not _storable(found):
            self.issue(path, _NOT_STORABLE, "bad-value")
            return False, None
        if isinstance(found, str) and not self.short_enough(found, path):
            return False, None
        return True, found

    def relation(
        self, raw: Mapping[str, Any], path: str, target: _Target, *, hop: int, nesting: int
    ) -> RelationPredicate | None:
        self.unknown_members(raw, _RELATION_MEMBERS, path)
        name = raw["rel"]
        if not isinstance(name, str):
            self.issue(
                f"{path}.rel", "expected the name of a Relation (or its inverse)", "bad-type"
            )
            return None
        end = self.scope.relation_end(self.schema, name)
        if hop > self.max_hops:
            self.issue(
                path,
                f"Relation predicates nest at most {self.max_hops} deep (read.query.max_hops)",
                "too-deep",
            )
            return None
        valid = True
        if target.kinds is not None and end.source_kind not in target.kinds:
            self.issue(
                f"{path}.rel",
                f"Relation {quoted(name)} goes from {end.source_kind} to {end.target_kind}; "
                f"it does not start at {target.label}",
                "bad-relation",
            )
            valid = False
        where = None
        if raw.get("where") is not None:
            inner = self.kind_target(end.target_kind)
            where = self.predicate(
                raw["where"], f"{path}.where", inner, hop=hop + 1, nesting=nesting + 1
            )
            valid = valid and where is not None
        count = None
        if raw.get("count") is not None:
            count = self.relation_count(raw["count"], f"{path}.count")
            valid = valid and count is not None
        if not valid:
            return None
        return RelationPredicate(
            name, end.name, end.direction, end.source_kind, end.target_kind, where, count
        )

    def relation_count(self, raw: object, path: str) -> RelationCount | None:
        if not isinstance(raw, dict):
            self.issue(path, 'expected {"op": "eq", "value": 1}', "bad-type")
            return None
        self.unknown_members(raw, _COUNT_MEMBERS, path)
        op = next((known for known in COUNT_OPERATORS if raw.get("op") == known), None)
        value = raw.get("value")
        if op is None:
            self.issue(f"{path}.op", f"use one of {' '.join(COUNT_OPERATORS)}", "bad-operator")
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            self.issue(f"{path}.value", "expected a number of Records, 0 or more", "bad-value")
            return None
        return None if op is None else RelationCount(op, value)

    # -- select, order_by, limit -------------------------------------------------------------
    def select(self, raw: object, target: _Target) -> tuple[str, ...] | None:
        if raw is None:
            return None
        if not isinstance(raw, list):
            self.issue("select", "expected a list of Attribute names", "bad-type")
            return None
        if not self.few_enough_attributes(raw, "select", target):
            return None
        names: list[str] = []
        for index, item in enumerate(raw):
            found = self.attribute(item, f"select[{index}]", target, read_values=False)
            if found is None:
                continue
            if found[0] in names:
                self.issue(f"select[{index}]", f"{quoted(found[0])} is listed twice", "duplicate")
                continue
            names.append(found[0])
        return tuple(names)

    def order_by(self, raw: object, target: _Target) -> tuple[OrderKey, ...]:
        if raw is None:
            return ()
        if not isinstance(raw, list):
            self.issue(
                "order_by",
                'expected a list like [{"attr": "risk_score", "dir": "desc"}]',
                "bad-type",
            )
            return ()
        if not self.few_enough_attributes(raw, "order_by", target):
            return ()
        keys: list[OrderKey] = []
        for index, item in enumerate(raw):
            path = f"order_by[{index}]"
            if not isinstance(item, dict) or "attr" not in item:
                self.issue(path, 'expected {"attr": "risk_score", "dir": "asc|desc"}', "bad-type")
                continue
            self.unknown_members(item, _ORDER_MEMBERS, path)
            direction = item.get("dir", "asc")
            if direction not in ("asc", "desc"):
                self.issue(f"{path}.dir", "use asc or desc", "bad-value")
            found = self.attribute(item["attr"], f"{path}.attr", target, read_values=True)
            if found is None:
                continue
            name, rules = found
            if rules.value_type.base == "json":
                self.issue(
                    f"{path}.attr", f"{name} is a json Attribute; it has no order", "bad-attribute"
                )
            elif any(key.attr == name for key in keys):
                self.issue(f"{path}.attr", f"{quoted(name)} is listed twice", "duplicate")
            elif direction in ("asc", "desc"):
                sort: SortDirection = direction
                keys.append(OrderKey(name, sort, rules.value_type))
        return tuple(keys)

    def few_enough_attributes(self, raw: list[Any], path: str, target: _Target) -> bool:
        """Whether a list of Attributes is no longer than the target has Attributes.

        Each may be listed once, so a longer list is refused whole instead of item by item.
        """
        most = (
            len(target.attributes) if target.attributes is not None else self.limits.max_in_values
        )
        if len(raw) <= most:
            return True
        self.issue(
            path,
            f"{len(raw)} items; {target.label} has {most} Attributes, each listed at most once",
            "too-many-values",
        )
        return False

    def limit(self, raw: object, default_limit: int, max_limit: int) -> int:
        if raw is None:
            return default_limit
        if not isinstance(raw, int) or isinstance(raw, bool):
            self.issue("limit", f"expected a whole number from 1 to {max_limit}", "bad-type")
            return default_limit
        if not 1 <= raw <= max_limit:
            self.issue(
                "limit",
                f"{raw} is not from 1 to {max_limit} (read.query.max_limit)",
                "out-of-range",
            )
            return default_limit
        return raw

    # -- aggregate ---------------------------------------------------------------------------
    def aggregate(self, raw: object, target: _Target) -> Aggregate | None:
        if raw is None:
            return None
        if not isinstance(raw, dict):
            self.issue("aggregate", 'expected {"group_by": "attr", "metrics": {...}}', "bad-type")
            return None
        self.unknown_members(raw, _AGGREGATE_MEMBERS, "aggregate")
        group_by, group_type = None, None
        if raw.get("group_by") is not None:
            found = self.attribute(raw["group_by"], "aggregate.group_by", target, read_values=True)
            if found is not None:
                group_by, rules = found
                group_type = rules.value_type
                if group_type.base == "json":
                    self.issue(
                        "aggregate.group_by",
                        f"{group_by} is a json Attribute; group by another",
                        "bad-attribute",
                    )
        metrics = self.metrics(raw.get("metrics"), target)
        return Aggregate(group_by, group_type, metrics)

    def metrics(self, raw: object, target: _Target) -> tuple[Metric, ...]:
        if raw is None:
            return ()
        if not isinstance(raw, dict):
            self.issue("aggregate.metrics", 'expected {"name": {"avg": "attr"}, ...}', "bad-type")
            return ()
        if len(raw) > self.limits.max_metrics:
            self.issue(
                "aggregate.metrics",
                f"{len(raw)} metrics; at most {self.limits.max_metrics} are computed "
                "(read.query.max_metrics)",
                "too-many-values",
            )
            return ()
        metrics: list[Metric] = []
        for name, spec in raw.items():
            if not isinstance(name, str) or not _METRIC_NAME.match(name):
                self.issue(
                    "aggregate.metrics",
                    f"{quoted(name)} is not a metric name (letters, digits, _)",
                    "bad-value",
                )
                continue
            if name in RESERVED_METRICS:
                self.issue(
                    f"aggregate.metrics.{name}",
                    f"{quoted(name)} is a member of every group; name the metric otherwise",
                    "reserved-name",
                )
                continue
            metric = self.metric(name, spec, target)
            if metric is not None:
                metrics.append(metric)
        return tuple(metrics)

    def metric(self, name: str, spec: object, target: _Target) -> Metric | None:
        path = f"aggregate.metrics.{name}"
        if not isinstance(spec, dict) or len(spec) != 1:
            self.issue(
                path, 'expected one function and its Attribute: {"avg": "risk_score"}', "bad-type"
            )
            return None
        ((function, argument),) = spec.items()
        if function not in METRIC_FUNCTIONS:
            self.issue(
                path,
                f"unknown function {quoted(function)}; use one of {' '.join(METRIC_FUNCTIONS)}",
                "bad-operator",
            )
            return None
        if argument == "*":
            if function != "count":
                self.issue(path, f"{function} needs an Attribute; only count takes *", "bad-value")
                return None
            return Metric(name, "count", None, None)
        found = self.attribute(argument, f"{path}.{function}", target, read_values=True)
        if found is None:
            return None
        attribute, rules = found
        types = METRIC_TYPES[function]
        if types is not None and rules.value_type.base not in types:
            self.issue(
                path,
                f"{function} does not apply to {attribute} ({rules.type}); it takes {', '.join(types)}",
                "bad-operator",
            )
            return None
        return Metric(name, function, attribute, rules.value_type)
