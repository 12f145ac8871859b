"""The event feed: one revision.committed event per commit, in commit order, with its payload."""

from __future__ import annotations

from functools import partial

import pytest

from lorebase_core.changes import DeleteRecord, Origin, UpsertLink, UpsertRecord
from lorebase_core.errors import DomainNotFound, StaleHead, ValuesInvalid
from lorebase_store.store import Store
from lorebase_store.testing import change_request

DOMAIN = "supply"
PAYLOAD_FIELDS = {
    "sequence",
    "type",
    "domain",
    "branch",
    "revision",
    "parents",
    "generation",
    "author",
    "message",
    "origin",
    "stats",
    "created_at",
    "kinds",
    "relations",
    "schema_changed",
    "keys",
    "keys_truncated",
}

request = partial(change_request, origin=Origin("operation", "update_contract"))


def test_the_supply_import_made_one_event_per_revision(supply: Store) -> None:
    events = supply.events(DOMAIN)
    revisions = list(reversed(supply.log(DOMAIN)))
    assert len(events) == len(revisions) == 4
    sequences = [event["sequence"] for event in events]
    assert sequences == sorted(sequences)
    assert len(set(sequences)) == 4
    assert [event["revision"] for event in events] == [revision.id for revision in revisions]
    assert {event["type"] for event in events} == {"revision.committed"}
    first = events[0]
    assert set(first) == PAYLOAD_FIELDS
    assert (first["parents"], first["generation"], first["author"]) == ([], 1, "usr_loader")
    assert first["origin"] == {"type": "import", "ref": "examples/supply"}
    assert first["kinds"] == {
        "Contract": 15,
        "Part": 40,
        "Plant": 5,
        "PurchaseOrder": 50,
        "RiskFlag": 7,
        "Supplier": 30,
    }
    assert first["relations"] == {
        "flags": 7,
        "for_part": 50,
        "ordered_from": 50,
        "stocked_at": 48,
        "supplied_by": 83,
        "with_supplier": 15,
    }
    assert first["stats"] == {"changes": 400, "partitions_changed": 12}
    # the import listed 147 keys: more than the default 100
    assert first["keys_truncated"] is True
    assert sum(len(keys) for keys in first["keys"].values()) == 100
    assert events[1]["keys"] == {"Supplier": ["S-1001"]}
    assert events[1]["keys_truncated"] is False


def test_a_commit_appends_one_event_with_its_payload(supply: Store) -> None:
    last = supply.events(DOMAIN)[-1]["sequence"]
    parent = supply.log(DOMAIN)[0]
    result = supply.commit(
        request("Add C-3016 and retire C-3002", created_at="2026-11-02T10:00:00Z"),
        [
            UpsertRecord("Contract", "C-3016", {"title": "Spare parts 2027 - Kavsen"}),
            UpsertLink("with_supplier", "C-3016", "S-1001"),
            UpsertRecord("Contract", "C-3002", {"status": "terminated"}),
            UpsertRecord("Part", "P-10001", {"unit_cost": "0.40"}),
        ],
    )
    assert result.revision is not None
    [event] = supply.events(DOMAIN, after=last)
    assert event["sequence"] == result.event_sequence
    assert event["sequence"] > last
    assert event == {
        "sequence": result.event_sequence,
        "type": "revision.committed",
        "domain": "supply",
        "branch": "main",
        "revision": result.revision.id,
        "parents": [parent.id],
        "generation": parent.generation + 1,
        "author": "usr_tester",
        "message": "Add C-3016 and retire C-3002",
        "origin": {"type": "operation", "ref": "update_contract"},
        "stats": {"changes": 4, "partitions_changed": 3},
        "created_at": "2026-11-02T10:00:00Z",
        "kinds": {"Contract": 2, "Part": 1},
        "relations": {"with_supplier": 1},
        "schema_changed": False,
        "keys": {"Contract": ["C-3002", "C-3016"], "Part": ["P-10001"]},
        "keys_truncated": False,
    }


