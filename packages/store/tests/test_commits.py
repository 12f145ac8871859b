"""Commits: patches, derived values, validation, heads, uniqueness, cardinality, deletes, ids."""

from __future__ import annotations

import csv
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from lorebase_core.changes import (
    Change,
    DeleteLink,
    DeleteRecord,
    UpsertLink,
    UpsertRecord,
)
from lorebase_core.errors import StaleHead, ValuesInvalid
from lorebase_core.schema import load_schema
from lorebase_store import tables as t
from lorebase_store.importer import import_directory
from lorebase_store.store import Store
from lorebase_store.testing import change_request as request
from lorebase_store.testing import commit_changes as commit
from lorebase_store.testing import read_count, read_history, read_links, read_record

SUPPLY = Path(__file__).parents[3] / "examples" / "supply"
DOMAIN = "supply"
RELATIONS_OF_SUPPLIER = ("supplied_by", "with_supplier", "ordered_from", "flags")


def head(store: Store, branch: str = "main") -> str | None:
    return store.branch(DOMAIN, branch).head_revision


def row_counts(store: Store) -> dict[str, int]:
    with store.engine.connect() as connection:
        return {
            table.name: connection.execute(
                sa.select(sa.func.count()).select_from(table)
            ).scalar_one()
            for table in (t.revisions, t.records, t.links, t.events, t.branches)
        }


def values_of(store: Store, kind: str, key: str) -> dict[str, Any]:
    record = read_record(store, DOMAIN, kind, key)
    assert record is not None, f"{kind} {key} should exist"
    return dict(record.values)


# -- patch semantics and derived Attributes ------------------------------------------------------


def test_upsert_changes_only_the_given_attributes_and_none_clears(supply: Store) -> None:
    before = values_of(supply, "Supplier", "S-1002")
    assert (before["risk_score"], before["risk_band"], before["city"]) == (
        "34",
        "normal",
        "Stuttgart",
    )
    commit(supply, [UpsertRecord("Supplier", "S-1002", {"risk_score": 80, "city": None})])
    after = values_of(supply, "Supplier", "S-1002")
    assert after["risk_score"] == "80"
    assert "city" not in after
    # the derived band follows the new score; every other Attribute is untouched
    assert after["risk_band"] == "high"
    untouched = {
        name: value
        for name, value in before.items()
        if name not in {"risk_score", "city", "risk_band"}
    }
    assert {name: after[name] for name in untouched} == untouched


def test_replace_makes_the_given_values_the_whole_record(supply: Store) -> None:
    commit(supply, [UpsertRecord("Part", "P-10002", {"name": "Flange nut M10"}, replace=True)])
    assert values_of(supply, "Part", "P-10002") == {
        "part_number": "P-10002",
        "name": "Flange nut M10",
    }


@pytest.mark.parametrize(
    ("risk_score", "band"),
    [
        pytest.param(70, "high", id="at-threshold"),
        pytest.param(95, "high", id="above"),
        pytest.param(69, "normal", id="below"),
        pytest.param(0, "normal", id="zero"),
    ],
)
def test_derived_attributes_are_computed_at_commit(
    supply: Store, risk_score: int, band: str
) -> None:
    commit(
        supply,
        [
            UpsertRecord(
                "Supplier", "S-1031", {"legal_name": "Nordic Springs AB", "risk_score": risk_score}
            )
        ],
    )
    assert values_of(supply, "Supplier", "S-1031")["risk_band"] == band


@pytest.mark.parametrize(
    "written",
    [pytest.param("high", id="same-value"), pytest.param("normal", id="other-value")],
)
def test_derived_attributes_cannot_be_written(supply: Store, written: str) -> None:
    before = head(supply)
    with pytest.raises(ValuesInvalid) as raised:
        supply.commit(
            request(), [UpsertRecord("Supplier", "S-1001", {"risk_band": written}, source="c1")]
        )
    assert [(issue.path, issue.code) for issue in raised.value.issues] == [
        ("c1 risk_band", "attribute.derived")
    ]
    assert head(supply) == before


