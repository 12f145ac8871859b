"""The bounds on recorded resolve misses: words, a daily cap per principal, retention (both backends)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import sqlalchemy as sa

from lorebase_platform.settings import ResolveMissesSettings
from lorebase_store import tables as t
from lorebase_store.reads.resolve_misses import read_misses, record_misses
from lorebase_store.store import Store

DAY = datetime(2026, 10, 1, 8, 0, tzinfo=UTC)


def record(
    store: Store,
    phrases: list[str],
    *,
    principal: str = "usr_a",
    now: datetime = DAY,
    **limits: int,
) -> int:
    return record_misses(
        store.engine,
        store.domain("supply").id,
        phrases,
        principal_id=principal,
        limits=ResolveMissesSettings.model_validate(limits),
        now=now,
    )


def kept(store: Store, **read: int) -> dict[str, int]:
    with store.engine.connect() as connection:
        found = read_misses(connection, store.domain("supply").id, now=DAY, **read)
    return {miss.phrase: miss.count for miss in found}


def rows(store: Store, table: sa.Table) -> int:
    with store.engine.connect() as connection:
        return int(connection.execute(sa.select(sa.func.count()).select_from(table)).scalar_one())


def test_longer_phrases_than_max_words_are_not_kept(supply: Store) -> None:
    phrases = ["one", "one two three", "one two three four", "x" * 256]
    assert record(supply, phrases) == 2
    assert kept(supply) == {"one": 1, "one two three": 1}
    assert record(supply, ["one two three four"], max_words=4) == 1


def test_a_principal_records_at_most_its_daily_cap(supply: Store) -> None:
    assert record(supply, ["alpha", "beta", "gamma", "delta"], max_per_principal_per_day=3) == 3
    assert kept(supply) == {"alpha": 1, "beta": 1, "delta": 1}  # in order, up to the cap
    # a phrase seen again counts like a new one: the cap bounds the counts too
    assert record(supply, ["alpha"], max_per_principal_per_day=3) == 0
    assert record(supply, ["gamma"], max_per_principal_per_day=3) == 0
    assert kept(supply) == {"alpha": 1, "beta": 1, "delta": 1}
    # another principal has a cap of its own, and the next day a new one begins
    assert record(supply, ["gamma"], principal="usr_b", max_per_principal_per_day=3) == 1
    tomorrow = DAY + timedelta(days=1)
    assert record(supply, ["alpha", "zeta"], now=tomorrow, max_per_principal_per_day=3) == 2
    assert kept(supply) == {"alpha": 2, "beta": 1, "delta": 1, "gamma": 1, "zeta": 1}
    # the counts of past days are deleted with the first recording of a new day
    with supply.engine.connect() as connection:
        days = connection.execute(sa.select(t.resolve_miss_quotas.c.day)).scalars().all()
    assert set(days) == {tomorrow.date().isoformat()}


def test_a_cap_of_zero_records_nothing(supply: Store) -> None:
    assert record(supply, ["alpha"], max_per_principal_per_day=0) == 0
    assert kept(supply) == {}


def test_phrases_past_their_retention_are_deleted_and_start_again(supply: Store) -> None:
    assert record(supply, ["alpha", "beta"], retention_days=30) == 2
    later = DAY + timedelta(days=20)
    assert record(supply, ["beta"], now=later, retention_days=30) == 1
    # 31 days after DAY: alpha (last seen on DAY) is gone; beta (seen on day 20) is kept
    expired = DAY + timedelta(days=31)
    assert record(supply, ["gamma"], now=expired, retention_days=30) == 1
    with supply.engine.connect() as connection:
        found = read_misses(connection, supply.domain("supply").id)
    assert {miss.phrase: miss.count for miss in found} == {"beta": 2, "gamma": 1}
    assert rows(supply, t.resolve_misses) == 2
    # seen again after it expired, a phrase starts from one, first seen now
    assert record(supply, ["alpha"], now=expired, retention_days=30) == 1
    with supply.engine.connect() as connection:
        [alpha] = [
            m for m in read_misses(connection, supply.domain("supply").id) if m.phrase == "alpha"
        ]
    assert (alpha.count, alpha.first_seen_at[:10]) == (1, expired.date().isoformat())


def test_reads_leave_out_expired_phrases_before_any_recording_deletes_them(
    supply: Store,
) -> None:
    old = DAY - timedelta(days=40)
    assert record(supply, ["stale"], now=old) == 1
    assert record(supply, ["fresh"], now=DAY - timedelta(days=1), retention_days=365) == 1
    assert kept(supply) == {"fresh": 1, "stale": 1}
    assert kept(supply, retention_days=30) == {"fresh": 1}
    with supply.reader("supply") as reader:  # measured from now: both are older than 30 days
        assert [miss.phrase for miss in reader.resolve_misses(retention_days=30)] == []
