"""What context packs read beyond the neighborhood, on both backends."""

from __future__ import annotations

import pytest

from lorebase_core.errors import RevisionNotFound
from lorebase_store.store import Store

RECORDS = {"Supplier": ["S-1001"], "Part": ["P-10028"]}


def test_recent_changes_newest_first_and_since(supply: Store) -> None:
    with supply.reader("supply") as reader:
        changes = reader.recent_changes(RECORDS, limit=20)
        assert [(c.ref, c.change) for c in changes] == [
            ("Supplier/S-1001", "modified"),
            ("Part/P-10028", "created"),
            ("Supplier/S-1001", "created"),
        ]
        raised = changes[0]
        assert raised.attributes == ("risk_score",)
        assert raised.message == "Raise the risk of S-1001"
        assert raised.origin == "operation"
        assert [c.ref for c in reader.recent_changes(RECORDS, limit=1)] == ["Supplier/S-1001"]
        after_import = reader.recent_changes(RECORDS, limit=20, since=changes[-1].revision)
        assert after_import == changes[:1]
        assert reader.recent_changes(RECORDS, limit=20, since=raised.revision) == []
        with pytest.raises(RevisionNotFound):
            reader.recent_changes(RECORDS, limit=20, since="no-such-tag")


def test_seed_versions_and_lineage(supply: Store) -> None:
    with supply.reader("supply") as reader:
        versions = reader.seed_versions([("Supplier", "S-1001"), ("Supplier", "S-9999")])
        assert list(versions) == ["Supplier/S-1001"]
        changes = reader.recent_changes({"Supplier": ["S-1001"]}, limit=1)
        assert versions["Supplier/S-1001"].revision == changes[0].revision
        lineage = reader.lineage_entries(versions.values())
        assert lineage[0].attributes == ("risk_score",)
        assert lineage[0].origin == "operation"
        assert lineage[1].origin == "import"
        assert "risk_score" not in lineage[1].attributes