# -- commits that change nothing -----------------------------------------------------------------


@pytest.mark.parametrize(
    "changes",
    [
        pytest.param([], id="no-changes"),
        pytest.param([UpsertRecord("Supplier", "S-1001", {"risk_score": 90})], id="same-value"),
        pytest.param(
            [UpsertRecord("Supplier", "S-1001", {"risk_score": "90"}, from_text=True)],
            id="same-value-as-text",
        ),
        pytest.param(
            [UpsertRecord("Supplier", "S-1001", {"city": "Poznan", "country": "PL"})],
            id="same-values",
        ),
        pytest.param([UpsertLink("with_supplier", "C-3001", "S-1001")], id="existing-link"),
    ],
)
def test_a_commit_that_changes_nothing_makes_no_revision_and_no_event(
    supply: Store, changes: list[Change]
) -> None:
    before_head, before_rows = head(supply), row_counts(supply)
    result = supply.commit(request(), changes)
    assert result.revision is None
    assert result.changes == 0
    assert result.event_sequence is None
    assert head(supply) == before_head
    assert row_counts(supply) == before_rows
    assert len(supply.events(DOMAIN)) == 4


# -- validation ----------------------------------------------------------------------------------


def test_invalid_changes_list_every_issue_and_leave_nothing_behind(supply: Store) -> None:
    before_head, before_rows = head(supply), row_counts(supply)
    s1003 = values_of(supply, "Supplier", "S-1003")
    changes: list[Change] = [
        UpsertRecord("Supplier", "S-1003", {"city": "Rouen"}, source="ok"),  # valid on its own
        UpsertRecord(
            "Supplier", "S-1002", {"risk_score": 200, "country": "pl", "colour": "red"}, source="c1"
        ),
        UpsertRecord("Warehouse", "W-1", {"name": "North"}, source="c2"),
        UpsertRecord("Supplier", "S-1004", {"legal_name": None}, source="c3"),
        UpsertLink("supplied_by", "P-10001", "S-9999", source="c4"),
        UpsertRecord("Part", "P-10001", {"unit_cost": "cheap"}, source="c5"),
    ]
    with pytest.raises(ValuesInvalid) as raised:
        supply.commit(request(), changes)
    found = {(issue.path, issue.code) for issue in raised.value.issues}
    assert found == {
        ("c1 risk_score", "value.invalid"),
        ("c1 country", "value.invalid"),
        ("c1 colour", "attribute.unknown"),
        ("c2", "kind.unknown"),
        ("c3 legal_name", "value.required"),
        ("c4 to", "link.endpoint"),
        ("c5 unit_cost", "value.invalid"),
    }
    assert raised.value.to_problem()["code"] == "values-invalid"
    assert head(supply) == before_head
    assert row_counts(supply) == before_rows
    assert values_of(supply, "Supplier", "S-1003") == s1003
    assert len(supply.log(DOMAIN)) == 4


def test_max_issues_caps_the_list(supply: Store) -> None:
    changes: list[Change] = [
        UpsertRecord("Supplier", f"S-{1001 + index}", {"risk_score": 500}, source=f"c{index}")
        for index in range(10)
    ]
    with pytest.raises(ValuesInvalid) as raised:
        supply.commit(request(max_issues=3, batch_size=2), changes)
    assert 1 <= len(raised.value.issues) <= 3


def test_a_key_that_disagrees_with_its_values_is_refused(supply: Store) -> None:
    with pytest.raises(ValuesInvalid) as raised:
        supply.commit(
            request(),
            [
                UpsertRecord(
                    "Supplier",
                    "S-1041",
                    {"supplier_code": "S-1040", "legal_name": "K"},
                    source="c1",
                )
            ],
        )
    assert [(issue.path, issue.code) for issue in raised.value.issues] == [
        ("c1 supplier_code", "key.mismatch")
    ]


def test_a_record_without_key_is_keyed_by_its_values(supply: Store) -> None:
    commit(supply, [UpsertRecord("Supplier", None, {"supplier_code": "S-1040", "legal_name": "K"})])
    assert values_of(supply, "Supplier", "S-1040")["legal_name"] == "K"


