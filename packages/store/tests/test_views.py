"""Reads at Revisions: full ids, prefixes and tags; heads; Revisions that are not on a branch."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from lorebase_core.changes import DeleteRecord, UpsertLink, UpsertRecord
from lorebase_core.errors import (
    AlreadyExists,
    AmbiguousRevision,
    BadRequest,
    NotFound,
    RevisionNotFound,
    RevisionNotOnBranch,
)
from lorebase_store.results import RevisionInfo
from lorebase_store.store import Store
from lorebase_store.testing import commit_changes as commit
from lorebase_store.testing import read_count, read_links, read_record, read_records

DOMAIN = "supply"
IMPORT_MESSAGE = "Import the supply example data"


def supply_revisions(store: Store) -> list[RevisionInfo]:
    """The supply example's four Revisions, oldest first."""
    revisions = list(reversed(store.log(DOMAIN)))
    assert [revision.message for revision in revisions][:2] == [
        IMPORT_MESSAGE,
        "Raise the risk of S-1001",
    ]
    return revisions


Naming = Callable[[Store, RevisionInfo], str]


def by_id(_store: Store, revision: RevisionInfo) -> str:
    return revision.id


def by_prefix(_store: Store, revision: RevisionInfo) -> str:
    return revision.id[:12]


def by_short_prefix(_store: Store, revision: RevisionInfo) -> str:
    return revision.id[:8]


def by_tag(store: Store, revision: RevisionInfo) -> str:
    name = f"at-{revision.seq}"
    store.create_tag(DOMAIN, name, revision.id, created_by="usr_tester", message="a tag")
    return name


NAMINGS = [
    pytest.param(by_id, id="full-id"),
    pytest.param(by_prefix, id="prefix-12"),
    pytest.param(by_short_prefix, id="prefix-8"),
    pytest.param(by_tag, id="tag"),
]


@pytest.mark.parametrize("naming", NAMINGS)
def test_reads_at_an_earlier_revision_return_the_old_values(supply: Store, naming: Naming) -> None:
    first, second, third, _fourth = supply_revisions(supply)
    at_import = naming(supply, first)
    s1001 = read_record(supply, DOMAIN, "Supplier", "S-1001", at=at_import)
    assert s1001 is not None
    assert s1001.values["risk_score"] == "72"
    assert s1001.revision == first.id
    c3013 = read_record(supply, DOMAIN, "Contract", "C-3013", at=naming(supply, third))
    assert c3013 is not None
    assert (c3013.values["end_date"], c3013.values["value"]) == ("2028-09-30", "240000.00")
    assert c3013.values["status"] == "draft"
    assert c3013.revision == third.id
    at_second = read_record(supply, DOMAIN, "Supplier", "S-1001", at=naming(supply, second))
    assert at_second is not None
    assert at_second.values["risk_score"] == "90"


@pytest.mark.parametrize("naming", NAMINGS)
def test_revision_resolves_ids_prefixes_and_tags(supply: Store, naming: Naming) -> None:
    first = supply_revisions(supply)[0]
    assert supply.revision(DOMAIN, naming(supply, first)) == first


@pytest.mark.parametrize("naming", NAMINGS)
def test_counts_lists_and_links_read_at_a_revision(supply: Store, naming: Naming) -> None:
    before = supply_revisions(supply)[-1]
    commit(
        supply,
        [
            DeleteRecord("Plant", "PL-05"),
            UpsertRecord("Contract", "C-3016", {"title": "Spare parts 2027 - Kavsen"}),
            UpsertLink("with_supplier", "C-3016", "S-1001"),
        ],
    )
    at = naming(supply, before)
    assert (read_count(supply, DOMAIN, "Plant"), read_count(supply, DOMAIN, "Plant", at=at)) == (
        4,
        5,
    )
    assert [record.key for record in read_records(supply, DOMAIN, "Plant", at=at)] == [
        "PL-01",
        "PL-02",
        "PL-03",
        "PL-04",
        "PL-05",
    ]
    assert "PL-05" not in [record.key for record in read_records(supply, DOMAIN, "Plant")]
    assert read_links(supply, DOMAIN, "with_supplier", from_key="C-3016", at=at) == []
    assert len(read_links(supply, DOMAIN, "stocked_at", to_key="PL-05", at=at)) > 0
    assert read_links(supply, DOMAIN, "stocked_at", to_key="PL-05") == []
    assert read_record(supply, DOMAIN, "Contract", "C-3016", at=at) is None


