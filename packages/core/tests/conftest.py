"""Shared fixtures: a small valid schema (the example of docs/schema.md, completed) and helpers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import yaml

from lorebase_core.errors import Issue, SchemaInvalid
from lorebase_core.schema import Schema, load_schema
from lorebase_core.schema.yaml_text import parse_yaml

SCHEMA_TEXT = """\
domain:
  name: supply                      # api name of the Domain
  title: Supply chain of Corvane Industries
  description: Suppliers, parts, purchase orders and contracts.
  examples:
    - Which parts have a single supplier?

search:
  embedding: null

traits:
  Located:
    description: Something with a place.
    attributes:
      city: {type: string}
      country: {type: string}

kinds:
  Supplier:
    description: A company that supplies parts.
    key: [supplier_code]
    title: legal_name
    aliases: [vendor]
    traits: [Located]
    attributes:
      supplier_code: {type: string, pattern: "^S-[0-9]{4}$"}
      legal_name: {type: string, required: true}
      risk_score: {type: integer, min: 0, max: 100, description: Risk from 0 to 100.}
      vat_number: {type: string, unique: true, sensitivity: [confidential]}
      city: {type: string}
      country: {type: string}
      status:
        type: enum
        values: [active, suspended]
        value_aliases: {suspended: [paused, on hold]}
      risk_band:
        type: string
        derived: "'high' if risk_score >= 70 else 'normal'"
  Part:
    key: part_number                # a single name is accepted too
    title: name
    attributes:
      part_number: {type: string, min_length: 2, max_length: 12}
      name: {type: string}
      unit_price: {type: "decimal(10,2)", min: 0, max: 99999.99}
      in_stock: {type: boolean}
      total_value:
        type: "decimal(12,2)"
        derived: "unit_price * stock_count"
      stock_count: {type: integer}
  Contract:
    key: [supplier_code, number]
    title: number
    attributes:
      supplier_code: {type: string}
      number: {type: integer}
      signed_on: {type: date, min: "2000-01-01", max: "2099-12-31"}
      starts_at: {type: datetime, min: "2000-01-01T00:00:00Z"}
      terms: {type: json}
  RiskFlag:
    key: flag_id
    attributes:
      flag_id: {type: string}
      severity: {type: enum, values: [low, medium, high, critical]}
      reason: {type: text}
      status: {type: enum, values: [open, closed]}

relations:
  supplied_by:
    from: Part
    to: Supplier
    inverse: supplies
    cardinality: many_to_many
    required_from: false
    description: A supplier can supply the part.
    attributes:
      is_primary: {type: boolean}
      lead_time_days: {type: integer, min: 0}
  with_supplier:
    from: Contract
    to: Supplier
    inverse: contracts
    cardinality: many_to_one
  flags:
    from: RiskFlag
    to: Supplier
    inverse: flagged_by

lenses:
  supplier_risk:
    description: A supplier with its contracts, parts and open risk flags.
    kinds: [Supplier, Contract, Part, RiskFlag]
    traits: []
    relations: [with_supplier, supplies, flags]
    depth: 1
    budget_tokens: 2000
    include_schema: true
    include_recent_changes: true
    include_lineage: true

operations:
  flag_supplier_risk:
    description: Raise a risk flag on a supplier.
    parameters:
      supplier: {type: string, required: true}
      severity: {type: enum, values: [low, medium, high, critical], required: true}
      reason: {type: text, required: true}
    edits:
      - upsert_record:
          kind: RiskFlag
          key: {expr: "concat('RF-', supplier, '-', invocation_id)"}
          values: {severity: $severity, reason: $reason, status: open}
      - upsert_link:
          relation: flags
          from: {expr: "concat('RF-', supplier, '-', invocation_id)"}
          to: $supplier
    permissions: [operation.execute]
    review: "severity == 'critical'"
    side_effects: [risk_flag_raised]
"""

Mutation = Callable[[dict[str, Any]], None]
IssuesOf = Callable[[Mutation], list[Issue]]


@pytest.fixture
def schema_text() -> str:
    return SCHEMA_TEXT


@pytest.fixture
def schema() -> Schema:
    return load_schema(SCHEMA_TEXT)


def dump(document: dict[str, Any]) -> str:
    return yaml.safe_dump(document, sort_keys=False, allow_unicode=True)


@pytest.fixture
def issues_of() -> IssuesOf:
    """Apply a mutation to the valid document, load it and return the issues (it must fail)."""

    def run(mutate: Mutation) -> list[Issue]:
        parsed = parse_yaml(SCHEMA_TEXT)
        assert isinstance(parsed, dict)
        mutate(parsed)
        with pytest.raises(SchemaInvalid) as caught:
            load_schema(dump(parsed))
        return caught.value.issues

    return run


@pytest.fixture
def loads() -> Callable[[Mutation], Schema]:
    """Apply a mutation to the valid document and load it (it must succeed)."""

    def run(mutate: Mutation) -> Schema:
        parsed = parse_yaml(SCHEMA_TEXT)
        assert isinstance(parsed, dict)
        mutate(parsed)
        return load_schema(dump(parsed))

    return run