# -- expected head -------------------------------------------------------------------------------


def test_expected_head_mismatch_raises_stale_head_and_writes_nothing(supply: Store) -> None:
    first = supply.log(DOMAIN)[-1].id
    current, before_rows = head(supply), row_counts(supply)
    with pytest.raises(StaleHead) as raised:
        supply.commit(
            request(expected_head=first), [UpsertRecord("Supplier", "S-1002", {"risk_score": 1})]
        )
    assert raised.value.extra["head"] == current
    assert raised.value.extra["expected_head"] == first
    assert raised.value.to_problem()["status"] == 409
    assert head(supply) == current
    assert row_counts(supply) == before_rows


def test_expected_head_that_matches_commits(supply: Store) -> None:
    current = head(supply)
    revision = commit(
        supply, [UpsertRecord("Supplier", "S-1002", {"risk_score": 1})], expected_head=current
    )
    assert revision.parents == [current]


# -- unique Attributes ---------------------------------------------------------------------------


def test_a_value_of_a_unique_attribute_held_by_another_record_is_refused(supply: Store) -> None:
    taken = values_of(supply, "Supplier", "S-1001")["vat_number"]
    before_rows = row_counts(supply)
    with pytest.raises(ValuesInvalid) as raised:
        supply.commit(request(), [UpsertRecord("Supplier", "S-1002", {"vat_number": taken})])
    [issue] = raised.value.issues
    assert issue.code == "value.unique"
    assert "S-1001" in issue.path
    assert "S-1002" in issue.path
    assert issue.path.endswith("vat_number")
    assert row_counts(supply) == before_rows


def test_two_new_records_sharing_a_unique_value_are_refused(supply: Store) -> None:
    changes: list[Change] = [
        UpsertRecord("Supplier", key, {"legal_name": key, "vat_number": "DE999999999"})
        for key in ("S-1031", "S-1032")
    ]
    with pytest.raises(ValuesInvalid) as raised:
        supply.commit(request(), changes)
    assert [issue.code for issue in raised.value.issues] == ["value.unique"]
    assert read_record(supply, DOMAIN, "Supplier", "S-1031") is None


def test_unique_values_may_be_swapped_in_one_commit(supply: Store) -> None:
    taken = values_of(supply, "Supplier", "S-1001")["vat_number"]
    commit(
        supply,
        [
            UpsertRecord("Supplier", "S-1001", {"vat_number": "PL0000000001"}),
            UpsertRecord("Supplier", "S-1002", {"vat_number": taken}),
        ],
    )
    assert values_of(supply, "Supplier", "S-1002")["vat_number"] == taken


# -- Links: cardinality and endpoints ------------------------------------------------------------


def test_a_second_link_from_the_same_record_of_a_many_to_one_relation_is_refused(
    supply: Store,
) -> None:
    assert [
        link.to_key for link in read_links(supply, DOMAIN, "with_supplier", from_key="C-3001")
    ] == ["S-1001"]
    with pytest.raises(ValuesInvalid) as raised:
        supply.commit(request(), [UpsertLink("with_supplier", "C-3001", "S-1002", source="c1")])
    assert [(issue.path, issue.code) for issue in raised.value.issues] == [
        ("c1 from", "link.cardinality")
    ]
    assert [
        link.to_key for link in read_links(supply, DOMAIN, "with_supplier", from_key="C-3001")
    ] == ["S-1001"]


def test_a_many_to_one_link_may_be_moved_in_one_commit(supply: Store) -> None:
    revision = commit(
        supply,
        [
            DeleteLink("with_supplier", "C-3001", "S-1001"),
            UpsertLink("with_supplier", "C-3001", "S-1002"),
        ],
    )
    assert revision.stats["links"] == {"created": 1, "deleted": 1}
    assert [
        link.to_key for link in read_links(supply, DOMAIN, "with_supplier", from_key="C-3001")
    ] == ["S-1002"]