def test_records_pages_by_key(supply: Store) -> None:
    first_page = read_records(supply, DOMAIN, "Plant", limit=2)
    assert [record.key for record in first_page] == ["PL-01", "PL-02"]
    rest = read_records(supply, DOMAIN, "Plant", limit=10, after_key=first_page[-1].key)
    assert [record.key for record in rest] == ["PL-03", "PL-04", "PL-05"]


def test_reads_at_the_head_see_every_later_commit(supply: Store) -> None:
    start = supply_revisions(supply)[-1]
    first = commit(supply, [UpsertRecord("Supplier", "S-1001", {"risk_score": 10})])
    second = commit(supply, [UpsertRecord("Supplier", "S-1001", {"tier": 2})])
    record = read_record(supply, DOMAIN, "Supplier", "S-1001")
    assert record is not None
    assert (record.values["risk_score"], record.values["tier"], record.values["risk_band"]) == (
        "10",
        "2",
        "normal",
    )
    assert record.revision == second.id
    assert read_record(supply, DOMAIN, "Supplier", "S-1001", at=second.id) == record
    view = supply.view(DOMAIN)
    assert (view.revision, view.at_head) == (second.id, True)
    older = supply.view(DOMAIN, at=first.id)
    assert (older.revision, older.at_head) == (first.id, False)
    at_start = read_record(supply, DOMAIN, "Supplier", "S-1001", at=start.id)
    assert at_start is not None
    assert (at_start.values["risk_score"], at_start.values["tier"]) == ("90", "1")


def test_log_lists_revisions_newest_first(supply: Store) -> None:
    log = supply.log(DOMAIN)
    assert [revision.generation for revision in log] == [4, 3, 2, 1]
    assert [revision.message for revision in supply.log(DOMAIN, limit=2)] == [
        "Activate C-3013 after countersignature",
        "Extend C-3013 by one year and raise its value to 240000.00 EUR",
    ]


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("deadbeef", id="hex-prefix-of-nothing"),
        pytest.param("0" * 64, id="full-length-id-of-nothing"),
        pytest.param("no-such-tag", id="unknown-tag"),
        pytest.param("abc", id="prefix-too-short"),
        pytest.param("", id="empty"),
    ],
)
def test_an_unknown_revision_raises(supply: Store, text: str) -> None:
    with pytest.raises(RevisionNotFound):
        read_record(supply, DOMAIN, "Supplier", "S-1001", at=text)
    with pytest.raises(RevisionNotFound):
        supply.revision(DOMAIN, text)


def test_a_prefix_shorter_than_four_digits_is_not_resolved(supply: Store) -> None:
    first = supply_revisions(supply)[0]
    with pytest.raises(RevisionNotFound):
        supply.revision(DOMAIN, first.id[:3])
    assert supply.revision(DOMAIN, first.id[:4]) == first


