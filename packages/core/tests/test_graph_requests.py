"""The request documents of POST /traverse and POST /neighborhood (docs/graph.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lorebase_core.access import ReadScope
from lorebase_core.errors import GraphRequestInvalid, KindForbidden, KindNotFound, RelationNotFound
from lorebase_core.graph_requests import (
    NeighborhoodRequest,
    TraverseRequest,
    parse_neighborhood,
    parse_traverse,
)
from lorebase_core.refs import RecordRef
from lorebase_core.schema import Schema, load_schema

SUPPLY_SCHEMA = Path(__file__).parents[3] / "examples" / "supply" / "schema.yaml"
EVERYTHING = ReadScope.everything()
SUPPLIERS_AND_PARTS = ReadScope(kinds=frozenset({"Supplier", "Part"}))


@pytest.fixture(scope="module")
def supply() -> Schema:
    return load_schema(SUPPLY_SCHEMA.read_text())


def traverse(
    schema: Schema,
    document: object,
    scope: ReadScope = EVERYTHING,
    *,
    max_hops: int = 4,
    max_results: int = 1000,
    max_start: int = 100,
) -> TraverseRequest:
    return parse_traverse(
        document, schema, scope, max_hops=max_hops, max_results=max_results, max_start=max_start
    )


def neighborhood(
    schema: Schema,
    document: object,
    scope: ReadScope = EVERYTHING,
    *,
    max_depth: int = 3,
    max_refs: int = 100,
) -> NeighborhoodRequest:
    return parse_neighborhood(document, schema, scope, max_depth=max_depth, max_refs=max_refs)


def issues(caught: pytest.ExceptionInfo[GraphRequestInvalid]) -> list[tuple[str, str]]:
    return [(issue.path, issue.code) for issue in caught.value.issues]


# -- POST /traverse ------------------------------------------------------------------------------


def test_traverse_resolves_forward_and_inverse_names(supply: Schema) -> None:
    request = traverse(
        supply,
        {
            "start": ["Supplier/S-1007", "Supplier/S-1001", "Supplier/S-1007"],
            "path": ["supplies", {"rel": "purchase_orders"}, "ordered_from"],
        },
    )
    assert request.start == (RecordRef("Supplier", "S-1001"), RecordRef("Supplier", "S-1007"))
    assert [(hop.name, hop.relation, hop.direction) for hop in request.path] == [
        ("supplies", "supplied_by", "inverse"),
        ("purchase_orders", "for_part", "inverse"),
        ("ordered_from", "ordered_from", "forward"),
    ]
    assert [(hop.source_kind, hop.target_kind) for hop in request.path] == [
        ("Supplier", "Part"),
        ("Part", "PurchaseOrder"),
        ("PurchaseOrder", "Supplier"),
    ]
    assert (request.start_kind, request.end_kind) == ("Supplier", "Supplier")
    assert (request.limit, request.limit_cap) == (1000, "max_results")
    assert (request.branch, request.at) == (None, None)


def test_traverse_takes_limit_branch_and_at(supply: Schema) -> None:
    request = traverse(
        supply,
        {
            "start": ["Part/P-10007"],
            "path": ["supplied_by"],
            "limit": 5,
            "branch": "what-if",
            "at": "f4d22916",
        },
    )
    assert (request.limit, request.limit_cap) == (5, "limit")
    assert (request.branch, request.at) == ("what-if", "f4d22916")
    at_the_cap = traverse(
        supply, {"start": ["Part/P-10007"], "path": ["supplied_by"], "limit": 10}, max_results=10
    )
    assert (at_the_cap.limit, at_the_cap.limit_cap) == (10, "max_results")


@pytest.mark.parametrize(
    ("path", "mismatches"),
    [
        pytest.param(["supplied_by"], [("path[0]", "path-mismatch")], id="first-hop"),
        pytest.param(
            ["supplies", "supplies"], [("path[1]", "path-mismatch")], id="second-hop-wrong-end"
        ),
        pytest.param(
            ["supplies", {"rel": "with_supplier"}, "supplied_by"],
            [("path[1]", "path-mismatch"), ("path[2]", "path-mismatch")],
            id="every-mismatch",
        ),
        pytest.param(
            ["supplies", 7, "supplies"], [("path[1]", "type")], id="no-check-after-a-bad-hop"
        ),
    ],
)
def test_traverse_path_must_chain(
    supply: Schema, path: list[object], mismatches: list[tuple[str, str]]
) -> None:
    with pytest.raises(GraphRequestInvalid) as caught:
        traverse(supply, {"start": ["Supplier/S-1007"], "path": path})
    assert issues(caught) == mismatches


def test_path_mismatch_says_how_to_fix_it(supply: Schema) -> None:
    with pytest.raises(GraphRequestInvalid) as caught:
        traverse(supply, {"start": ["Supplier/S-1007"], "path": ["supplied_by"]})
    problem = caught.value.to_problem()
    assert (problem["status"], problem["code"]) == (422, "graph-request-invalid")
    assert problem["issues"] == [
        {
            "path": "path[0]",
            "code": "path-mismatch",
            "message": "'supplied_by' goes from Part to Supplier, but the start Records are "
            "Supplier; use a Relation that starts at Supplier",
        }
    ]


def test_traverse_start_must_be_of_one_kind(supply: Schema) -> None:
    with pytest.raises(GraphRequestInvalid) as caught:
        traverse(
            supply,
            {"start": ["Supplier/S-1007", "Part/P-10007", "Supplier/S-1001"], "path": ["supplies"]},
        )
    assert issues(caught) == [("start[1]", "kind-mismatch")]


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        pytest.param([], [("", "type")], id="not-an-object"),
        pytest.param({}, [("path", "missing"), ("start", "missing")], id="empty"),
        pytest.param(
            {"start": "Supplier/S-1007", "path": "supplies"},
            [("path", "type"), ("start", "type")],
            id="not-lists",
        ),
        pytest.param(
            {"start": [], "path": []}, [("path", "range"), ("start", "range")], id="empty-lists"
        ),
        pytest.param(
            {"start": ["Supplier", 3, "/S-1", "Supplier/"], "path": ["supplies"]},
            [
                ("start", "range"),
                ("start[0]", "bad-ref"),
                ("start[1]", "type"),
                ("start[2]", "bad-ref"),  # start[3] is past max_start: the range issue says it
            ],
            id="bad-refs",
        ),
        pytest.param(
            {
                "start": ["Supplier/S-1007"],
                "path": ["supplies", {"relation": "for_part"}, {"rel": 3}, {"rel": ""}, ""],
            },
            [
                ("path", "range"),
                ("path[1].rel", "missing"),
                ("path[1].relation", "unknown"),
                ("path[2].rel", "type"),
                ("path[3].rel", "type"),
                ("path[4]", "type"),
            ],
            id="bad-hops",
        ),
        pytest.param(
            {"start": ["Supplier/S-1007"], "path": ["supplies"], "limit": 0},
            [("limit", "range")],
            id="limit-zero",
        ),
        pytest.param(
            {"start": ["Supplier/S-1007"], "path": ["supplies"], "limit": 1001},
            [("limit", "range")],
            id="limit-over-max-results",
        ),
        pytest.param(
            {"start": ["Supplier/S-1007"], "path": ["supplies"], "limit": True},
            [("limit", "type")],
            id="limit-bool",
        ),
        pytest.param(
            {"start": ["Supplier/S-1007"], "path": ["supplies"], "limit": "10"},
            [("limit", "type")],
            id="limit-string",
        ),
        pytest.param(
            {"start": ["Supplier/S-1007"], "path": ["supplies"], "branch": "", "at": 4},
            [("at", "type"), ("branch", "type")],
            id="branch-and-at",
        ),
        pytest.param(
            {"start": ["Supplier/S-1007"], "path": ["supplies"], "depth": 1, "relations": []},
            [("depth", "unknown"), ("relations", "unknown")],
            id="unknown-members",
        ),
    ],
)
def test_traverse_lists_every_problem_with_its_path(
    supply: Schema, document: Any, expected: list[tuple[str, str]]
) -> None:
    with pytest.raises(GraphRequestInvalid) as caught:
        traverse(supply, document, max_hops=4, max_start=3)
    assert issues(caught) == sorted(expected)


def test_traverse_bounds_come_from_the_settings(supply: Schema) -> None:
    with pytest.raises(GraphRequestInvalid) as caught:
        traverse(
            supply,
            {"start": ["Supplier/S-1007", "Supplier/S-1001"], "path": ["supplies", "supplied_by"]},
            max_hops=1,
            max_start=1,
        )
    assert issues(caught) == [("path", "range"), ("start", "range")]


@pytest.mark.parametrize(
    ("document", "error"),
    [
        pytest.param(
            {"start": ["Supplier/S-1007"], "path": ["supplies", "no_such_relation"]},
            RelationNotFound,
            id="unknown-relation",
        ),
        pytest.param(
            {"start": ["Vendor/S-1007"], "path": ["supplies"]}, KindNotFound, id="unknown-kind"
        ),
        pytest.param(
            {"start": ["Supplier/S-1007", 5], "path": [{"rel": "nope"}], "limit": -1},
            RelationNotFound,
            id="before-the-other-problems",
        ),
    ],
)
def test_traverse_unknown_names_answer_404(
    supply: Schema, document: dict[str, Any], error: type[Exception]
) -> None:
    with pytest.raises(error) as caught:
        traverse(supply, document)
    assert getattr(caught.value, "status", None) == 404


def test_traverse_names_outside_the_scope_are_unknown(supply: Schema) -> None:
    allowed = traverse(
        supply, {"start": ["Supplier/S-1007"], "path": ["supplies"]}, SUPPLIERS_AND_PARTS
    )
    assert allowed.end_kind == "Part"
    with pytest.raises(RelationNotFound):
        traverse(
            supply,
            {"start": ["Supplier/S-1007"], "path": ["supplier_contracts"]},
            SUPPLIERS_AND_PARTS,
        )
    with pytest.raises(KindNotFound):
        traverse(
            supply, {"start": ["Contract/C-3007"], "path": ["with_supplier"]}, SUPPLIERS_AND_PARTS
        )
    visible_refusal = ReadScope(kinds=frozenset({"Supplier", "Part"}), invisible_kinds=False)
    with pytest.raises(KindForbidden):
        traverse(
            supply, {"start": ["Supplier/S-1007"], "path": ["supplier_contracts"]}, visible_refusal
        )


# -- POST /neighborhood --------------------------------------------------------------------------


def test_neighborhood_defaults(supply: Schema) -> None:
    request = neighborhood(supply, {"refs": ["Supplier/S-1001"]})
    assert request == NeighborhoodRequest(
        refs=(RecordRef("Supplier", "S-1001"),),
        depth=1,
        relations=(
            "flags",
            "for_part",
            "ordered_from",
            "stocked_at",
            "supplied_by",
            "with_supplier",
        ),
        values=True,
    )


def test_neighborhood_relations_name_either_end(supply: Schema) -> None:
    request = neighborhood(
        supply,
        {
            "refs": ["Supplier/S-1001", "Part/P-10028", "Supplier/S-1001"],
            "depth": 0,
            "relations": ["supplies", "supplied_by", "supplier_contracts"],
            "values": False,
            "branch": "what-if",
            "at": "f4d22916",
        },
    )
    assert request.refs == (RecordRef("Part", "P-10028"), RecordRef("Supplier", "S-1001"))
    assert request.relations == ("supplied_by", "with_supplier")
    assert (request.depth, request.values, request.branch, request.at) == (
        0,
        False,
        "what-if",
        "f4d22916",
    )
    assert neighborhood(supply, {"refs": ["Part/P-10028"], "relations": []}).relations == ()


def test_neighborhood_default_relations_are_the_readable_ones(supply: Schema) -> None:
    request = neighborhood(supply, {"refs": ["Supplier/S-1001"]}, SUPPLIERS_AND_PARTS)
    assert request.relations == ("supplied_by",)
    with pytest.raises(RelationNotFound):
        neighborhood(
            supply, {"refs": ["Supplier/S-1001"], "relations": ["flags"]}, SUPPLIERS_AND_PARTS
        )
    with pytest.raises(KindNotFound):
        neighborhood(supply, {"refs": ["RiskFlag/RF-S-1001-0001"]}, SUPPLIERS_AND_PARTS)


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        pytest.param({}, [("refs", "missing")], id="empty"),
        pytest.param(
            {"refs": ["Supplier/S-1001"], "depth": 4}, [("depth", "range")], id="depth-over-max"
        ),
        pytest.param(
            {"refs": ["Supplier/S-1001"], "depth": -1}, [("depth", "range")], id="depth-negative"
        ),
        pytest.param(
            {"refs": ["Supplier/S-1001"], "depth": 1.5}, [("depth", "type")], id="depth-float"
        ),
        pytest.param(
            {"refs": ["Supplier/S-1001"], "relations": "supplies"},
            [("relations", "type")],
            id="relations-not-a-list",
        ),
        pytest.param(
            {"refs": ["Supplier/S-1001"], "relations": ["supplies", 2, ""]},
            [("relations[1]", "type"), ("relations[2]", "type")],
            id="relation-names",
        ),
        pytest.param(
            {"refs": ["Supplier/S-1001"], "values": "no"}, [("values", "type")], id="values"
        ),
        pytest.param(
            {"refs": ["S-1001", "Supplier/S-1001", None], "path": []},
            [("path", "unknown"), ("refs[0]", "bad-ref"), ("refs[2]", "type")],
            id="refs-and-unknown",
        ),
        pytest.param({"refs": ["Supplier/S-1001"] * 4}, [("refs", "range")], id="too-many-refs"),
        pytest.param(
            {"refs": ["Supplier/S-1001", *([None] * 100_000)]},
            [("refs", "range"), ("refs[1]", "type"), ("refs[2]", "type")],
            id="items-past-the-bound-are-not-read",
        ),
    ],
)
def test_neighborhood_lists_every_problem_with_its_path(
    supply: Schema, document: dict[str, Any], expected: list[tuple[str, str]]
) -> None:
    with pytest.raises(GraphRequestInvalid) as caught:
        neighborhood(supply, document, max_refs=3)
    assert issues(caught) == sorted(expected)


def test_neighborhood_unknown_relation_answers_404_first(supply: Schema) -> None:
    with pytest.raises(RelationNotFound) as caught:
        neighborhood(supply, {"refs": [], "depth": 9, "relations": ["supplies", "sells"]})
    assert caught.value.to_problem()["status"] == 404
    assert caught.value.to_problem()["code"] == "relation-not-found"


def test_neighborhood_depth_zero_is_allowed_when_max_depth_is_zero(supply: Schema) -> None:
    assert neighborhood(supply, {"refs": ["Supplier/S-1001"]}, max_depth=0).depth == 0
