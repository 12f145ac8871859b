"""History of a Record (newest first, paged) and lineage of its values."""

from __future__ import annotations

import pytest

from lorebase_core.changes import DeleteRecord, UpsertRecord
from lorebase_core.errors import BadRequest, RecordNotFound
from lorebase_store.results import HistoryEntry
from lorebase_store.store import BranchMode, Store
from lorebase_store.testing import commit_changes as commit
from lorebase_store.testing import read_history, read_lineage, read_record

DOMAIN = "supply"
IMPORT = ("import", "examples/supply", "usr_loader", "Import the supply example data")


def summary(entries: list[HistoryEntry]) -> list[tuple[str, list[str], str]]:
    return [(entry.change, entry.attributes, entry.revision.message) for entry in entries]


# -- history -------------------------------------------------------------------------------------


def test_history_lists_changes_newest_first(supply: Store) -> None:
    page = read_history(supply, DOMAIN, "Contract", "C-3013")
    assert page.next_cursor is None
    assert summary(page.entries) == [
        ("updated", ["status"], "Activate C-3013 after countersignature"),
        (
            "updated",
            ["end_date", "value"],
            "Extend C-3013 by one year and raise its value to 240000.00 EUR",
        ),
        (
            "created",
            ["contract_number", "currency", "end_date", "start_date", "status", "title", "value"],
            "Import the supply example data",
        ),
    ]
    newest, _, oldest = page.entries
    assert (newest.revision.author, newest.revision.created_at) == (
        "usr_editor",
        "2026-10-15T14:05:00Z",
    )
    assert (newest.revision.origin_type, newest.revision.origin_ref) == (
        "operation",
        "update_contract",
    )
    assert (oldest.revision.origin_type, oldest.revision.author) == ("import", "usr_loader")
    assert all(entry.before is None and entry.after is None for entry in page.entries)


def test_history_with_values_gives_before_and_after(supply: Store) -> None:
    newest, middle, oldest = read_history(
        supply, DOMAIN, "Contract", "C-3013", with_values=True
    ).entries
    assert newest.before is not None
    assert newest.after is not None
    assert (newest.before["status"], newest.after["status"]) == ("draft", "active")
    assert {name: newest.before[name] for name in newest.before if name != "status"} == {
        name: newest.after[name] for name in newest.after if name != "status"
    }
    assert middle.before is not None
    assert middle.after is not None
    assert (middle.before["end_date"], middle.after["end_date"]) == ("2027-09-30", "2028-09-30")
    assert (middle.before["value"], middle.after["value"]) == ("180000.00", "240000.00")
    assert middle.after == newest.before
    assert oldest.before is None
    assert oldest.after == middle.before
    assert newest.to_json(with_values=True)["before"] == newest.before


def test_history_of_a_deleted_record_ends_with_its_deletion(supply: Store) -> None:
    before = read_record(supply, DOMAIN, "Plant", "PL-05")
    assert before is not None
    commit(supply, [DeleteRecord("Plant", "PL-05")], message="Close the Graz plant")
    deleted, created = read_history(supply, DOMAIN, "Plant", "PL-05", with_values=True).entries
    assert (deleted.change, deleted.revision.message) == ("deleted", "Close the Graz plant")
    assert deleted.attributes == sorted(before.values)
    assert (deleted.before, deleted.after) == (before.values, None)
    assert created.change == "created"


def test_history_records_an_attribute_cleared(supply: Store) -> None:
    commit(supply, [UpsertRecord("Supplier", "S-1002", {"city": None})])
    latest = read_history(supply, DOMAIN, "Supplier", "S-1002", limit=1, with_values=True).entries[
        0
    ]
    assert (latest.change, latest.attributes) == ("updated", ["city"])
    assert latest.before is not None
    assert latest.after is not None
    assert latest.before["city"] == "Stuttgart"
    assert "city" not in latest.after


