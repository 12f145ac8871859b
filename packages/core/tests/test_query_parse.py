"""Parsing and checking the query DSL of POST /query (docs/query.md) against a schema and a scope."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lorebase_core.access import ReadScope
from lorebase_core.errors import (
    AttributeForbidden,
    KindForbidden,
    KindNotFound,
    LorebaseError,
    RelationNotFound,
    TraitNotFound,
)
from lorebase_core.query import (
    Aggregate,
    And,
    Comparison,
    Metric,
    Not,
    Or,
    OrderKey,
    Query,
    QueryInvalid,
    RelationCount,
    RelationPredicate,
    parse_query,
)
from lorebase_core.query.parse import MAX_NESTING
from lorebase_core.schema import Schema, load_schema

SUPPLY = load_schema(
    (Path(__file__).parents[3] / "examples" / "supply" / "schema.yaml").read_text()
)
EVERYTHING = ReadScope.everything()
NO_CLEARANCE = ReadScope(None, frozenset())
LIMITS = {
    "default_limit": 100,
    "max_limit": 1000,
    "max_predicates": 64,
    "max_hops": 4,
    "max_string_length": 1000,
    "max_in_values": 1000,
    "max_metrics": 32,
}


def parse(
    document: object,
    *,
    schema: Schema = SUPPLY,
    scope: ReadScope = EVERYTHING,
    **limits: int,
) -> Query:
    return parse_query(document, schema, scope, **{**LIMITS, **limits})


def problems(document: object, *, schema: Schema = SUPPLY, **limits: int) -> set[tuple[str, str]]:
    """The (path, code) of every issue of a query that must be refused."""
    with pytest.raises(QueryInvalid) as caught:
        parse(document, schema=schema, **limits)
    assert caught.value.status == 422
    return {(issue.path, issue.code) for issue in caught.value.issues}


def where(predicate: object, kind: str = "Supplier") -> dict[str, Any]:
    return {"kind": kind, "where": predicate}


# --- the members ------------------------------------------------------------------------------


def test_a_kind_alone_reads_every_record_of_it() -> None:
    query = parse({"kind": "Supplier"})
    assert (query.kinds, query.trait, query.where, query.select) == (
        ("Supplier",),
        None,
        None,
        None,
    )
    assert (query.order_by, query.limit, query.cursor, query.aggregate) == ((), 100, None, None)
    assert query.to_json() == {"kind": "Supplier", "limit": 100}


def test_a_trait_reads_the_kinds_implementing_it_in_schema_order() -> None:
    query = parse({"trait": "Located"})
    assert (query.kinds, query.trait) == (("Plant", "Supplier"), "Located")
    assert query.to_json() == {"trait": "Located", "limit": 100}


def test_a_trait_reads_only_the_kinds_the_caller_may_read() -> None:
    assert parse({"trait": "Located"}, scope=ReadScope(frozenset({"Supplier"}))).kinds == (
        "Supplier",
    )


def test_a_trait_none_of_whose_kinds_is_readable_is_unknown() -> None:
    with pytest.raises(TraitNotFound) as invisible:
        parse({"trait": "Located"}, scope=ReadScope(frozenset({"Part"})))
    with pytest.raises(TraitNotFound) as unknown:
        parse({"trait": "Nowhere"}, scope=ReadScope(frozenset({"Part"})))
    assert str(invisible.value) == str(unknown.value).replace("Nowhere", "Located")


def test_every_member_is_parsed() -> None:
    query = parse(
        {
            "kind": "Supplier",
            "where": {"attr": "country", "op": "eq", "value": "IT"},
            "select": ["legal_name", "risk_score"],
            "order_by": [{"attr": "risk_score", "dir": "desc"}, {"attr": "legal_name"}],
            "limit": 10,
            "cursor": "abc",
            "branch": "draft",
            "at": "f4d2",
            "coverage": False,
        }
    )
    integer = SUPPLY.kinds["Supplier"].attributes["risk_score"].value_type
    string = SUPPLY.kinds["Supplier"].attributes["legal_name"].value_type
    assert query.where == Comparison("country", "eq", "IT", string)
    assert query.select == ("legal_name", "risk_score")
    assert query.order_by == (
        OrderKey("risk_score", "desc", integer),
        OrderKey("legal_name", "asc", string),
    )
    assert (query.limit, query.cursor) == (10, "abc")
    assert (query.branch, query.at, query.coverage) == ("draft", "f4d2", False)


def test_null_members_take_their_defaults() -> None:
    query = parse(
        {
            "kind": "Part",
            "where": None,
            "select": None,
            "order_by": None,
            "limit": None,
            "cursor": None,
            "aggregate": None,
        }
    )
    assert query == parse({"kind": "Part"})


def test_an_empty_select_returns_references_only() -> None:
    assert parse({"kind": "Part", "select": []}).select == ()


@pytest.mark.parametrize("limit", [1, 1000])
def test_limits_within_range_are_accepted(limit: int) -> None:
    assert parse({"kind": "Part", "limit": limit}).limit == limit


def test_the_default_limit_comes_from_the_caller() -> None:
    assert parse({"kind": "Part"}, default_limit=7).limit == 7


# --- comparisons: every operator, values canonical -----------------------------------------------

SUPPLY_COMPARISONS = [
    ("Supplier", "country", "eq", "IT", "IT"),
    ("Supplier", "tier", "eq", 1, "1"),
    ("Supplier", "tier", "eq", "1", "1"),
    ("Supplier", "risk_score", "ne", 75.0, "75"),
    ("Supplier", "risk_score", "lt", "75", "75"),
    ("Supplier", "risk_score", "lte", 75, "75"),
    ("Supplier", "risk_score", "gt", " 075 ", "75"),
    ("Supplier", "risk_score", "gte", 70, "70"),
    ("Supplier", "legal_name", "lt", "M", "M"),
    ("Supplier", "status", "in", ["active", "BLOCKED", "active"], ["active", "blocked"]),
    ("Supplier", "status", "ne", "Suspended", "suspended"),
    ("Supplier", "tier", "in", [1, "2"], ["1", "2"]),
    ("Supplier", "legal_name", "contains", "GmbH", "gmbh"),
    ("Supplier", "legal_name", "starts_with", "KAV", "kav"),
    ("Supplier", "legal_name", "contains", "ÉTIENNE", "Étienne"),
    ("Part", "unit_cost", "gte", 24.01, "24.01"),
    ("Part", "unit_cost", "lt", "24", "24.00"),
    ("Part", "category", "eq", "Bearing", "bearing"),
    ("PurchaseOrder", "order_date", "lt", "2026-03-02", "2026-03-02"),
    ("PurchaseOrder", "total", "gt", 1000, "1000.00"),
    ("RiskFlag", "raised_at", "gte", "2026-09-18T12:12:00+02:00", "2026-09-18T10:12:00Z"),
    ("RiskFlag", "reason", "contains", "Furnace", "furnace"),
    ("RiskFlag", "reason", "starts_with", "Moulding", "moulding"),
    ("RiskFlag", "reason", "eq", "Account manager changed", "Account manager changed"),
]


@pytest.mark.parametrize(
    ("kind", "attr", "op", "value", "canonical"),
    [pytest.param(*case, id=f"{case[0]}.{case[1]}-{case[2]}") for case in SUPPLY_COMPARISONS],
)
def test_comparison_values_are_canonical(
    kind: str, attr: str, op: str, value: object, canonical: object
) -> None:
    query = parse(where({"attr": attr, "op": op, "value": value}, kind))
    assert isinstance(query.where, Comparison)
    assert (query.where.attr, query.where.op, query.where.value) == (attr, op, canonical)
    assert query.where.value_type == SUPPLY.kinds[kind].attributes[attr].value_type


@pytest.mark.parametrize(
    ("predicate", "value"),
    [
        pytest.param({"attr": "city", "op": "is_null"}, True, id="no-value"),
        pytest.param({"attr": "city", "op": "is_null", "value": True}, True, id="true"),
        pytest.param({"attr": "city", "op": "is_null", "value": False}, False, id="false"),
    ],
)
def test_is_null_takes_true_or_false(predicate: dict[str, Any], value: bool) -> None:
    query = parse(where(predicate))
    assert isinstance(query.where, Comparison)
    assert query.where.value is value


# (attribute of the small test schema, operator, allowed)
TYPE_RULES = [
    ("name", "lt", True),  # string: every operator
    ("name", "contains", True),
    ("part_number", "starts_with", True),
    ("in_stock", "eq", True),  # boolean
    ("in_stock", "ne", True),
    ("in_stock", "is_null", True),
    ("in_stock", "lt", False),
    ("in_stock", "in", False),
    ("in_stock", "contains", False),
    ("unit_price", "gte", True),  # decimal
    ("unit_price", "in", True),
    ("unit_price", "contains", False),
    ("stock_count", "starts_with", False),  # integer
]
CONTRACT_TYPE_RULES = [
    ("terms", "is_null", True),  # json: is_null only
    ("terms", "eq", False),
    ("terms", "in", False),
    ("signed_on", "lte", True),  # date
    ("signed_on", "contains", False),
    ("starts_at", "gt", True),  # datetime
]
RISK_FLAG_TYPE_RULES = [
    ("reason", "lt", False),  # text: no order
    ("reason", "in", True),
    ("severity", "lt", False),  # enum: eq ne in is_null
    ("severity", "in", True),
    ("severity", "contains", False),
]
VALUES = {
    "name": "a",
    "part_number": "P",
    "in_stock": True,
    "unit_price": "1.00",
    "stock_count": "1",
    "terms": {"a": 1},
    "signed_on": "2026-01-01",
    "starts_at": "2026-01-01T00:00:00Z",
    "reason": "x",
    "severity": "low",
}


@pytest.mark.parametrize(
    ("kind", "attr", "op", "allowed"),
    [
        pytest.param(kind, attr, op, allowed, id=f"{attr}-{op}")
        for kind, rules in (
            ("Part", TYPE_RULES),
            ("Contract", CONTRACT_TYPE_RULES),
            ("RiskFlag", RISK_FLAG_TYPE_RULES),
        )
        for attr, op, allowed in rules
    ],
)
def test_operators_follow_the_value_type(
    schema: Schema, kind: str, attr: str, op: str, allowed: bool
) -> None:
    value: object = VALUES[attr]
    if op == "in":
        value = [value]
    elif op == "is_null":
        value = True
    document = where({"attr": attr, "op": op, "value": value}, kind)
    if allowed:
        assert parse(document, schema=schema).where is not None
    else:
        assert problems(document, schema=schema) == {("where.op", "bad-operator")}


@pytest.mark.parametrize(
    ("predicate", "expected"),
    [
        pytest.param({"attr": "tier", "op": "eq", "value": "x"}, ("where.value", "bad-value"), id="not-an-integer"),
        pytest.param({"attr": "tier", "op": "eq", "value": True}, ("where.value", "bad-value"), id="boolean-for-integer"),
        pytest.param({"attr": "tier", "op": "eq", "value": None}, ("where.value", "bad-value"), id="null"),
        pytest.param({"attr": "tier", "op": "eq"}, ("where.value", "missing-member"), id="no-value"),
        pytest.param({"attr": "tier", "value": 1}, ("where.op", "missing-member"), id="no-op"),
        pytest.param({"attr": "tier", "op": "like", "value": 1}, ("where.op", "bad-operator"), id="unknown-op"),
        pytest.param({"attr": "tier", "op": ["eq"], "value": 1}, ("where.op", "bad-operator"), id="op-not-text"),
        pytest.param({"attr": "status", "op": "in", "value": []}, ("where.value", "bad-value"), id="in-empty"),
        pytest.param({"attr": "status", "op": "in", "value": "active"}, ("where.value", "bad-value"), id="in-not-a-list"),
        pytest.param({"attr": "status", "op": "in", "value": ["active", "gone"]}, ("where.value[1]", "bad-value"), id="in-bad-item"),
        pytest.param({"attr": "status", "op": "eq", "value": "gone"}, ("where.value", "bad-value"), id="not-an-enum-value"),
        pytest.param({"attr": "city", "op": "is_null", "value": "yes"}, ("where.value", "bad-value"), id="is-null-not-boolean"),
        pytest.param({"attr": "city", "op": "contains", "value": 5}, ("where.value", "bad-value"), id="contains-not-text"),
        pytest.param({"attr": "city", "op": "lt", "value": "a\nb"}, ("where.value", "bad-value"), id="string-with-newline"),
        pytest.param({"attr": "city", "op": "eq", "value": "a\x00b"}, ("where.value", "bad-value"), id="nul"),
        pytest.param({"attr": "city", "op": "in", "value": ["a", "\ud800"]}, ("where.value[1]", "bad-value"), id="surrogate"),
        pytest.param({"attr": "city", "op": "contains", "value": "\x00"}, ("where.value", "bad-value"), id="contains-nul"),
        pytest.param({"attr": "nope", "op": "eq", "value": 1}, ("where.attr", "unknown-attribute"), id="unknown-attribute"),
        pytest.param({"attr": 5, "op": "eq", "value": 1}, ("where.attr", "bad-type"), id="attribute-not-text"),
        pytest.param({"attr": "tier", "op": "eq", "value": 1, "values": [1]}, ("where.values", "unknown-member"), id="unknown-member"),
    ],
)  # fmt: skip
def test_bad_comparisons_are_refused_with_their_path(
    predicate: dict[str, Any], expected: tuple[str, str]
) -> None:
    assert problems(where(predicate)) == {expected}


def test_a_decimal_with_too_many_places_is_refused() -> None:
    document = where({"attr": "unit_cost", "op": "eq", "value": "24.013"}, "Part")
    assert problems(document) == {("where.value", "bad-value")}


def test_a_datetime_without_a_zone_is_refused() -> None:
    document = where({"attr": "raised_at", "op": "gt", "value": "2026-09-18T10:12:00"}, "RiskFlag")
    assert problems(document) == {("where.value", "bad-value")}


# --- and, or, not -------------------------------------------------------------------------------


def test_boolean_predicates_nest() -> None:
    query = parse(
        where(
            {
                "or": [
                    {"attr": "country", "op": "eq", "value": "IT"},
                    {
                        "and": [
                            {"attr": "tier", "op": "eq", "value": 1},
                            {"not": {"attr": "status", "op": "eq", "value": "active"}},
                        ]
                    },
                ]
            }
        )
    )
    assert isinstance(query.where, Or)
    first, second = query.where.predicates
    assert isinstance(first, Comparison)
    assert isinstance(second, And)
    assert isinstance(second.predicates[1], Not)


@pytest.mark.parametrize(
    ("predicate", "expected"),
    [
        pytest.param("country = 'IT'", {("where", "bad-predicate")}, id="text"),
        pytest.param([], {("where", "bad-predicate")}, id="a-list"),
        pytest.param({}, {("where", "bad-predicate")}, id="empty"),
        pytest.param({"filter": 1}, {("where", "bad-predicate")}, id="unknown-shape"),
        pytest.param({"and": [], "or": []}, {("where", "bad-predicate")}, id="two-operators"),
        pytest.param({"and": {}}, {("where.and", "bad-type")}, id="and-not-a-list"),
        pytest.param({"or": []}, {("where.or", "bad-value")}, id="or-empty"),
        pytest.param({"not": 5}, {("where.not", "bad-predicate")}, id="not-of-a-number"),
        pytest.param(
            {"not": {"attr": "tier", "op": "eq", "value": 1}, "extra": 1},
            {("where.extra", "unknown-member")},
            id="extra-member",
        ),
        pytest.param(
            {
                "and": [
                    {"attr": "tier", "op": "eq", "value": 1},
                    {"attr": "x", "op": "eq", "value": 1},
                ]
            },
            {("where.and[1].attr", "unknown-attribute")},
            id="path-of-an-item",
        ),
    ],
)
def test_bad_boolean_predicates_are_refused(
    predicate: object, expected: set[tuple[str, str]]
) -> None:
    assert problems(where(predicate)) == expected


def test_predicates_nest_only_so_deep() -> None:
    predicate: dict[str, Any] = {"attr": "tier", "op": "eq", "value": 1}
    for _ in range(MAX_NESTING):
        predicate = {"not": predicate}
    assert parse(where(predicate)).where is not None
    path = "where" + ".not" * (MAX_NESTING + 1)
    assert problems(where({"not": predicate})) == {(path, "too-deep")}


def test_too_many_predicates_are_refused() -> None:
    predicate = {
        "and": [
            {"attr": "tier", "op": "eq", "value": 1},
            {"attr": "country", "op": "eq", "value": "IT"},
            {"rel": "supplier_orders"},
        ]
    }
    assert parse(where(predicate), max_predicates=3).where is not None
    assert problems(where(predicate), max_predicates=2) == {("where", "too-many-predicates")}


# --- bounds: nothing cheap to send is dear to serve ---------------------------------------------


@pytest.mark.parametrize(
    ("predicate", "path"),
    [
        pytest.param({"attr": "legal_name", "op": "contains", "value": "a" * 1001}, "where.value", id="contains"),
        pytest.param({"attr": "legal_name", "op": "starts_with", "value": "a" * 1001}, "where.value", id="starts_with"),
        pytest.param({"attr": "city", "op": "eq", "value": "a" * 1001}, "where.value", id="eq"),
        pytest.param({"attr": "city", "op": "gte", "value": "a" * 1001}, "where.value", id="gte"),
        pytest.param({"attr": "city", "op": "in", "value": ["a", "a" * 1001]}, "where.value[1]", id="in-item"),
        pytest.param({"attr": "tier", "op": "eq", "value": "1" * 1001}, "where.value", id="integer-as-text"),
        pytest.param({"attr": "status", "op": "eq", "value": "a" * 1001}, "where.value", id="enum"),
        pytest.param({"not": {"or": [{"attr": "city", "op": "eq", "value": "a" * 1001}]}}, "where.not.or[0].value", id="nested"),
        pytest.param(
            {"rel": "supplier_orders", "where": {"rel": "for_part", "where": {"attr": "name", "op": "contains", "value": "a" * 1001}}},
            "where.where.where.value",
            id="two-hops",
        ),
    ],
)  # fmt: skip
def test_compared_strings_are_bounded(predicate: dict[str, Any], path: str) -> None:
    # SQLite refuses LIKE patterns from 50,000 characters on (a 500 before this bound)
    assert problems(where(predicate)) == {(path, "too-long")}
    # within the bound, only the value's own problem may remain (a pattern, an enum name)
    wider = {**LIMITS, "max_string_length": 2000}
    refused: set[tuple[str, str]] = set()
    try:
        parse_query(where(predicate), SUPPLY, EVERYTHING, **wider)
    except QueryInvalid as exc:
        refused = {(issue.path, issue.code) for issue in exc.issues}
    assert refused <= {(path, "bad-value")}


def test_a_string_at_the_bound_is_compared() -> None:
    predicate = {"attr": "legal_name", "op": "contains", "value": "A" * 1000}
    found = parse(where(predicate)).where
    assert found == Comparison(
        "legal_name",
        "contains",
        "a" * 1000,
        SUPPLY.kinds["Supplier"].attributes["legal_name"].value_type,
    )
    assert problems(where(predicate), max_string_length=999) == {("where.value", "too-long")}


def test_in_lists_are_bounded_without_checking_each_value() -> None:
    values = [f"S-{index:04d}" for index in range(1000)]
    found = parse(where({"attr": "supplier_code", "op": "in", "value": values})).where
    assert isinstance(found, Comparison)
    assert found.value == values
    too_many = where({"attr": "supplier_code", "op": "in", "value": [*values, None, 1.5]})
    assert problems(too_many) == {("where.value", "too-many-values")}
    assert problems(too_many, max_in_values=2000) == {
        ("where.value[1000]", "bad-value"),
        ("where.value[1001]", "bad-value"),
    }


def test_in_keeps_the_first_of_equal_values_in_order() -> None:
    predicate = {"attr": "tier", "op": "in", "value": [3, "3", 1, " 1", 3, "2"]}
    found = parse(where(predicate)).where
    assert isinstance(found, Comparison)
    assert found.value == ["3", "1", "2"]


def test_a_wide_where_is_read_only_up_to_max_predicates() -> None:
    # 100,000 bad comparisons answer one issue per predicate allowed, not 100,000
    wide = {"and": [{"attr": "nope", "op": "eq", "value": 1}] * 100_000}
    with pytest.raises(QueryInvalid) as caught:
        parse(where(wide), max_predicates=8)
    codes = [(issue.path, issue.code) for issue in caught.value.issues]
    assert ("where", "too-many-predicates") in codes
    assert len(codes) <= 8 + 1
    with pytest.raises(QueryInvalid) as caught:
        parse(where({"or": [7] * 100_000}), max_predicates=8)  # malformed ones count too
    assert len(caught.value.issues) <= 8 + 1


def test_a_deep_where_stops_at_the_nesting_bound() -> None:
    # as deep as a 0.9 MB body of nested nots: no recursion past MAX_NESTING
    predicate: dict[str, Any] = {"attr": "tier", "op": "eq", "value": 1}
    for index in range(110_000):
        predicate = {"not" if index % 2 else "or": predicate if index % 2 else [predicate]}
    found = problems(where(predicate))
    assert {code for _path, code in found} == {"too-deep"}


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        pytest.param({"select": ["tier"] * 11}, ("select", "too-many-values"), id="select"),
        pytest.param({"order_by": [{"attr": "tier"}] * 11}, ("order_by", "too-many-values"), id="order_by"),
        pytest.param(
            {"aggregate": {"metrics": {f"m{index}": {"count": "*"} for index in range(33)}}},
            ("aggregate.metrics", "too-many-values"),
            id="metrics",
        ),
    ],
)  # fmt: skip
def test_lists_of_attributes_and_metrics_are_bounded(
    document: dict[str, Any], expected: tuple[str, str]
) -> None:
    # Supplier has 10 Attributes: a longer list repeats one, refused whole rather than per item
    assert problems({"kind": "Supplier", **document}) == {expected}


def test_metrics_up_to_max_metrics_are_computed() -> None:
    metrics = {f"m{index}": {"count": "*"} for index in range(4)}
    aggregate = parse({"kind": "Supplier", "aggregate": {"metrics": metrics}}).aggregate
    assert aggregate is not None
    assert len(aggregate.metrics) == 4
    assert problems({"kind": "Supplier", "aggregate": {"metrics": metrics}}, max_metrics=3) == {
        ("aggregate.metrics", "too-many-values")
    }


# --- Relation predicates ------------------------------------------------------------------------


def test_a_relation_predicate_by_its_inverse_name() -> None:
    query = parse(
        where({"rel": "supplier_orders", "where": {"attr": "status", "op": "eq", "value": "open"}})
    )
    predicate = query.where
    assert isinstance(predicate, RelationPredicate)
    assert (predicate.rel, predicate.relation, predicate.direction) == (
        "supplier_orders",
        "ordered_from",
        "inverse",
    )
    assert (predicate.source_kind, predicate.target_kind) == ("Supplier", "PurchaseOrder")
    assert isinstance(predicate.where, Comparison)
    assert predicate.count is None


def test_a_relation_predicate_by_its_forward_name_without_where() -> None:
    predicate = parse(where({"rel": "supplied_by"}, "Part")).where
    assert predicate == RelationPredicate(
        "supplied_by", "supplied_by", "forward", "Part", "Supplier", None, None
    )


def test_relation_predicates_nest_for_several_hops() -> None:
    query = parse(
        where(
            {
                "rel": "stocks",
                "where": {
                    "rel": "supplied_by",
                    "where": {"attr": "supplier_code", "op": "eq", "value": "S-1007"},
                },
            },
            "Plant",
        )
    )
    outer = query.where
    assert isinstance(outer, RelationPredicate)
    assert (outer.relation, outer.direction, outer.target_kind) == ("stocked_at", "inverse", "Part")
    inner = outer.where
    assert isinstance(inner, RelationPredicate)
    assert (inner.relation, inner.direction, inner.target_kind) == (
        "supplied_by",
        "forward",
        "Supplier",
    )


def test_a_relation_predicate_counts_records() -> None:
    predicate = parse(
        where({"rel": "supplied_by", "count": {"op": "eq", "value": 1}}, "Part")
    ).where
    assert isinstance(predicate, RelationPredicate)
    assert predicate.count == RelationCount("eq", 1)


@pytest.mark.parametrize(
    ("predicate", "expected"),
    [
        pytest.param({"rel": "for_part"}, {("where.rel", "bad-relation")}, id="not-from-this-kind"),
        pytest.param({"rel": 5}, {("where.rel", "bad-type")}, id="name-not-text"),
        pytest.param({"rel": "supplier_orders", "filter": {}}, {("where.filter", "unknown-member")}, id="unknown-member"),
        pytest.param(
            {"rel": "supplier_orders", "where": {"attr": "tier", "op": "eq", "value": 1}},
            {("where.where.attr", "unknown-attribute")},
            id="attribute-of-the-other-end",
        ),
        pytest.param({"rel": "supplier_orders", "count": 1}, {("where.count", "bad-type")}, id="count-not-an-object"),
        pytest.param({"rel": "supplier_orders", "count": {"op": "in", "value": 1}}, {("where.count.op", "bad-operator")}, id="count-op"),
        pytest.param({"rel": "supplier_orders", "count": {"op": "eq", "value": -1}}, {("where.count.value", "bad-value")}, id="count-negative"),
        pytest.param({"rel": "supplier_orders", "count": {"op": "eq", "value": True}}, {("where.count.value", "bad-value")}, id="count-boolean"),
        pytest.param({"rel": "supplier_orders", "count": {"op": "eq", "value": 1, "x": 1}}, {("where.count.x", "unknown-member")}, id="count-member"),
    ],
)  # fmt: skip
def test_bad_relation_predicates_are_refused(
    predicate: dict[str, Any], expected: set[tuple[str, str]]
) -> None:
    assert problems(where(predicate)) == expected


def test_relation_predicates_nest_at_most_max_hops() -> None:
    two_hops = where(
        {
            "rel": "stocks",
            "where": {"rel": "supplied_by", "where": {"attr": "tier", "op": "eq", "value": 1}},
        },
        "Plant",
    )
    assert parse(two_hops, max_hops=2).where is not None
    assert problems(two_hops, max_hops=1) == {("where.where", "too-deep")}


def test_a_relation_predicate_of_a_trait_query_needs_an_implementing_source() -> None:
    predicate = parse({"trait": "Located", "where": {"rel": "supplier_contracts"}}).where
    assert isinstance(predicate, RelationPredicate)
    assert predicate.source_kind == "Supplier"
    assert problems({"trait": "Located", "where": {"rel": "flags"}}) == {
        ("where.rel", "bad-relation")
    }


# --- select, order_by, limit, cursor ------------------------------------------------------------


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        pytest.param({"select": "legal_name"}, {("select", "bad-type")}, id="select-not-a-list"),
        pytest.param({"select": ["legal_name", "nope"]}, {("select[1]", "unknown-attribute")}, id="select-unknown"),
        pytest.param({"select": ["tier", "tier"]}, {("select[1]", "duplicate")}, id="select-twice"),
        pytest.param({"select": [5]}, {("select[0]", "bad-type")}, id="select-not-a-name"),
        pytest.param({"order_by": "tier"}, {("order_by", "bad-type")}, id="order-not-a-list"),
        pytest.param({"order_by": ["tier"]}, {("order_by[0]", "bad-type")}, id="order-key-not-an-object"),
        pytest.param({"order_by": [{"attr": "tier", "dir": "up"}]}, {("order_by[0].dir", "bad-value")}, id="order-direction"),
        pytest.param({"order_by": [{"attr": "nope"}]}, {("order_by[0].attr", "unknown-attribute")}, id="order-unknown"),
        pytest.param({"order_by": [{"attr": "tier"}, {"attr": "tier", "dir": "desc"}]}, {("order_by[1].attr", "duplicate")}, id="order-twice"),
        pytest.param({"order_by": [{"attr": "tier", "direction": "desc"}]}, {("order_by[0].direction", "unknown-member")}, id="order-member"),
        pytest.param({"limit": 0}, {("limit", "out-of-range")}, id="limit-zero"),
        pytest.param({"limit": 1001}, {("limit", "out-of-range")}, id="limit-too-large"),
        pytest.param({"limit": "10"}, {("limit", "bad-type")}, id="limit-text"),
        pytest.param({"limit": True}, {("limit", "bad-type")}, id="limit-boolean"),
        pytest.param({"limit": 2.5}, {("limit", "bad-type")}, id="limit-fraction"),
        pytest.param({"cursor": 5}, {("cursor", "bad-type")}, id="cursor-not-text"),
        pytest.param({"filter": {}}, {("filter", "unknown-member")}, id="unknown-member"),
    ],
)  # fmt: skip
def test_bad_members_are_refused(document: dict[str, Any], expected: set[tuple[str, str]]) -> None:
    assert problems({"kind": "Supplier", **document}) == expected


def test_order_by_a_json_attribute_is_refused(schema: Schema) -> None:
    document = {"kind": "Contract", "order_by": [{"attr": "terms"}]}
    assert problems(document, schema=schema) == {("order_by[0].attr", "bad-attribute")}


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        pytest.param([], {("", "bad-type")}, id="not-an-object"),
        pytest.param({}, {("", "missing-member")}, id="neither-kind-nor-trait"),
        pytest.param({"kind": "Supplier", "trait": "Located"}, {("trait", "conflicting-members")}, id="both"),
        pytest.param({"kind": 5}, {("kind", "bad-type")}, id="kind-not-text"),
        pytest.param({"trait": ["Located"]}, {("trait", "bad-type")}, id="trait-not-text"),
        pytest.param({"trait": "Located", "select": ["legal_name"]}, {("select[0]", "unknown-attribute")}, id="trait-attributes-only"),
    ],
)  # fmt: skip
def test_what_is_queried_must_be_named_once(
    document: object, expected: set[tuple[str, str]]
) -> None:
    assert problems(document) == expected


def test_without_a_kind_the_rest_is_still_checked() -> None:
    document = {
        "where": {"and": [{"attr": "tier", "op": "like", "value": 1}, "x"]},
        "limit": 0,
        "extra": 1,
    }
    assert problems(document) == {
        ("", "missing-member"),
        ("where.and[0].op", "bad-operator"),
        ("where.and[1]", "bad-predicate"),
        ("limit", "out-of-range"),
        ("extra", "unknown-member"),
    }


# --- aggregate ----------------------------------------------------------------------------------


def test_an_aggregate_with_group_by_and_metrics() -> None:
    query = parse(
        {
            "kind": "Supplier",
            "aggregate": {
                "group_by": "tier",
                "metrics": {
                    "n": {"count": "*"},
                    "with_city": {"count": "city"},
                    "avg_risk": {"avg": "risk_score"},
                    "total_risk": {"sum": "risk_score"},
                    "first": {"min": "legal_name"},
                    "last": {"max": "risk_score"},
                },
            },
            "limit": 2,
        }
    )
    integer = SUPPLY.kinds["Supplier"].attributes["tier"].value_type
    string = SUPPLY.kinds["Supplier"].attributes["city"].value_type
    assert query.aggregate == Aggregate(
        "tier",
        integer,
        (
            Metric("n", "count", None, None),
            Metric("with_city", "count", "city", string),
            Metric("avg_risk", "avg", "risk_score", integer),
            Metric("total_risk", "sum", "risk_score", integer),
            Metric("first", "min", "legal_name", string),
            Metric("last", "max", "risk_score", integer),
        ),
    )
    assert query.limit == 2


def test_an_aggregate_without_group_by_or_metrics_is_one_count() -> None:
    assert parse({"kind": "Part", "aggregate": {}}).aggregate == Aggregate(None, None, ())


@pytest.mark.parametrize(
    ("aggregate", "expected"),
    [
        pytest.param("tier", {("aggregate", "bad-type")}, id="not-an-object"),
        pytest.param({"group_by": "nope"}, {("aggregate.group_by", "unknown-attribute")}, id="group-unknown"),
        pytest.param({"having": {}}, {("aggregate.having", "unknown-member")}, id="unknown-member"),
        pytest.param({"metrics": []}, {("aggregate.metrics", "bad-type")}, id="metrics-not-an-object"),
        pytest.param({"metrics": {"avg_risk": {"avg": "legal_name"}}}, {("aggregate.metrics.avg_risk", "bad-operator")}, id="avg-of-text"),
        pytest.param({"metrics": {"s": {"sum": "status"}}}, {("aggregate.metrics.s", "bad-operator")}, id="sum-of-enum"),
        pytest.param({"metrics": {"m": {"min": "status"}}}, {("aggregate.metrics.m", "bad-operator")}, id="min-of-enum"),
        pytest.param({"metrics": {"s": {"sum": "*"}}}, {("aggregate.metrics.s", "bad-value")}, id="sum-of-star"),
        pytest.param({"metrics": {"m": {"median": "tier"}}}, {("aggregate.metrics.m", "bad-operator")}, id="unknown-function"),
        pytest.param({"metrics": {"m": {"avg": "tier", "sum": "tier"}}}, {("aggregate.metrics.m", "bad-type")}, id="two-functions"),
        pytest.param({"metrics": {"m": "avg"}}, {("aggregate.metrics.m", "bad-type")}, id="function-not-an-object"),
        pytest.param({"metrics": {"m": {"avg": "nope"}}}, {("aggregate.metrics.m.avg", "unknown-attribute")}, id="unknown-attribute"),
        pytest.param({"metrics": {"count": {"count": "*"}}}, {("aggregate.metrics.count", "reserved-name")}, id="named-count"),
        pytest.param({"metrics": {"key": {"max": "tier"}}}, {("aggregate.metrics.key", "reserved-name")}, id="named-key"),
        pytest.param({"metrics": {"avg risk": {"avg": "tier"}}}, {("aggregate.metrics", "bad-value")}, id="bad-name"),
    ],
)  # fmt: skip
def test_bad_aggregates_are_refused(aggregate: object, expected: set[tuple[str, str]]) -> None:
    assert problems({"kind": "Supplier", "aggregate": aggregate}) == expected


def test_group_by_a_json_attribute_is_refused(schema: Schema) -> None:
    document = {"kind": "Contract", "aggregate": {"group_by": "terms"}}
    assert problems(document, schema=schema) == {("aggregate.group_by", "bad-attribute")}


def test_select_and_order_by_do_not_apply_to_an_aggregate() -> None:
    document = {
        "kind": "Supplier",
        "aggregate": {"group_by": "tier"},
        "select": ["tier"],
        "order_by": [{"attr": "tier"}],
    }
    assert problems(document) == {
        ("select", "conflicting-members"),
        ("order_by", "conflicting-members"),
    }


# --- every problem at once ----------------------------------------------------------------------


def test_every_problem_is_reported_at_once() -> None:
    document = {
        "kind": "Supplier",
        "where": {
            "and": [
                {"attr": "country", "op": "eq", "value": "IT"},
                {"attr": "tier", "op": "gt", "value": "one"},
                {"attr": "status", "op": "lt", "value": "active"},
                {
                    "rel": "supplier_orders",
                    "where": {"attr": "status", "op": "eq", "value": "late"},
                },
            ]
        },
        "select": ["legal_name", "legal_nam"],
        "order_by": [{"attr": "risk", "dir": "desc"}],
        "limit": 5000,
        "aggregate": {"metrics": {"avg_risk": {"avg": "legal_name"}}},
        "page": 2,
    }
    with pytest.raises(QueryInvalid) as caught:
        parse(document)
    error = caught.value
    assert {(issue.path, issue.code) for issue in error.issues} == {
        ("where.and[1].value", "bad-value"),
        ("where.and[2].op", "bad-operator"),
        ("where.and[3].where.value", "bad-value"),
        ("select[1]", "unknown-attribute"),
        ("order_by[0].attr", "unknown-attribute"),
        ("limit", "out-of-range"),
        ("aggregate.metrics.avg_risk", "bad-operator"),
        ("select", "conflicting-members"),
        ("order_by", "conflicting-members"),
        ("page", "unknown-member"),
    }
    problem = error.to_problem()
    assert (problem["status"], problem["code"], problem["title"]) == (
        422,
        "query-invalid",
        "Invalid query",
    )
    assert problem["detail"] == "The query has 10 problems"
    assert [issue["path"] for issue in problem["issues"]] == sorted(
        issue["path"] for issue in problem["issues"]
    )


# --- names that do not resolve: 404 first; values the caller may not read: 403 -----------------

SUPPLIERS_ONLY = ReadScope(frozenset({"Supplier"}))


@pytest.mark.parametrize(
    ("document", "scope", "error", "code"),
    [
        pytest.param({"kind": "Vendor"}, EVERYTHING, KindNotFound, "kind-not-found", id="unknown-kind"),
        pytest.param({"kind": "Part"}, SUPPLIERS_ONLY, KindNotFound, "kind-not-found", id="invisible-kind"),
        pytest.param(
            {"kind": "Part"},
            ReadScope(frozenset({"Supplier"}), invisible_kinds=False),
            KindForbidden,
            "kind-forbidden",
            id="forbidden-kind",
        ),
        pytest.param({"trait": "Placed"}, EVERYTHING, TraitNotFound, "trait-not-found", id="unknown-trait"),
        pytest.param(where({"rel": "made_by"}), EVERYTHING, RelationNotFound, "relation-not-found", id="unknown-relation"),
        pytest.param(where({"rel": "supplies"}), SUPPLIERS_ONLY, RelationNotFound, "relation-not-found", id="invisible-relation"),
        pytest.param(
            where({"and": [{"attr": "nope", "op": "eq", "value": 1}, {"not": {"rel": "made_by"}}]}),
            EVERYTHING,
            RelationNotFound,
            "relation-not-found",
            id="404-before-422",
        ),
        pytest.param({"kind": "Vendor", "limit": 0, "x": 1}, EVERYTHING, KindNotFound, "kind-not-found", id="kind-first"),
    ],
)  # fmt: skip
def test_names_that_do_not_resolve_answer_404(
    document: dict[str, Any], scope: ReadScope, error: type[LorebaseError], code: str
) -> None:
    with pytest.raises(error) as caught:
        parse(document, scope=scope)
    assert caught.value.to_problem()["code"] == code


def test_a_relation_of_readable_kinds_is_readable_with_a_narrow_scope() -> None:
    scope = ReadScope(frozenset({"Supplier", "PurchaseOrder"}))
    assert parse(where({"rel": "supplier_orders"}), scope=scope).where is not None


@pytest.mark.parametrize(
    "document",
    [
        pytest.param(where({"attr": "vat_number", "op": "eq", "value": "PL7792438105"}), id="where"),
        pytest.param(where({"not": {"attr": "contact_email", "op": "is_null"}}), id="where-is-null"),
        pytest.param({"kind": "Supplier", "order_by": [{"attr": "contact_email"}]}, id="order_by"),
        pytest.param({"kind": "Supplier", "aggregate": {"group_by": "vat_number"}}, id="group_by"),
        pytest.param({"kind": "Supplier", "aggregate": {"metrics": {"n": {"count": "vat_number"}}}}, id="metric"),
        pytest.param(
            where({"rel": "supplied_by", "where": {"attr": "vat_number", "op": "eq", "value": "PL7792438105"}}, "Part"),
            id="across-a-relation",
        ),
        pytest.param(
            {"kind": "Supplier", "where": {"attr": "vat_number", "op": "eq", "value": 1}, "limit": 0},
            id="403-before-422",
        ),
    ],
)  # fmt: skip
def test_reading_values_the_caller_may_not_read_answers_403(document: dict[str, Any]) -> None:
    with pytest.raises(AttributeForbidden) as caught:
        parse(document, scope=NO_CLEARANCE)
    assert caught.value.status == 403
    assert caught.value.to_problem()["code"] == "attribute-forbidden"
    assert caught.value.extra["kind"] == "Supplier"


def test_selecting_values_the_caller_may_not_read_is_allowed() -> None:
    query = parse(
        {"kind": "Supplier", "select": ["legal_name", "vat_number", "contact_email"]},
        scope=NO_CLEARANCE,
    )
    assert query.select == ("legal_name", "vat_number", "contact_email")


def test_a_clearance_lifts_the_403() -> None:
    scope = ReadScope(None, frozenset({"confidential"}))
    assert parse(where({"attr": "vat_number", "op": "is_null"}), scope=scope).where is not None
    with pytest.raises(AttributeForbidden):
        parse(where({"attr": "contact_email", "op": "is_null"}), scope=scope)


# --- what Keeper reads of a parsed query ---------------------------------------------------------


def test_attributes_used_name_each_kind_and_place() -> None:
    query = parse(
        {
            "kind": "Supplier",
            "where": {
                "and": [
                    {"attr": "tier", "op": "eq", "value": 1},
                    {"not": {"attr": "risk_score", "op": "lt", "value": 70}},
                    {
                        "rel": "supplier_orders",
                        "where": {"attr": "status", "op": "eq", "value": "open"},
                    },
                ]
            },
            "select": ["legal_name", "risk_score"],
            "order_by": [{"attr": "risk_score", "dir": "desc"}],
        }
    )
    assert query.attributes_used() == {
        ("PurchaseOrder", "status"): ("where",),
        ("Supplier", "legal_name"): ("select",),
        ("Supplier", "risk_score"): ("order_by", "select", "where"),
        ("Supplier", "tier"): ("where",),
    }
    assert list(query.attributes_used()) == sorted(query.attributes_used())


def test_attributes_used_by_an_aggregate_of_a_trait() -> None:
    query = parse(
        {
            "trait": "Located",
            "where": {"attr": "city", "op": "is_null", "value": False},
            "aggregate": {
                "group_by": "country",
                "metrics": {"n": {"count": "*"}, "c": {"count": "city"}},
            },
        }
    )
    assert query.attributes_used() == {
        ("Plant", "city"): ("metrics", "where"),
        ("Plant", "country"): ("group_by",),
        ("Supplier", "city"): ("metrics", "where"),
        ("Supplier", "country"): ("group_by",),
    }


def test_without_select_no_attribute_is_used_for_select() -> None:
    assert parse({"kind": "Supplier"}).attributes_used() == {}


def test_the_digest_follows_the_canonical_query() -> None:
    base = parse(where({"attr": "risk_score", "op": "gte", "value": 75}))
    assert (
        parse(where({"attr": "risk_score", "op": "gte", "value": "75"})).digest() == base.digest()
    )
    assert len(base.digest()) == 64
    kept = {"cursor": "abc", "branch": "draft", "at": "f4d2", "coverage": False}
    assert (
        parse({**where({"attr": "risk_score", "op": "gte", "value": 75}), **kept}).digest()
        == base.digest()
    )
    for other in (
        where({"attr": "risk_score", "op": "gte", "value": 76}),
        where({"attr": "risk_score", "op": "gt", "value": 75}),
        {**where({"attr": "risk_score", "op": "gte", "value": 75}), "limit": 10},
        {**where({"attr": "risk_score", "op": "gte", "value": 75}), "select": ["tier"]},
    ):
        assert parse(other).digest() != base.digest()


def test_to_json_is_the_canonical_query() -> None:
    query = parse(
        {
            "kind": "Part",
            "where": {
                "rel": "supplied_by",
                "count": {"op": "eq", "value": 1},
                "where": {"attr": "tier", "op": "eq", "value": 1},
            },
            "order_by": [{"attr": "unit_cost"}],
            "aggregate": None,
        }
    )
    assert query.to_json() == {
        "kind": "Part",
        "where": {
            "rel": "supplied_by",
            "where": {"attr": "tier", "op": "eq", "value": "1"},
            "count": {"op": "eq", "value": 1},
        },
        "order_by": [{"attr": "unit_cost", "dir": "asc"}],
        "limit": 100,
    }
    grouped = parse(
        {"kind": "Part", "aggregate": {"group_by": "category", "metrics": {"n": {"count": "*"}}}}
    )
    assert grouped.to_json()["aggregate"] == {
        "group_by": "category",
        "metrics": {"n": {"count": "*"}},
    }