def test_a_prefix_of_two_revisions_is_ambiguous(supply: Store) -> None:
    """Commit until two Revision ids share their first four hex digits, then read at that prefix."""
    seen = {revision.id[:4]: revision.id for revision in supply.log(DOMAIN)}
    clash = None
    for number in range(5000):  # about 300 commits on average; fixed times make it repeatable
        revision = commit(
            supply,
            [UpsertRecord("Part", "P-10001", {"unit_cost": f"{number}.00"})],
            message=f"price {number}",
            created_at="2026-11-01T00:00:00Z",
        )
        if revision.id[:4] in seen:
            clash = revision
            break
        seen[revision.id[:4]] = revision.id
    assert clash is not None, "no two Revision ids shared four hex digits"
    prefix = clash.id[:4]
    with pytest.raises(AmbiguousRevision) as raised:
        supply.revision(DOMAIN, prefix)
    assert raised.value.to_problem()["status"] == 409
    with pytest.raises(AmbiguousRevision):
        read_record(supply, DOMAIN, "Part", "P-10001", at=prefix)
    # one more digit that differs makes each of them unique again
    other = seen[prefix]
    common = next(index for index, (a, b) in enumerate(zip(clash.id, other, strict=True)) if a != b)
    assert supply.revision(DOMAIN, clash.id[: common + 1]).id == clash.id
    assert supply.revision(DOMAIN, other[: common + 1]).id == other


def test_a_revision_not_on_the_branch_raises(supply: Store) -> None:
    fork = supply_revisions(supply)[-1]
    supply.create_branch(DOMAIN, "draft", created_by="usr_tester")
    on_branch = commit(
        supply, [UpsertRecord("Part", "P-10001", {"unit_cost": "1.00"})], branch="draft"
    )
    on_main = commit(supply, [UpsertRecord("Part", "P-10002", {"unit_cost": "2.00"})])
    with pytest.raises(RevisionNotOnBranch) as raised:
        read_record(supply, DOMAIN, "Part", "P-10001", at=on_branch.id)
    assert isinstance(raised.value, NotFound)
    assert raised.value.to_problem()["status"] == 404
    with pytest.raises(RevisionNotOnBranch):
        read_record(supply, DOMAIN, "Part", "P-10002", branch="draft", at=on_main.id)
    with pytest.raises(RevisionNotOnBranch):
        supply.view(DOMAIN, branch="draft", at=on_main.id[:12])
    # the fork and what came before it are the branch's history too
    at_fork = read_record(supply, DOMAIN, "Part", "P-10001", branch="draft", at=fork.id)
    assert at_fork is not None
    assert at_fork.values["unit_cost"] == "0.38"
    latest = read_record(supply, DOMAIN, "Part", "P-10001", branch="draft", at=on_branch.id[:12])
    assert latest is not None
    assert latest.values["unit_cost"] == "1.00"


# -- tags ----------------------------------------------------------------------------------------


def test_tags_name_revisions(supply: Store) -> None:
    first, second, *_ = supply_revisions(supply)
    tagged = supply.create_tag(DOMAIN, "v1.0", first.id[:12], created_by="usr_tester")
    supply.create_tag(DOMAIN, "release/2", second.id, created_by="usr_tester")
    assert tagged == first
    assert supply.tags(DOMAIN) == {"release/2": second.id, "v1.0": first.id}


def test_a_tag_name_is_unique(supply: Store) -> None:
    first, second, *_ = supply_revisions(supply)
    supply.create_tag(DOMAIN, "v1", first.id, created_by="usr_tester")
    with pytest.raises(AlreadyExists):
        supply.create_tag(DOMAIN, "v1", second.id, created_by="usr_tester")
    assert supply.tags(DOMAIN) == {"v1": first.id}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("", id="empty"),
        pytest.param("..", id="dots"),
        pytest.param("a//b", id="empty-segment"),
        pytest.param("/x", id="leading-slash"),
        pytest.param("v1 final", id="space"),
    ],
)
def test_a_bad_tag_name_is_refused(supply: Store, name: str) -> None:
    first = supply_revisions(supply)[0]
    with pytest.raises(BadRequest):
        supply.create_tag(DOMAIN, name, first.id, created_by="usr_tester")
    assert supply.tags(DOMAIN) == {}


def test_a_tag_of_an_unknown_revision_is_refused(supply: Store) -> None:
    with pytest.raises(RevisionNotFound):
        supply.create_tag(DOMAIN, "v1", "deadbeef", created_by="usr_tester")
