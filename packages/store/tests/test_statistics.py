"""Statistics of the default branch head: kept by commits, equal to a recount."""

from __future__ import annotations

from lorebase_core.changes import DeleteRecord, UpsertRecord
from lorebase_store import tables as t
from lorebase_store.commits.statistics import Statistics, read_statistics
from lorebase_store.engine import read_transaction
from lorebase_store.store import Store
from lorebase_store.testing import commit_changes


def statistics(store: Store) -> Statistics:
    with read_transaction(store.engine) as connection:
        found = read_statistics(connection, store.domain("supply").id)
    assert found is not None
    return found


def test_an_import_leaves_statistics_of_its_head(supply: Store) -> None:
    found = statistics(supply)
    assert found.as_of == supply.branch("supply", "main").head_revision
    assert {kind: entry.records for kind, entry in found.kinds.items()} == {
        "Contract": 15,
        "Part": 40,
        "Plant": 5,
        "PurchaseOrder": 50,
        "RiskFlag": 7,
        "Supplier": 30,
    }
    assert found.kinds["Supplier"].missing("risk_score") == 0


def test_commits_on_the_default_branch_move_them_along(supply: Store) -> None:
    head = commit_changes(
        supply,
        [
            UpsertRecord(
                "Part", None, {"part_number": "P-10041", "name": "Spare", "unit": "piece"}
            ),
            DeleteRecord("RiskFlag", "RF-S-1001-0001"),
        ],
    )
    found = statistics(supply)
    assert found.as_of == head.id
    assert found.kinds["Part"].records == 41
    assert found.kinds["Part"].missing("category") == 1
    assert found.kinds["RiskFlag"].records == 6
    assert found.kinds == supply.recount_statistics("supply").kinds


def test_commits_on_other_branches_leave_them_alone(supply: Store) -> None:
    before = statistics(supply)
    supply.create_branch("supply", "work", created_by="usr_tester")
    commit_changes(
        supply,
        [UpsertRecord("Part", None, {"part_number": "P-10041", "name": "Spare", "unit": "piece"})],
        branch="work",
    )
    assert statistics(supply) == before


def test_statistics_behind_the_head_stay_behind_until_recounted(supply: Store) -> None:
    old_head = supply.branch("supply", "main").head_revision
    with supply.engine.begin() as connection:
        connection.execute(t.statistics.update().values(as_of="0" * 64))
    head = commit_changes(supply, [UpsertRecord("Supplier", "S-1001", {"risk_score": "10"})])
    assert statistics(supply).as_of == "0" * 64  # not moved: they no longer describe the parent
    recounted = supply.recount_statistics("supply")
    assert recounted.as_of == head.id != old_head
    assert statistics(supply).kinds["Supplier"].records == 30