def test_history_pages_with_a_cursor(supply: Store) -> None:
    for cost in ("1.00", "2.00", "3.00"):
        commit(supply, [UpsertRecord("Part", "P-10001", {"unit_cost": cost})], message=cost)
    everything = read_history(supply, DOMAIN, "Part", "P-10001", with_values=True).entries
    assert len(everything) == 4
    walked: list[HistoryEntry] = []
    cursor: str | None = None
    pages = 0
    while True:
        page = read_history(
            supply, DOMAIN, "Part", "P-10001", limit=1, cursor=cursor, with_values=True
        )
        pages += 1
        walked.extend(page.entries)
        assert len(page.entries) == 1
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    assert pages == 4
    assert walked == everything
    two = read_history(supply, DOMAIN, "Part", "P-10001", limit=2)
    rest = read_history(supply, DOMAIN, "Part", "P-10001", limit=2, cursor=two.next_cursor)
    assert [entry.revision.message for entry in two.entries + rest.entries] == [
        "3.00",
        "2.00",
        "1.00",
        "Import the supply example data",
    ]
    assert rest.next_cursor is None


@pytest.mark.parametrize(
    "cursor",
    [
        pytest.param("garbage!!", id="not-base64"),
        pytest.param("zzz", id="not-json"),
        pytest.param("e30", id="empty-object"),
        pytest.param("W10", id="a-list"),
        pytest.param("eyJwIjogLTF9", id="negative-position"),
        pytest.param("eyJwIjogIjEifQ", id="position-not-a-number"),
    ],
)
def test_a_garbage_cursor_is_refused(supply: Store, cursor: str) -> None:
    with pytest.raises(BadRequest) as raised:
        read_history(supply, DOMAIN, "Contract", "C-3013", cursor=cursor)
    assert raised.value.to_problem()["status"] == 400


def test_history_at_a_revision_stops_there(supply: Store) -> None:
    extend = supply.log(DOMAIN)[1]
    assert extend.message.startswith("Extend C-3013")
    entries = read_history(supply, DOMAIN, "Contract", "C-3013", at=extend.id).entries
    assert [entry.revision.id for entry in entries] == [extend.id, supply.log(DOMAIN)[-1].id]


def test_history_of_an_unknown_record_raises(supply: Store) -> None:
    with pytest.raises(RecordNotFound):
        read_history(supply, DOMAIN, "Contract", "C-9999")


def test_history_on_an_overlay_branch_includes_the_base_before_the_fork(supply: Store) -> None:
    supply.create_branch(DOMAIN, "draft", created_by="usr_tester")
    commit(supply, [UpsertRecord("Contract", "C-3013", {"status": "expired"})], message="on main")
    commit(
        supply,
        [UpsertRecord("Contract", "C-3013", {"status": "terminated"})],
        branch="draft",
        message="on draft",
    )
    entries = read_history(supply, DOMAIN, "Contract", "C-3013", branch="draft").entries
    assert [(entry.revision.message, entry.revision.branch) for entry in entries] == [
        ("on draft", "draft"),
        ("Activate C-3013 after countersignature", "main"),
        ("Extend C-3013 by one year and raise its value to 240000.00 EUR", "main"),
        ("Import the supply example data", "main"),
    ]
    assert entries[0].attributes == ["status"]
    main = read_history(supply, DOMAIN, "Contract", "C-3013").entries
    assert [entry.revision.message for entry in main][:2] == [
        "on main",
        "Activate C-3013 after countersignature",
    ]


@pytest.mark.parametrize(
    "mode",
    [
        pytest.param("overlay", id="overlay"),
        pytest.param(
            "copy",
            id="copy",
        ),
    ],
)
def test_history_of_a_branch_includes_the_changes_before_its_fork(
    supply: Store, mode: BranchMode
) -> None:
    supply.create_branch(DOMAIN, "draft", mode=mode, created_by="usr_tester")
    entries = read_history(supply, DOMAIN, "Supplier", "S-1001", branch="draft").entries
    assert [(entry.change, entry.revision.message) for entry in entries] == [
        ("updated", "Raise the risk of S-1001"),
        ("created", "Import the supply example data"),
    ]