def test_many_records_may_link_to_the_one_side(supply: Store) -> None:
    commit(
        supply,
        [
            UpsertRecord("Contract", "C-3016", {"title": "Spare parts 2027 - Kavsen"}),
            UpsertLink("with_supplier", "C-3016", "S-1001"),
        ],
    )
    assert {
        link.from_key for link in read_links(supply, DOMAIN, "with_supplier", to_key="S-1001")
    } >= {
        "C-3001",
        "C-3016",
    }


@pytest.mark.parametrize(
    ("link", "end"),
    [
        pytest.param(
            UpsertLink("supplied_by", "P-10001", "S-9999", source="c1"), "to", id="missing-to"
        ),
        pytest.param(
            UpsertLink("supplied_by", "P-99999", "S-1001", source="c1"), "from", id="missing-from"
        ),
        pytest.param(
            UpsertLink("supplied_by", "S-1001", "S-1002", source="c1"), "from", id="wrong-kind"
        ),
    ],
)
def test_a_link_to_a_missing_record_is_refused(supply: Store, link: UpsertLink, end: str) -> None:
    with pytest.raises(ValuesInvalid) as raised:
        supply.commit(request(), [link])
    assert (f"c1 {end}", "link.endpoint") in {
        (issue.path, issue.code) for issue in raised.value.issues
    }


def test_a_link_to_a_record_deleted_in_the_same_commit_is_refused(supply: Store) -> None:
    with pytest.raises(ValuesInvalid) as raised:
        supply.commit(
            request(),
            [
                DeleteRecord("Supplier", "S-1030"),
                UpsertLink("supplied_by", "P-10001", "S-1030", source="c1"),
            ],
        )
    assert ("c1 to", "link.endpoint") in {(issue.path, issue.code) for issue in raised.value.issues}


def test_a_link_to_a_record_created_in_the_same_commit_is_accepted(supply: Store) -> None:
    commit(
        supply,
        [
            UpsertRecord("Supplier", "S-1031", {"legal_name": "Nordic Springs AB"}),
            UpsertLink(
                "supplied_by", "P-10001", "S-1031", {"is_primary": False, "lead_time_days": 30}
            ),
        ],
    )
    [link] = read_links(supply, DOMAIN, "supplied_by", to_key="S-1031")
    assert link.values == {"is_primary": False, "lead_time_days": "30"}


def test_link_attributes_are_patched_like_record_attributes(supply: Store) -> None:
    [first, *_] = read_links(supply, DOMAIN, "supplied_by", from_key="P-10001")
    commit(supply, [UpsertLink("supplied_by", "P-10001", first.to_key, {"lead_time_days": 99})])
    [patched] = read_links(supply, DOMAIN, "supplied_by", from_key="P-10001", to_key=first.to_key)
    assert patched.values == {**first.values, "lead_time_days": "99"}
    commit(supply, [UpsertLink("supplied_by", "P-10001", first.to_key, {"lead_time_days": None})])
    [cleared] = read_links(supply, DOMAIN, "supplied_by", from_key="P-10001", to_key=first.to_key)
    assert "lead_time_days" not in cleared.values
    assert cleared.values["is_primary"] == first.values["is_primary"]


def test_delete_of_a_missing_link_is_refused(supply: Store) -> None:
    with pytest.raises(ValuesInvalid) as raised:
        supply.commit(request(), [DeleteLink("with_supplier", "C-3001", "S-1030", source="c1")])
    assert [(issue.path, issue.code) for issue in raised.value.issues] == [("c1", "link.missing")]


# -- deletes -------------------------------------------------------------------------------------


