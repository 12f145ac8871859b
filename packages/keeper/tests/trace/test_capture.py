"""What a traced step keeps of a read: field names, captured queries, answer counts and refs.

Pure: the supply schema (examples/supply) and a small schema of this file's own, with a Trait
whose field one implementing Kind tags, a sensitive title, a value derived from it and a
sensitive key, so that nothing here holds only because of how supply is written
(docs/trace.md, "What a step holds").
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

import pytest
from packages.keeper.tests.conftest import ROOT

from lorebase_core.schema import Schema, load_schema
from lorebase_keeper.trace.answers import record_ref, refs_of, result_of
from lorebase_keeper.trace.capture import capture_query, json_type
from lorebase_keeper.trace.sensitivity import SensitiveNames, sensitive_names
from lorebase_platform.settings import TraceSettings

SUPPLY = load_schema((ROOT / "examples" / "supply" / "schema.yaml").read_text())
CLINIC_TEXT = """
domain: {name: clinic}
traits:
  Reachable:
    attributes:
      email: {type: string}
      phone: {type: string, sensitivity: [pii]}
kinds:
  Patient:
    key: [patient_no]
    title: full_name
    traits: [Reachable]
    attributes:
      patient_no: {type: string}
      full_name: {type: string, sensitivity: [pii]}
      email: {type: string, sensitivity: [pii]}
      phone: {type: string}
      ward: {type: string}
      initials: {type: string, derived: "upper(full_name)"}
      label: {type: string, derived: "concat(lower(full_name), '-', ward)"}
      ward_code: {type: string, derived: "upper(ward)"}
  Office:
    key: [code]
    title: code
    traits: [Reachable]
    attributes:
      code: {type: string}
      email: {type: string}
      phone: {type: string}
  Badge:
    key: [badge_no]
    attributes:
      badge_no: {type: string}
      colour: {type: string}
relations:
  treated_at:
    from: Patient
    to: Office
    attributes:
      diagnosis: {type: text, sensitivity: [restricted]}
      since: {type: date}