# -- lineage -------------------------------------------------------------------------------------


def test_lineage_names_where_each_value_came_from(supply: Store) -> None:
    lineage = read_lineage(supply, DOMAIN, "Supplier", "S-1001")
    first, second = supply.log(DOMAIN)[-1], supply.log(DOMAIN)[-2]
    assert (lineage.kind, lineage.key) == ("Supplier", "S-1001")
    risk = lineage.attributes["risk_score"]
    assert (risk.revision, risk.message) == (second.id, "Raise the risk of S-1001")
    assert (risk.origin_type, risk.origin_ref, risk.actor) == (
        "operation",
        "update_supplier",
        "usr_editor",
    )
    assert risk.at == "2026-10-01T08:00:04Z"
    legal = lineage.attributes["legal_name"]
    assert legal.revision == first.id
    assert (legal.origin_type, legal.origin_ref, legal.actor, legal.message) == IMPORT
    assert legal.at == "2026-10-01T08:00:03Z"
    record = read_record(supply, DOMAIN, "Supplier", "S-1001")
    assert record is not None
    assert set(lineage.attributes) == set(record.values)
    assert {name for name, found in lineage.attributes.items() if found.revision != first.id} == {
        "risk_score"
    }
    assert (lineage.changes, lineage.changes_truncated) == (2, False)
    assert risk.to_json()["origin"] == {"type": "operation", "ref": "update_supplier"}


def test_lineage_counts_changes_up_to_count_max(supply: Store) -> None:
    capped = read_lineage(supply, DOMAIN, "Supplier", "S-1001", count_max=1)
    assert (capped.changes, capped.changes_truncated) == (1, True)
    exact = read_lineage(supply, DOMAIN, "Supplier", "S-1001", count_max=2)
    assert (exact.changes, exact.changes_truncated) == (2, False)
    assert capped.attributes == exact.attributes


def test_lineage_follows_later_changes_and_keeps_unchanged_values(supply: Store) -> None:
    revision = commit(
        supply,
        [UpsertRecord("Contract", "C-3013", {"title": "Hose assemblies 2026", "status": "active"})],
        message="Rename C-3013",
    )
    lineage = read_lineage(supply, DOMAIN, "Contract", "C-3013")
    assert lineage.attributes["title"].revision == revision.id
    assert lineage.attributes["title"].actor == "usr_tester"
    # the unchanged status keeps the Revision that set it
    assert lineage.attributes["status"].message == "Activate C-3013 after countersignature"
    assert lineage.attributes["currency"].message == IMPORT[3]
    assert lineage.changes == 4


def test_lineage_at_a_revision_and_on_a_branch(supply: Store) -> None:
    first = supply.log(DOMAIN)[-1]
    at_import = read_lineage(supply, DOMAIN, "Supplier", "S-1001", at=first.id)
    assert {found.revision for found in at_import.attributes.values()} == {first.id}
    assert at_import.changes == 1
    supply.create_branch(DOMAIN, "draft", created_by="usr_tester")
    revision = commit(
        supply, [UpsertRecord("Contract", "C-3001", {"status": "expired"})], branch="draft"
    )
    on_branch = read_lineage(supply, DOMAIN, "Contract", "C-3001", branch="draft")
    assert on_branch.attributes["status"].revision == revision.id
    assert on_branch.attributes["title"].revision == first.id
    assert (
        read_lineage(supply, DOMAIN, "Contract", "C-3001").attributes["status"].revision == first.id
    )


def test_lineage_of_a_deleted_or_unknown_record_raises(supply: Store) -> None:
    commit(supply, [DeleteRecord("Plant", "PL-05")])
    with pytest.raises(RecordNotFound):
        read_lineage(supply, DOMAIN, "Plant", "PL-05")
    with pytest.raises(RecordNotFound):
        read_lineage(supply, DOMAIN, "Plant", "PL-99")
