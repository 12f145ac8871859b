"""The request document of POST /query (docs/query.md) as pydantic models: its one description.

`parse_query` reads the members these models declare (`members`), in their order, and stays the
validator: it lists every problem with its path and code, which pydantic would not. Keeper
publishes the models in its OpenAPI document (the request of POST /query, the `query` of
POST /context and of resolve's suggestions), so what the document says a query holds and what
the parser accepts are one list.
"""

from __future__ import annotations

from typing import TypeAlias

from pydantic import BaseModel, ConfigDict, Field

from lorebase_core.query.model import CountOperator, MetricFunction, Operator, SortDirection


class _Member(BaseModel):
    """A member of a query document: exactly these members, anything else is refused."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Comparison(_Member):
    """`{"attr": ..., "op": ..., "value": ...}`: a list for `in`, a boolean for `is_null`."""

    attr: str
    op: Operator
    value: object = None


class RelationCount(_Member):
    op: CountOperator
    value: int


class RelationPredicate(_Member):
    """Records across a Relation (forward or inverse name) matching `where`, or counted."""

    rel: str
    where: Predicate | None = None
    count: RelationCount | None = None


class AllOf(_Member):
    and_: list[Predicate] = Field(alias="and")


class AnyOf(_Member):
    or_: list[Predicate] = Field(alias="or")


class NoneOf(_Member):
    not_: Predicate = Field(alias="not")


Predicate: TypeAlias = AllOf | AnyOf | NoneOf | Comparison | RelationPredicate


class OrderKey(_Member):
    attr: str
    dir: SortDirection = "asc"


class Aggregate(_Member):
    group_by: str | None = None
    metrics: dict[str, dict[MetricFunction, str]] = Field(
        default_factory=dict, description='name to {"count": "*"}, {"avg": "risk_score"} ...'
    )


class QueryRequest(_Member):
    """The query DSL (docs/query.md): one of kind or trait."""

    kind: str | None = None
    trait: str | None = None
    where: Predicate | None = None
    select: list[str] | None = None
    order_by: list[OrderKey] | None = None
    limit: int | None = None
    cursor: str | None = None
    aggregate: Aggregate | None = None
    branch: str | None = None
    at: str | None = None
    coverage: bool | None = Field(default=None, description="false: no coverage block.")


for _model in (RelationPredicate, AllOf, AnyOf, NoneOf, QueryRequest):
    _model.model_rebuild()


def members(model: type[BaseModel]) -> tuple[str, ...]:
    """The members of a part of the document, by their JSON names, in declared order."""
    return tuple(field.alias or name for name, field in model.model_fields.items())


__all__ = [
    "Aggregate",
    "AllOf",
    "AnyOf",
    "Comparison",
    "NoneOf",
    "OrderKey",
    "Predicate",
    "QueryRequest",
    "RelationCount",
    "RelationPredicate",
    "members",
]
