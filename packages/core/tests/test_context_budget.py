"""Token estimates and the budget trimmer of context packs."""

from __future__ import annotations

import pytest

from lorebase_core.context import (
    LineageEntry,
    Pack,
    PackLink,
    PackRecord,
    PackSchema,
    estimate_tokens,
    render_json_section,
    trim,
)
from lorebase_core.context.budget import STEPS

ORDER = list(STEPS)


@pytest.mark.parametrize(
    ("text", "per_token", "expected"),
    [
        pytest.param("", 4.0, 0, id="empty"),
        pytest.param("abcd", 4.0, 1, id="exact"),
        pytest.param("abcde", 4.0, 2, id="ceil"),
        pytest.param("abc", 1.5, 2, id="fractional"),
    ],
)
def test_estimate_is_ceil_of_chars_over_chars_per_token(
    text: str, per_token: float, expected: int
) -> None:
    assert estimate_tokens(text, per_token) == expected


def _pack() -> Pack:
    seed = PackRecord("Supplier/S-1", "One", {"code": "S-1"}, 0, "a" * 64)
    near = tuple(PackRecord(f"Part/P-{n}", f"Part {n}", {"n": str(n)}, 1) for n in range(3))
    far = tuple(PackRecord(f"Plant/L-{n}", f"Plant {n}", {"n": str(n)}, 2) for n in range(3))
    links = (
        *(PackLink("supplied_by", f"Part/P-{n}", "Supplier/S-1") for n in range(3)),
        PackLink("stocked_at", "Part/P-0", "Plant/L-2"),
    )
    lineage = tuple(LineageEntry("Supplier/S-1", (f"a{n}",), "import", "u", "t") for n in range(4))
    return Pack((seed,), near + far, links, PackSchema(), None, lineage)


def _size(pack: Pack) -> int:
    return sum(estimate_tokens(render_json_section(pack, s), 4.0) for s in pack.included())


def test_nothing_is_trimmed_within_budget() -> None:
    pack = _pack()
    found = trim(
        pack, render_json_section, limit_tokens=_size(pack), chars_per_token=4.0, order=ORDER
    )
    assert found.pack == pack
    assert found.trimmed == ()


def test_each_step_removes_as_little_as_needed() -> None:
    pack = _pack()
    found = trim(
        pack, render_json_section, limit_tokens=_size(pack) - 1, chars_per_token=4.0, order=ORDER
    )
    assert found.trimmed == (("lineage", 1),)
    assert pack.lineage is not None
    assert found.pack.lineage == pack.lineage[:-1]
    assert found.used_tokens <= _size(pack) - 1


def test_far_neighbors_go_deepest_and_last_first_with_their_links() -> None:
    pack = _pack()
    no_lineage = Pack(pack.seeds, pack.neighbors, pack.links, pack.schema, None, ())
    values_gone = trim(
        no_lineage,
        render_json_section,
        limit_tokens=0,
        chars_per_token=4.0,
        order=["far_neighbor_values", "far_neighbors"],
    )
    assert values_gone.trimmed == (("far_neighbor_values", 3), ("far_neighbors", 3))
    assert [n.ref for n in values_gone.pack.neighbors] == ["Part/P-0", "Part/P-1", "Part/P-2"]
    assert all(link.relation == "supplied_by" for link in values_gone.pack.links)


def test_seeds_stay_and_over_budget_shows_in_the_estimate() -> None:
    pack = _pack()
    found = trim(pack, render_json_section, limit_tokens=1, chars_per_token=4.0, order=ORDER)
    assert found.pack.seeds == pack.seeds
    assert found.pack.neighbors == ()
    assert found.pack.links == ()
    assert found.used_tokens > 1
    assert [step for step, _count in found.trimmed] == [
        "lineage",
        "far_neighbor_values",
        "far_neighbors",
        "near_neighbor_values",
        "near_neighbors",
    ]