def test_delete_record_leaves_a_tombstone_and_deletes_its_links(supply: Store) -> None:
    linked = {
        relation: len(read_links(supply, DOMAIN, relation, to_key="S-1005"))
        for relation in RELATIONS_OF_SUPPLIER
    }
    assert sum(linked.values()) > 0
    before = head(supply)
    revision = commit(supply, [DeleteRecord("Supplier", "S-1005")])
    assert read_record(supply, DOMAIN, "Supplier", "S-1005") is None
    assert read_count(supply, DOMAIN, "Supplier") == 29
    assert all(
        not read_links(supply, DOMAIN, relation, to_key="S-1005")
        for relation in RELATIONS_OF_SUPPLIER
    )
    assert revision.stats["records"] == {"deleted": 1}
    assert revision.stats["links"] == {"deleted": sum(linked.values())}
    assert revision.stats["changes"] == 1 + sum(linked.values())
    # the history keeps the Record; the earlier Revision still shows it and its Links
    entries = read_history(supply, DOMAIN, "Supplier", "S-1005").entries
    assert [entry.change for entry in entries] == ["deleted", "created"]
    assert read_record(supply, DOMAIN, "Supplier", "S-1005", at=before) is not None
    assert {
        relation: len(read_links(supply, DOMAIN, relation, to_key="S-1005", at=before))
        for relation in RELATIONS_OF_SUPPLIER
    } == linked


def test_a_deleted_record_can_be_created_again(supply: Store) -> None:
    commit(supply, [DeleteRecord("Plant", "PL-05")])
    commit(supply, [UpsertRecord("Plant", "PL-05", {"name": "Corvane Plant Graz"})])
    assert values_of(supply, "Plant", "PL-05") == {
        "plant_code": "PL-05",
        "name": "Corvane Plant Graz",
    }
    entries = read_history(supply, DOMAIN, "Plant", "PL-05").entries
    assert [entry.change for entry in entries] == ["created", "deleted", "created"]


@pytest.mark.parametrize(
    "key",
    [pytest.param("S-9999", id="never-existed"), pytest.param("S-1005", id="already-deleted")],
)
def test_delete_of_a_missing_record_is_refused(supply: Store, key: str) -> None:
    commit(supply, [DeleteRecord("Supplier", "S-1005")])
    before_rows = row_counts(supply)
    with pytest.raises(ValuesInvalid) as raised:
        supply.commit(request(), [DeleteRecord("Supplier", key, source="c1")])
    assert [(issue.path, issue.code) for issue in raised.value.issues] == [("c1", "record.missing")]
    assert row_counts(supply) == before_rows


# -- Revisions -----------------------------------------------------------------------------------


def test_revisions_have_hex_ids_a_parent_chain_and_increasing_generations(supply: Store) -> None:
    start = supply.log(DOMAIN, limit=1)[0]
    first = commit(supply, [UpsertRecord("Part", "P-10001", {"unit_cost": "1.00"})], message="one")
    second = commit(supply, [UpsertRecord("Part", "P-10001", {"unit_cost": "2.00"})], message="two")
    for revision in (first, second):
        assert re.fullmatch(r"[0-9a-f]{64}", revision.id)
    assert first.parents == [start.id]
    assert second.parents == [first.id]
    assert (first.generation, second.generation) == (start.generation + 1, start.generation + 2)
    assert (first.branch, first.author, first.message) == ("main", "usr_tester", "one")
    assert (first.origin_type, first.origin_ref) == ("operation", "test")
    assert head(supply) == second.id
    assert [revision.id for revision in supply.log(DOMAIN, limit=3)] == [
        second.id,
        first.id,
        start.id,
    ]
    assert supply.revision(DOMAIN, first.id) == first


def test_the_first_revision_of_a_domain_has_no_parent(store: Store) -> None:
    schema = load_schema((SUPPLY / "schema.yaml").read_text(encoding="utf-8"))
    store.create_domain(schema, created_by="usr_tester")
    assert head(store) is None
    revision = commit(store, [UpsertRecord("Plant", "PL-01", {"name": "Lyon"})])
    assert (revision.parents, revision.generation) == ([], 1)


