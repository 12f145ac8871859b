"""Loading a schema document: shape, unknown members, edit shapes, all problems at once.

The cross-element rules (names that must exist, types that must agree) are in test_schema_checks.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from lorebase_core.errors import InvalidInput, Issue, SchemaInvalid
from lorebase_core.schema import EditDef, Schema, load_schema

Mutation = Callable[[dict[str, Any]], None]
IssuesOf = Callable[[Mutation], list[Issue]]
Loads = Callable[[Mutation], Schema]

OPERATION = ("operations", "flag_supplier_risk")


def set_at(*path: object) -> Mutation:
    """A mutation setting document[path[0]]...[path[-2]] = path[-1]."""
    *keys, value = path

    def mutate(document: dict[str, Any]) -> None:
        target: Any = document
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = value

    return mutate


def drop_at(*keys: object) -> Mutation:
    def mutate(document: dict[str, Any]) -> None:
        target: Any = document
        for key in keys[:-1]:
            target = target[key]
        del target[keys[-1]]

    return mutate


def paths(issues: list[Issue]) -> set[str]:
    return {issue.path for issue in issues}


# --- a valid document ------------------------------------------------------------------------


def test_valid_document_loads(schema_text: str) -> None:
    schema = load_schema(schema_text)
    assert isinstance(schema, Schema)
    assert schema.source == schema_text
    assert schema.domain.name == "supply"
    assert schema.domain.title == "Supply chain of Corvane Industries"
    assert schema.domain.examples == ("Which parts have a single supplier?",)
    assert schema.search.embedding is None
    assert set(schema.traits) == {"Located"}
    assert set(schema.kinds) == {"Supplier", "Part", "Contract", "RiskFlag"}
    assert set(schema.relations) == {"supplied_by", "with_supplier", "flags"}
    assert set(schema.lenses) == {"supplier_risk"}
    assert set(schema.operations) == {"flag_supplier_risk"}


def test_kind_members(schema: Schema) -> None:
    supplier = schema.kind("Supplier")
    assert supplier.key == ("supplier_code",)
    assert supplier.title == "legal_name"
    assert supplier.aliases == ("vendor",)
    assert supplier.traits == ("Located",)
    assert supplier.description == "A company that supplies parts."
    assert supplier.attributes["legal_name"].required is True
    assert supplier.attributes["risk_score"].min == 0
    assert supplier.attributes["risk_score"].max == 100
    assert supplier.attributes["vat_number"].unique is True
    assert supplier.attributes["vat_number"].sensitivity == ("confidential",)
    assert supplier.attributes["vat_number"].sensitive is True
    assert supplier.attributes["status"].values == ("active", "suspended")
    assert supplier.attributes["status"].value_aliases == {"suspended": ("paused", "on hold")}
    assert supplier.attributes["risk_band"].derived == "'high' if risk_score >= 70 else 'normal'"


def test_single_key_name_is_accepted(schema: Schema) -> None:
    assert schema.kind("Part").key == ("part_number",)
    assert schema.kind("Contract").key == ("supplier_code", "number")


def test_relation_members(schema: Schema) -> None:
    relation = schema.relation("supplied_by")
    assert (relation.from_kind, relation.to_kind) == ("Part", "Supplier")
    assert relation.inverse == "supplies"
    assert relation.cardinality == "many_to_many"
    assert relation.required_from is False
    assert set(relation.attributes) == {"is_primary", "lead_time_days"}
    assert schema.relation("with_supplier").cardinality == "many_to_one"


def test_lens_members(schema: Schema) -> None:
    lens = schema.lenses["supplier_risk"]
    assert lens.kinds == ("Supplier", "Contract", "Part", "RiskFlag")
    assert lens.relations == ("with_supplier", "supplies", "flags")
    assert (lens.depth, lens.budget_tokens) == (1, 2000)
    assert (lens.include_schema, lens.include_recent_changes, lens.include_lineage) == (
        True,
        True,
        True,
    )


def test_operation_members(schema: Schema) -> None:
    operation = schema.operations["flag_supplier_risk"]
    assert set(operation.parameters) == {"supplier", "severity", "reason"}
    assert operation.permissions == ("operation.execute",)
    assert operation.review == "severity == 'critical'"
    assert operation.side_effects == ("risk_flag_raised",)
    upsert, link = operation.edits
    assert upsert == EditDef(
        op="upsert_record",
        kind="RiskFlag",
        key={"expr": "concat('RF-', supplier, '-', invocation_id)"},
        values={"severity": "$severity", "reason": "$reason", "status": "open"},
    )
    assert link.op == "upsert_link"
    assert link.relation == "flags"
    assert link.from_ref == {"expr": "concat('RF-', supplier, '-', invocation_id)"}
    assert link.to_ref == "$supplier"


def test_defaults_of_optional_members(loads: Loads) -> None:
    def minimal(document: dict[str, Any]) -> None:
        document.clear()
        document["domain"] = {"name": "tiny"}
        document["kinds"] = {"Thing": {"key": "id", "attributes": {"id": {"type": "string"}}}}
        document["operations"] = {
            "make": {"edits": [{"upsert_record": {"kind": "Thing", "key": "x"}}]}
        }

    schema = loads(minimal)
    assert schema.domain.title == ""
    assert schema.search.embedding is None
    assert schema.traits == {}
    assert schema.relations == {}
    assert schema.lenses == {}
    assert schema.operations["make"].permissions == ("operation.execute",)
    assert schema.operations["make"].review is None
    thing = schema.kind("Thing")
    assert thing.title is None
    assert thing.attributes["id"].required is False


def test_search_embedding(loads: Loads) -> None:
    schema = loads(set_at("search", "embedding", {"model": "text-embed-small", "dimensions": 384}))
    assert schema.search.embedding is not None
    assert schema.search.embedding.model == "text-embed-small"
    assert schema.search.embedding.dimensions == 384


@pytest.mark.parametrize(
    "cardinality", ["one_to_one", "one_to_many", "many_to_one", "many_to_many"]
)
def test_every_cardinality_loads(loads: Loads, cardinality: str) -> None:
    schema = loads(set_at("relations", "flags", "cardinality", cardinality))
    assert schema.relation("flags").cardinality == cardinality


def test_empty_sections_load(loads: Loads) -> None:
    def empty(document: dict[str, Any]) -> None:
        document["lenses"] = None
        document["search"] = None
        document["traits"] = {}
        del document["kinds"]["Supplier"]["traits"]

    schema = loads(empty)
    assert schema.lenses == {}
    assert schema.traits == {}


# --- documents that are not schemas ----------------------------------------------------------


def test_invalid_yaml() -> None:
    with pytest.raises(SchemaInvalid, match="not valid YAML") as caught:
        load_schema("domain: {name: supply\nkinds: [")
    [issue] = caught.value.issues
    assert issue.path == ""
    assert issue.code == "yaml"
    assert "line" in issue.message


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("", id="empty"),
        pytest.param("- domain\n- kinds\n", id="list"),
        pytest.param("just text", id="scalar"),
    ],
)
def test_top_level_must_be_a_mapping(text: str) -> None:
    with pytest.raises(SchemaInvalid, match="must be a mapping") as caught:
        load_schema(text)
    assert [issue.message for issue in caught.value.issues] == ["expected a mapping at the top"]


def test_python_tags_are_refused() -> None:
    with pytest.raises(SchemaInvalid, match="not valid YAML"):
        load_schema("domain: !!python/object/apply:os.system [echo hi]\n")


def test_domain_is_required(issues_of: IssuesOf) -> None:
    issues = issues_of(drop_at("domain"))
    assert Issue("domain", "required", "missing") in issues


def test_schema_invalid_is_an_invalid_input() -> None:
    assert issubclass(SchemaInvalid, InvalidInput)
    assert SchemaInvalid.status == 422
    assert SchemaInvalid.code == "schema-invalid"


# --- unknown members anywhere ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("mutation", "path"),
    [
        pytest.param(set_at("bogus", 1), "bogus", id="top-level"),
        pytest.param(set_at("domain", "bogus", 1), "domain.bogus", id="domain"),
        pytest.param(set_at("search", "bogus", 1), "search.bogus", id="search"),
        pytest.param(
            set_at("search", "embedding", {"model": "m", "dimensions": 8, "bogus": 1}),
            "search.embedding.bogus",
            id="search-embedding",
        ),
        pytest.param(set_at("traits", "Located", "bogus", 1), "traits.Located.bogus", id="trait"),
        pytest.param(
            set_at("traits", "Located", "attributes", "city", "bogus", 1),
            "traits.Located.attributes.city.bogus",
            id="trait-attribute",
        ),
        pytest.param(set_at("kinds", "Part", "bogus", 1), "kinds.Part.bogus", id="kind"),
        pytest.param(
            set_at("kinds", "Part", "attributes", "name", "bogus", 1),
            "kinds.Part.attributes.name.bogus",
            id="attribute",
        ),
        pytest.param(
            set_at("kinds", "Part", "attributes", "name", "default", "x"),
            "kinds.Part.attributes.name.default",
            id="attribute-default-is-not-a-member",
        ),
        pytest.param(
            set_at("relations", "flags", "bogus", 1), "relations.flags.bogus", id="relation"
        ),
        pytest.param(
            set_at("relations", "supplied_by", "attributes", "is_primary", "bogus", 1),
            "relations.supplied_by.attributes.is_primary.bogus",
            id="link-attribute",
        ),
        pytest.param(
            set_at("lenses", "supplier_risk", "bogus", 1), "lenses.supplier_risk.bogus", id="lens"
        ),
        pytest.param(
            set_at(*OPERATION, "bogus", 1), "operations.flag_supplier_risk.bogus", id="operation"
        ),
        pytest.param(
            set_at(*OPERATION, "parameters", "reason", "bogus", 1),
            "operations.flag_supplier_risk.parameters.reason.bogus",
            id="parameter",
        ),
        pytest.param(
            set_at(*OPERATION, "parameters", "reason", "derived", "'x'"),
            "operations.flag_supplier_risk.parameters.reason.derived",
            id="parameter-cannot-be-derived",
        ),
        pytest.param(
            set_at(*OPERATION, "edits", 0, "upsert_record", "bogus", 1),
            "operations.flag_supplier_risk.edits.0.upsert_record.bogus",
            id="record-edit",
        ),
        pytest.param(
            set_at(*OPERATION, "edits", 1, "upsert_link", "bogus", 1),
            "operations.flag_supplier_risk.edits.1.upsert_link.bogus",
            id="link-edit",
        ),
    ],
)
def test_unknown_member_is_named(issues_of: IssuesOf, mutation: Mutation, path: str) -> None:
    issues = issues_of(mutation)
    unknown = [issue for issue in issues if "unknown member" in issue.message]
    assert [issue.path for issue in unknown] == [path]


def test_unknown_top_level_member_lists_the_sections(issues_of: IssuesOf) -> None:
    [issue] = issues_of(set_at("schema_version", 2))
    assert issue.path == "schema_version"
    assert issue.code == "unknown"
    assert issue.message == (
        "unknown member; expected one of "
        "domain, search, traits, kinds, relations, lenses, operations"
    )


@pytest.mark.parametrize(
    ("mutation", "path"),
    [
        pytest.param(
            set_at("kinds", "Part", "attributes", "int", {"type": "integer", "bogus": 1}),
            "kinds.Part.attributes.int.bogus",
            id="attribute-named-int",
        ),
        pytest.param(
            set_at(*OPERATION, "parameters", "str", {"type": "string", "bogus": 1}),
            "operations.flag_supplier_risk.parameters.str.bogus",
            id="parameter-named-str",
        ),
    ],
)
def test_unknown_member_path_of_members_named_like_types(
    issues_of: IssuesOf, mutation: Mutation, path: str
) -> None:
    assert path in paths(issues_of(mutation))


# --- members of the wrong shape --------------------------------------------------------------


@pytest.mark.parametrize(
    ("mutation", "path"),
    [
        pytest.param(drop_at("domain", "name"), "domain.name", id="domain-name-required"),
        pytest.param(
            set_at("domain", "examples", "one"), "domain.examples", id="examples-not-list"
        ),
        pytest.param(
            set_at("search", "embedding", {"model": "m", "dimensions": 0}),
            "search.embedding.dimensions",
            id="embedding-dimensions-zero",
        ),
        pytest.param(
            set_at("search", "embedding", {"dimensions": 8}),
            "search.embedding.model",
            id="embedding-model-required",
        ),
        pytest.param(set_at("kinds", ["Supplier"]), "kinds", id="kinds-not-mapping"),
        pytest.param(drop_at("kinds", "Part", "key"), "kinds.Part.key", id="key-required"),
        pytest.param(
            drop_at("kinds", "Part", "attributes"),
            "kinds.Part.attributes",
            id="attributes-required",
        ),
        pytest.param(set_at("kinds", "Part", "key", [1]), "kinds.Part.key.0", id="key-of-number"),
        pytest.param(
            drop_at("kinds", "Part", "attributes", "name", "type"),
            "kinds.Part.attributes.name.type",
            id="type-required",
        ),
        pytest.param(
            set_at("kinds", "Part", "attributes", "name", "required", "maybe"),
            "kinds.Part.attributes.name.required",
            id="required-not-boolean",
        ),
        pytest.param(
            set_at("kinds", "Supplier", "attributes", "vat_number", "sensitivity", ["secret"]),
            "kinds.Supplier.attributes.vat_number.sensitivity.0",
            id="unknown-sensitivity",
        ),
        pytest.param(
            set_at("kinds", "Part", "attributes", "name", "min_length", -1),
            "kinds.Part.attributes.name.min_length",
            id="negative-min-length",
        ),
        pytest.param(
            set_at("kinds", "Part", "attributes", "unit_price", "min", [1]),
            "kinds.Part.attributes.unit_price.min",
            id="bound-of-list",
        ),
        pytest.param(
            drop_at("relations", "flags", "from"), "relations.flags.from", id="from-required"
        ),
        pytest.param(drop_at("relations", "flags", "to"), "relations.flags.to", id="to-required"),
        pytest.param(
            set_at("relations", "flags", "cardinality", "several"),
            "relations.flags.cardinality",
            id="bad-cardinality",
        ),
        pytest.param(
            set_at("lenses", "supplier_risk", "depth", -1), "lenses.supplier_risk.depth", id="depth"
        ),
        pytest.param(
            set_at("lenses", "supplier_risk", "budget_tokens", 0),
            "lenses.supplier_risk.budget_tokens",
            id="budget",
        ),
        pytest.param(
            drop_at(*OPERATION, "edits"), "operations.flag_supplier_risk.edits", id="edits-required"
        ),
    ],
)
def test_wrong_shape_is_reported_at_its_path(
    issues_of: IssuesOf, mutation: Mutation, path: str
) -> None:
    assert path in paths(issues_of(mutation))


def test_kinds_not_mapping_message(issues_of: IssuesOf) -> None:
    issues = issues_of(set_at("lenses", ["supplier_risk"]))
    assert Issue("lenses", "expected a mapping of names to definitions") in issues


# --- edit shapes -----------------------------------------------------------------------------

EDIT_SHAPE = (
    "an edit is a mapping with one of upsert_record, update_record, delete_record, upsert_link, "
    "delete_link"
)


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param("upsert_record", id="string"),
        pytest.param({"replace_record": {"kind": "RiskFlag", "key": "x"}}, id="unknown-op"),
        pytest.param(
            {
                "upsert_record": {"kind": "RiskFlag", "key": "x"},
                "delete_record": {"kind": "RiskFlag", "key": "x"},
            },
            id="two-ops",
        ),
        pytest.param({}, id="empty"),
        pytest.param(["upsert_record"], id="list"),
        pytest.param({"kind": "RiskFlag", "key": "x"}, id="body-without-op"),
    ],
)
def test_bad_edit_shape(issues_of: IssuesOf, edit: object) -> None:
    issues = issues_of(set_at(*OPERATION, "edits", 0, edit))
    assert issues == [Issue("operations.flag_supplier_risk.edits.0", EDIT_SHAPE)]


@pytest.mark.parametrize(
    "body",
    [
        pytest.param("RiskFlag", id="string"),
        pytest.param(None, id="null"),
        pytest.param([1], id="list"),
    ],
)
def test_edit_body_must_be_a_mapping(issues_of: IssuesOf, body: object) -> None:
    issues = issues_of(set_at(*OPERATION, "edits", 0, {"upsert_record": body}))
    assert issues == [
        Issue("operations.flag_supplier_risk.edits.0.upsert_record", "expected a mapping")
    ]


def test_edits_must_not_be_empty(issues_of: IssuesOf) -> None:
    issues = issues_of(set_at(*OPERATION, "edits", []))
    assert issues == [
        Issue(
            "operations.flag_supplier_risk.edits", "an Operation needs at least one edit", "missing"
        )
    ]


def test_edit_paths_keep_their_index_after_a_bad_edit(issues_of: IssuesOf) -> None:
    def mutate(document: dict[str, Any]) -> None:
        edits = document["operations"]["flag_supplier_risk"]["edits"]
        edits[0]["upsert_record"]["kind"] = "Nope"
        edits.insert(0, "not an edit")

    assert paths(issues_of(mutate)) == {
        "operations.flag_supplier_risk.edits.0",
        "operations.flag_supplier_risk.edits.1.upsert_record.kind",
    }


@pytest.mark.parametrize(
    ("member", "value"),
    [
        pytest.param("values", [1], id="values-not-mapping"),
        pytest.param("kind", 5, id="kind-not-string"),
    ],
)
def test_edit_shape_error_path_names_the_op(
    issues_of: IssuesOf, member: str, value: object
) -> None:
    issues = issues_of(set_at(*OPERATION, "edits", 0, "upsert_record", member, value))
    assert paths(issues) == {f"operations.flag_supplier_risk.edits.0.upsert_record.{member}"}


# --- several problems at once ----------------------------------------------------------------


def test_every_problem_is_reported_at_once(issues_of: IssuesOf) -> None:
    def break_many(document: dict[str, Any]) -> None:
        document["domain"]["name"] = "Supply"
        document["kinds"]["Supplier"]["title"] = "nickname"
        document["kinds"]["Supplier"]["attributes"]["risk_score"]["max"] = -1
        document["relations"]["flags"]["from"] = "Flag"
        document["lenses"]["supplier_risk"]["traits"] = ["Nowhere"]
        document["operations"]["flag_supplier_risk"]["review"] = "urgent"
        document["kinds"]["Part"]["attributes"]["name"]["bogus"] = 1

    issues = issues_of(break_many)
    assert {
        "domain.name",
        "kinds.Supplier.title",
        "kinds.Supplier.attributes.risk_score.max",
        "relations.flags.from",
        "lenses.supplier_risk.traits",
        "operations.flag_supplier_risk.review",
        "kinds.Part.attributes.name.bogus",
    } <= paths(issues)


def test_issues_are_sorted_by_path(issues_of: IssuesOf) -> None:
    def break_two(document: dict[str, Any]) -> None:
        document["relations"]["flags"]["from"] = "Flag"
        document["kinds"]["Supplier"]["title"] = "nickname"

    issues = issues_of(break_two)
    assert [issue.path for issue in issues] == ["kinds.Supplier.title", "relations.flags.from"]


def test_schema_invalid_message_and_problem(schema_text: str) -> None:
    text = schema_text.replace("title: legal_name", "title: nickname").replace(
        "from: RiskFlag", "from: Flag"
    )
    with pytest.raises(SchemaInvalid) as caught:
        load_schema(text)
    error = caught.value
    assert error.detail == "The schema has 2 problem(s)"
    assert str(error).splitlines() == [
        "The schema has 2 problem(s)",
        "  kinds.Supplier.title: 'nickname' is not an Attribute of Supplier",
        "  relations.flags.from: Kind 'Flag' does not exist",
    ]
    problem = error.to_problem()
    assert problem["status"] == 422
    assert problem["code"] == "schema-invalid"
    assert problem["issues"] == [
        {
            "path": "kinds.Supplier.title",
            "message": "'nickname' is not an Attribute of Supplier",
            "code": "unknown",
        },
        {
            "path": "relations.flags.from",
            "message": "Kind 'Flag' does not exist",
            "code": "unknown",
        },
    ]


@pytest.mark.parametrize(
    "mutation",
    [
        pytest.param(
            set_at("search", "embedding", {"model": "m", "dimensions": 0}), id="bad-search"
        ),
        pytest.param(set_at("domain", "bogus", 1), id="bad-domain"),
    ],
)
def test_a_bad_section_does_not_hide_other_problems(
    issues_of: IssuesOf, mutation: Mutation
) -> None:
    def mutate(document: dict[str, Any]) -> None:
        mutation(document)
        document["relations"]["flags"]["from"] = "Flag"

    assert "relations.flags.from" in paths(issues_of(mutate))
