"""Graph reads: traversals along a path of Relations and neighborhoods (docs/graph.md).

Every case runs on the supply example on both backends; answers are checked against values
written out here and against a walk made of the store's one-Record reads (`Store.links`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from lorebase_core.access import ReadScope
from lorebase_core.changes import DeleteLink, DeleteRecord, UpsertLink, UpsertRecord
from lorebase_core.errors import LorebaseError, RelationNotFound
from lorebase_core.graph_requests import (
    GraphRequestInvalid,
    NeighborhoodRequest,
    parse_neighborhood,
    parse_traverse,
)
from lorebase_core.refs import RecordRef
from lorebase_store.engine import read_transaction
from lorebase_store.graph import NeighborhoodResult, TraverseResult, neighborhood, traverse
from lorebase_store.graph.sql import CHUNK, fetch_links
from lorebase_store.store import Store
from lorebase_store.testing import commit_changes as commit
from lorebase_store.testing import read_links, read_record
from lorebase_store.versioned.views import make_view

DOMAIN = "supply"
EVERYTHING = ReadScope.everything()
NO_CLEARANCE = ReadScope()
SUPPLIERS_AND_PARTS = ReadScope(
    kinds=frozenset({"Supplier", "Part"}), clearances=frozenset({"pii", "confidential"})
)
DOCS = Path(__file__).parents[3] / "docs" / "graph.md"
ALL_RELATIONS = ("flags", "for_part", "ordered_from", "stocked_at", "supplied_by", "with_supplier")


def run_traverse(
    store: Store,
    document: dict[str, Any],
    scope: ReadScope = EVERYTHING,
    *,
    max_fanout: int = 1000,
    max_results: int = 1000,
) -> TraverseResult:
    """POST /traverse as Keeper answers it: parse against the schema read, walk in one read."""
    schema = store.schema(DOMAIN, branch=document.get("branch"), at=document.get("at"))
    request = parse_traverse(document, schema, scope, max_hops=4, max_results=max_results)
    with read_transaction(store.engine) as connection:
        view = make_view(connection, DOMAIN, request.branch, request.at)
        return traverse(connection, view, schema, scope, request, max_fanout=max_fanout)


def run_neighborhood(
    store: Store,
    document: dict[str, Any],
    scope: ReadScope = EVERYTHING,
    *,
    max_records: int = 500,
    max_links: int = 2000,
    max_fanout: int = 1000,
) -> NeighborhoodResult:
    """POST /neighborhood as Keeper answers it."""
    schema = store.schema(DOMAIN, branch=document.get("branch"), at=document.get("at"))
    request = parse_neighborhood(document, schema, scope, max_depth=3)
    return walk_neighborhood(
        store,
        request,
        scope,
        max_records=max_records,
        max_links=max_links,
        max_fanout=max_fanout,
    )


def walk_neighborhood(
    store: Store, request: NeighborhoodRequest, scope: ReadScope, **caps: int
) -> NeighborhoodResult:
    schema = store.schema(DOMAIN, branch=request.branch, at=request.at)
    with read_transaction(store.engine) as connection:
        view = make_view(connection, DOMAIN, request.branch, request.at)
        return neighborhood(
            connection,
            view,
            schema,
            scope,
            request,
            max_records=caps.get("max_records", 500),
            max_links=caps.get("max_links", 2000),
            max_fanout=caps.get("max_fanout", 1000),
        )


def refs(records: Any) -> list[str]:
    return [record.ref for record in records]


# -- an oracle made of one-Record reads ----------------------------------------------------------


def naive_walk(
    store: Store,
    seeds: list[str],
    depth: int,
    relations: tuple[str, ...] = ALL_RELATIONS,
    **view: str,
) -> tuple[dict[str, int], set[tuple[str, str, str]]]:
    """Each Record reached (at its smallest depth) and the Links among them, read one by one."""
    schema = store.schema(DOMAIN, **view)

    def exists(ref: str) -> bool:
        kind, key = ref.split("/", 1)
        return read_record(store, DOMAIN, kind, key, **view) is not None

    def links_of(ref: str) -> Iterator[tuple[str, str, str]]:
        kind, key = ref.split("/", 1)
        for name in relations:
            relation = schema.relations[name]
            if relation.from_kind == kind:
                for link in read_links(store, DOMAIN, name, from_key=key, **view):
                    yield name, ref, f"{relation.to_kind}/{link.to_key}"
            if relation.to_kind == kind:
                for link in read_links(store, DOMAIN, name, to_key=key, **view):
                    yield name, f"{relation.from_kind}/{link.from_key}", ref

    depth_of = {ref: 0 for ref in seeds if exists(ref)}
    frontier = sorted(depth_of)
    for level in range(1, depth + 1):
        reached: set[str] = set()
        for ref in frontier:
            for _name, from_ref, to_ref in links_of(ref):
                other = to_ref if from_ref == ref else from_ref
                if other not in depth_of and exists(other):
                    reached.add(other)
        for ref in reached:
            depth_of[ref] = level
        frontier = sorted(reached)
    links = {link for ref in depth_of for link in links_of(ref)}
    return depth_of, {link for link in links if link[1] in depth_of and link[2] in depth_of}


def answered(result: NeighborhoodResult) -> tuple[dict[str, int], set[tuple[str, str, str]]]:
    depth_of = {seed.ref: 0 for seed in result.seeds}
    depth_of.update({neighbor.ref: neighbor.depth for neighbor in result.neighbors})
    return depth_of, {(link.relation, link.from_ref, link.to_ref) for link in result.links}


@contextmanager
def statements(engine: sa.Engine) -> Iterator[list[str]]:
    """The SQL statements the engine runs inside the block."""
    seen: list[str] = []

    def record(*args: Any) -> None:
        seen.append(args[2])

    sa.event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        sa.event.remove(engine, "before_cursor_execute", record)


# -- POST /traverse ------------------------------------------------------------------------------


def test_traverse_from_a_supplier_to_its_purchase_orders(supply: Store) -> None:
    result = run_traverse(
        supply, {"start": ["Supplier/S-1007"], "path": ["supplies", {"rel": "purchase_orders"}]}
    )
    assert refs(result.records) == [
        "PurchaseOrder/PO-200012",
        "PurchaseOrder/PO-200037",
        "PurchaseOrder/PO-200043",
    ]
    document = result.to_json()
    assert document["hops"] == [
        {
            "relation": "supplies",
            "direction": "inverse",
            "from_kind": "Supplier",
            "to_kind": "Part",
            "records": 3,
            "links": 3,
        },
        {
            "relation": "purchase_orders",
            "direction": "inverse",
            "from_kind": "Part",
            "to_kind": "PurchaseOrder",
            "records": 3,
            "links": 3,
        },
    ]
    assert document["records"][0] == {
        "ref": "PurchaseOrder/PO-200012",
        "kind": "PurchaseOrder",
        "key": "PO-200012",
        "title": "PO-200012",
        "values": {
            "po_number": "PO-200012",
            "status": "received",
            "order_date": "2026-04-13",
            "due_date": "2026-04-28",
            "quantity": "150",
            "total": "2835.00",
        },
    }
    assert (document["start"], document["missing"], document["path"]) == (
        ["Supplier/S-1007"],
        [],
        ["supplies", "purchase_orders"],
    )
    assert (document["capped"], document["caps"]) == (False, [])
    parts = {link.from_key for link in read_links(supply, DOMAIN, "supplied_by", to_key="S-1007")}
    orders = {
        f"PurchaseOrder/{link.from_key}"
        for part in parts
        for link in read_links(supply, DOMAIN, "for_part", to_key=part)
    }
    assert set(refs(result.records)) == orders


def test_traverse_forward_names_and_a_sole_supplier(supply: Store) -> None:
    sole = run_traverse(
        supply, {"start": ["Part/P-10007", "Part/P-10019"], "path": ["supplied_by"]}
    )
    assert refs(sole.records) == ["Supplier/S-1007"]
    assert sole.records[0].title == "Lindqvist Hydraulik AB"
    assert sole.hops[0].to_json() == {
        "relation": "supplied_by",
        "direction": "forward",
        "from_kind": "Part",
        "to_kind": "Supplier",
        "records": 1,
        "links": 2,
    }
    contracts = run_traverse(
        supply, {"start": ["Part/P-10007"], "path": ["supplied_by", "supplier_contracts"]}
    )
    assert refs(contracts.records) == ["Contract/C-3007"]
    back = run_traverse(
        supply,
        {"start": ["Contract/C-3007"], "path": ["with_supplier", "supplies", "supplied_by"]},
    )
    assert refs(back.records) == ["Supplier/S-1007", "Supplier/S-1021"]


def test_traverse_path_mismatch_and_unknown_relation(supply: Store) -> None:
    with pytest.raises(GraphRequestInvalid) as caught:
        run_traverse(supply, {"start": ["Supplier/S-1007"], "path": ["supplies", "supplies"]})
    assert [(issue.path, issue.code) for issue in caught.value.issues] == [
        ("path[1]", "path-mismatch")
    ]
    with pytest.raises(RelationNotFound):
        run_traverse(supply, {"start": ["Supplier/S-1007"], "path": ["sells"]})


def test_traverse_caps(supply: Store) -> None:
    document = {"start": ["Supplier/S-1007"], "path": ["supplies", "purchase_orders"]}
    fanout = run_traverse(supply, document, max_fanout=1)
    assert refs(fanout.records) == ["PurchaseOrder/PO-200037"]
    assert [(hop.records, hop.links) for hop in fanout.hops] == [(1, 1), (1, 1)]
    assert (fanout.capped, fanout.caps) == (True, ("max_fanout",))
    limited = run_traverse(supply, {**document, "limit": 2})
    assert refs(limited.records) == ["PurchaseOrder/PO-200012", "PurchaseOrder/PO-200037"]
    assert limited.hops[-1].records == 3
    assert limited.to_json()["caps"] == ["limit"]
    at_max = run_traverse(supply, document, max_results=1)
    assert refs(at_max.records) == ["PurchaseOrder/PO-200012"]
    assert at_max.to_json()["caps"] == ["max_results"]
    both = run_traverse(supply, {**document, "limit": 1}, max_fanout=2)
    assert both.to_json()["caps"] == ["limit", "max_fanout"]
    exact = run_traverse(supply, {**document, "limit": 3}, max_fanout=3)
    assert (exact.capped, len(exact.records)) == (False, 3)


def test_traverse_masks_sensitive_values(supply: Store) -> None:
    document = {"start": ["Part/P-10007"], "path": ["supplied_by"]}
    open_values = run_traverse(supply, document).records[0].values
    assert open_values is not None
    assert open_values["vat_number"] != "***"
    masked = run_traverse(supply, document, NO_CLEARANCE).records[0].values
    assert masked is not None
    assert (masked["vat_number"], masked["contact_email"]) == ("***", "***")
    assert masked["legal_name"] == "Lindqvist Hydraulik AB"
    partly = run_traverse(
        supply, document, ReadScope(clearances=frozenset({"confidential"}))
    ).records[0]
    assert partly.values is not None
    assert partly.values["contact_email"] == "***"
    assert partly.values["vat_number"] == open_values["vat_number"]


def test_traverse_missing_and_deleted_records(supply: Store) -> None:
    commit(supply, [DeleteRecord("Part", "P-10019")], message="Retire P-10019")
    result = run_traverse(
        supply, {"start": ["Supplier/S-9999", "Supplier/S-1007"], "path": ["supplies"]}
    )
    assert result.to_json()["missing"] == ["Supplier/S-9999"]
    assert refs(result.records) == ["Part/P-10007", "Part/P-10021"]
    nothing = run_traverse(
        supply, {"start": ["Supplier/S-9999"], "path": ["supplies", "stocked_at"]}
    )
    assert nothing.records == ()
    assert [(hop.records, hop.links) for hop in nothing.hops] == [(0, 0), (0, 0)]


def test_traverse_at_an_older_revision(supply: Store) -> None:
    before = supply.log(DOMAIN, limit=1)[0]
    commit(
        supply,
        [
            UpsertRecord("Part", "P-10041", {"name": "Gear pump GP-12", "category": "hydraulic"}),
            UpsertLink("supplied_by", "P-10041", "S-1007", {"is_primary": True}),
            DeleteLink("supplied_by", "P-10021", "S-1007"),
        ],
    )
    document: dict[str, Any] = {"start": ["Supplier/S-1007"], "path": ["supplies"]}
    now = run_traverse(supply, document)
    assert refs(now.records) == ["Part/P-10007", "Part/P-10019", "Part/P-10041"]
    then = run_traverse(supply, {**document, "at": before.id[:12]})
    assert refs(then.records) == ["Part/P-10007", "Part/P-10019", "Part/P-10021"]
    first = supply.log(DOMAIN)[-1]
    s1001 = run_traverse(
        supply, {"start": ["Part/P-10028"], "path": ["supplied_by"], "at": first.id}
    ).records
    assert {record.key: record.values["risk_score"] for record in s1001 if record.values}[
        "S-1001"
    ] == "72"


def test_traverse_on_overlay_branches(supply: Store) -> None:
    supply.create_branch(DOMAIN, "what-if", created_by="usr_tester")
    commit(
        supply,
        [
            UpsertRecord("Part", "P-10041", {"name": "Gear pump GP-12", "category": "hydraulic"}),
            UpsertLink("supplied_by", "P-10041", "S-1007", {"is_primary": True}),
            DeleteLink("supplied_by", "P-10007", "S-1007"),
        ],
        branch="what-if",
    )
    supply.create_branch(DOMAIN, "deeper", from_branch="what-if", created_by="usr_tester")
    commit(supply, [DeleteRecord("Part", "P-10019")], branch="deeper")
    # after the fork: "deeper" reads "what-if" as of the fork, not this
    commit(supply, [DeleteLink("supplied_by", "P-10021", "S-1007")], branch="what-if")
    document: dict[str, Any] = {"start": ["Supplier/S-1007"], "path": ["supplies"]}
    assert refs(run_traverse(supply, document).records) == [
        "Part/P-10007",
        "Part/P-10019",
        "Part/P-10021",
    ]
    assert refs(run_traverse(supply, {**document, "branch": "what-if"}).records) == [
        "Part/P-10019",
        "Part/P-10041",
    ]
    assert refs(run_traverse(supply, {**document, "branch": "deeper"}).records) == [
        "Part/P-10021",
        "Part/P-10041",
    ]
    fork = supply.branch(DOMAIN, "deeper").base_revision
    assert fork is not None
    at_fork = run_traverse(supply, {**document, "branch": "deeper", "at": fork})
    assert refs(at_fork.records) == ["Part/P-10019", "Part/P-10021", "Part/P-10041"]
    orders = run_traverse(
        supply,
        {"start": ["Supplier/S-1007"], "path": ["supplies", "purchase_orders"], "branch": "deeper"},
    )
    assert refs(orders.records) == ["PurchaseOrder/PO-200012"]


def test_traverse_on_a_copy_branch(supply: Store) -> None:
    supply.create_branch(DOMAIN, "copy", created_by="usr_tester", mode="copy")
    commit(supply, [DeleteLink("supplied_by", "P-10021", "S-1007")], branch="copy")
    result = run_traverse(
        supply, {"start": ["Supplier/S-1007"], "path": ["supplies"], "branch": "copy"}
    )
    assert refs(result.records) == ["Part/P-10007", "Part/P-10019"]


def test_traverse_scope_hides_kinds(supply: Store) -> None:
    with pytest.raises(RelationNotFound):
        run_traverse(
            supply,
            {"start": ["Supplier/S-1007"], "path": ["supplier_contracts"]},
            SUPPLIERS_AND_PARTS,
        )
    schema = supply.schema(DOMAIN)
    request = parse_traverse(
        {"start": ["Supplier/S-1007"], "path": ["supplier_contracts"]},
        schema,
        EVERYTHING,
        max_hops=4,
        max_results=10,
    )
    with read_transaction(supply.engine) as connection:
        view = make_view(connection, DOMAIN)
        with pytest.raises(RelationNotFound):
            traverse(connection, view, schema, SUPPLIERS_AND_PARTS, request, max_fanout=10)


def test_traverse_issues_two_statements_per_hop(supply: Store) -> None:
    schema = supply.schema(DOMAIN)
    document = {"start": ["Supplier/S-1007"], "path": ["supplies", "purchase_orders"]}
    request = parse_traverse(document, schema, EVERYTHING, max_hops=4, max_results=100)
    with read_transaction(supply.engine) as connection:
        view = make_view(connection, DOMAIN)
        with statements(supply.engine) as seen:
            traverse(connection, view, schema, EVERYTHING, request, max_fanout=100)
    assert len(seen) == 1 + 2 * 2


# -- POST /neighborhood --------------------------------------------------------------------------


def test_neighborhood_depth_zero_is_the_seeds(supply: Store) -> None:
    result = run_neighborhood(supply, {"refs": ["Supplier/S-1001"], "depth": 0})
    document = result.to_json()
    assert document["seeds"] == [
        {
            "ref": "Supplier/S-1001",
            "kind": "Supplier",
            "key": "S-1001",
            "title": "Kavsen Alloys Sp. z o.o.",
            "values": {
                "supplier_code": "S-1001",
                "legal_name": "Kavsen Alloys Sp. z o.o.",
                "city": "Poznan",
                "country": "PL",
                "tier": "1",
                "risk_score": "90",
                "status": "active",
                "vat_number": "PL7792438105",
                "contact_email": "marta.wisniewska@kavsen.example",
                "risk_band": "high",
            },
        }
    ]
    assert (document["neighbors"], document["links"], document["missing"]) == ([], {}, [])
    together = run_neighborhood(supply, {"refs": ["Supplier/S-1001", "Part/P-10028"], "depth": 0})
    assert together.neighbors == ()
    assert together.to_json()["links"] == {
        "supplied_by": [
            {
                "from": "Part/P-10028",
                "to": "Supplier/S-1001",
                "values": {"is_primary": True, "lead_time_days": "21"},
            }
        ]
    }


def test_neighborhood_depth_one(supply: Store) -> None:
    result = run_neighborhood(supply, {"refs": ["Supplier/S-1001"], "depth": 1})
    document = result.to_json()
    neighbors = {neighbor["ref"]: neighbor for neighbor in document["neighbors"]}
    assert neighbors["Contract/C-3001"] == {
        "ref": "Contract/C-3001",
        "kind": "Contract",
        "title": "Framework supply agreement 2023 - Kavsen Alloys Sp. z o.o.",
        "depth": 1,
        "values": {
            "contract_number": "C-3001",
            "title": "Framework supply agreement 2023 - Kavsen Alloys Sp. z o.o.",
            "status": "active",
            "currency": "PLN",
            "start_date": "2023-01-01",
            "end_date": "2026-12-31",
            "value": "1850000.00",
        },
    }
    assert neighbors["Part/P-10028"]["title"] == "Radial shaft seal 25x42x7"
    assert neighbors["Part/P-10028"]["values"]["unit_cost"] == "24.01"
    assert {
        "from": "Part/P-10028",
        "to": "Supplier/S-1001",
        "values": {
            "is_primary": True,
            "lead_time_days": "21",
        },
    } in document["links"]["supplied_by"]
    assert document["links"]["with_supplier"] == [
        {"from": "Contract/C-3001", "to": "Supplier/S-1001"}
    ]
    assert [neighbor["ref"] for neighbor in document["neighbors"]] == sorted(neighbors)
    assert answered(result) == naive_walk(supply, ["Supplier/S-1001"], 1)
    # Links between two neighbors are part of the answer (a purchase order and its part)
    assert {"from": "PurchaseOrder/PO-200009", "to": "Part/P-10028"} in document["links"][
        "for_part"
    ]
    for links in document["links"].values():
        assert [(link["from"], link["to"]) for link in links] == sorted(
            (link["from"], link["to"]) for link in links
        )


def test_neighborhood_depth_two_keeps_each_record_once(supply: Store) -> None:
    result = run_neighborhood(supply, {"refs": ["Supplier/S-1001"], "depth": 2})
    depth_of, links = answered(result)
    assert (depth_of, links) == naive_walk(supply, ["Supplier/S-1001"], 2)
    assert depth_of["Part/P-10028"] == 1
    assert depth_of["Supplier/S-1026"] == 2
    assert depth_of["Plant/PL-05"] == 2
    assert len(refs(result.neighbors)) == len(set(refs(result.neighbors)))
    assert [(n.depth, n.ref) for n in result.neighbors] == sorted(
        (n.depth, n.ref) for n in result.neighbors
    )
    assert not result.capped


def test_neighborhood_relations_filter(supply: Store) -> None:
    result = run_neighborhood(supply, {"refs": ["Supplier/S-1001"], "relations": ["supplies"]})
    assert refs(result.neighbors) == [
        "Part/P-10006",
        "Part/P-10026",
        "Part/P-10028",
        "Part/P-10039",
    ]
    assert list(result.to_json()["links"]) == ["supplied_by"]
    contracts = run_neighborhood(
        supply, {"refs": ["Supplier/S-1001"], "depth": 3, "relations": ["with_supplier"]}
    )
    assert refs(contracts.neighbors) == ["Contract/C-3001"]
    two = run_neighborhood(
        supply,
        {"refs": ["Supplier/S-1001"], "depth": 2, "relations": ["supplier_contracts", "stocks"]},
    )
    assert answered(two) == naive_walk(
        supply, ["Supplier/S-1001"], 2, ("stocked_at", "with_supplier")
    )


def test_neighborhood_without_values(supply: Store) -> None:
    result = run_neighborhood(supply, {"refs": ["Supplier/S-1001"], "values": False})
    document = result.to_json()
    assert document["seeds"] == [
        {
            "ref": "Supplier/S-1001",
            "kind": "Supplier",
            "key": "S-1001",
            "title": "Kavsen Alloys Sp. z o.o.",
        }
    ]
    assert document["neighbors"][0] == {
        "ref": "Contract/C-3001",
        "kind": "Contract",
        "title": "Framework supply agreement 2023 - Kavsen Alloys Sp. z o.o.",
        "depth": 1,
    }
    assert all("values" not in neighbor for neighbor in document["neighbors"])
    assert {"from": "Part/P-10028", "to": "Supplier/S-1001"} in document["links"]["supplied_by"]
    assert all("values" not in link for links in document["links"].values() for link in links)
    with_values = run_neighborhood(supply, {"refs": ["Supplier/S-1001"]})
    assert answered(result) == answered(with_values)


def test_neighborhood_scope_hides_other_kinds(supply: Store) -> None:
    result = run_neighborhood(
        supply, {"refs": ["Supplier/S-1001"], "depth": 2}, SUPPLIERS_AND_PARTS
    )
    kinds = {neighbor.kind for neighbor in result.neighbors}
    assert kinds == {"Part", "Supplier"}
    assert list(result.to_json()["links"]) == ["supplied_by"]
    assert answered(result) == naive_walk(supply, ["Supplier/S-1001"], 2, ("supplied_by",))
    request = NeighborhoodRequest((RecordRef("Supplier", "S-1001"),), relations=ALL_RELATIONS)
    built = walk_neighborhood(supply, request, SUPPLIERS_AND_PARTS)
    assert "Contract" not in {neighbor.kind for neighbor in built.neighbors}
    assert list(built.to_json()["links"]) == ["supplied_by"]


def test_neighborhood_kinds_limit_neighbors_not_seeds(supply: Store) -> None:
    request = NeighborhoodRequest(
        (RecordRef("Supplier", "S-1001"), RecordRef("Supplier", "S-1026")),
        depth=2,
        relations=ALL_RELATIONS,
        kinds=frozenset({"Part"}),
    )
    result = walk_neighborhood(supply, request, EVERYTHING)
    assert refs(result.seeds) == ["Supplier/S-1001", "Supplier/S-1026"]
    assert {neighbor.kind for neighbor in result.neighbors} == {"Part"}
    assert {"from": "Part/P-10028", "to": "Supplier/S-1026"} in [
        {"from": link.from_ref, "to": link.to_ref} for link in result.links
    ]


def test_neighborhood_masks_sensitive_values(supply: Store) -> None:
    result = run_neighborhood(supply, {"refs": ["Part/P-10028"]}, NO_CLEARANCE)
    suppliers = [neighbor for neighbor in result.neighbors if neighbor.kind == "Supplier"]
    assert refs(suppliers) == ["Supplier/S-1001", "Supplier/S-1020", "Supplier/S-1026"]
    for supplier in suppliers:
        assert supplier.values is not None
        assert (supplier.values["vat_number"], supplier.values["contact_email"]) == ("***", "***")
    seed = run_neighborhood(supply, {"refs": ["Supplier/S-1001"], "depth": 0}, NO_CLEARANCE)
    assert seed.seeds[0].values is not None
    assert seed.seeds[0].values["vat_number"] == "***"
    assert seed.seeds[0].title == "Kavsen Alloys Sp. z o.o."


def test_neighborhood_missing_and_deleted_records(supply: Store) -> None:
    commit(supply, [DeleteRecord("RiskFlag", "RF-S-1001-0001")], message="Resolve the flag")
    result = run_neighborhood(
        supply, {"refs": ["Supplier/S-9999", "Supplier/S-1001", "Part/P-99999"]}
    )
    assert result.to_json()["missing"] == ["Part/P-99999", "Supplier/S-9999"]
    assert refs(result.seeds) == ["Supplier/S-1001"]
    assert "RiskFlag/RF-S-1001-0001" not in refs(result.neighbors)
    assert "flags" not in result.to_json()["links"]
    nothing = run_neighborhood(supply, {"refs": ["Supplier/S-9999"], "depth": 3})
    assert nothing.to_json() == {
        "seeds": [],
        "missing": ["Supplier/S-9999"],
        "neighbors": [],
        "links": {},
        "capped": False,
        "caps": [],
    }


def test_neighborhood_at_an_older_revision_and_on_a_branch(supply: Store) -> None:
    before = supply.log(DOMAIN, limit=1)[0]
    supply.create_branch(DOMAIN, "review", created_by="usr_tester")
    changes = [
        UpsertRecord(
            "Contract", "C-3016", {"title": "Spare parts 2027 - Kavsen", "status": "draft"}
        ),
        UpsertLink("with_supplier", "C-3016", "S-1001"),
        DeleteLink("supplied_by", "P-10039", "S-1001"),
    ]
    commit(supply, changes, branch="review")
    document: dict[str, Any] = {
        "refs": ["Supplier/S-1001"],
        "relations": ["supplies", "supplier_contracts"],
    }
    main = run_neighborhood(supply, document)
    assert refs(main.neighbors) == [
        "Contract/C-3001",
        "Part/P-10006",
        "Part/P-10026",
        "Part/P-10028",
        "Part/P-10039",
    ]
    review = run_neighborhood(supply, {**document, "branch": "review"})
    assert refs(review.neighbors) == [
        "Contract/C-3001",
        "Contract/C-3016",
        "Part/P-10006",
        "Part/P-10026",
        "Part/P-10028",
    ]
    assert answered(review) == naive_walk(
        supply, ["Supplier/S-1001"], 1, ("supplied_by", "with_supplier"), branch="review"
    )
    deep = run_neighborhood(supply, {"refs": ["Supplier/S-1001"], "depth": 2, "branch": "review"})
    assert answered(deep) == naive_walk(supply, ["Supplier/S-1001"], 2, branch="review")
    commit(supply, changes)
    assert refs(run_neighborhood(supply, document).neighbors) == refs(review.neighbors)
    then = run_neighborhood(supply, {**document, "at": before.id})
    assert refs(then.neighbors) == refs(main.neighbors)


def test_neighborhood_caps(supply: Store) -> None:
    document = {"refs": ["Supplier/S-1001"], "depth": 2}
    full = run_neighborhood(supply, document)
    few = run_neighborhood(supply, document, max_records=3)
    assert refs(few.neighbors) == refs(full.neighbors)[:3]
    assert (few.capped, few.caps) == (True, ("max_records",))
    kept = {"Supplier/S-1001", *refs(few.neighbors)}
    assert all(link.from_ref in kept and link.to_ref in kept for link in few.links)
    depth_one = [n for n in full.neighbors if n.depth == 1]
    shallow = run_neighborhood(supply, document, max_records=len(depth_one))
    assert refs(shallow.neighbors) == refs(depth_one)
    assert shallow.caps == ("max_records",)
    links = run_neighborhood(supply, document, max_links=2)
    assert len(links.links) == 2
    assert links.caps == ("max_links",)
    assert refs(links.neighbors) == refs(full.neighbors)
    near = {n.ref for n in depth_one} | {"Supplier/S-1001"}
    assert all(link.from_ref in near and link.to_ref in near for link in links.links)
    fanout = run_neighborhood(supply, {"refs": ["Supplier/S-1001"]}, max_fanout=2)
    assert refs(fanout.neighbors) == ["Contract/C-3001", "Part/P-10006"]
    assert fanout.to_json()["caps"] == ["max_fanout"]
    exact = run_neighborhood(supply, {"refs": ["Supplier/S-1001"]}, max_records=10)
    assert (len(exact.neighbors), exact.capped) == (10, False)


def test_neighborhood_is_deterministic(supply: Store) -> None:
    document = {"refs": ["Supplier/S-1007", "Supplier/S-1001"], "depth": 2}
    first = json.dumps(run_neighborhood(supply, document).to_json())
    again = json.dumps(
        run_neighborhood(supply, {**document, "refs": document["refs"][::-1]}).to_json()
    )
    assert first == again


def test_neighborhood_statements(supply: Store) -> None:
    schema = supply.schema(DOMAIN)
    request = parse_neighborhood({"refs": ["Supplier/S-1001"]}, schema, EVERYTHING, max_depth=3)
    with read_transaction(supply.engine) as connection:
        view = make_view(connection, DOMAIN)
        with statements(supply.engine) as seen:
            neighborhood(
                connection,
                view,
                schema,
                EVERYTHING,
                request,
                max_records=500,
                max_links=2000,
                max_fanout=1000,
            )
    # the seed; four Relations end at Supplier; four Kinds reached; Links among the
    # depth-1 Records: for_part (PurchaseOrder -> Part) is the only Relation with both ends there
    assert len(seen) == 1 + 4 + 4 + 1


def test_links_are_read_in_batches(supply: Store) -> None:
    keys = [f"S-{number}" for number in range(1001, 1001 + CHUNK + 30)]
    with read_transaction(supply.engine) as connection:
        view = make_view(connection, DOMAIN)
        with statements(supply.engine) as seen:
            rows = fetch_links(
                connection, view.segments, "supplied_by", "to_key", keys, with_values=False
            )
    assert len(seen) == 2
    assert len(rows) == len(read_links(supply, DOMAIN, "supplied_by"))


# -- docs/graph.md -------------------------------------------------------------------------------

EXAMPLE = re.compile(
    r"```http\nPOST /api/v1/domains/supply/(?P<route>traverse|neighborhood)\n"
    r"(?:[^\n]+\n)*\n(?P<request>.*?)\n```\s*\n(?:[^`]*?\n)?```json\n(?P<answer>.*?)\n```",
    re.DOTALL,
)


def doc_examples() -> list[Any]:
    text = DOCS.read_text()
    found = [
        pytest.param(m["route"], m["request"], m["answer"], id=f"{m['route']}-{index}")
        for index, m in enumerate(EXAMPLE.finditer(text))
    ]
    assert len(found) == text.count("```http") == text.count("```json"), (
        "every HTTP example is followed by its answer, and every JSON block is one"
    )
    return found


@pytest.mark.parametrize(("route", "request_text", "answer_text"), doc_examples())
def test_docs_examples(supply: Store, route: str, request_text: str, answer_text: str) -> None:
    document = json.loads(request_text)
    expected = json.loads(answer_text)
    try:
        if route == "traverse":
            answer = run_traverse(supply, document).to_json()
        else:
            answer = run_neighborhood(supply, document).to_json()
    except LorebaseError as error:
        answer = error.to_problem()
    assert answer == expected
