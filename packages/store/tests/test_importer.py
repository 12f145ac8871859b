from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lorebase_core.changes import DeleteRecord, UpsertLink, UpsertRecord
from lorebase_core.errors import ImportInvalid, ImportOverwrites
from lorebase_store.importer import import_directory
from lorebase_store.store import Store
from lorebase_store.testing import commit_changes, read_count, read_links, read_record

SUPPLY = Path(__file__).parents[3] / "examples" / "supply"


def copy_example(tmp_path: Path) -> Path:
    target = tmp_path / "supply"
    shutil.copytree(SUPPLY, target)
    return target


def test_supply_example_imports_as_its_revisions(store: Store) -> None:
    result = import_directory(store, SUPPLY)
    assert result.created
    messages = [revision.message for revision in result.revisions]
    assert messages[:2] == ["Import the supply example data", "Raise the risk of S-1001"]
    first, second = result.revisions[:2]
    assert (first.origin_type, first.origin_ref, first.author) == (
        "import",
        "examples/supply",
        "usr_loader",
    )
    assert first.created_at == "2026-10-01T08:00:03Z"
    assert (second.origin_type, second.author, second.parents) == (
        "operation",
        "usr_editor",
        [first.id],
    )
    supplier = read_record(store, "supply", "Supplier", "S-1001")
    assert supplier is not None
    assert supplier.values["legal_name"] == "Kavsen Alloys Sp. z o.o."
    assert (supplier.values["city"], supplier.values["country"]) == ("Poznan", "PL")
    assert (supplier.values["tier"], supplier.values["risk_score"]) == ("1", "90")
    assert read_count(store, "supply", "Supplier") == 30
    assert read_count(store, "supply", "Part") == 40
    assert read_count(store, "supply", "PurchaseOrder") == 50


def test_import_is_reproducible(tmp_path: Path, database_url: str) -> None:
    """Fixed times in import.yaml and the revisions make the same Revision ids every time."""
    first = Store.open(database_url)
    ids = [revision.id for revision in import_directory(first, SUPPLY).revisions]
    first.close()
    other = Store.open(f"sqlite:///{tmp_path / 'other.sqlite'}")
    assert [revision.id for revision in import_directory(other, SUPPLY).revisions] == ids
    other.close()


def test_importing_the_same_folder_again_changes_nothing(store: Store) -> None:
    """The folder means its data and its revisions/: after importing it, it is all there."""
    import_directory(store, SUPPLY)
    head = store.branch("supply", "main").head_revision
    again = import_directory(store, SUPPLY)
    assert (again.created, again.skipped, again.revisions, again.changes) == (False, False, [], 0)
    assert store.branch("supply", "main").head_revision == head
    supplier = read_record(store, "supply", "Supplier", "S-1001")
    assert supplier is not None
    assert supplier.values["risk_score"] == "90"
    contract = read_record(store, "supply", "Contract", "C-3013")
    assert contract is not None
    assert contract.values["status"] == "active"


def test_reimport_commits_only_what_the_folder_changed(store: Store, tmp_path: Path) -> None:
    source = copy_example(tmp_path)
    import_directory(store, source)
    suppliers = source / "data" / "Supplier.csv"
    suppliers.write_text(suppliers.read_text().replace("Poznan", "Posen", 1))
    result = import_directory(store, source)
    assert result.changes == 1
    assert result.revisions[0].stats["records"] == {"updated": 1}
    assert result.revisions[0].origin_type == "import"
    assert result.overwritten == []
    supplier = read_record(store, "supply", "Supplier", "S-1001")
    assert supplier is not None
    assert (supplier.values["city"], supplier.values["risk_score"]) == ("Posen", "90")
    assert import_directory(store, source).revisions == []