"""


def _with_sensitive_key(schema: Schema) -> Schema:
    """The clinic schema with Badge's key tagged: the loader refuses that today, but a rule that
    holds only because of the loader would break the day it allows it."""
    badge = schema.kinds["Badge"]
    tagged = badge.attributes["badge_no"].model_copy(update={"sensitivity": ("restricted",)})
    kinds = {
        **schema.kinds,
        "Badge": badge.model_copy(update={"attributes": {**badge.attributes, "badge_no": tagged}}),
    }
    return dataclasses.replace(schema, kinds=kinds)


CLINIC = _with_sensitive_key(load_schema(CLINIC_TEXT))
SUPPLY_NAMES = sensitive_names([SUPPLY])
CLINIC_NAMES = sensitive_names([CLINIC])
DEFAULTS = TraceSettings()


def capture(
    body: Any = None,
    params: list[tuple[str, str]] | None = None,
    names: SensitiveNames | None = SUPPLY_NAMES,
    **settings: Any,
) -> dict[str, Any]:
    return capture_query(
        body=body, params=params or [], names=names, settings=TraceSettings(**settings)
    )


def where(captured: dict[str, Any]) -> Any:
    return captured["body"]["where"]


def size(document: Any) -> int:
    return len(json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode())


# -- sensitive names ----------------------------------------------------------------------------
def test_supply_names_known_and_sensitive() -> None:
    names = SUPPLY_NAMES
    assert {"vat_number", "contact_email"} <= names.sensitive
    for name in ("risk_score", "status", "city", "country", "title", "key", "risk_band"):
        assert name in names.known
        assert names.keeps_value(name), name
    assert "lead_time_days" in names.known  # a Link Attribute
    assert not names.keeps_value("vat_number")
    assert not names.keeps_value("no_such_field")
    assert "no_such_field" not in names.known


def test_a_trait_field_is_sensitive_when_any_implementing_kind_tags_it() -> None:
    # Office.email is plain; Patient.email is pii: the name is sensitive everywhere
    assert "email" in CLINIC_NAMES.sensitive
    assert not CLINIC_NAMES.keeps_value("email")


def test_a_trait_field_the_trait_tags_is_sensitive() -> None:
    # Reachable.phone is pii; neither Kind tags phone
    assert "phone" in CLINIC_NAMES.sensitive


def test_title_is_sensitive_when_a_title_attribute_is() -> None:
    assert "title" in CLINIC_NAMES.sensitive
    assert "title" not in SUPPLY_NAMES.sensitive


def test_key_is_sensitive_when_a_key_attribute_is() -> None:
    assert "key" in CLINIC_NAMES.sensitive
    assert "key" not in sensitive_names([load_schema(CLINIC_TEXT)]).sensitive
    assert "key" not in SUPPLY_NAMES.sensitive


def test_a_derived_value_is_sensitive_when_what_it_derives_from_is() -> None:
    # initials and label read full_name (pii), ward_code only ward
    assert {"initials", "label"} <= CLINIC_NAMES.sensitive
    assert CLINIC_NAMES.keeps_value("ward_code")
    assert "risk_band" not in SUPPLY_NAMES.sensitive  # from risk_score, not sensitive
    assert "ward" not in CLINIC_NAMES.sensitive


def test_a_link_attribute_is_sensitive_when_tagged() -> None:
    assert "diagnosis" in CLINIC_NAMES.sensitive
    assert CLINIC_NAMES.keeps_value("since")


def test_a_name_sensitive_in_any_schema_given_is_sensitive() -> None:
    both = sensitive_names([SUPPLY, CLINIC])
    assert both.sensitive == SUPPLY_NAMES.sensitive | CLINIC_NAMES.sensitive
    assert both.known == SUPPLY_NAMES.known | CLINIC_NAMES.known
    assert "title" in both.sensitive  # clinic's title taints supply's
    nothing = sensitive_names([])
    assert nothing.known == nothing.sensitive == frozenset()
    assert not nothing.keeps_value("title")


# -- compared values ----------------------------------------------------------------------------
def test_values_on_fields_not_sensitive_are_kept() -> None:
    body = {
        "kind": "Supplier",
        "where": {
            "and": [
                {"attr": "tier", "op": "eq", "value": 1},
                {"attr": "country", "op": "in", "value": ["PL", "DE"]},
                {"attr": "city", "op": "is_null"},
            ]
        },
    }
    assert where(capture(body)) == body["where"]


def test_values_on_sensitive_fields_are_redacted_at_every_depth() -> None:
    secret = {"attr": "vat_number", "op": "eq", "value": "PL7792438105"}
    body = {
        "kind": "Part",
        "where": {
            "or": [
                {"not": secret},
                {"and": [secret, {"rel": "supplied_by", "where": {"and": [secret]}}]},
                {
                    "rel": "supplied_by",
                    "where": {"attr": "contact_email", "op": "in", "value": ["a@b.example"]},
                },
            ]
        },
    }
    redacted = {"attr": "vat_number", "op": "eq", "value": {"redacted": "string"}}
    assert where(capture(body)) == {
        "or": [
            {"not": redacted},
            {"and": [redacted, {"rel": "supplied_by", "where": {"and": [redacted]}}]},
            {
                "rel": "supplied_by",
                "where": {"attr": "contact_email", "op": "in", "value": {"redacted": "array"}},
            },
        ]
    }
    assert "PL7792438105" not in json.dumps(capture(body))


def test_a_name_sensitive_anywhere_keeps_no_value_anywhere() -> None:
    # email is plain on Office, but pii on Patient: an Office query keeps no email either
    body = {"kind": "Office", "where": {"attr": "email", "op": "eq", "value": "desk@x.example"}}
    assert where(capture(body, names=CLINIC_NAMES))["value"] == {"redacted": "string"}
    ward = {"kind": "Patient", "where": {"attr": "ward", "op": "eq", "value": "B2"}}
    assert where(capture(ward, names=CLINIC_NAMES))["value"] == "B2"


def test_names_never_resolved_keep_nothing() -> None:
    body = {"kind": "Supplier", "where": {"attr": "nickname", "op": "eq", "value": "Kav"}}
    assert where(capture(body))["value"] == {"redacted": "string"}
    malformed = {"kind": "Supplier", "where": {"attr": 7, "op": "eq", "value": "Kav"}}
    assert where(capture(malformed))["value"] == {"redacted": "string"}


def test_outside_a_domain_no_compared_value_is_kept() -> None:
    body = {"kind": "Supplier", "where": {"attr": "tier", "op": "eq", "value": 1}}
    assert where(capture(body, names=None))["value"] == {"redacted": "number"}
    assert where(capture(body, names=None, capture_literals=True))["value"] == {
        "redacted": "number"
    }
    assert capture(params=[("status", "open")], names=None)["params"] == {
        "status": {"redacted": "string"}
    }


def test_capture_filter_values_none_keeps_none() -> None:
    body = {"kind": "Supplier", "where": {"attr": "tier", "op": "in", "value": [1, 2]}}
    captured = capture(body, capture_filter_values="none")
    assert where(captured) == {"attr": "tier", "op": "in", "value": {"redacted": "array"}}


def test_capture_literals_keeps_every_value_sensitive_ones_included() -> None:
    body = {
        "kind": "Supplier",
        "where": {
            "and": [
                {"attr": "vat_number", "op": "eq", "value": "PL7792438105"},
                {"attr": "nickname", "op": "eq", "value": "Kav"},
            ]
        },
    }
    assert where(capture(body, capture_literals=True)) == body["where"]


def test_derived_predicates_follow_what_they_derive_from() -> None:
    band = {"kind": "Supplier", "where": {"attr": "risk_band", "op": "eq", "value": "high"}}
    assert where(capture(band))["value"] == "high"
    label = {"kind": "Patient", "where": {"derived": "label", "op": "eq", "value": "JD-B2"}}
    assert where(capture(label, names=CLINIC_NAMES)) == {
        "derived": "label",
        "op": "eq",
        "value": {"redacted": "string"},
    }
    band_member = {
        "kind": "Supplier",
        "where": {"derived": "risk_band", "op": "eq", "value": "high"},
    }
    assert where(capture(band_member))["value"] == "high"


def test_title_and_key_predicates_follow_their_attributes() -> None:
    for name in ("title", "key"):
        body = {"where": {"attr": name, "op": "eq", "value": "x"}}
        assert where(capture(body))["value"] == "x"
        assert where(capture(body, names=CLINIC_NAMES))["value"] == {"redacted": "string"}


def test_kept_values_are_scalars_or_lists_of_scalars_cut_to_their_bounds() -> None:
    long = "b" * 40
    body = {
        "kind": "Part",
        "where": {
            "and": [
                {"attr": "name", "op": "contains", "value": long},
                {"attr": "part_number", "op": "in", "value": [f"P-{n:05}" for n in range(30)]},
                {"attr": "unit_cost", "op": "eq", "value": 24.5},
                {"attr": "unit", "op": "eq", "value": {"nested": "object"}},
                {"attr": "category", "op": "in", "value": ["seal", {"x": 1}]},
                {"attr": "is_primary", "op": "eq", "value": True},
                {"attr": "name", "op": "eq", "value": None},
            ]
        },
    }
    kept = where(capture(body, max_text_chars=10, max_filter_value_items=3))["and"]
    assert kept[0]["value"] == "b" * 10
    assert kept[1]["value"] == ["P-00000", "P-00001", "P-00002"]
    assert kept[2]["value"] == 24.5
    assert kept[3]["value"] == {"redacted": "object"}
    assert kept[4]["value"] == {"redacted": "array"}
    assert kept[5]["value"] is True
    assert kept[6]["value"] is None


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        pytest.param("x", "string", id="string"),
        pytest.param(3, "number", id="integer"),
        pytest.param(2.5, "number", id="float"),
        pytest.param(False, "boolean", id="boolean"),
        pytest.param(None, "null", id="null"),
        pytest.param([1], "array", id="array"),
        pytest.param({"a": 1}, "object", id="object"),
    ],
)
def test_a_value_not_kept_is_replaced_by_its_json_type(value: Any, kind: str) -> None:
    assert json_type(value) == kind
    body = {"where": {"attr": "vat_number", "op": "eq", "value": value}}
    assert where(capture(body))["value"] == {"redacted": kind}


def test_a_relation_count_is_structure() -> None:
    body = {"kind": "Part", "where": {"rel": "supplied_by", "count": {"op": "eq", "value": 1}}}
    assert where(capture(body, names=None)) == body["where"]
    odd = {"kind": "Part", "where": {"rel": "supplied_by", "count": {"op": "eq", "value": "x"}}}
    assert where(capture(odd))["count"]["value"] == {"redacted": "string"}


# -- the rest of a request ----------------------------------------------------------------------
def test_structure_is_kept() -> None:
    body = {
        "kind": "PurchaseOrder",
        "select": ["po_number", "total"],
        "order_by": [{"attr": "total", "dir": "desc"}],
        "limit": 5,
        "aggregate": {"group_by": "status", "metrics": {"value": {"sum": "total"}}},
        "branch": "main",
        "at": "v1",
        "coverage": False,
    }
    assert capture(body, names=None)["body"] == body


def test_cursors_are_dropped_in_body_and_params() -> None:
    captured = capture(
        {"kind": "Supplier", "cursor": "opaque-cursor", "query": {"cursor": "inner"}},
        params=[("cursor", "opaque"), ("limit", "10")],
    )
    assert captured == {
        "body": {"kind": "Supplier", "query": {}},
        "params": {"limit": "10"},
    }


def test_query_vectors_become_their_dimension() -> None:
    captured = capture({"mode": "semantic", "query_vector": [0.1, 0.2, 0.3]})
    assert captured["body"] == {"mode": "semantic", "query_vector": {"dimension": 3}}
    assert capture({"query_vector": "nope"})["body"]["query_vector"] == {"redacted": "string"}


def test_long_strings_anywhere_are_cut() -> None:
    captured = capture(
        {"lens": "l" * 30, "select": ["s" * 30], "refs": ["Supplier/" + "k" * 30], "x" * 30: 1},
        params=[("branch", "b" * 30)],
        max_text_chars=8,
    )
    assert captured["body"] == {
        "lens": "l" * 8,
        "select": ["s" * 8],
        "refs": ["Supplier"],
        "x" * 8: 1,
    }
    assert captured["params"] == {"branch": "b" * 8}


def test_search_text_is_kept_or_only_its_length() -> None:
    body = {"q": "bering", "kinds": ["Part"], "mode": "lexical", "limit": 5}
    assert capture(body)["body"] == body
    assert capture(body, capture_search_text=False)["body"]["q"] == {"length": 6}
    assert capture(params=[("q", "seal"), ("match", "x" * 3)], capture_search_text=False)[
        "params"
    ] == {"q": {"length": 4}, "match": {"length": 3}}
    assert capture({"q": "w" * 20}, max_text_chars=5)["body"]["q"] == "w" * 5


def test_the_capture_is_bounded_by_max_query_bytes() -> None:
    body = {
        "kind": "Part",
        "where": {"attr": "part_number", "op": "in", "value": [f"P-{n:05}" for n in range(900)]},
        "select": ["name"],
    }
    captured = capture(body, max_query_bytes=600, max_filter_value_items=1000)
    assert captured["truncated"] is True
    assert size(captured) <= 600
    assert captured["body"]["kind"] == "Part"
    assert captured["body"]["where"]["attr"] == "part_number"
    assert 0 < len(captured["body"]["where"]["value"]) < 900
    small = capture({"kind": "Part"}, max_query_bytes=600)
    assert "truncated" not in small
    tiny = capture(body, max_query_bytes=0)  # nothing fits: cut as far as it goes, no failure
    assert tiny["truncated"] is True


# -- request families ---------------------------------------------------------------------------
def test_query_request() -> None:
    body = {
        "kind": "Supplier",
        "where": {
            "and": [
                {"attr": "tier", "op": "eq", "value": 1},
                {"attr": "risk_score", "op": "gte", "value": 70},
                {
                    "rel": "supplier_orders",
                    "where": {"attr": "status", "op": "eq", "value": "open"},
                },
                {"attr": "contact_email", "op": "starts_with", "value": "marta"},
            ]
        },
        "select": ["legal_name", "risk_score"],
    }
    captured = capture(body)
    assert captured["params"] == {}
    assert where(captured)["and"][:3] == body["where"]["and"][:3]
    assert where(captured)["and"][3]["value"] == {"redacted": "string"}


def test_context_request_seeds() -> None:
    query_seed = {
        "query": {"trait": "Located", "where": {"attr": "country", "op": "eq", "value": "PL"}},
        "lens": "supplier_risk",
        "depth": 2,
        "budget_tokens": 1500,
        "include_lineage": False,
        "format": "markdown",
    }
    assert capture(query_seed)["body"] == query_seed
    sensitive_seed = {
        "query": {
            "kind": "Supplier",
            "where": {"attr": "vat_number", "op": "eq", "value": "PL7792438105"},
        }
    }
    assert capture(sensitive_seed)["body"]["query"]["where"]["value"] == {"redacted": "string"}
    refs_seed = {"refs": ["Supplier/S-1001"], "relations": ["supplies"], "since": "v1"}
    assert capture(refs_seed)["body"] == refs_seed
    search_seed = {"search": "bearing"}
    assert capture(search_seed)["body"] == search_seed
    assert capture(search_seed, capture_search_text=False)["body"] == {"search": {"length": 7}}


def test_search_request() -> None:
    body = {
        "q": "bearing",
        "traits": ["Located"],
        "lens": "supplier_risk",
        "mode": "hybrid",
        "query_vector": [0.0] * 384,
        "limit": 20,
        "values": False,
        "branch": "main",
    }
    assert capture(body)["body"] == {**body, "query_vector": {"dimension": 384}}


def test_resolve_request() -> None:
    body = {"text": "open orders of Kavsen", "query_vector": [1.0, 2.0], "record_misses": False}
    assert capture(body)["body"] == {**body, "query_vector": {"dimension": 2}}
    assert capture(body, capture_search_text=False)["body"]["text"] == {"length": 21}


def test_traverse_request() -> None:
    body = {
        "start": ["Contract/C-3007"],
        "path": ["with_supplier", {"rel": "supplies"}],
        "limit": 2,
        "at": "main~1",
    }
    assert capture(body)["body"] == body
    filtered = {
        "start": ["Supplier/S-1007"],
        "path": [{"rel": "supplies", "where": {"attr": "vat_number", "op": "eq", "value": "X"}}],
    }
    assert capture(filtered)["body"]["path"][0]["where"]["value"] == {"redacted": "string"}


def test_neighborhood_request() -> None:
    body = {
        "refs": ["Supplier/S-1001", "Part/P-10007"],
        "depth": 1,
        "relations": ["with_supplier", "supplies"],
        "values": False,
    }
    assert capture(body)["body"] == body
    filtered = {
        "refs": ["Supplier/S-1001"],
        "filters": [
            {"attr": "risk_score", "op": "gt", "value": 50},
            {"attr": "contact_email", "op": "eq", "value": "a@b.example"},
        ],
    }
    assert capture(filtered)["body"]["filters"] == [
        {"attr": "risk_score", "op": "gt", "value": 50},
        {"attr": "contact_email", "op": "eq", "value": {"redacted": "string"}},
    ]


def test_get_query_parameters() -> None:
    params = [
        ("branch", "main"),
        ("limit", "20"),
        ("cursor", "c"),
        ("values", "true"),
        ("status", "open"),
        ("vat_number", "PL7792438105"),
        ("where[tier]", "1"),
        ("filter.contact_email", "a@b.example"),
        ("risk_score.gte", "70"),
        ("nickname", "Kav"),
        ("status", "suspended"),
        ("!!", "x"),
    ]
    assert capture(params=params)["params"] == {
        "branch": "main",
        "limit": "20",
        "values": "true",
        "status": ["open", "suspended"],
        "vat_number": {"redacted": "string"},
        "where[tier]": "1",
        "filter.contact_email": {"redacted": "string"},
        "risk_score.gte": "70",
        "nickname": {"redacted": "string"},
        "!!": {"redacted": "string"},
    }
    assert capture(params=[("status", "open")], capture_filter_values="none")["params"] == {
        "status": {"redacted": "string"}
    }


# -- answers: counts ----------------------------------------------------------------------------
GRAPH_DOC = (ROOT / "docs" / "graph.md").read_text()
_JSON_BLOCKS = [json.loads(block) for block in re.findall(r"```json\n(.*?)```", GRAPH_DOC, re.S)]
TRAVERSAL = next(block for block in _JSON_BLOCKS if "hops" in block)
NEIGHBORHOOD = next(block for block in _JSON_BLOCKS if "seeds" in block)
STAMP = {"domain": "supply", "branch": "main", "revision": "f4d2"}


def test_result_of_a_query_answer() -> None:
    answer = {
        **STAMP,
        "kind": "Supplier",
        "records": [
            {
                "ref": "Supplier/S-1001",
                "kind": "Supplier",
                "key": "S-1001",
                "values": {"legal_name": "Kavsen"},
            }
        ],
        "next_cursor": "abc",
        "coverage": {"kinds": [], "attributes": []},
    }
    assert result_of(answer, keep_corrections=True) == {"counts": {"records": 1}, "has_more": True}
    groups = {
        **STAMP,
        "groups": [{"key": "open", "count": 15}, {"key": None, "count": 1}],
        "next_cursor": None,
    }
    assert result_of(groups, keep_corrections=True) == {"counts": {"groups": 2}, "has_more": False}


def test_result_of_a_search_answer() -> None:
    answer = {
        **STAMP,
        "q": "bering",
        "mode": "lexical",
        "kinds": ["Part", "Supplier"],
        "corrected": [{"from": "bering", "to": "bearing"}],
        "hits": [
            {
                "ref": "Part/P-10012",
                "kind": "Part",
                "key": "P-10012",
                "title": "T",
                "score": 5.9,
                "matched": ["name"],
                "values": {"name": "T"},
            }
        ],
    }
    assert result_of(answer, keep_corrections=True) == {
        "counts": {"kinds": 2, "hits": 1},
        "mode": "lexical",
        "corrections": [{"from": "bering", "to": "bearing"}],
    }
    assert "corrections" not in result_of(answer, keep_corrections=False)


def test_result_of_a_context_pack() -> None:
    budget = {
        "limit_tokens": 2000,
        "used_tokens": 1500,
        "chars_per_token": 4.0,
        "sections": {"seeds": 300},
        "trimmed": [{"step": "lineage", "count": 2}],
        "omitted": {},
        "over_budget": False,
        "capped": False,
    }
    answer = {
        **STAMP,
        "etag": '"x"',
        "seeds": [{"ref": "Supplier/S-1001", "title": "K", "values": {}, "updated_revision": "r"}],
        "neighbors": [{"ref": "Part/P-1", "title": "p", "depth": 1}],
        "links": {
            "supplied_by": [{"from": "Part/P-1", "to": "Supplier/S-1001"}],
            "with_supplier": [],
        },
        "schema": {"kinds": [], "relations": []},
        "budget": budget,
    }
    assert result_of(answer, keep_corrections=True) == {
        "counts": {"seeds": 1, "neighbors": 1, "links": 1},
        "budget": budget,
    }


def test_result_of_graph_reads_resolve_and_lists() -> None:
    assert result_of({**STAMP, **TRAVERSAL}, keep_corrections=True) == {
        "counts": {"start": 1, "missing": 0, "path": 2, "hops": 2, "records": 3, "caps": 0},
        "truncated": False,
    }
    neighborhood = result_of({**STAMP, **NEIGHBORHOOD}, keep_corrections=True)
    assert neighborhood["counts"]["links"] == 5
    assert neighborhood["counts"]["neighbors"] == 5
    resolved = {**STAMP, "candidates": [{}], "truncated": True, "unmatched": ["x"], "skipped": []}
    assert result_of(resolved, keep_corrections=True)["truncated"] is True
    explained = {
        "ref": "Supplier/S-1",
        "changes_truncated": False,
        "links_truncated": True,
        "links": [],
    }
    assert result_of(explained, keep_corrections=True)["truncated"] is True
    record = {
        **STAMP,
        "ref": "Part/P-1",
        "kind": "Part",
        "key": "P-1",
        "links": {"supplied_by": 2, "stocked_at": 1},
    }
    assert result_of(record, keep_corrections=True) == {"counts": {}}
    assert result_of([1, 2, 3], keep_corrections=True) == {"counts": {"items": 3}}
    assert result_of("# Context: supply/main", keep_corrections=True) == {}


def test_result_of_never_counts_values() -> None:
    record = {
        **STAMP,
        "ref": "Part/P-1",
        "kind": "Part",
        "key": "P-1",
        "values": {"tags": ["a", "b"]},
        "before": [1],
        "after": [2],
    }
    assert result_of(record, keep_corrections=True) == {"counts": {}}


# -- answers: refs ------------------------------------------------------------------------------
def test_refs_of_query_rows_and_search_hits() -> None:
    answer = {
        **STAMP,
        "records": [
            {"ref": "Supplier/S-1001", "kind": "Supplier", "key": "S-1001", "values": {}},
            {"ref": "Supplier/S-1012", "kind": "Supplier", "key": "S-1012", "values": {}},
        ],
        "hits": [{"ref": "Supplier/S-1001", "kind": "Supplier", "key": "S-1001"}],
    }
    assert refs_of(answer, max_refs=10) == [
        {"kind": "Supplier", "key": "S-1001"},
        {"kind": "Supplier", "key": "S-1012"},
    ]


def test_refs_of_a_traversal() -> None:
    with_missing = {
        **TRAVERSAL,
        "start": ["Supplier/S-1007", "Supplier/S-9999"],
        "missing": ["Supplier/S-9999"],
    }
    assert refs_of(with_missing, max_refs=100) == [
        {"kind": "Supplier", "key": "S-1007"},
        {"kind": "PurchaseOrder", "key": "PO-200012"},
        {"kind": "PurchaseOrder", "key": "PO-200037"},
        {"kind": "PurchaseOrder", "key": "PO-200043"},
    ]


def test_refs_of_a_neighborhood() -> None:
    refs = refs_of(NEIGHBORHOOD, max_refs=100)
    assert refs[0] == {"kind": "Supplier", "key": "S-1001"}
    assert {"kind": "Contract", "key": "C-3001"} in refs
    assert {"relation": "supplied_by", "from": "Part/P-10006", "to": "Supplier/S-1001"} in refs
    assert {"relation": "with_supplier", "from": "Contract/C-3001", "to": "Supplier/S-1001"} in refs
    assert len([ref for ref in refs if "relation" in ref]) == 5
    assert len([ref for ref in refs if "kind" in ref]) == 6


def test_refs_of_a_context_pack_history_and_links_page() -> None:
    pack = {
        "seeds": [{"ref": "Supplier/S-1001", "title": "K", "values": {}, "updated_revision": "r"}],
        "links": {"supplied_by": [{"from": "Part/P-1", "to": "Supplier/S-1001"}]},
        "recent_changes": [{"revision": "r", "ref": "Part/P-2", "change": "deleted"}],
        "lineage": [
            {
                "ref": "Supplier/S-1001",
                "attributes": ["tier"],
                "origin": "import",
                "actor": "a",
                "at": "t",
            }
        ],
    }
    assert refs_of(pack, max_refs=10) == [
        {"kind": "Supplier", "key": "S-1001"},
        {"relation": "supplied_by", "from": "Part/P-1", "to": "Supplier/S-1001"},
        {"kind": "Part", "key": "P-2"},
    ]
    history = {
        **STAMP,
        "ref": "Contract/C-3013",
        "changes": [
            {
                "revision": "r",
                "origin": {"type": "operation", "ref": "Supplier/S-0000"},
                "before": {"x": {"ref": "Part/P-9"}},
                "after": None,
                "attributes": [],
            }
        ],
        "next_cursor": None,
    }
    assert refs_of(history, max_refs=10) == [{"kind": "Contract", "key": "C-3013"}]
    page = {
        **STAMP,
        "ref": "Supplier/S-1001",
        "relation": "supplies",
        "direction": "inverse",
        "target_kind": "Part",
        "links": [
            {
                "relation": "supplied_by",
                "from": "Part/P-1",
                "to": "Supplier/S-1001",
                "revision": "r",
            }
        ],
        "next_cursor": None,
    }
    assert refs_of(page, max_refs=10) == [
        {"kind": "Supplier", "key": "S-1001"},
        {"relation": "supplied_by", "from": "Part/P-1", "to": "Supplier/S-1001"},
    ]


def test_refs_of_an_explanation_and_a_diff() -> None:
    explained = {
        **STAMP,
        "ref": "Part/P-1",
        "title": "x",
        "links": [
            {
                "relation": "supplied_by",
                "direction": "forward",
                "ref": "Supplier/S-1",
                "revision": "r",
            },
            {
                "relation": "purchase_orders",
                "direction": "inverse",
                "ref": "PurchaseOrder/PO-1",
                "revision": "r",
            },
        ],
    }
    assert refs_of(explained, max_refs=10) == [
        {"kind": "Part", "key": "P-1"},
        {"kind": "Supplier", "key": "S-1"},
        {"relation": "supplied_by", "from": "Part/P-1", "to": "Supplier/S-1"},
        {"kind": "PurchaseOrder", "key": "PO-1"},
        {"relation": "purchase_orders", "from": "PurchaseOrder/PO-1", "to": "Part/P-1"},
    ]
    diff = {
        "domain": "supply",
        "records": [{"ref": "Part/P-1", "change": "modified", "before": {}, "after": {}}],
        "links": [{"ref": "supplied_by:P-1->S-1", "change": "created"}],
    }
    assert refs_of(diff, max_refs=10) == [{"kind": "Part", "key": "P-1"}]


def test_refs_in_values_are_not_refs() -> None:
    answer = {
        "records": [
            {
                "ref": "Part/P-1",
                "kind": "Part",
                "key": "P-1",
                "values": {
                    "spec": {
                        "ref": "Supplier/S-1",
                        "kind": "Supplier",
                        "key": "S-1",
                        "from": "Part/P-2",
                        "to": "Supplier/S-2",
                        "relation": "supplied_by",
                    }
                },
            }
        ],
        "links": {
            "supplied_by": [
                {"from": "Part/P-1", "to": "Supplier/S-1", "values": {"ref": "Part/P-7"}}
            ]
        },
    }
    assert refs_of(answer, max_refs=10) == [
        {"kind": "Part", "key": "P-1"},
        {"relation": "supplied_by", "from": "Part/P-1", "to": "Supplier/S-1"},
    ]


def test_refs_are_deduplicated_and_bounded() -> None:
    answer = {"records": [{"kind": "Part", "key": f"P-{n % 7}"} for n in range(50)]}
    assert len(refs_of(answer, max_refs=100)) == 7
    assert refs_of(answer, max_refs=3) == [{"kind": "Part", "key": f"P-{n}"} for n in range(3)]
    assert refs_of(answer, max_refs=0) == []
    assert refs_of("markdown", max_refs=5) == []


def test_what_is_not_a_record_reference() -> None:
    assert record_ref("Supplier/S-1/2") == ("Supplier", "S-1/2")
    for text in ("supplier/S-1", "Supplier/", "/S-1", "S-1", 7, None, "import:file/x"):
        assert record_ref(text) is None
    corrections = {
        "corrected": [{"from": "Part/x", "to": "Part/y", "relation": "r"}],
        "candidates": [{"kind": "Part", "attribute": "name"}],
        "groups": [{"key": "open", "count": 1}],
    }
    assert refs_of(corrections, max_refs=10) == []


def test_capture_and_refs_are_json() -> None:
    captured = capture({"kind": "Supplier", "where": {"attr": "tier", "op": "eq", "value": 1}})
    assert json.loads(json.dumps(captured)) == captured
    assert DEFAULTS.max_query_bytes == 16384


def test_every_member_a_predicate_compares_is_a_value() -> None:
    body = {"where": {"attr": "vat_number", "op": "in", "values": ["PL1"], "match": "PL"}}
    assert where(capture(body)) == {
        "attr": "vat_number",
        "op": "in",
        "values": {"redacted": "array"},
        "match": {"redacted": "string"},
    }


def test_numbers_that_are_not_json_are_replaced() -> None:
    body = {
        "limit": float("nan"),
        "where": {"attr": "tier", "op": "in", "value": [1, float("inf")]},
    }
    captured = capture(body)
    assert captured["body"]["limit"] == {"redacted": "number"}
    assert where(captured)["value"] == {"redacted": "array"}
    json.dumps(captured, allow_nan=False)
