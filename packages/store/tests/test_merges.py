"""Merges of one branch into another: fast-forward, three-way, Conflicts and their resolutions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from lorebase_core.changes import DeleteRecord, UpsertLink, UpsertRecord
from lorebase_core.errors import BadRequest, MergeConflicts, StaleHead
from lorebase_store.results import RevisionInfo
from lorebase_store.store import BranchMode, Store
from lorebase_store.testing import commit_changes as commit
from lorebase_store.testing import read_lineage, read_links, read_record
from lorebase_store.writes.merges import ConflictResolution
from lorebase_store.writes.writes import BranchMerge

DOMAIN = "supply"
MODES = [pytest.param("overlay", id="overlay"), pytest.param("copy", id="copy")]
S1001 = "Supplier/S-1001"


def value(store: Store, kind: str, key: str, attribute: str, *, branch: str = "main") -> Any:
    record = read_record(store, DOMAIN, kind, key, branch=branch)
    return None if record is None else record.values.get(attribute)


def head(store: Store, branch: str = "main") -> str | None:
    return store.branch(DOMAIN, branch).head_revision


def first_revision(store: Store) -> RevisionInfo:
    """The import Revision of the supply example."""
    return store.log(DOMAIN, limit=100)[-1]


def merge(
    store: Store, resolutions: Mapping[tuple[str, str], ConflictResolution] | None = None
) -> BranchMerge:
    return store.writes.merge_branch(
        DOMAIN,
        "work",
        into="main",
        author="usr_merger",
        message="Merge work",
        resolutions=resolutions or {},
    )


def work_branch(store: Store, mode: BranchMode = "overlay") -> None:
    store.create_branch(DOMAIN, "work", mode=mode, created_by="usr_tester")


def merge_audit(store: Store) -> list[tuple[str, str, dict[str, Any]]]:
    """The branch.merge audit entries: principal, merged branch, details."""
    return [
        (entry.principal, entry.target, entry.details)
        for entry in store.writes.audit(DOMAIN)
        if entry.action == "branch.merge"
    ]


# -- fast-forward and three-way merges -----------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_a_change_on_the_source_only_fast_forwards(supply: Store, mode: BranchMode) -> None:
    main_head = head(supply)
    imported = first_revision(supply)
    work_branch(supply, mode)
    changed = commit(
        supply, [UpsertRecord("Supplier", "S-1001", {"risk_score": 95})], branch="work"
    )

    merged = merge(supply)

    assert merged.result == "fast_forward"
    assert merged.plan.conflicts == []
    assert merged.plan.resolved == []
    assert (merged.plan.base_revision, merged.plan.source_head, merged.plan.target_head) == (
        main_head,
        changed.id,
        main_head,
    )
    assert value(supply, "Supplier", "S-1001", "risk_score") == "95"
    new_head = head(supply)
    assert new_head not in (main_head, changed.id)
    assert merged.revision == new_head
    revision = supply.log(DOMAIN, limit=1)[0]
    assert revision.id == new_head
    assert revision.parents == [main_head, changed.id]
    assert (revision.origin_type, revision.origin_ref) == ("merge", "work")
    assert (revision.branch, revision.author, revision.message) == (
        "main",
        "usr_merger",
        "Merge work",
    )
    assert revision.stats["changes"] == 1
    # the value keeps the Revision that set it on the source; the other values keep theirs
    lineage = read_lineage(supply, DOMAIN, "Supplier", "S-1001")
    assert lineage.attributes["risk_score"].revision == changed.id
    assert lineage.attributes["risk_score"].origin_type == "operation"
    others = {name: p.revision for name, p in lineage.attributes.items() if name != "risk_score"}
    assert others == dict.fromkeys(others, imported.id)
    assert set(others) == {
        "city",
        "contact_email",
        "country",
        "legal_name",
        "risk_band",
        "status",
        "supplier_code",
        "tier",
        "vat_number",
    }
    # the source branch is untouched; the merge is audited and announced
    assert head(supply, "work") == changed.id
    assert merge_audit(supply) == [
        ("usr_merger", "work", {"target": "main", "result": "fast_forward", "revision": new_head})
    ]
    event = supply.events(DOMAIN, limit=100)[-1]
    assert (event["type"], event["branch"], event["revision"]) == (
        "revision.committed",
        "main",
        new_head,
    )
    assert event["parents"] == [main_head, changed.id]
    assert event["origin"] == {"type": "merge", "ref": "work"}


@pytest.mark.parametrize("mode", MODES)
def test_a_fast_forward_gives_the_target_the_lineage_of_the_source(
    supply: Store, mode: BranchMode
) -> None:
    """risk_score 50 also changes the derived risk_band (high -> normal) on the source."""
    work_branch(supply, mode)
    commit(supply, [UpsertRecord("Supplier", "S-1001", {"risk_score": 50})], branch="work")
    on_work = read_lineage(supply, DOMAIN, "Supplier", "S-1001", branch="work")

    assert merge(supply).result == "fast_forward"

    assert value(supply, "Supplier", "S-1001", "risk_band") == "normal"
    on_main = read_lineage(supply, DOMAIN, "Supplier", "S-1001")
    assert {name: p.revision for name, p in on_main.attributes.items()} == {
        name: p.revision for name, p in on_work.attributes.items()
    }


@pytest.mark.parametrize("mode", MODES)
def test_changes_to_different_attributes_of_one_record_merge(
    supply: Store, mode: BranchMode
) -> None:
    work_branch(supply, mode)
    on_work = commit(
        supply, [UpsertRecord("Supplier", "S-1001", {"risk_score": 95})], branch="work"
    )
    on_main = commit(supply, [UpsertRecord("Supplier", "S-1001", {"tier": 2})])

    merged = merge(supply)

    assert merged.result == "merge"
    assert merged.plan.conflicts == []
    assert (merged.plan.source_head, merged.plan.target_head) == (on_work.id, on_main.id)
    record = read_record(supply, DOMAIN, "Supplier", "S-1001")
    assert record is not None
    assert (record.values["risk_score"], record.values["tier"]) == ("95", "2")
    revision = supply.log(DOMAIN, limit=1)[0]
    assert revision.id == merged.revision == head(supply)
    assert revision.parents == [on_main.id, on_work.id]
    assert revision.origin_type == "merge"
    lineage = read_lineage(supply, DOMAIN, "Supplier", "S-1001")
    assert lineage.attributes["risk_score"].revision == on_work.id
    assert lineage.attributes["tier"].revision == on_main.id
    # the source keeps its own view
    assert value(supply, "Supplier", "S-1001", "tier", branch="work") == "1"


@pytest.mark.parametrize("mode", MODES)
def test_a_new_record_and_link_on_the_source_reach_the_target(
    supply: Store, mode: BranchMode
) -> None:
    work_branch(supply, mode)
    created = commit(
        supply,
        [
            UpsertRecord(
                "RiskFlag",
                "RF-S-1002-0009",
                {"severity": "medium", "reason": "Port strike", "status": "open"},
            ),
            UpsertLink("flags", "RF-S-1002-0009", "S-1002"),
        ],
        branch="work",
    )
    assert read_record(supply, DOMAIN, "RiskFlag", "RF-S-1002-0009") is None

    merged = merge(supply)

    assert merged.result == "fast_forward"
    assert len(merged.plan.changes) == 2
    record = read_record(supply, DOMAIN, "RiskFlag", "RF-S-1002-0009")
    assert record is not None
    assert (record.values["severity"], record.values["reason"]) == ("medium", "Port strike")
    links = read_links(supply, DOMAIN, "flags", from_key="RF-S-1002-0009")
    assert [(link.from_key, link.to_key) for link in links] == [("RF-S-1002-0009", "S-1002")]
    assert supply.log(DOMAIN, limit=1)[0].stats["changes"] == 2
    lineage = read_lineage(supply, DOMAIN, "RiskFlag", "RF-S-1002-0009")
    assert {p.revision for p in lineage.attributes.values()} == {created.id}


def test_a_link_changed_on_the_source_only_is_taken(supply: Store) -> None:
    work_branch(supply)
    commit(
        supply,
        [UpsertLink("supplied_by", "P-10001", "S-1013", {"lead_time_days": 12})],
        branch="work",
    )
    commit(supply, [UpsertRecord("Supplier", "S-1013", {"tier": 2})])

    assert merge(supply).result == "merge"

    [link] = read_links(supply, DOMAIN, "supplied_by", from_key="P-10001", to_key="S-1013")
    assert link.values["lead_time_days"] == "12"
    assert value(supply, "Supplier", "S-1013", "tier") == "2"


def test_a_merge_expecting_another_target_head_is_refused(supply: Store) -> None:
    work_branch(supply)
    commit(supply, [UpsertRecord("Supplier", "S-1001", {"risk_score": 95})], branch="work")
    stale = head(supply)
    on_main = commit(supply, [UpsertRecord("Supplier", "S-1001", {"tier": 2})])

    with pytest.raises(StaleHead):
        supply.writes.merge_branch(
            DOMAIN,
            "work",
            into="main",
            author="usr_merger",
            message="Merge work",
            resolutions={},
            expected_head=stale,
        )

    assert head(supply) == on_main.id
    assert value(supply, "Supplier", "S-1001", "risk_score") == "90"
    assert merge_audit(supply) == []


# -- nothing to merge ----------------------------------------------------------------------------


def test_merging_an_unchanged_branch_is_up_to_date(supply: Store) -> None:
    main_head = head(supply)
    revisions = len(supply.log(DOMAIN, limit=100))
    work_branch(supply)

    merged = merge(supply)

    assert merged.result == "up_to_date"
    assert merged.revision == main_head
    assert merged.plan.changes == []
    assert head(supply) == main_head
    assert len(supply.log(DOMAIN, limit=100)) == revisions
    assert merge_audit(supply) == [
        ("usr_merger", "work", {"target": "main", "result": "up_to_date", "revision": main_head})
    ]


def test_merging_when_only_the_target_changed_is_up_to_date(supply: Store) -> None:
    work_branch(supply)
    on_main = commit(supply, [UpsertRecord("Supplier", "S-1001", {"tier": 2})])

    merged = merge(supply)

    assert merged.result == "up_to_date"
    assert merged.revision == on_main.id == head(supply)


def test_the_same_change_on_both_sides_writes_nothing(supply: Store) -> None:
    work_branch(supply)
    commit(supply, [UpsertRecord("Supplier", "S-1001", {"risk_score": 95})], branch="work")
    on_main = commit(supply, [UpsertRecord("Supplier", "S-1001", {"risk_score": 95})])
    revisions = len(supply.log(DOMAIN, limit=100))
    events = len(supply.events(DOMAIN, limit=1000))

    merged = merge(supply)

    # no Conflict, nothing to take: up to date, and no empty Revision is made
    assert merged.result == "up_to_date"
    assert merged.plan.conflicts == []
    assert merged.plan.changes == []
    assert merged.revision == on_main.id == head(supply)
    assert len(supply.log(DOMAIN, limit=100)) == revisions
    assert len(supply.events(DOMAIN, limit=1000)) == events
    assert value(supply, "Supplier", "S-1001", "risk_score") == "95"


# -- Conflicts -----------------------------------------------------------------------------------


def conflicting(store: Store, mode: BranchMode = "overlay") -> tuple[RevisionInfo, RevisionInfo]:
    """risk_score of S-1001: 90 at the fork, 95 on work, 40 on main."""
    work_branch(store, mode)
    on_work = commit(store, [UpsertRecord("Supplier", "S-1001", {"risk_score": 95})], branch="work")
    on_main = commit(store, [UpsertRecord("Supplier", "S-1001", {"risk_score": 40})])
    return on_work, on_main


@pytest.mark.parametrize("mode", MODES)
def test_both_sides_changing_one_attribute_is_a_conflict(supply: Store, mode: BranchMode) -> None:
    _, on_main = conflicting(supply, mode)
    revisions = len(supply.log(DOMAIN, limit=100))

    with pytest.raises(MergeConflicts) as raised:
        merge(supply)

    error = raised.value
    assert (error.status, error.code) == (409, "merge-conflicts")
    assert error.extra["source"] == "work"
    assert error.extra["target"] == "main"
    assert error.extra["counts"] == {"modified-both": 1}
    assert error.extra["conflicts"] == [
        {
            "entity": "record",
            "ref": S1001,
            "attribute": "risk_score",
            "code": "modified-both",
            "base": "90",
            "source": "95",
            "target": "40",
        }
    ]
    # nothing was written on main
    assert head(supply) == on_main.id
    assert len(supply.log(DOMAIN, limit=100)) == revisions
    assert value(supply, "Supplier", "S-1001", "risk_score") == "40"
    assert merge_audit(supply) == []


@pytest.mark.parametrize(
    ("resolution", "expected"),
    [
        pytest.param(("source", None), "95", id="source"),
        pytest.param(("value", "55"), "55", id="value"),
    ],
)
def test_a_resolution_settles_the_conflict(
    supply: Store, resolution: ConflictResolution, expected: str
) -> None:
    on_work, on_main = conflicting(supply)

    merged = merge(supply, {(S1001, "risk_score"): resolution})

    assert merged.result == "merge"
    assert merged.plan.conflicts == []
    assert [(c.ref, c.attribute, c.code) for c in merged.plan.resolved] == [
        (S1001, "risk_score", "modified-both")
    ]
    assert value(supply, "Supplier", "S-1001", "risk_score") == expected
    revision = supply.log(DOMAIN, limit=1)[0]
    assert revision.parents == [on_main.id, on_work.id]
    setter = read_lineage(supply, DOMAIN, "Supplier", "S-1001").attributes["risk_score"].revision
    # a value taken from the source keeps its Revision; a value given by the resolver is the merge's
    assert setter == (on_work.id if resolution[0] == "source" else revision.id)


def test_a_target_resolution_keeps_the_target_value_and_writes_nothing(supply: Store) -> None:
    _, on_main = conflicting(supply)

    merged = merge(supply, {(S1001, "risk_score"): ("target", None)})

    assert merged.plan.conflicts == []
    assert len(merged.plan.resolved) == 1
    # the target already holds the merged content: nothing to write, no empty Revision
    assert merged.result == "up_to_date"
    assert merged.revision == on_main.id == head(supply)
    assert value(supply, "Supplier", "S-1001", "risk_score") == "40"


def test_a_resolution_of_another_attribute_leaves_the_conflict_open(supply: Store) -> None:
    conflicting(supply)
    with pytest.raises(MergeConflicts) as raised:
        merge(supply, {(S1001, "tier"): ("source", None)})
    assert [c["attribute"] for c in raised.value.extra["conflicts"]] == ["risk_score"]


def test_a_record_deleted_on_the_source_and_changed_on_the_target_is_a_conflict(
    supply: Store,
) -> None:
    work_branch(supply)
    commit(supply, [DeleteRecord("Supplier", "S-1001")], branch="work")
    on_main = commit(supply, [UpsertRecord("Supplier", "S-1001", {"risk_score": 40})])

    with pytest.raises(MergeConflicts) as raised:
        merge(supply)

    assert raised.value.extra["counts"] == {"deleted-modified": 1}
    [found] = raised.value.extra["conflicts"]
    assert (found["entity"], found["ref"], found["attribute"], found["code"]) == (
        "record",
        S1001,
        "",
        "deleted-modified",
    )
    assert found["source"] is None
    assert found["base"]["risk_score"] == "90"
    assert found["target"]["risk_score"] == "40"
    assert head(supply) == on_main.id
    # a whole-Record Conflict is settled by a side, not by a value
    with pytest.raises(BadRequest):
        merge(supply, {(S1001, ""): ("value", {"risk_score": "50"})})
    assert head(supply) == on_main.id


def test_a_record_changed_on_the_source_and_deleted_on_the_target_is_a_conflict(
    supply: Store,
) -> None:
    work_branch(supply)
    commit(supply, [UpsertRecord("Supplier", "S-1001", {"risk_score": 95})], branch="work")
    commit(supply, [DeleteRecord("Supplier", "S-1001")])

    with pytest.raises(MergeConflicts) as raised:
        merge(supply)

    [found] = raised.value.extra["conflicts"]
    assert (found["ref"], found["attribute"], found["code"]) == (S1001, "", "modified-deleted")
    assert (found["source"]["risk_score"], found["target"]) == ("95", None)

    merged = merge(supply, {(S1001, ""): ("source", None)})
    assert merged.result == "merge"
    assert value(supply, "Supplier", "S-1001", "risk_score") == "95"


def test_a_record_deleted_on_both_sides_is_no_conflict(supply: Store) -> None:
    work_branch(supply)
    commit(supply, [DeleteRecord("Supplier", "S-1001")], branch="work")
    on_main = commit(supply, [DeleteRecord("Supplier", "S-1001")])

    merged = merge(supply)

    assert merged.plan.conflicts == []
    assert merged.result == "up_to_date"
    assert merged.revision == on_main.id == head(supply)
    assert read_record(supply, DOMAIN, "Supplier", "S-1001") is None


def test_a_link_changed_differently_on_both_sides_is_a_conflict(supply: Store) -> None:
    work_branch(supply)
    commit(
        supply,
        [UpsertLink("supplied_by", "P-10001", "S-1013", {"lead_time_days": 12})],
        branch="work",
    )
    commit(supply, [UpsertLink("supplied_by", "P-10001", "S-1013", {"lead_time_days": 20})])
    ref = "supplied_by:P-10001->S-1013"

    with pytest.raises(MergeConflicts) as raised:
        merge(supply)

    [found] = raised.value.extra["conflicts"]
    assert (found["entity"], found["ref"], found["attribute"], found["code"]) == (
        "link",
        ref,
        "",
        "link-modified-both",
    )
    assert (
        found["base"]["lead_time_days"],
        found["source"]["lead_time_days"],
        found["target"]["lead_time_days"],
    ) == ("10", "12", "20")

    assert merge(supply, {(ref, ""): ("source", None)}).result == "merge"
    [link] = read_links(supply, DOMAIN, "supplied_by", from_key="P-10001", to_key="S-1013")
    assert link.values["lead_time_days"] == "12"


# -- deletions taken from the source -------------------------------------------------------------


def test_a_record_deleted_on_the_source_only_is_deleted_on_the_target(supply: Store) -> None:
    """S-1001 has Links (flags, supplied_by, ordered_from, with_supplier): they go with it."""
    work_branch(supply)
    commit(supply, [DeleteRecord("Supplier", "S-1001")], branch="work")
    commit(supply, [UpsertRecord("Supplier", "S-1002", {"tier": 2})])

    merged = merge(supply)

    assert merged.result == "merge"
    assert read_record(supply, DOMAIN, "Supplier", "S-1001") is None
    assert read_links(supply, DOMAIN, "supplied_by", to_key="S-1001") == []
    assert read_links(supply, DOMAIN, "flags", to_key="S-1001") == []


def test_a_deleted_modified_conflict_resolved_with_source_deletes_the_record(
    supply: Store,
) -> None:
    work_branch(supply)
    commit(supply, [DeleteRecord("Supplier", "S-1001")], branch="work")
    commit(supply, [UpsertRecord("Supplier", "S-1001", {"risk_score": 40})])

    merged = merge(supply, {(S1001, ""): ("source", None)})

    assert merged.result == "merge"
    assert read_record(supply, DOMAIN, "Supplier", "S-1001") is None
    assert read_links(supply, DOMAIN, "supplied_by", to_key="S-1001") == []


def test_a_deleted_modified_conflict_resolved_with_target_keeps_the_record_and_its_links(
    supply: Store,
) -> None:
    links_before = {
        relation: len(read_links(supply, DOMAIN, relation, to_key="S-1001"))
        for relation in ("flags", "supplied_by", "ordered_from", "with_supplier")
    }
    assert all(links_before.values())
    work_branch(supply)
    commit(supply, [DeleteRecord("Supplier", "S-1001")], branch="work")
    commit(supply, [UpsertRecord("Supplier", "S-1001", {"risk_score": 40})])

    merge(supply, {(S1001, ""): ("target", None)})

    assert value(supply, "Supplier", "S-1001", "risk_score") == "40"
    links_after = {
        relation: len(read_links(supply, DOMAIN, relation, to_key="S-1001"))
        for relation in links_before
    }
    assert links_after == links_before


def test_a_record_without_links_deleted_on_the_source_is_deleted_on_the_target(
    supply: Store,
) -> None:
    commit(
        supply,
        [UpsertRecord("Supplier", "S-1099", {"legal_name": "Lonely GmbH", "risk_score": 10})],
    )
    work_branch(supply)
    commit(supply, [DeleteRecord("Supplier", "S-1099")], branch="work")

    assert merge(supply).result == "fast_forward"
    assert read_record(supply, DOMAIN, "Supplier", "S-1099") is None


def test_a_new_link_to_a_record_the_target_deleted_is_a_conflict(supply: Store) -> None:
    """work flags S-1005 with a new RiskFlag; main deleted S-1005 meanwhile. The Link cannot be
    taken: the merge must report it as a Conflict, not fail the commit with invalid values."""
    work_branch(supply)
    commit(
        supply,
        [
            UpsertRecord(
                "RiskFlag",
                "RF-S-1005-0009",
                {"severity": "medium", "reason": "Port strike", "status": "open"},
            ),
            UpsertLink("flags", "RF-S-1005-0009", "S-1005"),
        ],
        branch="work",
    )
    on_main = commit(supply, [DeleteRecord("Supplier", "S-1005")])

    with pytest.raises(MergeConflicts):
        merge(supply)

    assert head(supply) == on_main.id


# -- merging again ----------------------------------------------------------------------------


def test_a_second_merge_of_the_same_branch_starts_from_the_first(supply: Store) -> None:
    """After work was merged, main changes risk_score again and work changes tier only."""
    work_branch(supply)
    commit(supply, [UpsertRecord("Supplier", "S-1001", {"risk_score": 95})], branch="work")
    assert merge(supply).result == "fast_forward"
    commit(supply, [UpsertRecord("Supplier", "S-1001", {"risk_score": 40})])
    commit(supply, [UpsertRecord("Supplier", "S-1001", {"tier": 2})], branch="work")

    merged = merge(supply)

    assert merged.plan.conflicts == []
    assert merged.result == "merge"
    assert value(supply, "Supplier", "S-1001", "risk_score") == "40"
    assert value(supply, "Supplier", "S-1001", "tier") == "2"
