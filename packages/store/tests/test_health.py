"""The health of the data (agents.md section 6) on a deliberately damaged copy of the supply example.

The import refuses invalid data, so the copy is damaged in three steps: its data is imported
under a permissive schema (no country pattern, legal_name optional, vat_number not unique,
for_part not required, no derived risk_band), then the example's own, stricter schema is
committed (a schema change does not re-validate stored Records), and finally Plant PL-01 is
deleted by a direct row delete on `store.engine`, because a commit deleting a Record deletes its
Links with it: the Links to PL-01 are left as orphans.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lorebase_core.changes import Origin
from lorebase_core.schema import load_schema
from lorebase_store import tables as t
from lorebase_store.commits.commit import CommitRequest
from lorebase_store.health.checks import KindChecks, normalized
from lorebase_store.health.shapes import HealthLimits, HealthReport, KindHealth, RelationHealth
from lorebase_store.importer import import_directory
from lorebase_store.store import Store

SUPPLY = Path(__file__).resolve().parents[3] / "examples" / "supply"

_PERMISSIVE = [
    (
        '        pattern: "^[A-Z]{2}$"\n        vocabulary: iso3166\n        description: ISO 3166-1 '
        "alpha-2 code of the country of the main production site",
        "        vocabulary: iso3166\n        description: ISO 3166-1 alpha-2 code of the country of "
        "the main production site",
    ),
    (
        "      legal_name:\n        type: string\n        required: true\n",
        "      legal_name:\n        type: string\n",
    ),
    ("        unique: true\n", ""),
    (
        "    cardinality: many_to_one\n    required_from: true\n    description: The part the",
        "    cardinality: many_to_one\n    description: The part the",
    ),
    (
        "      risk_band:\n        type: string\n        derived: \"'high' if risk_score >= 70 else "
        "'normal'\"\n        description: high when risk_score is 70 or more, else normal. "
        "Computed, never written.\n",
        "",
    ),
]


def _edit_csv(path: Path, key: str, column: str, value: str) -> None:
    lines = path.read_text().splitlines()
    header = lines[0].split(",")
    index = header.index(column)
    for number, line in enumerate(lines):
        cells = line.split(",")
        if cells[0] == key:
            cells[index] = value
            lines[number] = ",".join(cells)
    path.write_text("\n".join(lines) + "\n")


def damage_supply(store: Store, tmp_path: Path) -> str:
    """The damaged copy imported into `store` (Domain supply, branch main); its head Revision."""
    copy = tmp_path / "supply"
    shutil.copytree(SUPPLY, copy)
    strict = (copy / "schema.yaml").read_text()
    permissive = strict
    for old, new in _PERMISSIVE:
        assert permissive.count(old) == 1, old
        permissive = permissive.replace(old, new)
    (copy / "schema.yaml").write_text(permissive)
    data = copy / "data"
    _edit_csv(data / "Supplier.csv", "S-1003", "country", "fr")
    _edit_csv(data / "Supplier.csv", "S-1004", "legal_name", "")
    _edit_csv(data / "Supplier.csv", "S-1006", "vat_number", "DE281746350")  # S-1002's
    part_name = next(
        line.split(",")[1]
        for line in (data / "Part.csv").read_text().splitlines()
        if line.startswith("P-10001,")
    )
    _edit_csv(data / "Part.csv", "P-10002", "name", "  " + part_name.upper().replace(" ", "   "))
    for_part = (data / "for_part.csv").read_text().splitlines()
    (data / "for_part.csv").write_text(
        "\n".join(line for line in for_part if not line.startswith("PO-200001,")) + "\n"
    )
    import_directory(store, copy)
    result = store.commit(
        CommitRequest(
            domain="supply",
            branch=None,
            author="usr_test",
            message="Make the schema strict again",
            origin=Origin("import", "test"),
            schema=load_schema(strict),
        ),
        [],
    )
    assert result.revision is not None
    with store.engine.begin() as connection:
        connection.execute(
            t.records.delete().where(t.records.c.kind == "Plant", t.records.c.record_key == "PL-01")
        )
    return result.revision.id


def _report(
    store: Store, limits: HealthLimits | None = None, at: str | None = None
) -> HealthReport:
    with store.reader("supply", at=at) as reader:
        schema = reader.schema
        return reader.health(list(schema.kinds), list(schema.relations), limits or HealthLimits())


def _kind(report: HealthReport, name: str) -> KindHealth:
    return next(found for found in report.kinds if found.kind == name)


def _relation(report: HealthReport, name: str) -> RelationHealth:
    return next(found for found in report.relations if found.relation == name)


def test_the_supply_example_is_healthy(supply: Store) -> None:
    report = _report(supply)
    assert [found.kind for found in report.kinds] == sorted(found.kind for found in report.kinds)
    assert {found.kind: found.records for found in report.kinds} == {
        "Contract": 15,
        "Part": 40,
        "Plant": 5,
        "PurchaseOrder": 50,
        "RiskFlag": 7,
        "Supplier": 30,
    }
    head = supply.branch("supply", "main").head_revision
    assert _kind(report, "Contract").last_change == head
    for found in report.kinds:
        assert (found.invalid, found.violations, found.duplicates) == (0, (), ())
        assert found.stale_derived == {}
        assert (found.checked, found.sampled) == (found.records, False)
    for relation in report.relations:
        assert (relation.orphans, relation.gaps or 0) == (0, 0)
    assert _relation(report, "stocked_at").gaps is None
    assert _relation(report, "for_part").links == 50


def test_a_damaged_copy_reports_every_problem(store: Store, tmp_path: Path) -> None:
    head = damage_supply(store, tmp_path)
    report = _report(store)
    supplier = _kind(report, "Supplier")
    assert (supplier.records, supplier.checked, supplier.sampled) == (30, 30, False)
    assert supplier.invalid == 2
    assert [(v.rule, v.attribute, v.count, v.examples) for v in supplier.violations] == [
        ("value.pattern", "country", 1, ("S-1003",)),
        ("value.required", "legal_name", 1, ("S-1004",)),
    ]
    (vat,) = supplier.duplicates
    assert (vat.attribute, vat.unique, vat.sensitive, vat.group_count) == (
        "vat_number",
        True,
        True,
        1,
    )
    assert [(group.keys, group.count, group.value) for group in vat.groups] == [
        (("S-1002", "S-1006"), 2, None)
    ]
    assert supplier.stale_derived == {"risk_band": 30}
    assert supplier.last_change is not None
    assert supplier.last_change != head  # the head changed the schema only

    part = _kind(report, "Part")
    (names,) = part.duplicates
    assert (names.attribute, names.unique, names.title, names.group_count) == (
        "name",
        False,
        True,
        1,
    )
    assert names.groups[0].keys == ("P-10001", "P-10002")
    assert names.groups[0].value is not None
    assert not names.groups[0].value.isupper()  # the first Record's value, as stored
    assert _kind(report, "Plant").records == 4

    stocked_at = _relation(report, "stocked_at")
    assert stocked_at.orphans == 3  # the example stocks three Parts at PL-01
    assert all(to == "PL-01" for _, to in stocked_at.orphan_examples)
    assert len(stocked_at.orphan_examples) == stocked_at.orphans
    assert stocked_at.gaps is None
    for_part = _relation(report, "for_part")
    assert (for_part.links, for_part.orphans, for_part.gaps, for_part.gap_examples) == (
        49,
        0,
        1,
        ("PO-200001",),
    )


def test_past_max_records_validated_an_even_sample_is_checked(store: Store, tmp_path: Path) -> None:
    damage_supply(store, tmp_path)
    limits = HealthLimits(max_records_validated=7, max_examples=1, max_orphans=2)
    report = _report(store, limits)
    supplier = _kind(report, "Supplier")
    assert (supplier.records, supplier.checked, supplier.sampled) == (30, 7, True)
    # the same Records every time, and duplicates are still looked for among all of them
    assert _report(store, limits) == report
    assert supplier.duplicates[0].groups[0].keys == ("S-1002",)
    assert supplier.duplicates[0].groups[0].count == 2
    assert _kind(report, "Plant").sampled is False
    assert len(_relation(report, "stocked_at").orphan_examples) == 2


def test_at_reads_the_schema_and_rows_of_an_earlier_revision(store: Store, tmp_path: Path) -> None:
    damage_supply(store, tmp_path)
    before = store.log("supply", limit=2)[1].id
    report = _report(store, at=before)
    supplier = _kind(report, "Supplier")
    assert (supplier.violations, supplier.duplicates) == ((), ())
    assert supplier.stale_derived == {}  # that schema had no derived Attribute
    assert _relation(report, "for_part").gaps is None


def test_checks_name_the_rule_broken(supply: Store) -> None:
    schema = supply.schema("supply")
    checks = KindChecks.of(schema, "Supplier")
    values = {
        "supplier_code": "S-1001",
        "legal_name": "Kavsen",
        "tier": "7",
        "risk_score": 12,
        "status": "unknown",
        "extra": 1,
    }
    assert checks.problems("S-1002", values) == [
        ("attribute.unknown", "extra"),
        ("key.mismatch", "supplier_code"),
        ("value.canonical", "risk_score"),
        ("value.max", "tier"),
        ("value.type", "status"),
    ]
    assert normalized("  Radial   Shaft\tSEAL ") == "radial shaft seal"
    assert normalized("   ") is None


@pytest.mark.parametrize("wanted", [1, 3, 29])
def test_the_sample_is_exactly_the_cap(supply: Store, wanted: int) -> None:
    report = _report(supply, HealthLimits(max_records_validated=wanted))
    assert _kind(report, "Supplier").checked == wanted
