"""Branches: overlay and copy branches see their base as of the fork and keep their own commits."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from lorebase_core.changes import DeleteRecord, UpsertRecord
from lorebase_core.errors import (
    AlreadyExists,
    BadRequest,
    BranchNameReserved,
    BranchNameTaken,
    BranchNotFound,
    RevisionNotFound,
    ValuesInvalid,
)
from lorebase_store.store import BranchMode, Store
from lorebase_store.testing import change_request as request
from lorebase_store.testing import commit_changes as commit
from lorebase_store.testing import read_count, read_links, read_record

DOMAIN = "supply"
MODES = [pytest.param("overlay", id="overlay"), pytest.param("copy", id="copy")]


def value(store: Store, kind: str, key: str, attribute: str, **where: Any) -> Any:
    record = read_record(store, DOMAIN, kind, key, **where)
    return None if record is None else record.values.get(attribute)


@pytest.mark.parametrize("mode", MODES)
def test_a_branch_starts_at_the_head_of_its_base(supply: Store, mode: BranchMode) -> None:
    head = supply.branch(DOMAIN, "main").head_revision
    branch = supply.create_branch(DOMAIN, "draft", mode=mode, created_by="usr_tester")
    assert (branch.name, branch.mode, branch.base_branch) == ("draft", mode, "main")
    assert branch.head_revision == head
    assert branch.base_revision == head
    assert (branch.protected, branch.created_by) == (False, "usr_tester")
    assert supply.branch(DOMAIN, "draft") == branch
    assert [info.name for info in supply.branches(DOMAIN)] == ["draft", "main"]
    assert supply.branch(DOMAIN, "main").protected
    assert read_count(supply, DOMAIN, "Supplier", branch="draft") == 30
    assert value(supply, "Supplier", "S-1001", "risk_score", branch="draft") == "90"


@pytest.mark.parametrize("mode", MODES)
def test_a_branch_does_not_see_base_commits_made_after_its_fork(
    supply: Store, mode: BranchMode
) -> None:
    supply.create_branch(DOMAIN, "draft", mode=mode, created_by="usr_tester")
    commit(
        supply,
        [
            UpsertRecord("Part", "P-10001", {"unit_cost": "9.99"}),
            UpsertRecord("Part", "P-10041", {"name": "Wave spring 40 mm"}),
            DeleteRecord("Plant", "PL-05"),
        ],
    )
    assert value(supply, "Part", "P-10001", "unit_cost") == "9.99"
    assert value(supply, "Part", "P-10001", "unit_cost", branch="draft") == "0.38"
    assert read_record(supply, DOMAIN, "Part", "P-10041", branch="draft") is None
    assert read_count(supply, DOMAIN, "Part", branch="draft") == 40
    assert read_record(supply, DOMAIN, "Plant", "PL-05", branch="draft") is not None
    assert len(read_links(supply, DOMAIN, "stocked_at", to_key="PL-05", branch="draft")) > 0


@pytest.mark.parametrize("mode", MODES)
def test_commits_on_a_branch_do_not_touch_its_base(supply: Store, mode: BranchMode) -> None:
    base_head = supply.branch(DOMAIN, "main").head_revision
    supply.create_branch(DOMAIN, "draft", mode=mode, created_by="usr_tester")
    revision = commit(
        supply,
        [
            UpsertRecord("Contract", "C-3013", {"status": "terminated"}),
            UpsertRecord("Part", "P-10041", {"name": "Wave spring 40 mm"}),
            DeleteRecord("Part", "P-10002"),
        ],
        branch="draft",
    )
    assert (revision.branch, revision.parents) == ("draft", [base_head])
    assert revision.generation == 5
    assert supply.branch(DOMAIN, "draft").head_revision == revision.id
    assert supply.branch(DOMAIN, "main").head_revision == base_head
    assert value(supply, "Contract", "C-3013", "status", branch="draft") == "terminated"
    assert value(supply, "Contract", "C-3013", "status") == "active"
    assert read_record(supply, DOMAIN, "Part", "P-10041") is None
    assert read_record(supply, DOMAIN, "Part", "P-10002", branch="draft") is None
    assert read_record(supply, DOMAIN, "Part", "P-10002") is not None
    assert (
        read_count(supply, DOMAIN, "Part", branch="draft"),
        read_count(supply, DOMAIN, "Part"),
    ) == (40, 40)
    # deleting the Part deleted its Links on the branch only
    assert read_links(supply, DOMAIN, "supplied_by", from_key="P-10002", branch="draft") == []
    assert len(read_links(supply, DOMAIN, "supplied_by", from_key="P-10002")) > 0
    # both sides move on independently
    commit(supply, [UpsertRecord("Contract", "C-3013", {"status": "expired"})])
    assert value(supply, "Contract", "C-3013", "status", branch="draft") == "terminated"
    assert value(supply, "Contract", "C-3013", "status") == "expired"


@pytest.mark.parametrize("mode", MODES)
def test_a_branch_at_an_older_revision_sees_that_revision(supply: Store, mode: BranchMode) -> None:
    first = supply.log(DOMAIN)[-1]
    branch = supply.create_branch(
        DOMAIN, "replay", at=first.id[:12], mode=mode, created_by="usr_tester"
    )
    assert (branch.head_revision, branch.base_revision) == (first.id, first.id)
    assert value(supply, "Supplier", "S-1001", "risk_score", branch="replay") == "72"
    assert value(supply, "Contract", "C-3013", "status", branch="replay") == "draft"
    revision = commit(
        supply, [UpsertRecord("Contract", "C-3013", {"status": "terminated"})], branch="replay"
    )
    assert (revision.parents, revision.generation) == ([first.id], 2)
    contract = read_record(supply, DOMAIN, "Contract", "C-3013", branch="replay")
    assert contract is not None
    # the branch keeps the values of the older Revision for everything else
    assert (contract.values["status"], contract.values["end_date"]) == ("terminated", "2027-09-30")
    assert value(supply, "Contract", "C-3013", "status") == "active"


@pytest.mark.parametrize("mode", MODES)
def test_a_branch_of_a_branch_sees_both(supply: Store, mode: BranchMode) -> None:
    original = {key: value(supply, "Part", key, "unit_cost") for key in ("P-10002", "P-10003")}
    supply.create_branch(DOMAIN, "draft", created_by="usr_tester")
    commit(supply, [UpsertRecord("Part", "P-10001", {"unit_cost": "1.00"})], branch="draft")
    nested = supply.create_branch(
        DOMAIN, "draft/review", from_branch="draft", mode=mode, created_by="usr_tester"
    )
    assert nested.base_branch == "draft"
    commit(supply, [UpsertRecord("Part", "P-10002", {"unit_cost": "2.00"})], branch="draft/review")
    commit(supply, [UpsertRecord("Part", "P-10003", {"unit_cost": "3.00"})], branch="draft")
    costs = {
        key: value(supply, "Part", key, "unit_cost", branch="draft/review")
        for key in ("P-10001", "P-10002", "P-10003")
    }
    assert costs == {"P-10001": "1.00", "P-10002": "2.00", "P-10003": original["P-10003"]}
    assert value(supply, "Part", "P-10002", "unit_cost", branch="draft") == original["P-10002"]
    assert value(supply, "Part", "P-10001", "unit_cost") == "0.38"


def test_a_branch_of_an_unknown_branch_is_refused(supply: Store) -> None:
    with pytest.raises(BranchNotFound):
        supply.create_branch(DOMAIN, "draft", from_branch="nope", created_by="usr_tester")
    with pytest.raises(RevisionNotFound):
        supply.create_branch(DOMAIN, "draft", at="deadbeef", created_by="usr_tester")
    assert [info.name for info in supply.branches(DOMAIN)] == ["main"]


@pytest.mark.parametrize(
    "name", [pytest.param("main", id="default"), pytest.param("draft", id="other")]
)
def test_a_branch_name_is_unique(supply: Store, name: str) -> None:
    supply.create_branch(DOMAIN, "draft", created_by="usr_tester")
    with pytest.raises(AlreadyExists):
        supply.create_branch(DOMAIN, name, mode="copy", created_by="usr_tester")
    assert [info.name for info in supply.branches(DOMAIN)] == ["draft", "main"]


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("", id="empty"),
        pytest.param("..", id="dots"),
        pytest.param("a/../b", id="dots-segment"),
        pytest.param("a//b", id="empty-segment"),
        pytest.param("/x", id="leading-slash"),
        pytest.param("x/", id="trailing-slash"),
        pytest.param("-x", id="leading-dash"),
        pytest.param("a b", id="space"),
        pytest.param("a~b", id="tilde"),
        pytest.param("x" * 256, id="too-long"),
    ],
)
def test_a_bad_branch_name_is_refused(supply: Store, name: str) -> None:
    with pytest.raises(BadRequest):
        supply.create_branch(DOMAIN, name, created_by="usr_tester")
    assert [info.name for info in supply.branches(DOMAIN)] == ["main"]


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("draft", id="word"),
        pytest.param("feature/risk-2026", id="path"),
        pytest.param("v1.0_rc", id="dots-and-underscore"),
        pytest.param("x" * 255, id="longest"),
    ],
)
def test_a_good_branch_name_is_accepted(supply: Store, name: str) -> None:
    assert supply.create_branch(DOMAIN, name, created_by="usr_tester").name == name


@pytest.mark.parametrize(
    ("existing", "name"),
    [
        pytest.param("main", "Main", id="default"),
        pytest.param("draft", "DRAFT", id="upper"),
        pytest.param("feature/Risk", "feature/risk", id="lower"),
    ],
)
def test_a_branch_name_differing_only_in_case_is_refused(
    supply: Store, existing: str, name: str
) -> None:
    if existing != "main":
        supply.create_branch(DOMAIN, existing, created_by="usr_tester")
    with pytest.raises(BranchNameTaken) as raised:
        supply.create_branch(DOMAIN, name, created_by="usr_tester")
    assert raised.value.extra == {"branch": name, "existing": existing}
    assert isinstance(raised.value, AlreadyExists)
    assert name not in [info.name for info in supply.branches(DOMAIN)]


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("agent/svc_agent/q4-audit", id="task-branch"),
        pytest.param("agent/x", id="under"),
        pytest.param("AGENT/svc_agent/q4-audit", id="other-case"),
    ],
)
def test_names_under_the_reserved_prefix_are_refused(supply: Store, name: str) -> None:
    with pytest.raises(BranchNameReserved) as raised:
        supply.create_branch(DOMAIN, name, created_by="usr_tester", reserved_prefix="agent/")
    assert raised.value.extra == {"branch": name, "reserved_prefix": "agent/"}
    assert [issue.path for issue in raised.value.issues] == ["name"]
    assert [info.name for info in supply.branches(DOMAIN)] == ["main"]
    made = supply.create_branch(
        DOMAIN, "agents/x", created_by="usr_tester", reserved_prefix="agent/"
    )
    assert made.name == "agents/x"


def test_concurrent_creations_of_one_name_in_two_cases_make_one_branch(supply: Store) -> None:
    names = [f"race-{n}" for n in range(5)]
    outcomes: list[str] = []
    barrier = threading.Barrier(2)

    def create(name: str) -> None:
        barrier.wait()
        try:
            supply.create_branch(DOMAIN, name, created_by="usr_tester")
            outcomes.append("created")
        except AlreadyExists:
            outcomes.append("refused")

    for name in names:
        threads = [
            threading.Thread(target=create, args=(variant,)) for variant in (name, name.upper())
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert sorted(outcomes) == ["created"] * len(names) + ["refused"] * len(names)
    live = [info.name.lower() for info in supply.branches(DOMAIN)]
    assert sorted(live) == sorted(["main", *names])


def test_log_of_an_overlay_branch_continues_into_its_base(supply: Store) -> None:
    base = [revision.id for revision in supply.log(DOMAIN)]
    supply.create_branch(DOMAIN, "draft", created_by="usr_tester")
    commit(supply, [UpsertRecord("Part", "P-10001", {"unit_cost": "2.00"})])
    own = commit(supply, [UpsertRecord("Part", "P-10001", {"unit_cost": "1.00"})], branch="draft")
    assert [revision.id for revision in supply.log(DOMAIN, branch="draft")] == [own.id, *base]
    assert [revision.id for revision in supply.log(DOMAIN, branch="draft", limit=2)] == [
        own.id,
        base[0],
    ]


# -- known bugs ----------------------------------------------------------------------------------


def test_an_overlay_branch_may_change_a_record_with_a_unique_value(supply: Store) -> None:
    supply.create_branch(DOMAIN, "draft", created_by="usr_tester")
    commit(supply, [UpsertRecord("Supplier", "S-1003", {"risk_score": 12})], branch="draft")
    assert value(supply, "Supplier", "S-1003", "risk_score", branch="draft") == "12"


def test_an_overlay_branch_refuses_a_unique_value_its_base_holds(supply: Store) -> None:
    supply.create_branch(DOMAIN, "draft", created_by="usr_tester")
    taken = value(supply, "Supplier", "S-1001", "vat_number")
    with pytest.raises(ValuesInvalid) as raised:
        supply.commit(
            request(branch="draft"),
            [UpsertRecord("Supplier", "S-1031", {"legal_name": "Copycat", "vat_number": taken})],
        )
    assert [issue.code for issue in raised.value.issues] == ["value.unique"]


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
def test_a_branch_reads_at_its_fork_revision_and_logs_it(supply: Store, mode: BranchMode) -> None:
    fork = supply.branch(DOMAIN, "main").head_revision
    assert fork is not None
    branch = supply.create_branch(DOMAIN, "draft", mode=mode, created_by="usr_tester")
    assert branch.head_revision == fork
    assert value(supply, "Supplier", "S-1001", "risk_score", branch="draft", at=fork) == "90"
    own = commit(supply, [UpsertRecord("Part", "P-10001", {"unit_cost": "1.00"})], branch="draft")
    assert value(supply, "Part", "P-10001", "unit_cost", branch="draft", at=fork[:12]) == "0.38"
    assert [revision.id for revision in supply.log(DOMAIN, branch="draft", limit=2)] == [
        own.id,
        fork,
    ]


def test_the_same_change_at_the_same_time_on_two_branches_makes_two_revisions(
    supply: Store,
) -> None:
    made = []
    for name in ("left", "right"):
        supply.create_branch(DOMAIN, name, created_by="usr_tester")
    for name in ("left", "right"):
        made.append(
            commit(
                supply,
                [UpsertRecord("Part", "P-10001", {"unit_cost": "9.99"})],
                branch=name,
                created_at="2026-11-01T00:00:00Z",
            )
        )
    assert [revision.branch for revision in made] == ["left", "right"]
    for name in ("left", "right"):
        assert value(supply, "Part", "P-10001", "unit_cost", branch=name) == "9.99"