def test_a_reimport_that_would_overwrite_an_operation_is_refused_listing_it(
    store: Store,
) -> None:
    import_directory(store, SUPPLY)
    operation = commit_changes(
        store, [UpsertRecord("Supplier", "S-1001", {"risk_score": 50})], message="Lower S-1001"
    )
    head = store.branch("supply", "main").head_revision
    with pytest.raises(ImportOverwrites) as refused:
        import_directory(store, SUPPLY)
    assert refused.value.extra["overwrites"] == [
        {
            "ref": "Supplier/S-1001",
            "attribute": "risk_score",
            "current": "50",
            "imported": "90",
            "revision": operation.id,
            "origin": {"type": "operation", "ref": "test"},
            "author": "usr_tester",
            "message": "Lower S-1001",
        }
    ]
    assert "--overwrite" in refused.value.detail
    assert store.branch("supply", "main").head_revision == head  # nothing written
    problem = refused.value.to_problem()
    assert (problem["status"], problem["code"]) == (409, "import-overwrites")


def test_a_reimport_with_overwrite_writes_the_folder_values(store: Store) -> None:
    import_directory(store, SUPPLY)
    operation = commit_changes(
        store,
        [
            UpsertRecord("Supplier", "S-1001", {"risk_score": 50}),
            UpsertRecord("Contract", "C-3013", {"status": "draft"}),
        ],
    )
    result = import_directory(store, SUPPLY, overwrite=True)
    assert result.changes == 2
    [revision] = result.revisions
    assert revision.origin_type == "import"
    assert sorted((entry.ref, entry.attribute) for entry in result.overwritten) == [
        ("Contract/C-3013", "status"),
        ("Supplier/S-1001", "risk_score"),
    ]
    assert {entry.revision.id for entry in result.overwritten} == {operation.id}
    supplier = read_record(store, "supply", "Supplier", "S-1001")
    assert supplier is not None
    assert supplier.values["risk_score"] == "90"
    assert import_directory(store, SUPPLY).revisions == []


def test_a_value_cleared_or_a_record_deleted_since_is_an_overwrite(store: Store) -> None:
    import_directory(store, SUPPLY)
    commit_changes(
        store,
        [
            UpsertRecord("Supplier", "S-1002", {"city": None}),
            DeleteRecord("Plant", "PL-01"),
        ],
    )
    with pytest.raises(ImportOverwrites) as refused:
        import_directory(store, SUPPLY)
    listed = {(entry["ref"], entry["attribute"]) for entry in refused.value.extra["overwrites"]}
    assert ("Supplier/S-1002", "city") in listed
    assert ("Plant/PL-01", None) in listed
    import_directory(store, SUPPLY, overwrite=True)
    assert read_record(store, "supply", "Plant", "PL-01") is not None


def test_a_value_merged_from_a_branch_is_an_overwrite(store: Store) -> None:
    import_directory(store, SUPPLY)
    store.create_branch("supply", "analysis", created_by="usr_admin")
    commit_changes(
        store, [UpsertRecord("Supplier", "S-1001", {"risk_score": 40})], branch="analysis"
    )
    store.writes.merge_branch(
        "supply", "analysis", into="main", author="usr_admin", message="Merge", resolutions={}
    )
    with pytest.raises(ImportOverwrites) as refused:
        import_directory(store, SUPPLY)
    [entry] = refused.value.extra["overwrites"]
    assert (entry["ref"], entry["current"], entry["imported"]) == ("Supplier/S-1001", "40", "90")


def test_a_link_value_changed_since_is_an_overwrite(store: Store) -> None:
    import_directory(store, SUPPLY)
    link = read_links(store, "supply", "supplied_by", limit=1)[0]
    commit_changes(
        store, [UpsertLink("supplied_by", link.from_key, link.to_key, {"lead_time_days": 99})]
    )
    with pytest.raises(ImportOverwrites) as refused:
        import_directory(store, SUPPLY)
    [entry] = refused.value.extra["overwrites"]
    assert entry["ref"] == f"supplied_by:{link.from_key}->{link.to_key}"
    assert (entry["attribute"], entry["current"]) == ("lead_time_days", "99")


def test_a_reimport_of_a_broken_folder_writes_nothing(store: Store, tmp_path: Path) -> None:
    source = copy_example(tmp_path)
    import_directory(store, source)
    head = store.branch("supply", "main").head_revision
    suppliers = source / "data" / "Supplier.csv"
    suppliers.write_text(suppliers.read_text().replace(",1,72,", ",1,high,", 1))
    with pytest.raises(ImportInvalid) as refused:
        import_directory(store, source)
    assert any("risk_score" in issue.path for issue in refused.value.issues)
    assert store.branch("supply", "main").head_revision == head


