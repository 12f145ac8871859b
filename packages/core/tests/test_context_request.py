"""Parsing POST /context: selectors, lens and Trait rules, caps, issue paths."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from lorebase_core.access import ReadScope
from lorebase_core.context import ContextLimits, ContextRequestInvalid, LensUnknown, parse_context
from lorebase_core.errors import KindNotFound, RelationNotFound, TraitNotFound
from lorebase_core.schema import Schema, load_schema

SUPPLY_SCHEMA = Path(__file__).parents[3] / "examples" / "supply" / "schema.yaml"
EVERYTHING = ReadScope.everything()
LIMITS = ContextLimits(
    default_budget_tokens=2000, max_budget_tokens=32000, default_depth=1, max_depth=3, max_seeds=20
)
LENS = {"lens": "supplier_risk", "refs": ["Supplier/S-1001"]}


@pytest.fixture(scope="module")
def supply() -> Schema:
    return load_schema(SUPPLY_SCHEMA.read_text())


def test_the_lens_supplies_defaults(supply: Schema) -> None:
    parsed = parse_context(LENS, supply, EVERYTHING, LIMITS)
    assert parsed.relations == ("flags", "supplied_by", "with_supplier")
    assert parsed.kinds == frozenset({"Supplier", "Contract", "Part", "RiskFlag"})
    assert (parsed.depth, parsed.budget_tokens, parsed.capped) == (1, 2000, False)
    assert parsed.sections == frozenset({"schema", "recent_changes", "lineage"})


def test_request_members_win_and_traits_replace_kinds(supply: Schema) -> None:
    body = {
        **LENS,
        "depth": 0,
        "relations": ["supplies"],
        "traits": ["Located"],
        "include_lineage": False,
    }
    parsed = parse_context(body, supply, EVERYTHING, LIMITS)
    assert (parsed.depth, parsed.relations) == (0, ("supplied_by",))
    assert parsed.kinds == frozenset({"Supplier", "Plant"})
    assert parsed.omitted == (("lineage", "request"),)


def test_over_the_caps_is_served_at_the_cap(supply: Schema) -> None:
    limits = ContextLimits(2000, 5000, 1, 0, 20)
    parsed = parse_context({**LENS, "budget_tokens": 9000}, supply, EVERYTHING, limits)
    assert (parsed.depth, parsed.budget_tokens, parsed.capped) == (0, 5000, True)


def test_a_lens_is_not_a_permission(supply: Schema) -> None:
    suppliers = ReadScope(kinds=frozenset({"Supplier"}))
    parsed = parse_context(LENS, supply, suppliers, LIMITS)
    assert parsed.kinds == frozenset({"Supplier"})
    assert parsed.relations == ()
    with pytest.raises(LensUnknown):
        parse_context(LENS, supply, ReadScope(kinds=frozenset({"Plant"})), LIMITS)
    with pytest.raises(LensUnknown):
        parse_context({**LENS, "lens": "nope"}, supply, EVERYTHING, LIMITS)


@pytest.mark.parametrize(
    ("body", "error"),
    [
        pytest.param({"refs": ["Nope/1"]}, KindNotFound, id="kind"),
        pytest.param({**LENS, "relations": ["nope"]}, RelationNotFound, id="relation"),
        pytest.param({**LENS, "traits": ["Nope"]}, TraitNotFound, id="trait"),
    ],
)
def test_unknown_names_answer_404(supply: Schema, body: dict[str, object], error: type) -> None:
    with pytest.raises(error):
        parse_context(body, supply, EVERYTHING, LIMITS)


@pytest.mark.parametrize(
    ("body", "paths"),
    [
        pytest.param({}, {"refs"}, id="none"),
        pytest.param({"refs": ["Supplier/S-1"], "query": {"kind": "Part"}}, {"query"}, id="two"),
        pytest.param({"query": {"kind": "Part", "aggregate": {}}}, {"query.aggregate"}, id="agg"),
        pytest.param({"query": {"kind": "Part", "limit": 21}}, {"query.limit"}, id="limit"),
        pytest.param({"search": "", "format": "pdf"}, {"search", "format"}, id="search-format"),
        pytest.param(
            {"refs": [7] * 100_000},
            {"refs", *(f"refs[{n}]" for n in range(20))},
            id="refs-past-max",
        ),
        pytest.param(
            {"refs": "Supplier/S-1", "budget_tokens": 0}, {"refs", "budget_tokens"}, id="types"
        ),
    ],
)
def test_issues_carry_their_paths(supply: Schema, body: dict[str, object], paths: set[str]) -> None:
    with pytest.raises(ContextRequestInvalid) as caught:
        parse_context(body, supply, EVERYTHING, LIMITS)
    assert {issue.path for issue in caught.value.issues} == paths


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        pytest.param({"search": "x" * 501}, ("search", "too-long"), id="search"),
        pytest.param(
            {"query": {"kind": "Part", "where": {"attr": "name", "op": "contains", "value": "x" * 1001}}},
            ("query.where.value", "too-long"),
            id="query-string",
        ),
        pytest.param(
            {"query": {"kind": "Part", "where": {"rel": "supplied_by", "where": {"attr": "supplier_code", "op": "in", "value": ["S-1001"] * 1001}}}},
            ("query.where.where.value", "too-many-values"),
            id="query-in",
        ),
    ],
)  # fmt: skip
def test_seeds_are_bounded_like_the_reads_they_make(
    supply: Schema, body: dict[str, object], expected: tuple[str, str]
) -> None:
    with pytest.raises(ContextRequestInvalid) as caught:
        parse_context(body, supply, EVERYTHING, LIMITS)
    assert [(issue.path, issue.code) for issue in caught.value.issues] == [expected]
    wider = replace(
        LIMITS, search_max_chars=501, query_max_string_length=1001, query_max_in_values=1001
    )
    assert parse_context(body, supply, EVERYTHING, wider).selector == next(iter(body))


def test_lens_kinds_limit_query_seeds(supply: Schema) -> None:
    parsed = parse_context(
        {"lens": "supplier_risk", "query": {"kind": "Plant"}}, supply, EVERYTHING, LIMITS
    )
    assert parsed.query is not None
    assert parsed.query.kinds == ()
    assert parsed.query.limit == 20


@pytest.mark.parametrize(
    ("include_schema", "sections", "detail"),
    [
        pytest.param(None, {"schema", "recent_changes", "lineage"}, "described", id="default"),
        pytest.param(True, {"schema", "recent_changes", "lineage"}, "described", id="true"),
        pytest.param("compact", {"schema", "recent_changes", "lineage"}, "compact", id="compact"),
        pytest.param(False, {"recent_changes", "lineage"}, "described", id="false"),
    ],
)
def test_include_schema_true_compact_or_false(
    supply: Schema, include_schema: object, sections: set[str], detail: str
) -> None:
    body = {"refs": ["Supplier/S-1007"], "include_schema": include_schema}
    parsed = parse_context(body, supply, EVERYTHING, LIMITS)
    assert (parsed.sections, parsed.schema_detail) == (frozenset(sections), detail)
    if include_schema is False:
        assert parsed.omitted == (("schema", "request"),)


def test_include_schema_compact_wins_over_a_lens(supply: Schema) -> None:
    parsed = parse_context({**LENS, "include_schema": "compact"}, supply, EVERYTHING, LIMITS)
    assert "schema" in parsed.sections
    assert parsed.schema_detail == "compact"
