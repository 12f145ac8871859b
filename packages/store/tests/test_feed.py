"""Following a branch: its events after a sequence and the polling feed of first-parent Revisions."""

from __future__ import annotations

import pytest

from lorebase_core.changes import UpsertRecord
from lorebase_core.errors import ResyncRequired, RevisionNotFound
from lorebase_store import ChangesPage, Store
from lorebase_store.testing import commit_changes

DOMAIN = "supply"


def changes(
    store: Store,
    *,
    branch: str | None = None,
    since: str | None = None,
    kinds: list[str] | None = None,
    limit: int = 50,
    max_scan: int = 10_000,
    domain: str = DOMAIN,
) -> ChangesPage:
    with store.reader(domain, branch=branch) as reader:
        return reader.changes(since=since, kinds=kinds, limit=limit, max_scan=max_scan)


def risk(store: Store, value: int, **options: object) -> str:
    return commit_changes(
        store, [UpsertRecord("Supplier", "S-1001", {"risk_score": value})], **options
    ).id


def part_cost(store: Store, cost: str, **options: object) -> str:
    return commit_changes(
        store, [UpsertRecord("Part", "P-10001", {"unit_cost": cost})], **options
    ).id


def test_changes_after_since_are_the_revision_events_oldest_first(supply: Store) -> None:
    head = supply.log(DOMAIN)[0].id
    made = [risk(supply, 10), part_cost(supply, "1.50"), risk(supply, 20)]
    page = changes(supply, since=head)
    assert [event["revision"] for event in page.events] == made
    assert page.events == supply.events(DOMAIN)[-3:]
    assert (page.next_since, page.more) == (made[-1], False)
    # a prefix names the Revision as well; after the head there is nothing yet
    assert changes(supply, since=head[:10]).events == page.events
    assert changes(supply, since=made[-1]) == ChangesPage([], made[-1], False)


def test_changes_pages_with_next_since_and_more(supply: Store) -> None:
    since = supply.log(DOMAIN)[0].id
    made = [risk(supply, value) for value in range(5)]
    seen: list[str] = []
    pages = 0
    while True:
        page = changes(supply, since=since, limit=2)
        seen += [event["revision"] for event in page.events]
        since, pages = page.next_since or since, pages + 1
        if not page.more:
            break
    assert seen == made
    assert pages == 3


def test_kinds_keep_only_revisions_changing_them(supply: Store) -> None:
    since = supply.log(DOMAIN)[0].id
    risk(supply, 10)
    part = part_cost(supply, "2.50")
    last = risk(supply, 30)
    page = changes(supply, since=since, kinds=["Part"])
    assert [event["revision"] for event in page.events] == [part]
    # the page ends where the scan ended, past the Revisions the filter dropped
    assert (page.next_since, page.more) == (last, False)


def test_without_since_the_latest_revisions_oldest_first(supply: Store) -> None:
    made = [risk(supply, value) for value in range(3)]
    page = changes(supply, limit=2)
    assert [event["revision"] for event in page.events] == made[1:]
    assert (page.next_since, page.more) == (made[-1], False)
    every = changes(supply, limit=100).events
    assert [event["revision"] for event in every] == [r.id for r in reversed(supply.log(DOMAIN))]


def test_a_since_of_another_branch_answers_resync_required(supply: Store) -> None:
    supply.create_branch(DOMAIN, "work", created_by="usr_tester")
    other = risk(supply, 40, branch="work")
    with pytest.raises(ResyncRequired, match="take a new context pack"):
        changes(supply, since=other)
    # the branch itself follows its base's history up to the fork, then its own Revisions
    fork = supply.log(DOMAIN)[0].id
    assert [event["revision"] for event in changes(supply, branch="work", since=fork).events] == [
        other
    ]


def test_the_other_parent_of_a_merge_is_off_the_first_parent_history(supply: Store) -> None:
    supply.create_branch(DOMAIN, "work", created_by="usr_tester")
    before = supply.log(DOMAIN)[0].id
    side = part_cost(supply, "3.50", branch="work")
    supply.writes.merge_branch(
        DOMAIN, "work", into="main", author="usr_merger", message="Merge work", resolutions={}
    )
    merged = supply.log(DOMAIN)[0]
    assert merged.parents == [before, side]
    with pytest.raises(ResyncRequired):
        changes(supply, since=side)
    assert [event["revision"] for event in changes(supply, since=before).events] == [merged.id]


def test_a_since_further_behind_than_max_scan_answers_resync_required(supply: Store) -> None:
    since = supply.log(DOMAIN)[0].id
    for value in range(3):
        risk(supply, value)
    assert len(changes(supply, since=since, max_scan=3).events) == 3
    with pytest.raises(ResyncRequired, match="max_scan"):
        changes(supply, since=since, max_scan=2)


def test_an_unknown_since_is_not_found(supply: Store) -> None:
    with pytest.raises(RevisionNotFound):
        changes(supply, since="0000deadbeef")


def test_branch_events_after_a_sequence_with_kinds(supply: Store) -> None:
    main = supply.branch(DOMAIN, "main")
    start = supply.latest_event_sequence(main.id)
    assert start == supply.events(DOMAIN)[-1]["sequence"]
    risk(supply, 11)
    part = part_cost(supply, "4.50")
    batch = supply.branch_events(main.id, after=start)
    assert [event["revision"] for event in batch.events][-1] == part
    assert batch.last_sequence == supply.events(DOMAIN)[-1]["sequence"]
    only = supply.branch_events(main.id, after=start, kinds=["Part"])
    assert [event["revision"] for event in only.events] == [part]
    assert only.last_sequence == batch.last_sequence
    # bounded: one event looked at, the cursor moves past it
    first = supply.branch_events(main.id, after=start, limit=1)
    assert (len(first.events), first.last_sequence) == (1, start + 1)


def test_a_second_domain_has_its_own_feed(library: Store) -> None:
    main = library.branch("library", "main")
    page = changes(library, domain="library", limit=5)
    assert page.events
    assert {event["domain"] for event in page.events} == {"library"}
    assert library.branch_events(main.id, after=0).events[0]["domain"] == "library"