def test_create_only_skips_an_existing_domain(store: Store) -> None:
    import_directory(store, SUPPLY)
    result = import_directory(store, SUPPLY, create_only=True)
    assert result.skipped
    assert result.revisions == []


def test_every_problem_names_file_line_and_attribute_and_nothing_is_written(
    store: Store, tmp_path: Path
) -> None:
    source = copy_example(tmp_path)
    suppliers = source / "data" / "Supplier.csv"
    lines = suppliers.read_text().splitlines()
    header = lines[0].split(",")
    row = lines[2].split(",")
    row[header.index("risk_score")] = "high"
    lines[2] = ",".join(row)
    suppliers.write_text("\n".join(lines) + "\n")
    links = source / "data" / "supplied_by.csv"
    links.write_text(links.read_text() + "P-10001,S-9999,true,5\n")
    with pytest.raises(ImportInvalid) as raised:
        import_directory(store, source)
    paths = [issue.path for issue in raised.value.issues]
    assert "data/Supplier.csv:3 risk_score" in paths
    assert any(path.startswith("data/supplied_by.csv:") and path.endswith(" to") for path in paths)
    assert not store.has_domain("supply")


def test_unknown_columns_and_files_are_refused(store: Store, tmp_path: Path) -> None:
    source = copy_example(tmp_path)
    (source / "data" / "Warehouse.csv").write_text("code\nW1\n")
    plants = source / "data" / "Plant.csv"
    text = plants.read_text().splitlines()
    text[0] += ",colour"
    plants.write_text(
        "\n".join(line + ("," if index else "") for index, line in enumerate(text)) + "\n"
    )
    with pytest.raises(ImportInvalid) as raised:
        import_directory(store, source)
    paths = {issue.path for issue in raised.value.issues}
    assert "data/Warehouse.csv" in paths
    assert "data/Plant.csv:1 colour" in paths
    assert not store.has_domain("supply")


def test_duplicate_keys_in_a_file_are_refused(store: Store, tmp_path: Path) -> None:
    source = copy_example(tmp_path)
    plants = source / "data" / "Plant.csv"
    lines = plants.read_text().splitlines()
    plants.write_text("\n".join([*lines, lines[1]]) + "\n")
    with pytest.raises(ImportInvalid) as raised:
        import_directory(store, source)
    assert [issue.code for issue in raised.value.issues] == ["record.duplicate"]
    assert raised.value.issues[0].path == f"data/Plant.csv:{len(lines) + 1}"


def test_a_broken_schema_reports_its_paths(store: Store, tmp_path: Path) -> None:
    source = copy_example(tmp_path)
    schema = source / "schema.yaml"
    schema.write_text(schema.read_text().replace("title: legal_name", "title: legal_nam", 1))
    with pytest.raises(ImportInvalid) as raised:
        import_directory(store, source)
    assert [issue.path for issue in raised.value.issues] == ["schema.yaml kinds.Supplier.title"]


def test_json_lines_files_import_with_their_json_types(store: Store, tmp_path: Path) -> None:
    source = copy_example(tmp_path)
    plants = source / "data" / "Plant.csv"
    import csv
    import json

    with plants.open() as handle:
        rows = list(csv.DictReader(handle))
    plants.unlink()
    (source / "data" / "Plant.jsonl").write_text(
        "\n".join(json.dumps({k: v for k, v in row.items() if v}) for row in rows) + "\n"
    )
    import_directory(store, source)
    assert read_count(store, "supply", "Plant") == len(rows)


def test_changed_keys_max_bounds_the_keys_of_the_import_event(store: Store) -> None:
    import_directory(store, SUPPLY, changed_keys_max=3)
    first = store.events("supply")[0]
    assert sum(len(keys) for keys in first["keys"].values()) == 3
    assert first["keys_truncated"] is True