def test_events_of_a_branch_name_it(supply: Store) -> None:
    supply.create_branch(DOMAIN, "draft", created_by="usr_tester")
    result = supply.commit(
        request(branch="draft"), [UpsertRecord("Contract", "C-3013", {"status": "expired"})]
    )
    event = supply.events(DOMAIN)[-1]
    assert result.revision is not None
    assert (event["branch"], event["revision"]) == ("draft", result.revision.id)
    assert event["parents"] == [supply.branch(DOMAIN, "main").head_revision]


def test_keys_are_truncated_at_changed_keys_max(supply: Store) -> None:
    supply.commit(
        request(changed_keys_max=1),
        [
            UpsertRecord("Contract", "C-3001", {"status": "expired"}),
            UpsertRecord("Contract", "C-3002", {"status": "expired"}),
            UpsertRecord("Part", "P-10001", {"unit_cost": "0.40"}),
        ],
    )
    event = supply.events(DOMAIN)[-1]
    assert event["keys_truncated"] is True
    listed = [key for keys in event["keys"].values() for key in keys]
    assert len(listed) == 1
    assert listed[0] in {"C-3001", "C-3002", "P-10001"}
    # counts are complete even when keys are not
    assert event["kinds"] == {"Contract": 2, "Part": 1}


def test_keys_are_not_truncated_at_exactly_changed_keys_max(supply: Store) -> None:
    supply.commit(
        request(changed_keys_max=2),
        [
            UpsertRecord("Contract", "C-3001", {"status": "expired"}),
            UpsertRecord("Contract", "C-3002", {"status": "expired"}),
        ],
    )
    event = supply.events(DOMAIN)[-1]
    assert (event["keys"], event["keys_truncated"]) == ({"Contract": ["C-3001", "C-3002"]}, False)


def test_a_deleted_record_is_in_the_keys(supply: Store) -> None:
    supply.commit(request(), [DeleteRecord("Plant", "PL-05")])
    event = supply.events(DOMAIN)[-1]
    assert event["keys"] == {"Plant": ["PL-05"]}
    assert event["kinds"] == {"Plant": 1}
    assert event["relations"]["stocked_at"] >= 1


def test_a_record_changed_twice_in_one_commit_is_listed_once(supply: Store) -> None:
    supply.commit(
        request(),
        [
            UpsertRecord("Supplier", "S-1031", {"legal_name": "Nordic Springs AB"}),
            UpsertRecord("Supplier", "S-1031", {"city": "Malmo"}),
        ],
    )
    event = supply.events(DOMAIN)[-1]
    assert event["keys"] == {"Supplier": ["S-1031"]}
    assert event["kinds"] == {"Supplier": 1}


def test_commits_that_write_nothing_make_no_event(supply: Store) -> None:
    before = supply.events(DOMAIN)
    head = supply.log(DOMAIN)[0]
    supply.commit(request(), [UpsertRecord("Supplier", "S-1001", {"risk_score": 90})])
    with pytest.raises(ValuesInvalid):
        supply.commit(request(), [UpsertRecord("Supplier", "S-1001", {"risk_score": 900})])
    with pytest.raises(StaleHead):
        supply.commit(
            request(expected_head=supply.log(DOMAIN)[-1].id),
            [UpsertRecord("Supplier", "S-1001", {"risk_score": 1})],
        )
    assert supply.events(DOMAIN) == before
    result = supply.commit(
        request(expected_head=head.id), [UpsertRecord("Supplier", "S-1001", {"risk_score": 1})]
    )
    assert result.event_sequence == supply.events(DOMAIN)[-1]["sequence"]
    assert result.event_sequence > before[-1]["sequence"]


def test_events_page_with_after_and_limit(supply: Store) -> None:
    for number in range(3):
        supply.commit(request(), [UpsertRecord("Part", "P-10001", {"unit_cost": f"{number}.50"})])
    every = supply.events(DOMAIN)
    assert len(every) == 7
    sequences = [event["sequence"] for event in every]
    assert sequences == sorted(set(sequences))
    assert supply.events(DOMAIN, limit=2) == every[:2]
    assert supply.events(DOMAIN, after=sequences[1], limit=3) == every[2:5]
    assert supply.events(DOMAIN, after=sequences[-1]) == []
    generations = [event["generation"] for event in every]
    assert generations == list(range(1, 8))


def test_events_of_an_unknown_domain_raise(supply: Store) -> None:
    with pytest.raises(DomainNotFound):
        supply.events("nope")