def test_created_at_is_kept_and_makes_the_id_reproducible(supply: Store, tmp_path: Path) -> None:
    changes: list[Change] = [UpsertRecord("Part", "P-10001", {"unit_cost": "1.00"})]
    fixed = "2026-11-02T10:00:00Z"
    revision = commit(supply, changes, created_at=fixed)
    assert revision.created_at == fixed
    other = Store.open(f"sqlite:///{tmp_path / 'other.sqlite'}")
    try:
        import_directory(other, SUPPLY)
        again = other.commit(request(created_at=fixed), changes).revision
    finally:
        other.close()
    assert again is not None
    assert again.id == revision.id


def test_stats_count_the_changes(supply: Store) -> None:
    result = supply.commit(
        request(),
        [
            UpsertRecord("Contract", "C-3016", {"title": "Spare parts 2027 - Kavsen"}),
            UpsertLink("with_supplier", "C-3016", "S-1001"),
            UpsertRecord("Part", "P-10001", {"unit_cost": "1.11"}),
            DeleteRecord("RiskFlag", "RF-S-1005-0001"),  # and its one flags Link
        ],
    )
    expected = {
        "changes": 5,
        "records": {"created": 1, "updated": 1, "deleted": 1},
        "links": {"created": 1, "deleted": 1},
        "partitions_changed": 5,  # Contract, Part, RiskFlag, with_supplier, flags
    }
    assert result.changes == 5
    assert result.stats == expected
    assert result.revision is not None
    assert result.revision.stats == expected
    assert supply.revision(DOMAIN, result.revision.id).stats == expected


def test_a_record_upserted_twice_in_one_commit_gets_both_patches(supply: Store) -> None:
    commit(
        supply,
        [
            UpsertRecord("Supplier", "S-1031", {"legal_name": "Nordic Springs AB"}),
            UpsertRecord("Supplier", "S-1031", {"city": "Malmo"}),
        ],
    )
    assert values_of(supply, "Supplier", "S-1031") == {
        "supplier_code": "S-1031",
        "legal_name": "Nordic Springs AB",
        "city": "Malmo",
    }


def test_a_record_patched_after_a_delete_in_the_same_commit_keeps_both_patches(
    supply: Store,
) -> None:
    commit(
        supply,
        [
            UpsertRecord("Supplier", "S-1031", {"legal_name": "Nordic Springs AB"}),
            DeleteRecord("Supplier", "S-1006"),
            UpsertRecord("Supplier", "S-1031", {"city": "Malmo"}),
        ],
    )
    assert values_of(supply, "Supplier", "S-1031").get("city") == "Malmo"


def test_create_domain_with_no_changes_still_creates_the_domain(store: Store) -> None:
    schema = load_schema((SUPPLY / "schema.yaml").read_text(encoding="utf-8"))
    result = store.commit(request(schema=schema, create_domain=True), [])
    assert result.revision is None
    assert store.has_domain(DOMAIN)
    assert store.branch(DOMAIN, "main").head_revision is None


def test_duplicates_made_before_a_unique_rule_do_not_block_other_changes(
    store: Store, tmp_path: Path
) -> None:
    """Only the unique values a commit sets are checked: older duplicates are health's business."""
    source = tmp_path / "supply"
    shutil.copytree(SUPPLY, source)
    schema_file = source / "schema.yaml"
    unique_schema = schema_file.read_text()
    schema_file.write_text(unique_schema.replace("unique: true", "unique: false", 1))
    suppliers = source / "data" / "Supplier.csv"
    with suppliers.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    rows[5]["vat_number"] = rows[1]["vat_number"]  # S-1006 takes S-1002's VAT number
    with suppliers.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    import_directory(store, source)
    schema_file.write_text(unique_schema)
    import_directory(store, source)  # the rule arrives; the Records it would refuse are unchanged
    assert store.schema(DOMAIN).kinds["Supplier"].attributes["vat_number"].unique
    commit(store, [UpsertRecord("Supplier", "S-1006", {"risk_score": 11})])
    with pytest.raises(ValuesInvalid) as raised:
        store.commit(
            request(), [UpsertRecord("Supplier", "S-1003", {"vat_number": rows[1]["vat_number"]})]
        )
    assert [issue.code for issue in raised.value.issues] == ["value.unique"]
