"""The value index of POST /resolve and the recorded misses, on both backends."""

from __future__ import annotations

from datetime import UTC, datetime

from lorebase_core.changes import UpsertRecord
from lorebase_platform.settings import ResolveMissesSettings
from lorebase_store.reads import value_index as index_module
from lorebase_store.reads.resolve_misses import record_misses
from lorebase_store.reads.value_index import ValueIndex
from lorebase_store.store import Store
from lorebase_store.testing import commit_changes


def index_of(store: Store, *, at: str | None = None, max_indexed_values: int = 200) -> ValueIndex:
    with store.reader("supply", at=at) as reader:
        return reader.value_index(max_indexed_values=max_indexed_values, max_value_length=64)


def test_enums_and_few_strings_are_indexed_with_record_counts(supply: Store) -> None:
    values = index_of(supply).values
    assert values[("PurchaseOrder", "status")] == {"cancelled": 3, "open": 15, "received": 32}
    assert values[("Supplier", "risk_band")] == {"high": 6, "normal": 24}
    assert values[("Contract", "status")]["draft"] == 0  # declared, held by no Record
    assert values[("Supplier", "country")]["PL"] == 3
    assert ("Supplier", "risk_score") not in values  # integers never
    assert ("RiskFlag", "reason") not in values  # text unless resolvable: true


def test_sensitive_attributes_are_never_indexed(supply: Store) -> None:
    values = index_of(supply).values
    assert ("Supplier", "vat_number") not in values
    assert ("Supplier", "contact_email") not in values


def test_strings_with_many_values_are_not_indexed(supply: Store) -> None:
    values = index_of(supply, max_indexed_values=20).values
    assert ("Supplier", "legal_name") not in values  # 30 distinct
    assert ("Supplier", "country") in values
    assert ("PurchaseOrder", "status") in values  # enums always


def test_the_index_is_kept_per_revision(supply: Store) -> None:
    before = index_of(supply)
    assert index_of(supply) is before
    head = commit_changes(
        supply,
        [UpsertRecord("Supplier", "S-1001", {"risk_score": 10})],
    )
    after = index_of(supply)
    assert after.revision == head.id
    assert after.values[("Supplier", "risk_band")] == {"high": 5, "normal": 25}
    assert before.revision is not None
    assert index_of(supply, at=before.revision) is before


def test_attribute_values_count_records_most_frequent_first(supply: Store) -> None:
    with supply.reader("supply") as reader:
        countries = reader.attribute_values("Supplier", "country", limit=100)
        assert countries[0][1] >= countries[-1][1]
        assert ("PL", 3) in countries
        assert sum(records for _, records in countries) == 30
        assert len(reader.attribute_values("Supplier", "country", limit=2)) == 2
        names = dict(reader.attribute_values("Part", "name", limit=1000))
        assert names["Tapered roller bearing 30205"] == 1


def test_the_cache_is_bounded(supply: Store) -> None:
    index_of(supply)
    assert 0 < len(index_module._kept) <= index_module.KEPT


def test_misses_are_upserted_with_counts(supply: Store) -> None:
    domain_id = supply.domain("supply").id
    first = datetime(2026, 10, 1, 8, 0, tzinfo=UTC)
    later = datetime(2026, 10, 2, 9, 30, tzinfo=UTC)

    def record(phrases: list[str], now: datetime) -> int:
        limits = ResolveMissesSettings()
        return record_misses(
            supply.engine, domain_id, phrases, principal_id="usr_a", limits=limits, now=now
        )

    assert record(["poland", "of"], first) == 2
    assert record(["poland", "poland", ""], later) == 1
    assert record([], later) == 0
    with supply.reader("supply") as reader:
        found = reader.resolve_misses()
    assert [(miss.phrase, miss.count) for miss in found] == [("poland", 2), ("of", 1)]
    poland = found[0]
    assert poland.first_seen_at < poland.last_seen_at
    assert poland.last_seen_at.startswith("2026-10-02T09:30:00")
