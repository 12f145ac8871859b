"""parse_search: Kinds from kinds, traits and lenses; limits, modes and vectors, with paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from lorebase_core.access import ReadScope
from lorebase_core.errors import (
    KindNotFound,
    LensUnknown,
    SearchInvalid,
    SemanticUnavailable,
    TraitNotFound,
)
from lorebase_core.schema import load_schema
from lorebase_core.search_request import parse_search

SUPPLY = load_schema(
    (Path(__file__).parents[3] / "examples" / "supply" / "schema.yaml").read_text("utf-8")
)
ALL = ReadScope.everything()


def parse(document: object, scope: ReadScope = ALL) -> object:
    return parse_search(document, SUPPLY, scope, default_limit=20, max_limit=100)


def test_defaults() -> None:
    request = parse_search({"q": " bearing "}, SUPPLY, ALL, default_limit=20, max_limit=100)
    assert (request.q, request.mode, request.limit, request.values) == (
        "bearing",
        "lexical",
        20,
        True,
    )
    assert request.kinds == tuple(SUPPLY.kinds)


def test_kinds_traits_and_lens() -> None:
    def kinds(document: dict[str, object], scope: ReadScope = ALL) -> tuple[str, ...]:
        return parse_search(document, SUPPLY, scope, default_limit=20, max_limit=100).kinds

    assert set(kinds({"q": "x", "traits": ["Located"]})) == {"Supplier", "Plant"}
    assert set(kinds({"q": "x", "traits": ["Located"], "kinds": ["Part"]})) == {
        "Supplier",
        "Plant",
        "Part",
    }
    assert set(kinds({"q": "x", "lens": "supplier_risk"})) == {
        "Supplier",
        "Contract",
        "Part",
        "RiskFlag",
    }
    assert kinds({"q": "x", "lens": "supplier_risk", "kinds": ["Plant"]}) == ("Plant",)
    narrowed = ReadScope(frozenset({"Supplier"}))
    assert kinds({"q": "x", "traits": ["Located"]}, narrowed) == ("Supplier",)
    assert kinds({"q": "x"}, narrowed) == ("Supplier",)


def test_names_that_do_not_resolve() -> None:
    with pytest.raises(KindNotFound):
        parse({"q": "x", "kinds": ["Nope"]})
    with pytest.raises(KindNotFound):
        parse({"q": "x", "kinds": ["Part"]}, ReadScope(frozenset({"Supplier"})))
    with pytest.raises(TraitNotFound):
        parse({"q": "x", "traits": ["Nope"]})
    with pytest.raises(LensUnknown):
        parse({"q": "x", "lens": "nope"})
    with pytest.raises(LensUnknown):
        parse({"q": "x", "lens": "supplier_risk"}, ReadScope(frozenset({"Plant"})))


@pytest.mark.parametrize(
    ("document", "paths"),
    [
        pytest.param([], [""], id="not-an-object"),
        pytest.param({}, ["q"], id="no-text"),
        pytest.param({"q": 1}, ["q"], id="q-type"),
        pytest.param({"q": "x" * 501}, ["q"], id="q-long"),
        pytest.param({"q": "x", "limit": 101}, ["limit"], id="limit-high"),
        pytest.param({"q": "x", "limit": True}, ["limit"], id="limit-bool"),
        pytest.param({"q": "x", "mode": "fuzzy"}, ["mode"], id="mode"),
        pytest.param({"q": "x", "kinds": "Part"}, ["kinds"], id="kinds-type"),
        pytest.param({"q": "x", "values": 1}, ["values"], id="values"),
        pytest.param({"q": "x", "at": "main"}, ["at"], id="at"),
        pytest.param({"q": "x", "query_vector": [1]}, ["query_vector"], id="vector-lexical"),
        pytest.param({"q": "x", "other": 1}, ["other"], id="unknown"),
    ],
)
def test_invalid_documents(document: object, paths: list[str]) -> None:
    with pytest.raises(SearchInvalid) as raised:
        parse(document)
    assert sorted({issue.path for issue in raised.value.issues}) == paths


def test_the_longest_q_is_a_setting() -> None:
    document = {"q": " " + "x" * 40 + " "}  # counted after stripping
    assert parse_search(document, SUPPLY, ALL, default_limit=20, max_limit=100, max_q_chars=40)
    with pytest.raises(SearchInvalid) as raised:
        parse_search(document, SUPPLY, ALL, default_limit=20, max_limit=100, max_q_chars=39)
    assert [(issue.path, issue.code) for issue in raised.value.issues] == [("q", "too-long")]


EMBEDDED = load_schema(
    """
domain: {name: notes}
search:
  embedding: {model: m, dimensions: 3}
kinds:
  Note:
    key: [code]
    attributes:
      code: {type: string}
"""
)


PLAIN = load_schema(
    """
domain: {name: plain}
kinds:
  Note:
    key: [code]
    attributes:
      code: {type: string}
"""
)


def test_vectors() -> None:
    for mode in ("semantic", "hybrid"):
        with pytest.raises(SemanticUnavailable):
            parse_search(
                {"q": "x", "mode": mode, "query_vector": [1, 2, 3]},
                PLAIN,
                ALL,
                default_limit=20,
                max_limit=100,
            )
    assert parse({"mode": "semantic", "query_vector": [0.1] * 384}).model == "all-MiniLM-L6-v2"
    request = parse_search(
        {"mode": "semantic", "query_vector": [1, 2, 3]},
        EMBEDDED,
        ALL,
        default_limit=20,
        max_limit=100,
    )
    assert (request.query_vector, request.model, request.q) == ((1.0, 2.0, 3.0), "m", "")
    for vector, paths in (
        ([1, 2], ["query_vector"]),
        ([1, "2", 3], ["query_vector[1]"]),
        ([0, 0, 0], ["query_vector"]),
        (None, ["query_vector"]),
    ):
        with pytest.raises(SearchInvalid) as raised:
            parse_search(
                {"mode": "semantic", "query_vector": vector},
                EMBEDDED,
                ALL,
                default_limit=20,
                max_limit=100,
            )
        assert sorted({issue.path for issue in raised.value.issues}) == paths
    with pytest.raises(SearchInvalid):
        parse_search(
            {"mode": "hybrid", "query_vector": [1, 2, 3]},
            EMBEDDED,
            ALL,
            default_limit=20,
            max_limit=100,
        )
