"""Every read route of Keeper over the supply example, checked against its data files.

The expected values come from examples/supply (schema.yaml, data/*.csv, revisions/) as its
README describes them: S-1001 "Kavsen Alloys Sp. z o.o." with risk 90 after "Raise the risk of
S-1001", P-10028 "Radial shaft seal 25x42x7", C-3013 with three changes.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx
import pytest
import yaml
from packages.keeper.tests.conftest import ROOT

from lorebase_core.changes import DeleteLink, DeleteRecord, UpsertLink, UpsertRecord
from lorebase_keeper.testing import assert_problem
from lorebase_store import Store
from lorebase_store.testing import commit_changes

EXAMPLE = ROOT / "examples" / "supply"
SUPPLY = "/api/v1/domains/supply"
S_1001 = f"{SUPPLY}/kinds/Supplier/records/S-1001"


def schema_document() -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load((EXAMPLE / "schema.yaml").read_text())
    return document


def data_rows(name: str) -> list[dict[str, str]]:
    with (EXAMPLE / "data" / f"{name}.csv").open(newline="") as file:
        return list(csv.DictReader(file))


def supplier_keys() -> list[str]:
    return sorted(row["supplier_code"] for row in data_rows("Supplier"))


@dataclass(frozen=True)
class Revisions:
    """The four Revisions of the supply example, oldest first."""

    imported: str
    raised: str
    extended: str
    head: str


@pytest.fixture
def revisions(supply: Store) -> Revisions:
    log = [revision.id for revision in reversed(supply.log("supply"))]
    assert len(log) == 4
    return Revisions(*log)


async def read(http: httpx.AsyncClient, path: str) -> dict[str, Any]:
    response = await http.get(path)
    assert response.status_code == 200, response.text
    document: dict[str, Any] = response.json()
    return document


# -- GET /schema ---------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_schema_lists_every_kind_with_its_key_title_and_attributes(
    http: httpx.AsyncClient,
) -> None:
    expected = schema_document()["kinds"]
    kinds = {kind["name"]: kind for kind in (await read(http, f"{SUPPLY}/schema"))["kinds"]}
    assert set(kinds) == set(expected)
    for name, kind in expected.items():
        assert kinds[name]["key"] == kind["key"]
        assert kinds[name]["title"] == kind["title"]
        assert kinds[name]["description"] == kind["description"]
        assert [attribute["name"] for attribute in kinds[name]["attributes"]] == list(
            kind["attributes"]
        )


@pytest.mark.anyio
async def test_schema_describes_attribute_types_and_constraints(
    http: httpx.AsyncClient,
) -> None:
    [supplier] = [
        kind
        for kind in (await read(http, f"{SUPPLY}/schema"))["kinds"]
        if kind["name"] == "Supplier"
    ]
    attributes = {attribute["name"]: attribute for attribute in supplier["attributes"]}
    assert attributes["tier"]["type"] == "integer"
    assert (attributes["tier"]["min"], attributes["tier"]["max"]) == (1, 3)
    assert attributes["status"]["values"] == ["active", "suspended", "blocked"]
    assert attributes["supplier_code"]["pattern"] == "^S-[0-9]{4}$"
    assert attributes["vat_number"]["unique"] is True
    assert attributes["legal_name"]["required"] is True
    assert attributes["risk_band"]["derived"] == "'high' if risk_score >= 70 else 'normal'"


@pytest.mark.anyio
async def test_schema_keeps_a_lower_bound_of_zero(http: httpx.AsyncClient) -> None:
    kinds = {kind["name"]: kind for kind in (await read(http, f"{SUPPLY}/schema"))["kinds"]}
    risk = {a["name"]: a for a in kinds["Supplier"]["attributes"]}["risk_score"]
    cost = {a["name"]: a for a in kinds["Part"]["attributes"]}["unit_cost"]
    assert (risk.get("min"), risk.get("max")) == (0, 100)
    assert cost.get("min") == 0


@pytest.mark.anyio
async def test_schema_lists_relations_with_their_inverse_names(http: httpx.AsyncClient) -> None:
    expected = {
        name: (relation["inverse"], relation["from"], relation["to"], relation["cardinality"])
        for name, relation in schema_document()["relations"].items()
    }
    relations = (await read(http, f"{SUPPLY}/schema"))["relations"]
    assert {
        relation["name"]: (
            relation["inverse"],
            relation["from"],
            relation["to"],
            relation["cardinality"],
        )
        for relation in relations
    } == expected
    [supplied_by] = [relation for relation in relations if relation["name"] == "supplied_by"]
    assert [attribute["name"] for attribute in supplied_by["attributes"]] == [
        "is_primary",
        "lead_time_days",
    ]


@pytest.mark.anyio
async def test_schema_lists_the_located_trait_with_its_kinds(http: httpx.AsyncClient) -> None:
    [trait] = (await read(http, f"{SUPPLY}/schema"))["traits"]
    assert trait["name"] == "Located"
    assert trait["kinds"] == ["Plant", "Supplier"]
    assert [attribute["name"] for attribute in trait["attributes"]] == ["city", "country"]


@pytest.mark.anyio
async def test_schema_lists_the_supplier_risk_lens(http: httpx.AsyncClient) -> None:
    [lens] = (await read(http, f"{SUPPLY}/schema"))["lenses"]
    assert lens == {
        "name": "supplier_risk",
        "description": "A supplier with its contracts, parts and open risk flags.",
        "kinds": ["Supplier", "Contract", "Part", "RiskFlag"],
        "traits": [],
        "relations": ["with_supplier", "supplied_by", "flags"],
        "depth": 1,
        "include_recent_changes": True,
    }


@pytest.mark.anyio
async def test_schema_examples_are_the_five_questions(http: httpx.AsyncClient) -> None:
    document = await read(http, f"{SUPPLY}/schema")
    assert document["examples"] == schema_document()["domain"]["examples"]
    assert len(document["examples"]) == 5
    assert document["title"] == "Supply chain of Corvane Industries"


@pytest.mark.anyio
async def test_schema_names_the_search_embedding(http: httpx.AsyncClient) -> None:
    assert (await read(http, f"{SUPPLY}/schema"))["search"] == {
        "embedding": {"model": "all-MiniLM-L6-v2", "dimensions": 384}
    }


@pytest.mark.anyio
async def test_schema_at_an_older_revision_names_it(
    http: httpx.AsyncClient, revisions: Revisions
) -> None:
    response = await http.get(f"{SUPPLY}/schema?at={revisions.imported}")
    assert response.json()["revision"] == revisions.imported
    assert response.headers["Lorebase-Revision"] == revisions.imported


# -- GET /kinds/{kind}/records ---------------------------------------------------------------------


async def all_pages(http: httpx.AsyncClient, path: str, member: str) -> list[list[Any]]:
    """Every page of a list, following next_cursor."""
    pages: list[list[Any]] = []
    cursor: str | None = None
    separator = "&" if "?" in path else "?"
    while True:
        suffix = f"{separator}cursor={quote(cursor)}" if cursor else ""
        document = await read(http, f"{path}{suffix}")
        pages.append(document[member])
        cursor = document["next_cursor"]
        if cursor is None:
            return pages
        assert len(pages) < 100, "the cursors never end"


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("limit", "pages"),
    [
        pytest.param(1, 30, id="1"),
        pytest.param(7, 5, id="7"),
        pytest.param(29, 2, id="29"),
        pytest.param(30, 1, id="30"),
        pytest.param(1000, 1, id="max"),
    ],
)
async def test_records_pages_hold_every_supplier_once_in_key_order(
    http: httpx.AsyncClient, limit: int, pages: int
) -> None:
    found = await all_pages(http, f"{SUPPLY}/kinds/Supplier/records?limit={limit}", "records")
    assert len(found) == pages
    assert all(len(page) == limit for page in found[:-1])
    assert [record["key"] for page in found for record in page] == supplier_keys()


@pytest.mark.anyio
async def test_listed_suppliers_hold_the_values_of_the_data_file(
    http: httpx.AsyncClient,
) -> None:
    document = await read(http, f"{SUPPLY}/kinds/Supplier/records")
    assert document["kind"] == "Supplier"
    assert document["next_cursor"] is None
    listed = {record["key"]: record for record in document["records"]}
    for row in data_rows("Supplier"):
        record = listed[row["supplier_code"]]
        expected = {name: value for name, value in row.items() if value}
        if row["supplier_code"] == "S-1001":
            expected["risk_score"] = "90"  # the second Revision raised it from 72
        assert {name: record["values"][name] for name in expected} == expected
        assert record["title"] == row["legal_name"]
        assert record["ref"] == f"Supplier/{row['supplier_code']}"


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("kind", "count"),
    [
        pytest.param("Part", 40, id="Part"),
        pytest.param("PurchaseOrder", 50, id="PurchaseOrder"),
        pytest.param("Contract", 15, id="Contract"),
        pytest.param("Plant", 5, id="Plant"),
        pytest.param("RiskFlag", 7, id="RiskFlag"),
    ],
)
async def test_a_list_without_limit_is_one_default_page(
    http: httpx.AsyncClient, kind: str, count: int
) -> None:
    document = await read(http, f"{SUPPLY}/kinds/{kind}/records")
    assert len(document["records"]) == count
    assert document["next_cursor"] is None


LIMITED = [
    pytest.param("/kinds/Supplier/records?limit=0", id="records-0"),
    pytest.param("/kinds/Supplier/records?limit=-1", id="records-negative"),
    pytest.param("/kinds/Supplier/records?limit=1001", id="records-over-max"),
    pytest.param("/kinds/Supplier/records?limit=99999999999999999999999", id="records-huge"),
    pytest.param("/kinds/Supplier/records/S-1001/links/supplies?limit=0", id="links-0"),
    pytest.param("/kinds/Supplier/records/S-1001/links/supplies?limit=1001", id="links-over"),
    pytest.param("/kinds/Supplier/records/S-1001/history?limit=0", id="history-0"),
    pytest.param("/kinds/Supplier/records/S-1001/history?limit=501", id="history-over"),
]


@pytest.mark.anyio
@pytest.mark.parametrize("path", LIMITED)
async def test_a_limit_out_of_range_is_422_at_path_limit(
    http: httpx.AsyncClient, path: str
) -> None:
    response = await http.get(SUPPLY + path)
    assert_problem(response, 422, "invalid-input")
    assert [(issue["path"], issue["code"]) for issue in response.json()["issues"]] == [
        ("limit", "out-of-range")
    ]


@pytest.mark.anyio
@pytest.mark.parametrize(
    "cursor",
    [
        pytest.param("garbage", id="garbage"),
        pytest.param("!!!", id="not-base64"),
        pytest.param("bnVsbA", id="json-null"),
        pytest.param("W10", id="json-list"),
        pytest.param("eyJsIjoicmVjb3JkczpTdXBwbGllciIsImEiOjF9", id="key-not-a-string"),
    ],
)
async def test_a_bad_cursor_is_400(http: httpx.AsyncClient, cursor: str) -> None:
    response = await http.get(f"{SUPPLY}/kinds/Supplier/records?cursor={cursor}")
    assert_problem(response, 400, "bad-cursor")


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("issued_by", "used_on"),
    [
        pytest.param(
            "/kinds/Part/records?limit=1", "/kinds/Supplier/records", id="other-kind-records"
        ),
        pytest.param(
            "/kinds/Supplier/records/S-1001/links/supplies?limit=1",
            "/kinds/Supplier/records",
            id="links-on-records",
        ),
        pytest.param(
            "/kinds/Supplier/records?limit=1",
            "/kinds/Supplier/records/S-1001/links/supplies",
            id="records-on-links",
        ),
        pytest.param(
            "/kinds/Supplier/records/S-1001/links/supplies?limit=1",
            "/kinds/Supplier/records/S-1001/links/supplier_orders",
            id="other-relation",
        ),
        pytest.param(
            "/kinds/Supplier/records/S-1001/links/supplies?limit=1",
            "/kinds/Supplier/records/S-1002/links/supplies",
            id="other-record-links",
        ),
        pytest.param(
            "/kinds/Contract/records/C-3013/history?limit=1",
            "/kinds/Supplier/records",
            id="history-on-records",
        ),
        pytest.param(
            "/kinds/Supplier/records?limit=1",
            "/kinds/Supplier/records/S-1001/history",
            id="records-on-history",
        ),
    ],
)
async def test_a_cursor_from_another_list_is_400(
    http: httpx.AsyncClient, issued_by: str, used_on: str
) -> None:
    cursor = (await read(http, SUPPLY + issued_by))["next_cursor"]
    assert cursor is not None
    response = await http.get(f"{SUPPLY}{used_on}?cursor={quote(cursor)}")
    assert_problem(response, 400, "bad-cursor")


@pytest.mark.anyio
async def test_a_history_cursor_from_another_record_is_400(http: httpx.AsyncClient) -> None:
    cursor = (await read(http, f"{SUPPLY}/kinds/Contract/records/C-3013/history?limit=1"))[
        "next_cursor"
    ]
    response = await http.get(f"{S_1001}/history?cursor={quote(cursor)}")
    assert_problem(response, 400, "bad-cursor")


@pytest.mark.anyio
async def test_a_records_read_of_an_unknown_kind_is_404(http: httpx.AsyncClient) -> None:
    assert_problem(await http.get(f"{SUPPLY}/kinds/Nowhere/records"), 404, "kind-not-found")


# -- GET /kinds/{kind}/records/{key} ---------------------------------------------------------------


@pytest.mark.anyio
async def test_s_1001_reads_as_the_example_says(
    http: httpx.AsyncClient, revisions: Revisions
) -> None:
    document = await read(http, S_1001)
    assert document["ref"] == "Supplier/S-1001"
    assert document["title"] == "Kavsen Alloys Sp. z o.o."
    assert document["values"] == {
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
    }
    assert document["updated_revision"] == revisions.raised
    assert (document["domain"], document["branch"], document["revision"]) == (
        "supply",
        "main",
        revisions.head,
    )


@pytest.mark.anyio
async def test_p_10028_reads_as_the_example_says(http: httpx.AsyncClient) -> None:
    document = await read(http, f"{SUPPLY}/kinds/Part/records/P-10028")
    assert document["title"] == "Radial shaft seal 25x42x7"
    assert document["values"] == {
        "part_number": "P-10028",
        "name": "Radial shaft seal 25x42x7",
        "category": "seal",
        "unit_cost": "24.01",
        "unit": "piece",
    }


@pytest.mark.anyio
async def test_c_3013_reads_with_its_three_changes_applied(http: httpx.AsyncClient) -> None:
    values = (await read(http, f"{SUPPLY}/kinds/Contract/records/C-3013"))["values"]
    assert (values["status"], values["end_date"], values["value"]) == (
        "active",
        "2028-09-30",
        "240000.00",
    )


def expected_link_counts(kind: str, key: str) -> dict[str, int]:
    """Live Links of a Record per Relation name it reads them by, counted in the data files."""
    counts: dict[str, int] = {}
    for name, relation in schema_document()["relations"].items():
        rows = data_rows(name)
        if relation["from"] == kind:
            counts[name] = sum(row["from"] == key for row in rows)
        if relation["to"] == kind:
            counts[relation["inverse"]] = sum(row["to"] == key for row in rows)
    return counts


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("kind", "key"),
    [
        pytest.param("Supplier", "S-1001", id="S-1001"),
        pytest.param("Supplier", "S-1007", id="S-1007"),
        pytest.param("Part", "P-10028", id="P-10028"),
        pytest.param("Contract", "C-3013", id="C-3013"),
        pytest.param("PurchaseOrder", "PO-200036", id="PO-200036"),
        pytest.param("Plant", "PL-04", id="PL-04"),
    ],
)
async def test_link_counts_match_the_data_files(
    http: httpx.AsyncClient, kind: str, key: str
) -> None:
    document = await read(http, f"{SUPPLY}/kinds/{kind}/records/{key}?links=true")
    assert document["links"] == expected_link_counts(kind, key)


@pytest.mark.anyio
async def test_s_1001_link_counts_are_those_of_the_example(http: httpx.AsyncClient) -> None:
    document = await read(http, f"{S_1001}?links=true")
    assert document["links"] == {
        "risk_flags": 1,
        "supplier_contracts": 1,
        "supplier_orders": 4,
        "supplies": 4,
    }


@pytest.mark.anyio
async def test_a_record_read_has_no_links_or_lineage_unless_asked(
    http: httpx.AsyncClient,
) -> None:
    document = await read(http, S_1001)
    assert "links" not in document
    assert "lineage" not in document


@pytest.mark.anyio
async def test_lineage_true_names_where_each_value_came_from(
    http: httpx.AsyncClient, revisions: Revisions
) -> None:
    lineage = (await read(http, f"{S_1001}?links=true&lineage=true"))["lineage"]
    assert lineage["risk_score"] == {
        "revision": revisions.raised,
        "origin": {"type": "operation", "ref": "update_supplier"},
        "actor": "usr_editor",
        "at": "2026-10-01T08:00:04Z",
        "message": "Raise the risk of S-1001",
    }
    for name in ("supplier_code", "legal_name", "city", "country", "tier", "status"):
        assert lineage[name]["revision"] == revisions.imported
        assert lineage[name]["origin"] == {"type": "import", "ref": "examples/supply"}
        assert lineage[name]["actor"] == "usr_loader"


@pytest.mark.anyio
@pytest.mark.parametrize(
    "path",
    [
        pytest.param("/kinds/Supplier/records/S-9999", id="record"),
        pytest.param("/kinds/Supplier/records/S-9999?links=true", id="record-links"),
        pytest.param("/kinds/Supplier/records/S-9999/links/supplies", id="links"),
        pytest.param("/kinds/Supplier/records/S-9999/history", id="history"),
        pytest.param("/kinds/Supplier/records/S-9999/lineage", id="lineage"),
        pytest.param("/kinds/Supplier/records/S-9999/explain", id="explain"),
        pytest.param("/kinds/Part/records/S-1001", id="key-of-another-kind"),
    ],
)
async def test_an_unknown_key_is_404_record_not_found(http: httpx.AsyncClient, path: str) -> None:
    assert_problem(await http.get(SUPPLY + path), 404, "record-not-found")


# -- GET /kinds/{kind}/records/{key}/links/{relation} ---------------------------------------------


@pytest.mark.anyio
async def test_links_along_a_forward_relation_match_the_data(http: httpx.AsyncClient) -> None:
    document = await read(http, f"{SUPPLY}/kinds/Part/records/P-10028/links/supplied_by")
    expected = sorted(
        (row["to"], row["is_primary"] == "true", row["lead_time_days"])
        for row in data_rows("supplied_by")
        if row["from"] == "P-10028"
    )
    assert (document["direction"], document["target_kind"]) == ("forward", "Supplier")
    assert [
        (
            link["to"].removeprefix("Supplier/"),
            link["values"]["is_primary"],
            link["values"]["lead_time_days"],
        )
        for link in document["links"]
    ] == expected
    assert {link["from"] for link in document["links"]} == {"Part/P-10028"}


@pytest.mark.anyio
async def test_links_along_an_inverse_relation_match_the_data(
    http: httpx.AsyncClient, revisions: Revisions
) -> None:
    document = await read(http, f"{S_1001}/links/supplies")
    assert (document["relation"], document["direction"], document["target_kind"]) == (
        "supplies",
        "inverse",
        "Part",
    )
    assert [link["from"] for link in document["links"]] == [
        "Part/P-10006",
        "Part/P-10026",
        "Part/P-10028",
        "Part/P-10039",
    ]
    [seal] = [link for link in document["links"] if link["from"] == "Part/P-10028"]
    assert seal == {
        "relation": "supplied_by",
        "from": "Part/P-10028",
        "to": "Supplier/S-1001",
        "revision": revisions.imported,
        "values": {"is_primary": True, "lead_time_days": "21"},
    }


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("path", "expected"),
    [
        pytest.param(
            "/kinds/Supplier/records/S-1001/links/supplies",
            ["Part/P-10006", "Part/P-10026", "Part/P-10028", "Part/P-10039"],
            id="inverse",
        ),
        pytest.param(
            "/kinds/Part/records/P-10028/links/supplied_by",
            ["Supplier/S-1001", "Supplier/S-1020", "Supplier/S-1026"],
            id="forward",
        ),
        pytest.param(
            "/kinds/Supplier/records/S-1001/links/supplier_orders",
            [
                "PurchaseOrder/PO-200003",
                "PurchaseOrder/PO-200009",
                "PurchaseOrder/PO-200036",
                "PurchaseOrder/PO-200044",
            ],
            id="orders",
        ),
    ],
)
@pytest.mark.parametrize("limit", [1, 2, 3])
async def test_links_are_paged_without_gaps_or_duplicates(
    http: httpx.AsyncClient, path: str, expected: list[str], limit: int
) -> None:
    parts = path.split("/")
    ref = f"{parts[2]}/{parts[4]}"
    pages = await all_pages(http, f"{SUPPLY}{path}?limit={limit}", "links")
    ends = [link["from"] if link["to"] == ref else link["to"] for page in pages for link in page]
    assert ends == expected
    assert len(pages) == -(-len(expected) // limit)


@pytest.mark.anyio
async def test_a_relation_not_starting_at_the_kind_is_404(http: httpx.AsyncClient) -> None:
    response = await http.get(f"{SUPPLY}/kinds/Part/records/P-10028/links/supplies")
    assert_problem(response, 404, "relation-not-found")


@pytest.mark.anyio
async def test_an_unknown_relation_is_404(http: httpx.AsyncClient) -> None:
    assert_problem(await http.get(f"{S_1001}/links/nowhere"), 404, "relation-not-found")


# -- history ---------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_history_of_s_1001_lists_its_two_changes_newest_first(
    http: httpx.AsyncClient, revisions: Revisions
) -> None:
    document = await read(http, f"{S_1001}/history")
    assert document["ref"] == "Supplier/S-1001"
    assert document["next_cursor"] is None
    raised, created = document["changes"]
    assert raised == {
        "revision": revisions.raised,
        "author": "usr_editor",
        "at": "2026-10-01T08:00:04Z",
        "message": "Raise the risk of S-1001",
        "origin": {"type": "operation", "ref": "update_supplier"},
        "change": "updated",
        "attributes": ["risk_score"],
    }
    assert created["revision"] == revisions.imported
    assert created["change"] == "created"
    assert created["author"] == "usr_loader"
    assert created["message"] == "Import the supply example data"


@pytest.mark.anyio
async def test_history_values_show_before_and_after(http: httpx.AsyncClient) -> None:
    raised, created = (await read(http, f"{S_1001}/history?values=true"))["changes"]
    assert (raised["before"]["risk_score"], raised["after"]["risk_score"]) == ("72", "90")
    assert raised["before"]["legal_name"] == raised["after"]["legal_name"]
    assert created["before"] is None
    assert created["after"]["risk_score"] == "72"


@pytest.mark.anyio
async def test_history_without_values_has_no_before_or_after(http: httpx.AsyncClient) -> None:
    for change in (await read(http, f"{S_1001}/history"))["changes"]:
        assert "before" not in change
        assert "after" not in change


@pytest.mark.anyio
async def test_history_of_c_3013_is_the_answer_of_the_fourth_question(
    http: httpx.AsyncClient,
) -> None:
    changes = (await read(http, f"{SUPPLY}/kinds/Contract/records/C-3013/history?values=true"))[
        "changes"
    ]
    assert [(c["at"], c["author"], c["origin"]["type"], c["message"]) for c in changes] == [
        (
            "2026-10-15T14:05:00Z",
            "usr_editor",
            "operation",
            "Activate C-3013 after countersignature",
        ),
        (
            "2026-10-08T09:30:00Z",
            "usr_editor",
            "operation",
            "Extend C-3013 by one year and raise its value to 240000.00 EUR",
        ),
        ("2026-10-01T08:00:03Z", "usr_loader", "import", "Import the supply example data"),
    ]
    activated, extended, created = changes
    assert activated["attributes"] == ["status"]
    assert (activated["before"]["status"], activated["after"]["status"]) == ("draft", "active")
    assert extended["attributes"] == ["end_date", "value"]
    assert (extended["before"]["value"], extended["after"]["value"]) == ("180000.00", "240000.00")
    assert created["change"] == "created"


@pytest.mark.anyio
@pytest.mark.parametrize("limit", [1, 2])
async def test_history_is_paged_with_next_cursor(http: httpx.AsyncClient, limit: int) -> None:
    path = f"{SUPPLY}/kinds/Contract/records/C-3013/history"
    everything = (await read(http, path))["changes"]
    pages = await all_pages(http, f"{path}?limit={limit}", "changes")
    assert [change for page in pages for change in page] == everything
    assert len(pages) == -(-3 // limit)


@pytest.mark.anyio
async def test_history_at_an_older_revision_ends_there(
    http: httpx.AsyncClient, revisions: Revisions
) -> None:
    document = await read(http, f"{S_1001}/history?at={revisions.imported}")
    assert document["revision"] == revisions.imported
    assert [change["change"] for change in document["changes"]] == ["created"]


@pytest.mark.anyio
async def test_a_deleted_record_keeps_its_history(
    http: httpx.AsyncClient, supply: Store, revisions: Revisions
) -> None:
    flag = f"{SUPPLY}/kinds/RiskFlag/records/RF-S-1001-0001"
    deleted = commit_changes(
        supply, [DeleteRecord("RiskFlag", "RF-S-1001-0001")], message="Close and drop the flag"
    )
    history = await read(http, f"{flag}/history?values=true")
    assert [(c["revision"], c["change"]) for c in history["changes"]] == [
        (deleted.id, "deleted"),
        (revisions.imported, "created"),
    ]
    assert history["changes"][0]["after"] is None
    assert history["changes"][0]["before"]["severity"] == "high"
    assert_problem(await http.get(flag), 404, "record-not-found")
    assert_problem(await http.get(f"{flag}/explain"), 404, "record-not-found")
    counts = (await read(http, f"{S_1001}?links=true"))["links"]
    assert counts["risk_flags"] == 0
    listed = await read(http, f"{SUPPLY}/kinds/RiskFlag/records")
    assert "RF-S-1001-0001" not in [record["key"] for record in listed["records"]]
    before = await read(http, f"{flag}?at={revisions.head}")
    assert before["values"]["severity"] == "high"


# -- lineage and explain --------------------------------------------------------------------------


@pytest.mark.anyio
async def test_lineage_names_the_revision_behind_each_value(
    http: httpx.AsyncClient, revisions: Revisions
) -> None:
    document = await read(http, f"{S_1001}/lineage")
    assert document["changes"] == 2
    assert document["changes_truncated"] is False
    attributes = document["attributes"]
    assert attributes["risk_score"]["revision"] == revisions.raised
    assert attributes["risk_score"]["origin"] == {"type": "operation", "ref": "update_supplier"}
    others = {name for name in attributes if name not in {"risk_score", "risk_band"}}
    assert others == {
        "supplier_code",
        "legal_name",
        "city",
        "country",
        "tier",
        "status",
        "vat_number",
        "contact_email",
    }
    assert {attributes[name]["revision"] for name in others} == {revisions.imported}
    assert {attributes[name]["message"] for name in others} == {"Import the supply example data"}


@pytest.mark.anyio
async def test_lineage_at_the_import_names_the_import_only(
    http: httpx.AsyncClient, revisions: Revisions
) -> None:
    document = await read(http, f"{S_1001}/lineage?at={revisions.imported[:12]}")
    assert document["revision"] == revisions.imported
    assert document["changes"] == 1
    assert {entry["revision"] for entry in document["attributes"].values()} == {revisions.imported}


@pytest.mark.anyio
async def test_explain_names_the_creating_revision_and_the_provenance(
    http: httpx.AsyncClient, revisions: Revisions
) -> None:
    document = await read(http, f"{S_1001}/explain")
    assert document["ref"] == "Supplier/S-1001"
    assert document["title"] == "Kavsen Alloys Sp. z o.o."
    assert document["changes"] == 2
    assert document["created"] == {
        "revision": revisions.imported,
        "at": "2026-10-01T08:00:03Z",
        "author": "usr_loader",
        "origin": {"type": "import", "ref": "examples/supply"},
        "message": "Import the supply example data",
    }
    attributes = {entry["name"]: entry for entry in document["attributes"]}
    assert attributes["risk_score"]["value"] == "90"
    assert attributes["risk_score"]["revision"] == revisions.raised
    assert attributes["risk_score"]["actor"] == "usr_editor"
    assert attributes["city"]["value"] == "Poznan"
    assert attributes["city"]["revision"] == revisions.imported


@pytest.mark.anyio
async def test_explain_lists_the_links_of_the_record(
    http: httpx.AsyncClient, revisions: Revisions
) -> None:
    links = (await read(http, f"{S_1001}/explain"))["links"]
    found = {(link["relation"], link["direction"], link["ref"]) for link in links}
    assert ("supplies", "inverse", "Part/P-10028") in found
    assert ("supplier_contracts", "inverse", "Contract/C-3001") in found
    assert ("risk_flags", "inverse", "RiskFlag/RF-S-1001-0001") in found
    assert len(links) == sum(expected_link_counts("Supplier", "S-1001").values())
    assert {link["revision"] for link in links} == {revisions.imported}


@pytest.mark.anyio
async def test_explain_markdown_has_the_layout_of_agents_md(
    http: httpx.AsyncClient, revisions: Revisions
) -> None:
    response = await http.get(f"{S_1001}/explain?format=markdown")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/markdown")
    lines = response.text.splitlines()
    assert lines[:9] == [
        "# Explain: Supplier/S-1001: Kavsen Alloys Sp. z o.o.",
        f"supply/main at revision {revisions.head}; 2 changes on this branch",
        "",
        "## Created",
        f"In {revisions.imported[:12]} at 2026-10-01T08:00:03Z by usr_loader "
        "(import examples/supply): Import the supply example data",
        "",
        "## Attributes",
        "| attribute | value | last change | at | by | origin | message |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    assert (
        f"| risk_score | 90 | {revisions.raised[:12]} | 2026-10-01T08:00:04Z | usr_editor "
        "| operation | Raise the risk of S-1001 |"
    ) in lines


@pytest.mark.anyio
async def test_explain_markdown_of_a_record_with_one_change_says_change(
    http: httpx.AsyncClient,
) -> None:
    response = await http.get(f"{SUPPLY}/kinds/Part/records/P-10028/explain?format=markdown")
    assert response.text.splitlines()[1].endswith("; 1 change on this branch")


def table_rows(markdown: str, heading: str) -> list[str]:
    """The lines of the table under a `## heading`, header and rule included."""
    lines = markdown.splitlines()
    start = lines.index(f"## {heading}") + 1
    rows: list[str] = []
    for line in lines[start:]:
        if not line:
            break
        rows.append(line)
    return rows


def cells(row: str) -> list[str]:
    """The cells of a Markdown table row, split on pipes that are not escaped."""
    assert row.startswith("| "), row
    assert row.endswith(" |"), row
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", row[1:-1])]


@pytest.mark.anyio
async def test_pipes_and_line_breaks_do_not_break_the_markdown_table(
    http: httpx.AsyncClient, supply: Store
) -> None:
    flag = "RF-S-1001-0002"
    commit_changes(
        supply,
        [
            UpsertRecord(
                "RiskFlag",
                flag,
                {"severity": "low", "reason": "Late | again\nand again", "status": "open"},
            ),
            UpsertLink("flags", flag, "S-1001"),
        ],
        message="Flag | S-1001\nsecond line",
    )
    response = await http.get(f"{SUPPLY}/kinds/RiskFlag/records/{flag}/explain?format=markdown")
    assert response.status_code == 200
    lines = response.text.splitlines()
    assert lines[0] == f"# Explain: RiskFlag/{flag}: {flag}"
    assert lines[3:5] == ["## Created", lines[4]]
    assert lines[4].endswith(": Flag | S-1001 second line")
    rows = table_rows(response.text, "Attributes")
    assert len(rows) == 2 + 4  # header, rule, and flag_id, severity, reason, status
    assert all(len(cells(row)) == 7 for row in rows)
    [reason] = [row for row in rows if row.startswith("| reason |")]
    assert cells(reason)[1] == r"Late \| again and again"
    assert cells(reason)[6] == r"Flag \| S-1001 second line"


@pytest.mark.anyio
async def test_a_title_with_a_pipe_stays_on_the_header_line(
    http: httpx.AsyncClient, supply: Store
) -> None:
    commit_changes(
        supply,
        [UpsertRecord("Supplier", "S-1002", {"legal_name": "Hollmann | Praezision GmbH"})],
        message="Rename\nS-1002",
    )
    response = await http.get(f"{SUPPLY}/kinds/Supplier/records/S-1002/explain?format=markdown")
    lines = response.text.splitlines()
    assert lines[0] == "# Explain: Supplier/S-1002: Hollmann | Praezision GmbH"
    assert lines[1].startswith("supply/main at revision ")
    [legal_name] = [row for row in table_rows(response.text, "Attributes") if "legal_name" in row]
    assert cells(legal_name)[1] == r"Hollmann \| Praezision GmbH"
    assert cells(legal_name)[6] == "Rename S-1002"


# -- GET /diff -------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_diff_from_the_first_to_the_last_revision_lists_every_change(
    http: httpx.AsyncClient, revisions: Revisions
) -> None:
    document = await read(http, f"{SUPPLY}/diff?from={revisions.imported}&to={revisions.head}")
    assert (document["from"], document["to"], document["revision"]) == (
        revisions.imported,
        revisions.head,
        revisions.head,
    )
    entries = {entry["ref"]: entry for entry in document["records"]}
    assert set(entries) == {"Supplier/S-1001", "Contract/C-3013"}
    supplier = entries["Supplier/S-1001"]
    assert "risk_score" in supplier["attributes"]
    assert (supplier["before"]["risk_score"], supplier["after"]["risk_score"]) == ("72", "90")
    assert entries["Contract/C-3013"]["attributes"] == ["end_date", "status", "value"]
    assert document["links"] == []


@pytest.mark.anyio
async def test_diff_lists_links_made_and_removed_both_ways(
    http: httpx.AsyncClient, supply: Store, revisions: Revisions
) -> None:
    made = commit_changes(
        supply,
        [
            UpsertLink("supplied_by", "P-10001", "S-1001", {"is_primary": False}),
            DeleteLink("stocked_at", "P-10028", "PL-04"),
        ],
        message="Add a supplier, stop stocking a seal",
    )
    forward = await read(http, f"{SUPPLY}/diff?from={revisions.head}&to={made.id}")
    assert forward["records"] == []
    assert [(entry["ref"], entry["change"]) for entry in forward["links"]] == [
        ("stocked_at:P-10028->PL-04", "deleted"),
        ("supplied_by:P-10001->S-1001", "created"),
    ]
    backward = await read(http, f"{SUPPLY}/diff?from={made.id}&to={revisions.head}")
    assert [(entry["ref"], entry["change"]) for entry in backward["links"]] == [
        ("stocked_at:P-10028->PL-04", "created"),
        ("supplied_by:P-10001->S-1001", "deleted"),
    ]
    assert backward["revision"] == revisions.head


@pytest.mark.anyio
async def test_diff_of_one_revision_with_itself_is_empty(
    http: httpx.AsyncClient, revisions: Revisions
) -> None:
    document = await read(http, f"{SUPPLY}/diff?from={revisions.head}&to={revisions.head}")
    assert (document["records"], document["links"]) == ([], [])


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("start", "end"),
    [
        pytest.param("imported[:12]", "head[:12]", id="prefixes"),
        pytest.param("imported[:4]", "head", id="short-prefix"),
        pytest.param("tag", "head[:12]", id="tag"),
    ],
)
async def test_diff_takes_unique_prefixes_and_tags(
    http: httpx.AsyncClient, supply: Store, revisions: Revisions, start: str, end: str
) -> None:
    supply.create_tag("supply", "v2026.10-import", revisions.imported, created_by="usr_tester")
    named = {
        "imported[:12]": revisions.imported[:12],
        "imported[:4]": revisions.imported[:4],
        "head[:12]": revisions.head[:12],
        "head": revisions.head,
        "tag": "v2026.10-import",
    }
    response = await http.get(f"{SUPPLY}/diff?from={named[start]}&to={named[end]}")
    assert response.status_code == 200, response.text
    document = response.json()
    assert (document["from"], document["to"]) == (revisions.imported, revisions.head)
    assert response.headers["Lorebase-Revision"] == revisions.head
    assert {entry["ref"] for entry in document["records"]} == {
        "Supplier/S-1001",
        "Contract/C-3013",
    }


@pytest.mark.anyio
@pytest.mark.parametrize(
    "query",
    [
        pytest.param("from={unknown}&to={head}", id="unknown-from"),
        pytest.param("from={head}&to={unknown}", id="unknown-to"),
        pytest.param("from=no-such-tag&to={head}", id="unknown-tag"),
    ],
)
async def test_diff_of_an_unknown_revision_is_404(
    http: httpx.AsyncClient, revisions: Revisions, query: str
) -> None:
    path = f"{SUPPLY}/diff?" + query.format(unknown="0" * 64, head=revisions.head)
    assert_problem(await http.get(path), 404, "revision-not-found")


# -- branches --------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_branches_list_names_main_with_its_head(
    http: httpx.AsyncClient, revisions: Revisions
) -> None:
    document = await read(http, f"{SUPPLY}/branches")
    [main] = document["branches"]
    assert (main["name"], main["head"], main["protected"]) == ("main", revisions.head, True)


@pytest.mark.anyio
async def test_a_branch_read_names_its_head(http: httpx.AsyncClient, revisions: Revisions) -> None:
    response = await http.get(f"{SUPPLY}/branches/main")
    assert response.status_code == 200
    assert response.json()["name"] == "main"
    assert response.json()["head"] == revisions.head
    assert response.headers["Lorebase-Revision"] == revisions.head


@pytest.mark.anyio
async def test_a_new_branch_is_an_overlay_at_the_head_by_default(
    http: httpx.AsyncClient, revisions: Revisions
) -> None:
    response = await http.post(f"{SUPPLY}/branches", json={"name": "feature-a"})
    assert response.status_code == 201, response.text
    document = response.json()
    assert (document["name"], document["mode"], document["head"]) == (
        "feature-a",
        "overlay",
        revisions.head,
    )
    assert (document["base_branch"], document["base_revision"]) == ("main", revisions.head)
    assert document["created_by"] == "usr_admin"
    assert response.headers["Lorebase-Revision"] == revisions.head
    listed = await read(http, f"{SUPPLY}/branches")
    assert [branch["name"] for branch in listed["branches"]] == ["feature-a", "main"]


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["overlay", "copy"])
async def test_a_new_branch_reads_like_its_source(
    http: httpx.AsyncClient, revisions: Revisions, mode: str
) -> None:
    created = await http.post(f"{SUPPLY}/branches", json={"name": f"work-{mode}", "mode": mode})
    assert created.json()["mode"] == mode
    on_branch = await read(http, f"{S_1001}?branch=work-{mode}&links=true")
    on_main = await read(http, f"{S_1001}?links=true")
    assert on_branch["branch"] == f"work-{mode}"
    assert on_branch["revision"] == revisions.head
    assert (on_branch["values"], on_branch["links"]) == (on_main["values"], on_main["links"])
    listed = await read(http, f"{SUPPLY}/kinds/Supplier/records?branch=work-{mode}")
    assert [record["key"] for record in listed["records"]] == supplier_keys()


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["overlay", "copy"])
@pytest.mark.parametrize(
    "path",
    [
        pytest.param("/kinds/Supplier/records/S-1001?links=true&lineage=true", id="record"),
        pytest.param("/kinds/Supplier/records/S-1001/links/supplies", id="links"),
        pytest.param("/kinds/Supplier/records/S-1001/history?values=true", id="history"),
        pytest.param("/kinds/Supplier/records/S-1001/lineage", id="lineage"),
        pytest.param("/kinds/Supplier/records/S-1001/explain", id="explain"),
    ],
)
async def test_a_branch_that_changed_other_records_reads_this_one_like_main(
    http: httpx.AsyncClient, supply: Store, mode: str, path: str
) -> None:
    await http.post(f"{SUPPLY}/branches", json={"name": "side", "mode": mode})
    commit_changes(supply, [UpsertRecord("Supplier", "S-1002", {"tier": 3})], branch="side")
    on_main = await read(http, SUPPLY + path)
    on_branch = await read(http, f"{SUPPLY}{path}{'&' if '?' in path else '?'}branch=side")
    assert on_branch.pop("branch") == "side"
    assert on_branch.pop("revision") != on_main.pop("revision")
    on_main.pop("branch")
    assert on_branch == on_main


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["overlay", "copy"])
async def test_a_branch_at_an_older_revision_reads_as_of_it(
    http: httpx.AsyncClient, revisions: Revisions, mode: str
) -> None:
    response = await http.post(
        f"{SUPPLY}/branches",
        json={"name": "before-raise", "at": revisions.imported[:12], "mode": mode},
    )
    assert response.status_code == 201, response.text
    assert response.json()["head"] == revisions.imported
    record = await read(http, f"{S_1001}?branch=before-raise")
    assert (record["revision"], record["values"]["risk_score"]) == (revisions.imported, "72")
    contract = await read(http, f"{SUPPLY}/kinds/Contract/records/C-3013?branch=before-raise")
    assert contract["values"]["status"] == "draft"
    history = await read(http, f"{S_1001}/history?branch=before-raise")
    assert [change["change"] for change in history["changes"]] == ["created"]


@pytest.mark.anyio
async def test_a_commit_on_a_branch_leaves_main_as_it_was(
    http: httpx.AsyncClient, supply: Store, revisions: Revisions
) -> None:
    await http.post(f"{SUPPLY}/branches", json={"name": "what-if"})
    made = commit_changes(
        supply,
        [UpsertRecord("Supplier", "S-1001", {"risk_score": 40})],
        branch="what-if",
        message="Lower the risk on a branch",
    )
    on_branch = await read(http, f"{S_1001}?branch=what-if")
    on_main = await read(http, S_1001)
    assert (on_branch["revision"], on_branch["values"]["risk_score"]) == (made.id, "40")
    assert (on_main["revision"], on_main["values"]["risk_score"]) == (revisions.head, "90")
    history = await read(http, f"{S_1001}/history?branch=what-if")
    assert [change["message"] for change in history["changes"]] == [
        "Lower the risk on a branch",
        "Raise the risk of S-1001",
        "Import the supply example data",
    ]


@pytest.mark.anyio
async def test_a_branch_from_another_branch_starts_at_its_head(
    http: httpx.AsyncClient, supply: Store
) -> None:
    await http.post(f"{SUPPLY}/branches", json={"name": "first"})
    made = commit_changes(supply, [UpsertRecord("Supplier", "S-1002", {"tier": 2})], branch="first")
    response = await http.post(f"{SUPPLY}/branches", json={"name": "second", "from": "first"})
    assert (response.json()["head"], response.json()["base_branch"]) == (made.id, "first")
    record = await read(http, f"{SUPPLY}/kinds/Supplier/records/S-1002?branch=second")
    assert record["values"]["tier"] == "2"


@pytest.mark.anyio
async def test_a_branch_name_with_slashes_reads_percent_encoded(http: httpx.AsyncClient) -> None:
    name = "feature/changes"
    assert (await http.post(f"{SUPPLY}/branches", json={"name": name})).status_code == 201
    response = await http.get(f"{SUPPLY}/branches/{quote(name, safe='')}")
    assert response.status_code == 200, response.text
    assert response.json()["name"] == name
    record = await read(http, f"{S_1001}?branch={quote(name, safe='')}")
    assert record["branch"] == name


@pytest.mark.anyio
async def test_a_duplicate_branch_is_409(http: httpx.AsyncClient) -> None:
    assert (await http.post(f"{SUPPLY}/branches", json={"name": "twice"})).status_code == 201
    response = await http.post(f"{SUPPLY}/branches", json={"name": "twice"})
    assert_problem(response, 409, "already-exists")
    assert_problem(
        await http.post(f"{SUPPLY}/branches", json={"name": "main"}), 409, "already-exists"
    )


@pytest.mark.anyio
@pytest.mark.parametrize(
    "name",
    [
        pytest.param("bad name", id="space"),
        pytest.param("a/../b", id="dot-dot"),
        pytest.param("a//b", id="empty-segment"),
        pytest.param("trailing/", id="trailing-slash"),
        pytest.param("", id="empty"),
        pytest.param("-leading-dash", id="leading-dash"),
        pytest.param("x" * 300, id="too-long"),
        pytest.param("tab\there", id="control"),
    ],
)
async def test_a_bad_branch_name_is_400(http: httpx.AsyncClient, name: str) -> None:
    response = await http.post(f"{SUPPLY}/branches", json={"name": name})
    assert_problem(response, 400, "bad-request")


@pytest.mark.anyio
async def test_an_unknown_source_branch_is_404(http: httpx.AsyncClient) -> None:
    response = await http.post(f"{SUPPLY}/branches", json={"name": "new", "from": "nowhere"})
    assert_problem(response, 404, "branch-not-found")


@pytest.mark.anyio
async def test_an_unknown_start_revision_is_404(http: httpx.AsyncClient) -> None:
    response = await http.post(f"{SUPPLY}/branches", json={"name": "new", "at": "0" * 64})
    assert_problem(response, 404, "revision-not-found")


@pytest.mark.anyio
@pytest.mark.parametrize(
    "path",
    [
        pytest.param("/branches/nowhere", id="branch"),
        pytest.param("/kinds/Supplier/records?branch=nowhere", id="records"),
        pytest.param("/kinds/Supplier/records/S-1001?branch=nowhere", id="record"),
        pytest.param("/schema?branch=nowhere", id="schema"),
    ],
)
async def test_an_unknown_branch_is_404(http: httpx.AsyncClient, path: str) -> None:
    assert_problem(await http.get(SUPPLY + path), 404, "branch-not-found")


# -- at: full ids, prefixes and tags --------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize(
    "form",
    [
        pytest.param("full", id="full-id"),
        pytest.param("prefix", id="12-digit-prefix"),
        pytest.param("tag", id="tag"),
    ],
)
@pytest.mark.parametrize(
    "path",
    [
        pytest.param("/kinds/Supplier/records/S-1001", id="record"),
        pytest.param("/kinds/Supplier/records?limit=1", id="records"),
        pytest.param("/kinds/Supplier/records/S-1001/lineage", id="lineage"),
        pytest.param("/kinds/Supplier/records/S-1001/explain", id="explain"),
        pytest.param("/schema", id="schema"),
    ],
)
async def test_at_names_the_resolved_full_revision(
    http: httpx.AsyncClient, supply: Store, revisions: Revisions, form: str, path: str
) -> None:
    supply.create_tag("supply", "imported", revisions.imported, created_by="usr_tester")
    at = {"full": revisions.imported, "prefix": revisions.imported[:12], "tag": "imported"}[form]
    separator = "&" if "?" in path else "?"
    response = await http.get(f"{SUPPLY}{path}{separator}at={at}")
    assert response.status_code == 200, response.text
    assert response.json()["revision"] == revisions.imported
    assert response.headers["Lorebase-Revision"] == revisions.imported


@pytest.mark.anyio
async def test_at_reads_the_values_of_that_revision(
    http: httpx.AsyncClient, revisions: Revisions
) -> None:
    before = await read(http, f"{S_1001}?at={revisions.imported[:12]}")
    after = await read(http, f"{S_1001}?at={revisions.raised[:12]}")
    assert (before["values"]["risk_score"], after["values"]["risk_score"]) == ("72", "90")
    assert before["updated_revision"] == revisions.imported


def colliding_revisions(store: Store) -> str:
    """Commit until two Revisions of the Domain share their first 4 hex digits; that prefix."""
    store.create_branch("supply", "prefix-probe", created_by="usr_tester")
    seen = {revision.id[:4] for revision in store.log("supply")}
    for attempt in range(5000):
        made = commit_changes(
            store,
            [UpsertRecord("Supplier", "S-1002", {"risk_score": attempt % 100})],
            branch="prefix-probe",
            message=f"probe {attempt}",
            created_at="2026-11-01T00:00:00Z",
        )
        if made.id[:4] in seen:
            return made.id[:4]
        seen.add(made.id[:4])
    raise AssertionError("no two Revisions shared a 4-digit prefix in 5000 commits")


@pytest.mark.anyio
async def test_an_ambiguous_prefix_is_409(http: httpx.AsyncClient, supply: Store) -> None:
    prefix = colliding_revisions(supply)
    response = await http.get(f"{S_1001}?branch=prefix-probe&at={prefix}")
    assert_problem(response, 409, "ambiguous-revision")
    diff = await http.get(f"{SUPPLY}/diff?from={prefix}&to={prefix}")
    assert_problem(diff, 409, "ambiguous-revision")


def unused_prefix(revisions: Revisions) -> str:
    ids = (revisions.imported, revisions.raised, revisions.extended, revisions.head)
    for digit in "0123456789abcdef":
        if not any(revision.startswith(digit * 12) for revision in ids):
            return digit * 12
    raise AssertionError("unreachable")  # pragma: no cover - four ids cannot start 16 ways


@pytest.mark.anyio
@pytest.mark.parametrize(
    "at",
    [
        pytest.param("prefix", id="unknown-prefix"),
        pytest.param("no-such-tag", id="unknown-tag"),
        pytest.param("0" * 64, id="unknown-full-id"),
    ],
)
async def test_an_unknown_revision_is_404(
    http: httpx.AsyncClient, revisions: Revisions, at: str
) -> None:
    text = unused_prefix(revisions) if at == "prefix" else at
    assert_problem(await http.get(f"{S_1001}?at={text}"), 404, "revision-not-found")


@pytest.mark.anyio
async def test_at_a_revision_not_on_the_branch_is_404(
    http: httpx.AsyncClient, supply: Store
) -> None:
    await http.post(f"{SUPPLY}/branches", json={"name": "elsewhere"})
    made = commit_changes(
        supply, [UpsertRecord("Supplier", "S-1001", {"tier": 2})], branch="elsewhere"
    )
    for at in (made.id, made.id[:12]):
        response = await http.get(f"{S_1001}?at={at}")
        document = assert_problem(response, 404, "revision-not-on-branch")
        assert (document["revision"], document["branch"]) == (made.id, "main")
    on_branch = await read(http, f"{S_1001}?branch=elsewhere&at={made.id[:12]}")
    assert on_branch["values"]["tier"] == "2"


@pytest.mark.anyio
async def test_a_branch_reads_at_a_revision_of_its_base(
    http: httpx.AsyncClient, revisions: Revisions
) -> None:
    await http.post(f"{SUPPLY}/branches", json={"name": "later"})
    record = await read(http, f"{S_1001}?branch=later&at={revisions.imported}")
    assert (record["branch"], record["revision"]) == ("later", revisions.imported)
    assert record["values"]["risk_score"] == "72"


# -- tags ------------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_tags_list_and_get_name_their_revisions(
    http: httpx.AsyncClient, supply: Store, revisions: Revisions
) -> None:
    supply.create_tag("supply", "v1", revisions.imported, created_by="usr_tester")
    supply.create_tag("supply", "release/2026.10", revisions.head, created_by="usr_tester")
    listed = await read(http, f"{SUPPLY}/tags")
    assert listed["tags"] == [
        {"name": "release/2026.10", "revision": revisions.head},
        {"name": "v1", "revision": revisions.imported},
    ]
    response = await http.get(f"{SUPPLY}/tags/v1")
    document = response.json()
    assert (document["name"], document["id"], document["message"]) == (
        "v1",
        revisions.imported,
        "Import the supply example data",
    )
    assert response.headers["Lorebase-Revision"] == revisions.imported
    encoded = await read(http, f"{SUPPLY}/tags/{quote('release/2026.10', safe='')}")
    assert encoded["id"] == revisions.head


@pytest.mark.anyio
async def test_no_tags_is_an_empty_list(http: httpx.AsyncClient) -> None:
    assert (await read(http, f"{SUPPLY}/tags"))["tags"] == []


@pytest.mark.anyio
async def test_an_unknown_tag_is_404(http: httpx.AsyncClient) -> None:
    assert_problem(await http.get(f"{SUPPLY}/tags/nowhere"), 404, "tag-not-found")


# -- unknown Domain --------------------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize(
    "path",
    [
        pytest.param("/schema", id="schema"),
        pytest.param("/kinds/Supplier/records", id="records"),
        pytest.param("/kinds/Supplier/records/S-1001", id="record"),
        pytest.param("/kinds/Supplier/records/S-1001/history", id="history"),
        pytest.param("/kinds/Supplier/records/S-1001/explain", id="explain"),
        pytest.param("/diff?from=a&to=b", id="diff"),
        pytest.param("/branches", id="branches"),
        pytest.param("/branches/main", id="branch"),
        pytest.param("/tags", id="tags"),
    ],
)
async def test_an_unknown_domain_is_404(http: httpx.AsyncClient, path: str) -> None:
    assert_problem(await http.get(f"/api/v1/domains/nowhere{path}"), 404, "domain-not-found")


@pytest.mark.anyio
async def test_creating_a_branch_in_an_unknown_domain_is_404(http: httpx.AsyncClient) -> None:
    response = await http.post("/api/v1/domains/nowhere/branches", json={"name": "x"})
    assert_problem(response, 404, "domain-not-found")


@pytest.mark.anyio
async def test_history_pages_stay_at_the_revision_of_the_first_page(
    http: httpx.AsyncClient, supply: Store
) -> None:
    path = "/api/v1/domains/supply/kinds/Contract/records/C-3013/history"
    first = (await http.get(path, params={"limit": 1})).json()
    # the branch moves on between two pages: a new change of C-3013 would shift every position
    commit_changes(supply, [UpsertRecord("Contract", "C-3013", {"title": "C-3013, amended again"})])
    seen = [change["revision"] for change in first["changes"]]
    cursor = first["next_cursor"]
    while cursor is not None:
        page = await http.get(path, params={"limit": 1, "cursor": cursor})
        assert page.status_code == 200, page.text
        assert page.json()["revision"] == first["revision"]
        seen += [change["revision"] for change in page.json()["changes"]]
        cursor = page.json()["next_cursor"]
    assert len(seen) == len(set(seen)) == 3
    latest = (await http.get(path)).json()
    assert len(latest["changes"]) == 4
    assert latest["revision"] != first["revision"]
