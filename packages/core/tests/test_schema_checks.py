"""The rules of docs/schema.md that look across a schema: each broken document gives an Issue
at the exact path of the member at fault."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from lorebase_core.errors import Issue
from lorebase_core.schema import Schema

Mutation = Callable[[dict[str, Any]], None]
IssuesOf = Callable[[Mutation], list[Issue]]
Loads = Callable[[Mutation], Schema]

OP = ("operations", "flag_supplier_risk")
OP_PATH = "operations.flag_supplier_risk"
KIND_NAME = "^[A-Z][A-Za-z0-9]{0,62}$"
MEMBER_NAME = "^[a-z][a-z0-9_]{0,62}$"


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


def rename(section: str, old: str, new: str) -> Mutation:
    def mutate(document: dict[str, Any]) -> None:
        document[section][new] = document[section].pop(old)

    return mutate


def both(*mutations: Mutation) -> Mutation:
    def mutate(document: dict[str, Any]) -> None:
        for mutation in mutations:
            mutation(document)

    return mutate


def part_attribute(name: str, definition: dict[str, Any]) -> Mutation:
    return set_at("kinds", "Part", "attributes", name, definition)


def paths(issues: list[Issue]) -> list[str]:
    return [issue.path for issue in issues]


THING = {"key": "id", "attributes": {"id": {"type": "string"}}}


# --- names -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("s", id="one-letter"),
        pytest.param("supply-chain", id="dash"),
        pytest.param("supply_chain2", id="underscore-digit"),
        pytest.param("a" * 63, id="63-characters"),
        pytest.param("no", id="yaml-1.1-no-stays-a-name"),
    ],
)
def test_valid_domain_names(loads: Loads, name: str) -> None:
    assert loads(set_at("domain", "name", name)).domain.name == name


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("Supply", id="capital"),
        pytest.param("1supply", id="leading-digit"),
        pytest.param("-supply", id="leading-dash"),
        pytest.param("supply chain", id="space"),
        pytest.param("supply.chain", id="dot"),
        pytest.param("a" * 64, id="64-characters"),
        pytest.param("", id="empty"),
    ],
)
def test_bad_domain_name(issues_of: IssuesOf, name: str) -> None:
    assert issues_of(set_at("domain", "name", name)) == [
        Issue("domain.name", f"{name!r} must match ^[a-z][a-z0-9_-]{{0,62}}$")
    ]


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("T", id="one-letter"),
        pytest.param("PurchaseOrder2", id="camel-digit"),
        pytest.param("T" + "a" * 62, id="63-characters"),
    ],
)
def test_valid_kind_names(loads: Loads, name: str) -> None:
    assert name in loads(set_at("kinds", name, THING)).kinds


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("thing", id="lower"),
        pytest.param("Purchase_Order", id="underscore"),
        pytest.param("Purchase-Order", id="dash"),
        pytest.param("2Thing", id="digit"),
        pytest.param("T" + "a" * 63, id="64-characters"),
    ],
)
def test_bad_kind_name(issues_of: IssuesOf, name: str) -> None:
    assert issues_of(set_at("kinds", name, THING)) == [
        Issue(f"kinds.{name}", f"the name must match {KIND_NAME}", "name")
    ]


def test_bad_trait_name(issues_of: IssuesOf) -> None:
    issues = issues_of(
        both(
            rename("traits", "Located", "located"),
            set_at("kinds", "Supplier", "traits", ["located"]),
        )
    )
    assert issues == [Issue("traits.located", f"the name must match {KIND_NAME}", "name")]


@pytest.mark.parametrize(
    ("mutation", "path"),
    [
        pytest.param(
            part_attribute("Name2", {"type": "string"}),
            "kinds.Part.attributes.Name2",
            id="attribute",
        ),
        pytest.param(
            part_attribute("unit-cost", {"type": "string"}),
            "kinds.Part.attributes.unit-cost",
            id="attribute-dash",
        ),
        pytest.param(
            part_attribute("a" * 64, {"type": "string"}),
            "kinds.Part.attributes." + "a" * 64,
            id="attribute-64-characters",
        ),
        pytest.param(
            set_at("relations", "supplied_by", "attributes", "IsPrimary", {"type": "boolean"}),
            "relations.supplied_by.attributes.IsPrimary",
            id="link-attribute",
        ),
        pytest.param(
            set_at("relations", "Owns", {"from": "Part", "to": "Supplier"}),
            "relations.Owns",
            id="relation",
        ),
        pytest.param(
            set_at("relations", "owned-by", {"from": "Part", "to": "Supplier"}),
            "relations.owned-by",
            id="relation-dash",
        ),
        pytest.param(
            set_at("relations", "flags", "inverse", "FlaggedBy"),
            "relations.flags.inverse",
            id="inverse",
        ),
        pytest.param(set_at("lenses", "Overview", {}), "lenses.Overview", id="lens"),
        pytest.param(
            rename("operations", "flag_supplier_risk", "FlagRisk"),
            "operations.FlagRisk",
            id="operation",
        ),
        pytest.param(
            set_at(*OP, "parameters", "Note", {"type": "string"}),
            f"{OP_PATH}.parameters.Note",
            id="parameter",
        ),
    ],
)
def test_bad_member_name(issues_of: IssuesOf, mutation: Mutation, path: str) -> None:
    assert issues_of(mutation) == [Issue(path, f"the name must match {MEMBER_NAME}", "name")]


def test_bad_side_effect_name(issues_of: IssuesOf) -> None:
    issues = issues_of(set_at(*OP, "side_effects", ["risk-flag-raised"]))
    assert issues == [
        Issue(f"{OP_PATH}.side_effects", f"'risk-flag-raised' must match {MEMBER_NAME}", "name")
    ]


def test_bad_trait_attribute_name(issues_of: IssuesOf) -> None:
    issues = issues_of(
        set_at("traits", "Priced", {"attributes": {"UnitPrice": {"type": "string"}}})
    )
    assert paths(issues) == ["traits.Priced.attributes.UnitPrice"]


# --- inverse names ---------------------------------------------------------------------------


def test_inverse_may_not_equal_another_inverse(issues_of: IssuesOf) -> None:
    issues = issues_of(set_at("relations", "flags", "inverse", "supplies"))
    assert len(issues) == 1
    [issue] = issues
    assert issue.path in {"relations.flags.inverse", "relations.supplied_by.inverse"}
    assert issue.code == "duplicate"
    assert "'supplies' is already used by relations." in issue.message


@pytest.mark.parametrize(
    "inverse",
    [
        pytest.param("with_supplier", id="another-relation"),
        pytest.param("supplied_by", id="another-relation-with-inverse"),
        pytest.param("flags", id="its-own-name"),
    ],
)
def test_inverse_may_not_equal_a_relation_name(issues_of: IssuesOf, inverse: str) -> None:
    issues = issues_of(set_at("relations", "flags", "inverse", inverse))
    assert issues == [
        Issue(
            "relations.flags.inverse",
            f"{inverse!r} is already used by relations.{inverse}",
            "duplicate",
        )
    ]


def test_relation_without_inverse_loads(loads: Loads) -> None:
    schema = loads(drop_at("relations", "flags", "inverse"))
    assert schema.relation("flags").inverse is None


# --- kinds: keys, titles, traits -------------------------------------------------------------


@pytest.mark.parametrize(
    ("mutation", "message", "code"),
    [
        pytest.param(
            set_at("kinds", "Part", "key", ["serial"]),
            "'serial' is not an Attribute of Part",
            "unknown",
            id="unknown-attribute",
        ),
        pytest.param(
            set_at("kinds", "Part", "key", "serial"),
            "'serial' is not an Attribute of Part",
            "unknown",
            id="unknown-single-name",
        ),
        pytest.param(
            set_at("kinds", "Part", "key", []),
            "a Kind needs a key of one or more Attributes",
            "missing",
            id="empty",
        ),
        pytest.param(
            set_at("kinds", "Part", "key", ["part_number", "part_number"]),
            "key Attributes must be distinct",
            "duplicate",
            id="repeated",
        ),
    ],
)
def test_key_must_name_attributes(
    issues_of: IssuesOf, mutation: Mutation, message: str, code: str
) -> None:
    assert issues_of(mutation) == [Issue("kinds.Part.key", message, code)]


@pytest.mark.parametrize(
    ("kind", "attribute", "message"),
    [
        pytest.param(
            "Contract", "terms", "'terms' is json; a key cannot be json or text", id="json"
        ),
        pytest.param(
            "RiskFlag", "reason", "'reason' is text; a key cannot be json or text", id="text"
        ),
        pytest.param(
            "Supplier",
            "risk_band",
            "'risk_band' is derived or sensitive and cannot be a key",
            id="derived",
        ),
        pytest.param(
            "Supplier",
            "vat_number",
            "'vat_number' is derived or sensitive and cannot be a key",
            id="sensitive",
        ),
    ],
)
def test_key_attribute_type(issues_of: IssuesOf, kind: str, attribute: str, message: str) -> None:
    issues = issues_of(set_at("kinds", kind, "key", [attribute]))
    assert issues == [Issue(f"kinds.{kind}.key", message)]


@pytest.mark.parametrize(
    "definition",
    [
        pytest.param({"type": "integer"}, id="integer"),
        pytest.param({"type": "decimal(10,2)"}, id="decimal"),
        pytest.param({"type": "date"}, id="date"),
        pytest.param({"type": "datetime"}, id="datetime"),
        pytest.param({"type": "enum", "values": ["a", "b"]}, id="enum"),
        pytest.param({"type": "boolean"}, id="boolean"),
        pytest.param({"type": "string", "unique": True}, id="unique-string"),
    ],
)
def test_key_attribute_of_other_types_loads(loads: Loads, definition: dict[str, Any]) -> None:
    schema = loads(set_at("kinds", "Thing", {"key": "id", "attributes": {"id": definition}}))
    assert schema.kind("Thing").key == ("id",)


def test_composite_key_loads(loads: Loads) -> None:
    schema = loads(set_at("kinds", "Part", "key", ["part_number", "unit_price"]))
    assert schema.kind("Part").key == ("part_number", "unit_price")


def test_kind_needs_an_attribute(issues_of: IssuesOf) -> None:
    issues = issues_of(set_at("kinds", "Thing", {"key": [], "attributes": {}}))
    assert issues == [
        Issue("kinds.Thing.attributes", "a Kind needs at least one Attribute", "missing"),
        Issue("kinds.Thing.key", "a Kind needs a key of one or more Attributes", "missing"),
    ]


def test_unknown_title(issues_of: IssuesOf) -> None:
    assert issues_of(set_at("kinds", "Supplier", "title", "nickname")) == [
        Issue("kinds.Supplier.title", "'nickname' is not an Attribute of Supplier", "unknown")
    ]


def test_unknown_trait(issues_of: IssuesOf) -> None:
    assert issues_of(set_at("kinds", "Part", "traits", ["Priced"])) == [
        Issue("kinds.Part.traits", "Trait 'Priced' does not exist", "unknown")
    ]


def test_trait_attribute_missing(issues_of: IssuesOf) -> None:
    assert issues_of(drop_at("kinds", "Supplier", "attributes", "city")) == [
        Issue("kinds.Supplier.attributes", "Trait Located needs Attribute 'city'", "trait")
    ]


def test_every_missing_trait_attribute_is_reported(issues_of: IssuesOf) -> None:
    issues = issues_of(set_at("kinds", "Part", "traits", ["Located"]))
    assert issues == [
        Issue("kinds.Part.attributes", "Trait Located needs Attribute 'city'", "trait"),
        Issue("kinds.Part.attributes", "Trait Located needs Attribute 'country'", "trait"),
    ]


@pytest.mark.parametrize(
    "declared",
    [
        pytest.param("text", id="text"),
        pytest.param("enum", id="enum"),
        pytest.param("integer", id="integer"),
    ],
)
def test_trait_attribute_of_another_type(issues_of: IssuesOf, declared: str) -> None:
    definition: dict[str, Any] = {"type": declared}
    if declared == "enum":
        definition["values"] = ["x"]
    issues = issues_of(set_at("kinds", "Supplier", "attributes", "city", definition))
    assert issues == [
        Issue(
            "kinds.Supplier.attributes.city.type",
            f"Trait Located declares 'city' as string, not {declared}",
            "trait",
        )
    ]


def test_trait_decimal_type_spelled_with_spaces_is_the_same_type(loads: Loads) -> None:
    def mutate(document: dict[str, Any]) -> None:
        document["traits"]["Priced"] = {"attributes": {"unit_price": {"type": "decimal(10, 2)"}}}
        document["kinds"]["Part"]["traits"] = ["Priced"]

    schema = loads(mutate)
    assert schema.kinds_implementing("Priced") == ["Part"]


def test_trait_attribute_rules_are_checked(issues_of: IssuesOf) -> None:
    issues = issues_of(set_at("traits", "Located", "attributes", "city", "pattern", "("))
    assert paths(issues) == ["traits.Located.attributes.city.pattern"]


# --- attribute rules -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("definition", "member", "message"),
    [
        pytest.param({"type": "float"}, "type", "unknown type 'float'", id="unknown-type"),
        pytest.param(
            {"type": "decimal"}, "type", "needs a precision and a scale", id="decimal-bare"
        ),
        pytest.param(
            {"type": "decimal(40,2)"}, "type", "precision must be 1 to 38", id="decimal-precision"
        ),
        pytest.param(
            {"type": "decimal(2,3)"}, "type", "larger than its precision", id="decimal-scale"
        ),
        pytest.param(
            {"type": "enum"}, "values", "an enum needs its values", id="enum-without-values"
        ),
        pytest.param(
            {"type": "enum", "values": []}, "values", "an enum needs its values", id="enum-empty"
        ),
        pytest.param(
            {"type": "string", "values": ["a"]},
            "values",
            "values are for enums, not string",
            id="values-on-string",
        ),
        pytest.param(
            {"type": "enum", "values": ["a", "a"]},
            "values",
            "values must be distinct",
            id="values-repeated",
        ),
        pytest.param(
            {"type": "enum", "values": ["a"], "value_aliases": {"b": ["bee"]}},
            "value_aliases.b",
            "'b' is not one of the enum's values",
            id="alias-of-unknown-value",
        ),
        pytest.param(
            {"type": "string", "pattern": "("},
            "pattern",
            "not a regular expression",
            id="bad-regex",
        ),
        pytest.param(
            {"type": "string", "pattern": "[a-"},
            "pattern",
            "not a regular expression",
            id="bad-class",
        ),
        pytest.param(
            {"type": "integer", "pattern": "^[0-9]+$"},
            "pattern",
            "a pattern applies to string and text, not integer",
            id="pattern-on-integer",
        ),
        pytest.param(
            {"type": "enum", "values": ["a"], "pattern": "a"},
            "pattern",
            "a pattern applies to string and text, not enum",
            id="pattern-on-enum",
        ),
        pytest.param(
            {"type": "integer", "min_length": 1},
            "min_length",
            "length bounds apply to string and text, not integer",
            id="min-length-on-integer",
        ),
        pytest.param(
            {"type": "string", "min_length": 5, "max_length": 2},
            "max_length",
            "must be >= min_length",
            id="min-length-above-max-length",
        ),
        pytest.param(
            {"type": "json", "unique": True},
            "unique",
            "json values cannot be unique",
            id="unique-json",
        ),
    ],
)
def test_attribute_rule(
    issues_of: IssuesOf, definition: dict[str, Any], member: str, message: str
) -> None:
    issues = issues_of(part_attribute("extra", definition))
    assert paths(issues) == [f"kinds.Part.attributes.extra.{member}"]
    assert message in issues[0].message


def test_max_length_on_wrong_type_is_reported_at_max_length(issues_of: IssuesOf) -> None:
    issues = issues_of(part_attribute("extra", {"type": "integer", "max_length": 3}))
    assert paths(issues) == ["kinds.Part.attributes.extra.max_length"]


@pytest.mark.parametrize(
    ("type_", "member"),
    [
        pytest.param("string", "min", id="min-on-string"),
        pytest.param("text", "max", id="max-on-text"),
        pytest.param("boolean", "min", id="min-on-boolean"),
        pytest.param("json", "max", id="max-on-json"),
    ],
)
def test_bounds_on_wrong_types(issues_of: IssuesOf, type_: str, member: str) -> None:
    issues = issues_of(part_attribute("extra", {"type": type_, member: 1}))
    assert issues == [
        Issue(
            f"kinds.Part.attributes.extra.{member}",
            f"bounds apply to integer, decimal, date and datetime, not {type_}",
        )
    ]


def test_bounds_on_enum(issues_of: IssuesOf) -> None:
    issues = issues_of(part_attribute("extra", {"type": "enum", "values": ["a", "b"], "min": "a"}))
    assert paths(issues) == ["kinds.Part.attributes.extra.min"]


@pytest.mark.parametrize(
    ("type_", "bound"),
    [
        pytest.param("integer", "ten", id="integer-word"),
        pytest.param("integer", 1.5, id="integer-fraction"),
        pytest.param("decimal(5,2)", 0.001, id="decimal-too-many-places"),
        pytest.param("decimal(5,2)", 12345, id="decimal-too-many-digits"),
        pytest.param("date", "2024-02-30", id="date-not-calendar"),
        pytest.param("date", "01/02/2024", id="date-format"),
        pytest.param("datetime", "2024-01-01T00:00:00", id="datetime-without-zone"),
    ],
)
def test_bound_must_be_a_value_of_the_type(issues_of: IssuesOf, type_: str, bound: object) -> None:
    issues = issues_of(part_attribute("extra", {"type": type_, "min": bound}))
    assert paths(issues) == ["kinds.Part.attributes.extra.min"]
    assert issues[0].message.startswith(f"not a {type_}: ")


@pytest.mark.parametrize(
    ("type_", "low", "high"),
    [
        pytest.param("integer", 0, 100, id="integer"),
        pytest.param("integer", "-5", "5", id="integer-text"),
        pytest.param("integer", 9, 10, id="integer-numeric-order"),
        pytest.param("decimal(10,2)", 0.5, "9.99", id="decimal"),
        pytest.param("decimal(10,2)", 9.5, 10, id="decimal-numeric-order"),
        pytest.param("date", "2024-01-01", "2024-12-31", id="date"),
        pytest.param(
            "datetime", "2024-01-01T00:00:00Z", "2024-01-01T01:00:00+00:00", id="datetime"
        ),
        pytest.param("integer", 5, 5, id="equal"),
    ],
)
def test_ordered_bounds_load(loads: Loads, type_: str, low: object, high: object) -> None:
    schema = loads(part_attribute("extra", {"type": type_, "min": low, "max": high}))
    assert schema.kind("Part").attributes["extra"].min == low


def test_doc_example_of_min_above_max(issues_of: IssuesOf) -> None:
    issues = issues_of(set_at("kinds", "Supplier", "attributes", "risk_score", "max", -1))
    assert [str(issue) for issue in issues] == [
        "kinds.Supplier.attributes.risk_score.max: must be >= min (0)"
    ]


@pytest.mark.parametrize(
    ("type_", "low", "high", "shown"),
    [
        pytest.param("integer", 10, 9, "10", id="integer-numeric-order"),
        pytest.param("integer", "010", 9, "10", id="integer-canonical"),
        pytest.param("decimal(10,2)", 10, 9.99, "10.00", id="decimal"),
        pytest.param("decimal(10,2)", "0.5", 0.25, "0.50", id="decimal-fraction"),
        pytest.param("date", "2024-01-02", "2024-01-01", "2024-01-02", id="date"),
        pytest.param(
            "datetime",
            "2024-01-01T02:00:00+01:00",
            "2024-01-01T00:30:00Z",
            "2024-01-01T01:00:00Z",
            id="datetime-in-utc",
        ),
        pytest.param(
            "datetime",
            "2024-01-01T10:00:00.5Z",
            "2024-01-01T10:00:00Z",
            "2024-01-01T10:00:00.500000Z",
            id="datetime-fraction",
        ),
    ],
)
def test_min_above_max(
    issues_of: IssuesOf, type_: str, low: object, high: object, shown: str
) -> None:
    issues = issues_of(part_attribute("extra", {"type": type_, "min": low, "max": high}))
    assert issues == [Issue("kinds.Part.attributes.extra.max", f"must be >= min ({shown})")]


# --- derived attributes ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("derived", "message", "code"),
    [
        pytest.param(
            "nickname + 'x'",
            "'nickname' is not an Attribute of the Kind",
            "unknown",
            id="unknown-name",
        ),
        pytest.param(
            "total_value * 2", "'total_value' is derived too", "invalid", id="reads-derived"
        ),
        pytest.param("extra + 1", "cannot read its own Attribute", "invalid", id="reads-itself"),
        pytest.param(
            "name.upper()", "only these functions may be called", "expression", id="method"
        ),
        pytest.param("name[0]", "Subscript is not allowed", "expression", id="subscript"),
        pytest.param("(1 +", "cannot parse", "expression", id="syntax"),
        pytest.param("().__class__", "Attribute is not allowed", "expression", id="dunder"),
        pytest.param("open('x')", "only these functions may be called", "expression", id="call"),
    ],
)
def test_bad_derivation(issues_of: IssuesOf, derived: str, message: str, code: str) -> None:
    issues = issues_of(part_attribute("extra", {"type": "string", "derived": derived}))
    assert set(paths(issues)) == {"kinds.Part.attributes.extra.derived"}
    assert any(message in issue.message and issue.code == code for issue in issues)


def test_derivation_reports_every_unknown_name(issues_of: IssuesOf) -> None:
    issues = issues_of(
        part_attribute("extra", {"type": "string", "derived": "concat(b_name, a_name)"})
    )
    assert [issue.message for issue in issues] == [
        "'a_name' is not an Attribute of the Kind",
        "'b_name' is not an Attribute of the Kind",
    ]


def test_derived_attribute_cannot_be_required(issues_of: IssuesOf) -> None:
    issues = issues_of(
        part_attribute("extra", {"type": "string", "derived": "name", "required": True})
    )
    assert issues == [
        Issue(
            "kinds.Part.attributes.extra.required",
            "a derived Attribute is computed and cannot be required",
        )
    ]


def test_derivation_over_stored_attributes_loads(loads: Loads) -> None:
    schema = loads(
        part_attribute(
            "label", {"type": "string", "derived": "concat(upper(part_number), ': ', name)"}
        )
    )
    derivation = schema.kind("Part").attributes["label"].derivation
    assert derivation is not None
    assert derivation.names == frozenset({"part_number", "name"})


# --- relations -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("member", "kind"),
    [pytest.param("from", "Flag", id="from"), pytest.param("to", "Vendor", id="to")],
)
def test_relation_with_unknown_kind(issues_of: IssuesOf, member: str, kind: str) -> None:
    assert issues_of(set_at("relations", "flags", member, kind)) == [
        Issue(f"relations.flags.{member}", f"Kind {kind!r} does not exist", "unknown")
    ]


def test_relation_with_both_kinds_unknown(issues_of: IssuesOf) -> None:
    issues = issues_of(set_at("relations", "owns", {"from": "Person", "to": "Car"}))
    assert paths(issues) == ["relations.owns.from", "relations.owns.to"]


def test_relation_to_a_trait_is_not_a_kind(issues_of: IssuesOf) -> None:
    issues = issues_of(set_at("relations", "flags", "to", "Located"))
    assert paths(issues) == ["relations.flags.to"]


@pytest.mark.parametrize(
    "definition",
    [
        pytest.param({"type": "integer", "derived": "lead_time_days * 2"}, id="derived"),
        pytest.param({"type": "string", "unique": True}, id="unique"),
    ],
)
def test_link_attribute_cannot_be_derived_or_unique(
    issues_of: IssuesOf, definition: dict[str, Any]
) -> None:
    issues = issues_of(set_at("relations", "supplied_by", "attributes", "extra", definition))
    assert issues == [
        Issue(
            "relations.supplied_by.attributes.extra", "Link Attributes cannot be derived or unique"
        )
    ]


def test_link_attribute_rules_are_checked(issues_of: IssuesOf) -> None:
    issues = issues_of(
        set_at("relations", "supplied_by", "attributes", "lead_time_days", "min", "soon")
    )
    assert paths(issues) == ["relations.supplied_by.attributes.lead_time_days.min"]


# --- lenses ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("member", "names", "message"),
    [
        pytest.param("kinds", ["Supplier", "Vendor"], "Kind 'Vendor' does not exist", id="kind"),
        pytest.param("kinds", ["Located"], "Kind 'Located' does not exist", id="trait-as-kind"),
        pytest.param("traits", ["Priced"], "Trait 'Priced' does not exist", id="trait"),
        pytest.param("traits", ["Supplier"], "Trait 'Supplier' does not exist", id="kind-as-trait"),
        pytest.param(
            "relations", ["supplied_by", "owns"], "Relation 'owns' does not exist", id="relation"
        ),
    ],
)
def test_lens_names_must_exist(
    issues_of: IssuesOf, member: str, names: list[str], message: str
) -> None:
    assert issues_of(set_at("lenses", "supplier_risk", member, names)) == [
        Issue(f"lenses.supplier_risk.{member}", message, "unknown")
    ]


def test_lens_reports_every_unknown_name(issues_of: IssuesOf) -> None:
    issues = issues_of(set_at("lenses", "supplier_risk", "kinds", ["Vendor", "Buyer"]))
    assert [issue.message for issue in issues] == [
        "Kind 'Buyer' does not exist",
        "Kind 'Vendor' does not exist",
    ]


def test_lens_accepts_forward_and_inverse_names_and_traits(loads: Loads) -> None:
    def mutate(document: dict[str, Any]) -> None:
        lens = document["lenses"]["supplier_risk"]
        lens["relations"] = ["supplied_by", "supplies", "contracts", "flagged_by"]
        lens["traits"] = ["Located"]

    schema = loads(mutate)
    assert schema.lenses["supplier_risk"].traits == ("Located",)


# --- operations ------------------------------------------------------------------------------

UPSERT = f"{OP_PATH}.edits.0.upsert_record"
LINK = f"{OP_PATH}.edits.1.upsert_link"


@pytest.mark.parametrize(
    ("mutation", "issue"),
    [
        pytest.param(
            set_at(*OP, "edits", 0, "upsert_record", "kind", "Flag"),
            Issue(f"{UPSERT}.kind", "Kind 'Flag' does not exist", "unknown"),
            id="unknown-kind",
        ),
        pytest.param(
            drop_at(*OP, "edits", 0, "upsert_record", "kind"),
            Issue(f"{UPSERT}.kind", "Kind None does not exist", "missing"),
            id="missing-kind",
        ),
        pytest.param(
            set_at(*OP, "edits", 1, "upsert_link", "relation", "flagged"),
            Issue(f"{LINK}.relation", "Relation 'flagged' does not exist", "unknown"),
            id="unknown-relation",
        ),
        pytest.param(
            set_at(*OP, "edits", 1, "upsert_link", "relation", "flagged_by"),
            Issue(f"{LINK}.relation", "Relation 'flagged_by' does not exist", "unknown"),
            id="inverse-name-is-not-a-relation-to-write",
        ),
        pytest.param(
            drop_at(*OP, "edits", 1, "upsert_link", "relation"),
            Issue(f"{LINK}.relation", "Relation None does not exist", "missing"),
            id="missing-relation",
        ),
        pytest.param(
            set_at(*OP, "edits", 0, "upsert_record", "values", "priority", "high"),
            Issue(f"{UPSERT}.values.priority", "'priority' is not an Attribute here", "unknown"),
            id="unknown-attribute",
        ),
        pytest.param(
            set_at(*OP, "edits", 1, "upsert_link", "values", {"weight": 1}),
            Issue(f"{LINK}.values.weight", "'weight' is not an Attribute here", "unknown"),
            id="unknown-link-attribute",
        ),
        pytest.param(
            set_at(*OP, "edits", 0, "upsert_record", "values", "severity", "$level"),
            Issue(f"{UPSERT}.values.severity", "'$level' names no parameter", "unknown"),
            id="unknown-parameter",
        ),
        pytest.param(
            set_at(*OP, "edits", 0, "upsert_record", "key", "$flag_id"),
            Issue(f"{UPSERT}.key", "'$flag_id' names no parameter", "unknown"),
            id="unknown-parameter-in-key",
        ),
        pytest.param(
            set_at(*OP, "edits", 0, "upsert_record", "key", {"expr": "concat(prefix, supplier)"}),
            Issue(f"{UPSERT}.key", "'prefix' names no parameter", "unknown"),
            id="unknown-name-in-expression",
        ),
        pytest.param(
            set_at(*OP, "edits", 1, "upsert_link", "to", "$vendor"),
            Issue(f"{LINK}.to", "'$vendor' names no parameter", "unknown"),
            id="unknown-parameter-in-to",
        ),
        pytest.param(
            drop_at(*OP, "edits", 0, "upsert_record", "key"),
            Issue(f"{UPSERT}.key", "required", "missing"),
            id="missing-key",
        ),
        pytest.param(
            drop_at(*OP, "edits", 1, "upsert_link", "from"),
            Issue(f"{LINK}.from", "required", "missing"),
            id="missing-from",
        ),
        pytest.param(
            drop_at(*OP, "edits", 1, "upsert_link", "to"),
            Issue(f"{LINK}.to", "required", "missing"),
            id="missing-to",
        ),
        pytest.param(
            set_at(*OP, "edits", 0, "upsert_record", "key", {"expr": 5}),
            Issue(f"{UPSERT}.key", 'a computed value is written {expr: "..."}'),
            id="expr-not-text",
        ),
        pytest.param(
            set_at(*OP, "edits", 0, "upsert_record", "key", {"expr": "supplier", "as": "x"}),
            Issue(f"{UPSERT}.key", 'a computed value is written {expr: "..."}'),
            id="expr-with-other-members",
        ),
        pytest.param(
            set_at(*OP, "edits", 0, "upsert_record", "key", {"expression": "supplier"}),
            Issue(f"{UPSERT}.key", 'a computed value is written {expr: "..."}'),
            id="misspelled-expr",
        ),
        pytest.param(
            set_at(*OP, "edits", 0, "upsert_record", "from", "$supplier"),
            Issue(UPSERT, "record edits take kind, key and values"),
            id="record-edit-with-from",
        ),
        pytest.param(
            set_at(*OP, "edits", 1, "upsert_link", "kind", "RiskFlag"),
            Issue(LINK, "link edits take relation, from, to and values"),
            id="link-edit-with-kind",
        ),
        pytest.param(
            set_at(*OP, "review", "invocation_id == 'x'"),
            Issue(f"{OP_PATH}.review", "'invocation_id' is not a parameter", "unknown"),
            id="review-reads-invocation-id",
        ),
        pytest.param(
            set_at(*OP, "review", "severity == 'critical' or amount > 1000"),
            Issue(f"{OP_PATH}.review", "'amount' is not a parameter", "unknown"),
            id="review-reads-non-parameter",
        ),
    ],
)
def test_operation_rule(issues_of: IssuesOf, mutation: Mutation, issue: Issue) -> None:
    assert issues_of(mutation) == [issue]


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        pytest.param("severity.lower()", "only these functions may be called", id="method"),
        pytest.param("[s for s in severity]", "ListComp is not allowed", id="comprehension"),
        pytest.param("severity ==", "cannot parse", id="syntax"),
    ],
)
def test_review_policy_must_be_an_expression(
    issues_of: IssuesOf, expression: str, message: str
) -> None:
    issues = issues_of(set_at(*OP, "review", expression))
    assert paths(issues) == [f"{OP_PATH}.review"]
    assert issues[0].code == "expression"
    assert message in issues[0].message


def test_template_expression_is_checked(issues_of: IssuesOf) -> None:
    issues = issues_of(set_at(*OP, "edits", 0, "upsert_record", "key", {"expr": "supplier[0]"}))
    assert paths(issues) == [f"{UPSERT}.key"]
    assert issues[0].code == "expression"


def test_derived_attribute_cannot_be_written_by_an_operation(issues_of: IssuesOf) -> None:
    issues = issues_of(
        set_at(
            "operations",
            "rate_supplier",
            {
                "parameters": {"supplier": {"type": "string"}, "band": {"type": "string"}},
                "edits": [
                    {
                        "update_record": {
                            "kind": "Supplier",
                            "key": "$supplier",
                            "values": {"risk_band": "$band"},
                        }
                    }
                ],
            },
        )
    )
    assert issues == [
        Issue(
            "operations.rate_supplier.edits.0.update_record.values.risk_band",
            "'risk_band' is derived and cannot be written",
        )
    ]


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(
            {
                "delete_record": {
                    "kind": "RiskFlag",
                    "key": "$supplier",
                    "values": {"status": "closed"},
                }
            },
            id="delete-record",
        ),
        pytest.param(
            {
                "delete_link": {
                    "relation": "supplied_by",
                    "from": "P-1",
                    "to": "$supplier",
                    "values": {"is_primary": True},
                }
            },
            id="delete-link",
        ),
    ],
)
def test_delete_takes_no_values(issues_of: IssuesOf, edit: dict[str, Any]) -> None:
    def mutate(document: dict[str, Any]) -> None:
        document["operations"]["flag_supplier_risk"]["edits"].append(edit)

    op = next(iter(edit))
    assert issues_of(mutate) == [
        Issue(f"{OP_PATH}.edits.2.{op}.values", "a delete takes no values")
    ]


def test_parameter_rules_are_checked(issues_of: IssuesOf) -> None:
    issues = issues_of(set_at(*OP, "parameters", "severity", {"type": "enum", "required": True}))
    assert issues == [
        Issue(f"{OP_PATH}.parameters.severity.values", "an enum needs its values", "missing")
    ]


def test_every_edit_kind_loads(loads: Loads) -> None:
    def mutate(document: dict[str, Any]) -> None:
        document["operations"]["manage"] = {
            "parameters": {
                "part": {"type": "string", "required": True},
                "supplier": {"type": "string", "pattern": "^S-[0-9]{4}$"},
                "price": {"type": "decimal(10,2)", "min": 0},
            },
            "edits": [
                {
                    "upsert_record": {
                        "kind": "Part",
                        "key": "$part",
                        "values": {"unit_price": "$price"},
                    }
                },
                {"update_record": {"kind": "Part", "key": "$part", "values": {"name": "renamed"}}},
                {"delete_record": {"kind": "Part", "key": {"expr": "concat(part, '-old')"}}},
                {
                    "upsert_link": {
                        "relation": "supplied_by",
                        "from": "$part",
                        "to": "$supplier",
                        "values": {"is_primary": True, "lead_time_days": 3},
                    }
                },
                {"delete_link": {"relation": "supplied_by", "from": "$part", "to": "S-0001"}},
            ],
            "permissions": ["operation.execute", "parts.manage"],
            "review": "price > 1000 or coalesce(supplier, '') == ''",
        }

    schema = loads(mutate)
    operation = schema.operations["manage"]
    assert [edit.op for edit in operation.edits] == [
        "upsert_record",
        "update_record",
        "delete_record",
        "upsert_link",
        "delete_link",
    ]
    assert operation.edits[3].from_ref == "$part"
    assert operation.edits[4].to_ref == "S-0001"
    policy = operation.review_policy
    assert policy is not None
    assert policy.evaluate({"price": "1000.01", "supplier": "S-1"}) is True
    assert policy.evaluate({"price": "10.00", "supplier": "S-1"}) is False


def test_operation_without_review_has_no_policy(loads: Loads) -> None:
    schema = loads(drop_at(*OP, "review"))
    assert schema.operations["flag_supplier_risk"].review_policy is None


def test_several_operation_problems_at_once(issues_of: IssuesOf) -> None:
    def mutate(document: dict[str, Any]) -> None:
        operation = document["operations"]["flag_supplier_risk"]
        operation["edits"][0]["upsert_record"]["kind"] = "Flag"
        operation["edits"][1]["upsert_link"]["to"] = "$vendor"
        operation["review"] = "urgent"
        operation["side_effects"] = ["Raised"]

    assert paths(issues_of(mutate)) == [
        f"{UPSERT}.kind",
        f"{LINK}.to",
        f"{OP_PATH}.review",
        f"{OP_PATH}.side_effects",
    ]


def test_relation_aliases_load_and_must_be_words(loads: Loads, issues_of: IssuesOf) -> None:
    schema = loads(set_at("relations", "flags", "aliases", ["raised on", "flagged"]))
    assert schema.relation("flags").aliases == ("raised on", "flagged")
    assert schema.to_document()["relations"]["flags"]["aliases"] == ["raised on", "flagged"]
    issues = issues_of(set_at("relations", "flags", "aliases", ["raised on", " ", "raised on"]))
    assert {(issue.path, issue.code) for issue in issues} == {
        ("relations.flags.aliases.1", "empty"),
        ("relations.flags.aliases", "duplicate"),
    }


def test_a_vocabulary_is_a_known_standard_on_a_string_or_enum(
    loads: Loads, issues_of: IssuesOf
) -> None:
    schema = loads(set_at("kinds", "Supplier", "attributes", "country", "vocabulary", "iso3166"))
    assert schema.kinds["Supplier"].attributes["country"].vocabulary == "iso3166"
    unknown = issues_of(set_at("kinds", "Supplier", "attributes", "country", "vocabulary", "iso9"))
    assert "kinds.Supplier.attributes.country.vocabulary" in paths(unknown)
    on_integer = issues_of(
        set_at("kinds", "Supplier", "attributes", "risk_score", "vocabulary", "iso4217")
    )
    assert on_integer == [
        Issue(
            "kinds.Supplier.attributes.risk_score.vocabulary",
            "a vocabulary applies to string and enum, not integer",
        )
    ]
