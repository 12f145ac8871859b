"""Diffs between two Revisions: on one branch, and across an overlay branch and its base."""

from __future__ import annotations

import pytest

from lorebase_core.changes import DeleteRecord, UpsertLink, UpsertRecord
from lorebase_core.errors import RevisionNotFound
from lorebase_store.results import DiffEntry
from lorebase_store.store import BranchMode, Store
from lorebase_store.testing import commit_changes as commit
from lorebase_store.testing import read_links, read_record

DOMAIN = "supply"
MODES = [pytest.param("overlay", id="overlay"), pytest.param("copy", id="copy")]


def by_ref(entries: list[DiffEntry]) -> dict[str, DiffEntry]:
    return {entry.ref: entry for entry in entries}


def changed(entries: list[DiffEntry]) -> dict[str, tuple[str, list[str]]]:
    return {entry.ref: (entry.change, entry.attributes) for entry in entries}


def test_diff_from_the_import_to_the_head(supply: Store) -> None:
    first, head = supply.log(DOMAIN)[-1], supply.log(DOMAIN)[0]
    diff = supply.diff(DOMAIN, first.id, head.id)
    assert (diff.from_revision, diff.to_revision) == (first.id, head.id)
    assert changed(diff.records) == {
        "Contract/C-3013": ("modified", ["end_date", "status", "value"]),
        "Supplier/S-1001": ("modified", ["risk_score"]),
    }
    assert diff.links == []
    entries = by_ref(diff.records)
    supplier = entries["Supplier/S-1001"]
    assert supplier.before is not None
    assert supplier.after is not None
    assert (supplier.before["risk_score"], supplier.after["risk_score"]) == ("72", "90")
    assert (
        supplier.before["legal_name"] == supplier.after["legal_name"] == "Kavsen Alloys Sp. z o.o."
    )
    contract = entries["Contract/C-3013"]
    assert contract.before is not None
    assert contract.after is not None
    assert {
        name: (contract.before[name], contract.after[name]) for name in contract.attributes
    } == {
        "end_date": ("2027-09-30", "2028-09-30"),
        "status": ("draft", "active"),
        "value": ("180000.00", "240000.00"),
    }
    assert diff.to_json()["records"][0]["ref"] == diff.records[0].ref


def test_diff_accepts_prefixes_and_tags(supply: Store) -> None:
    first, head = supply.log(DOMAIN)[-1], supply.log(DOMAIN)[0]
    supply.create_tag(DOMAIN, "imported", first.id, created_by="usr_tester")
    assert supply.diff(DOMAIN, "imported", head.id[:12]) == supply.diff(DOMAIN, first.id, head.id)


def test_diff_backwards_swaps_before_and_after(supply: Store) -> None:
    first, head = supply.log(DOMAIN)[-1], supply.log(DOMAIN)[0]
    forwards = by_ref(supply.diff(DOMAIN, first.id, head.id).records)
    backwards = by_ref(supply.diff(DOMAIN, head.id, first.id).records)
    assert set(backwards) == set(forwards)
    for ref, entry in backwards.items():
        assert (entry.before, entry.after) == (forwards[ref].after, forwards[ref].before)
        assert entry.attributes == forwards[ref].attributes


def test_diff_of_a_revision_with_itself_is_empty(supply: Store) -> None:
    head = supply.log(DOMAIN)[0]
    diff = supply.diff(DOMAIN, head.id, head.id)
    assert (diff.records, diff.links) == ([], [])


def test_diff_lists_created_and_deleted_records_and_links(supply: Store) -> None:
    before = supply.log(DOMAIN)[0]
    stocked = read_links(supply, DOMAIN, "stocked_at", to_key="PL-05")
    assert stocked
    plant = read_record(supply, DOMAIN, "Plant", "PL-05")
    assert plant is not None
    after = commit(
        supply,
        [
            UpsertRecord("Contract", "C-3016", {"title": "Spare parts 2027 - Kavsen"}),
            UpsertLink("with_supplier", "C-3016", "S-1001"),
            DeleteRecord("Plant", "PL-05"),
        ],
    )
    diff = supply.diff(DOMAIN, before.id, after.id)
    records = by_ref(diff.records)
    assert set(records) == {"Contract/C-3016", "Plant/PL-05"}
    created = records["Contract/C-3016"]
    assert (created.change, created.before) == ("created", None)
    assert created.after == {"contract_number": "C-3016", "title": "Spare parts 2027 - Kavsen"}
    deleted = records["Plant/PL-05"]
    assert (deleted.change, deleted.before, deleted.after) == ("deleted", plant.values, None)
    links = changed(diff.links)
    assert links["with_supplier:C-3016->S-1001"] == ("created", [])
    assert {ref for ref, (change, _) in links.items() if change == "deleted"} == {
        f"stocked_at:{link.from_key}->PL-05" for link in stocked
    }


def test_a_change_undone_later_is_not_in_the_diff(supply: Store) -> None:
    before = supply.log(DOMAIN)[0]
    commit(supply, [UpsertRecord("Part", "P-10001", {"unit_cost": "9.99"})])
    after = commit(supply, [UpsertRecord("Part", "P-10001", {"unit_cost": "0.38"})])
    assert supply.diff(DOMAIN, before.id, after.id).records == []


@pytest.mark.parametrize("mode", MODES)
def test_diff_across_a_branch_and_its_base(supply: Store, mode: BranchMode) -> None:
    fork = supply.log(DOMAIN)[0]
    supply.create_branch(DOMAIN, "draft", mode=mode, created_by="usr_tester")
    on_main = commit(supply, [UpsertRecord("Contract", "C-3001", {"status": "expired"})])
    on_draft = commit(
        supply,
        [
            UpsertRecord("Contract", "C-3013", {"status": "terminated"}),
            UpsertRecord("Part", "P-10041", {"name": "Wave spring 40 mm"}),
        ],
        branch="draft",
    )
    # the branch against its fork: only the branch's own changes
    assert changed(supply.diff(DOMAIN, fork.id, on_draft.id).records) == {
        "Contract/C-3013": ("modified", ["status"]),
        "Part/P-10041": ("created", ["name", "part_number"]),
    }
    # the base's head against the branch's head: both sides' changes
    across = supply.diff(DOMAIN, on_main.id, on_draft.id)
    assert changed(across.records) == {
        "Contract/C-3001": ("modified", ["status"]),
        "Contract/C-3013": ("modified", ["status"]),
        "Part/P-10041": ("created", ["name", "part_number"]),
    }
    entries = by_ref(across.records)
    c3001 = entries["Contract/C-3001"]
    assert c3001.before is not None
    assert c3001.after is not None
    assert (c3001.before["status"], c3001.after["status"]) == ("expired", "active")
    c3013 = entries["Contract/C-3013"]
    assert c3013.before is not None
    assert c3013.after is not None
    assert (c3013.before["status"], c3013.after["status"]) == ("active", "terminated")
    assert across.links == []
    # and the other way round
    back = by_ref(supply.diff(DOMAIN, on_draft.id, on_main.id).records)
    assert back["Part/P-10041"].change == "deleted"
    assert back["Contract/C-3001"].after is not None
    assert back["Contract/C-3001"].after["status"] == "expired"


def test_diff_of_an_unknown_revision_raises(supply: Store) -> None:
    head = supply.log(DOMAIN)[0]
    with pytest.raises(RevisionNotFound):
        supply.diff(DOMAIN, "deadbeef", head.id)
    with pytest.raises(RevisionNotFound):
        supply.diff(DOMAIN, head.id, "no-such-tag")
