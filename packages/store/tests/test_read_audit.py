"""The read audit and a Domain's audit log of reads and writes, on both backends."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from lorebase_core.errors import BadCursor, BadRequest, DomainNotFound
from lorebase_core.schema import load_schema
from lorebase_core.values import format_datetime
from lorebase_store import AuditItem, ReadAuditEntry, Store
from lorebase_store import tables as t
from lorebase_store.engine import write_transaction

SUPPLY = Path(__file__).parents[3] / "examples" / "supply"
START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def at(seconds: float) -> str:
    return format_datetime(START + timedelta(seconds=seconds))


def read(seconds: float, **fields: Any) -> ReadAuditEntry:
    values: dict[str, Any] = {
        "principal": "usr_alice",
        "route": "/api/v1/domains/{domain}/records/{kind}/{key}",
        "domain": "supply",
        "branch": "main",
        "revision": "r" * 64,
        "refs": [{"kind": "Part", "key": "P-1"}],
        "status": 200,
        "at": at(seconds),
    }
    values.update(fields)
    return ReadAuditEntry(**values)


def add_write(store: Store, seconds: float, domain_id: int, principal: str = "usr_bob") -> None:
    with write_transaction(store.engine) as connection:
        connection.execute(
            t.audit_log.insert().values(
                domain_id=domain_id,
                principal=principal,
                action="proposal.open",
                target="prp_1",
                details={"branch": "task/1"},
                created_at=at(seconds),
            )
        )


@pytest.fixture
def audited(store: Store) -> Store:
    """supply and energy, reads at 0..5 s and writes at 2.5 s and 4 s in supply.

    The write at 4 s has a time stamp on the second (no microseconds), the read at 4 s too.
    """
    text = (SUPPLY / "schema.yaml").read_text(encoding="utf-8")
    supply = store.create_domain(load_schema(text), created_by="usr_tester")
    store.create_domain(
        load_schema(text.replace("name: supply", "name: energy", 1)), created_by="usr_tester"
    )
    assert (
        store.write_read_audit(
            [
                *(read(second) for second in range(6)),
                read(1.5, domain="energy"),
                read(3, principal="usr_bob", status=403, refs=[]),
                read(3.5, domain="unknown"),
            ]
        )
        == 9
    )
    add_write(store, 2.5, supply.id)
    add_write(store, 4, supply.id, principal="usr_alice")
    return store


def summary(items: list[AuditItem]) -> list[tuple[str, str, str]]:
    return [(item.kind, item.principal, item.at) for item in items]


def test_the_audit_log_merges_reads_and_writes_newest_first(audited: Store) -> None:
    page = audited.audit_log("supply", limit=100)
    assert page.next_cursor is None
    alice, bob = "usr_alice", "usr_bob"
    assert summary(page.entries) == [
        ("read", alice, at(5)),
        ("read", alice, at(4)),
        ("write", alice, at(4)),
        ("read", bob, at(3)),
        ("read", alice, at(3)),
        ("write", bob, at(2.5)),
        ("read", alice, at(2)),
        ("read", alice, at(1)),
        ("read", alice, at(0)),
    ]
    first_read = page.entries[-1].to_json()
    assert first_read == {
        "kind": "read",
        "id": first_read["id"],
        "principal": alice,
        "at": at(0),
        "route": "/api/v1/domains/{domain}/records/{kind}/{key}",
        "branch": "main",
        "revision": "r" * 64,
        "refs": [{"kind": "Part", "key": "P-1"}],
        "status": 200,
    }
    assert first_read["id"].startswith("read-")
    write = page.entries[5].to_json()
    assert write == {
        "kind": "write",
        "id": write["id"],
        "principal": bob,
        "at": at(2.5),
        "action": "proposal.open",
        "target": "prp_1",
        "details": {"branch": "task/1"},
    }
    assert write["id"].startswith("write-")
    assert summary(audited.audit_log("energy", limit=10).entries) == [("read", alice, at(1.5))]


@pytest.mark.parametrize("limit", [1, 2, 3, 4])
def test_one_cursor_pages_over_reads_and_writes_without_repeats_or_gaps(
    audited: Store, limit: int
) -> None:
    whole = audited.audit_log("supply", limit=100).entries
    seen: list[AuditItem] = []
    cursor = None
    while True:
        page = audited.audit_log("supply", limit=limit, cursor=cursor)
        assert len(page.entries) <= limit
        seen.extend(page.entries)
        cursor = page.next_cursor
        if cursor is None:
            break
    assert seen == whole


def test_entries_at_one_time_page_by_kind_then_id(audited: Store) -> None:
    supply = audited.domain("supply")
    audited.write_read_audit([read(10), read(10)])
    add_write(audited, 10, supply.id)
    add_write(audited, 10, supply.id)
    newest = audited.audit_log("supply", limit=4).entries
    assert [item.kind for item in newest] == ["read", "read", "write", "write"]
    assert newest[0].number > newest[1].number
    assert newest[2].number > newest[3].number
    first = audited.audit_log("supply", limit=1)
    rest = audited.audit_log("supply", limit=3, cursor=first.next_cursor)
    assert [*first.entries, *rest.entries] == newest


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        pytest.param({"kind": "write"}, [at(4), at(2.5)], id="writes"),
        pytest.param({"kind": "read", "principal": "usr_bob"}, [at(3)], id="reads-of-bob"),
        pytest.param({"principal": "usr_bob"}, [at(3), at(2.5)], id="principal"),
        pytest.param({"since": at(4)}, [at(5), at(4), at(4)], id="since-inclusive"),
        pytest.param({"until": at(1)}, [at(0)], id="until-exclusive"),
        pytest.param(
            {"since": "2026-03-01T10:00:02+01:00", "until": at(3)},
            [at(2.5), at(2)],
            id="since-other-offset",
        ),
    ],
)
def test_the_audit_log_filters(
    audited: Store, filters: dict[str, Any], expected: list[str]
) -> None:
    entries = audited.audit_log("supply", limit=100, **filters).entries
    assert [item.at for item in entries] == expected


def test_bad_input_is_refused(audited: Store) -> None:
    with pytest.raises(DomainNotFound):
        audited.audit_log("nowhere", limit=5)
    with pytest.raises(BadRequest, match="ISO 8601"):
        audited.audit_log("supply", limit=5, since="yesterday")
    with pytest.raises(BadCursor):
        audited.audit_log("supply", limit=5, cursor="nonsense")
    with pytest.raises(BadRequest, match="limit must be at least 1"):
        audited.audit_log("supply", limit=0)
    sessions_cursor = "eyJsIjoidHJhY2Ugc2Vzc2lvbnMiLCJrIjpbIngiLDFdfQ"
    with pytest.raises(BadCursor):
        audited.audit_log("supply", limit=5, cursor=sessions_cursor)


def test_pruning_the_read_audit_keeps_the_write_audit(audited: Store) -> None:
    assert audited.prune_read_audit(at(3)) == 4  # at 0, 1, 2 and 1.5 (energy)
    entries = audited.audit_log("supply", limit=100).entries
    assert summary(entries)[-2:] == [("read", "usr_alice", at(3)), ("write", "usr_bob", at(2.5))]
    assert summary(audited.audit_log("energy", limit=10).entries) == []
    assert audited.prune_read_audit(at(3)) == 0
    assert audited.prune_read_audit(at(100)) == 5
    assert [item.kind for item in audited.audit_log("supply", limit=100).entries] == [
        "write",
        "write",
    ]


def test_an_empty_batch_writes_nothing(audited: Store) -> None:
    assert audited.write_read_audit([]) == 0
