"""The supply example answers the five questions its schema declares, each with one answer."""

from __future__ import annotations

from lorebase_store.store import Store
from lorebase_store.testing import read_history, read_links, read_record, read_records


def test_schema_declares_the_five_questions(supply: Store) -> None:
    schema = supply.schema("supply")
    assert len(schema.domain.examples) == 5
    assert (
        schema.kinds["Supplier"].description
        == "A company that supplies parts to Corvane Industries."
    )
    assert schema.lenses["supplier_risk"].relations == ("with_supplier", "supplied_by", "flags")
    assert schema.operations["flag_supplier_risk"].side_effects == ("risk_flag_raised",)


def test_parts_with_a_single_supplier(supply: Store) -> None:
    single = [
        part.key
        for part in read_records(supply, "supply", "Part", limit=1000)
        if len(read_links(supply, "supply", "supplied_by", from_key=part.key)) == 1
    ]
    assert single == ["P-10007", "P-10019", "P-10033"]


def test_tier_one_suppliers_at_high_risk_with_open_orders(supply: Store) -> None:
    found = []
    for supplier in read_records(supply, "supply", "Supplier", limit=1000):
        values = supplier.values
        if values["tier"] != "1" or int(str(values["risk_score"])) < 70:
            continue
        orders = read_links(supply, "supply", "ordered_from", to_key=supplier.key)
        statuses = {
            record.values["status"]
            for link in orders
            if (record := read_record(supply, "supply", "PurchaseOrder", link.from_key)) is not None
        }
        if "open" in statuses:
            found.append(supplier.key)
    assert found == ["S-1001", "S-1012"]


def test_what_depends_on_s_1007(supply: Store) -> None:
    parts = [link.from_key for link in read_links(supply, "supply", "supplied_by", to_key="S-1007")]
    sole = [
        key for key in parts if len(read_links(supply, "supply", "supplied_by", from_key=key)) == 1
    ]
    contracts = [
        link.from_key for link in read_links(supply, "supply", "with_supplier", to_key="S-1007")
    ]
    assert sole == ["P-10007", "P-10019"]
    assert "P-10021" in parts
    assert contracts == ["C-3007"]


def test_contract_c_3013_has_several_changes(supply: Store) -> None:
    entries = read_history(supply, "supply", "Contract", "C-3013").entries
    assert [entry.change for entry in entries] == ["updated", "updated", "created"]
    assert entries[0].attributes == ["status"]
    assert entries[1].attributes == ["end_date", "value"]


def test_parts_named_bearing(supply: Store) -> None:
    bearings = [
        part.key
        for part in read_records(supply, "supply", "Part", limit=1000)
        if "bearing" in str(part.values["name"]).lower()
    ]
    assert bearings == ["P-10004", "P-10012", "P-10023", "P-10036"]


def test_quoted_values_match_the_documents(supply: Store) -> None:
    part = read_record(supply, "supply", "Part", "P-10028")
    contract = read_record(supply, "supply", "Contract", "C-3001")
    assert part is not None
    assert contract is not None
    assert (part.values["name"], part.values["category"], part.values["unit_cost"]) == (
        "Radial shaft seal 25x42x7",
        "seal",
        "24.01",
    )
    link = read_links(supply, "supply", "supplied_by", from_key="P-10028", to_key="S-1001")
    assert [item.values for item in link] == [{"is_primary": True, "lead_time_days": "21"}]
    assert contract.values["title"] == "Framework supply agreement 2023 - Kavsen Alloys Sp. z o.o."
    assert (contract.values["status"], contract.values["currency"]) == ("active", "PLN")
