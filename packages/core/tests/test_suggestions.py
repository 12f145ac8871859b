"""`hint`: the closest names and, when few, all of them; and the read scope feeding it."""

from __future__ import annotations

from pathlib import Path

import pytest

from lorebase_core.access import ReadScope
from lorebase_core.errors import KindNotFound, RelationNotFound, TraitNotFound
from lorebase_core.schema import load_schema
from lorebase_core.suggestions import LISTED_NAMES, hint

SUPPLY = load_schema(
    (Path(__file__).parents[3] / "examples" / "supply" / "schema.yaml").read_text("utf-8")
)


@pytest.mark.parametrize(
    ("name", "names", "expected"),
    [
        pytest.param(
            "Suplier",
            ["Supplier", "Part"],
            "; did you mean 'Supplier'? Kinds: Part, Supplier",
            id="typo",
        ),
        pytest.param("Zzz", ["Supplier", "Part"], "; Kinds: Part, Supplier", id="nothing-close"),
        pytest.param("Zzz", [], "", id="nothing-to-choose"),
        pytest.param(
            "Suplier",
            [f"K{n}" for n in range(LISTED_NAMES)] + ["Supplier"],
            "; did you mean 'Supplier'?",
            id="too-many-to-list",
        ),
        pytest.param("S" * 10_000, ["Supplier"], "; Kinds: Supplier", id="too-long-to-compare"),
        pytest.param(7, ["Supplier"], "; Kinds: Supplier", id="not-a-name"),
    ],
)
def test_hint(name: object, names: list[str], expected: str) -> None:
    assert hint(name, names, "Kinds") == expected


def test_a_narrowed_scope_suggests_only_what_it_reads() -> None:
    parts = ReadScope(frozenset({"Part"}))
    with pytest.raises(KindNotFound) as unknown:
        parts.kind(SUPPLY, "Suplier")
    with pytest.raises(KindNotFound) as invisible:
        parts.kind(SUPPLY, "Supplier")
    assert unknown.value.detail == "Kind 'Suplier' does not exist in Domain 'supply'; Kinds: Part"
    assert invisible.value.detail == unknown.value.detail.replace("Suplier", "Supplier")
    with pytest.raises(RelationNotFound) as relation:
        parts.relation_end(SUPPLY, "supplied_b")
    assert "supplied_by" not in relation.value.detail
    with pytest.raises(TraitNotFound) as trait:
        ReadScope(frozenset({"RiskFlag"})).traits(SUPPLY, "Locatd")
    assert "Located" not in trait.value.detail


def test_the_whole_scope_suggests_the_closest() -> None:
    everything = ReadScope.everything()
    with pytest.raises(RelationNotFound) as relation:
        everything.relation_end(SUPPLY, "supplied_b")
    assert "did you mean 'supplied_by'" in relation.value.detail
    with pytest.raises(TraitNotFound) as trait:
        everything.traits(SUPPLY, "Locatd")
    assert "did you mean 'Located'?" in trait.value.detail
