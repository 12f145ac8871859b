"""What resolve answers: the Terms a phrase can name, the entries naming them, the candidates."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Target = Literal["kind", "attribute", "relation", "value", "comparison", "count"]
Level = Literal["exact", "synonym", "stem", "description", "similar", "embedding", "number"]
EntryLevel = Literal["exact", "synonym", "stem", "description"]
Direction = Literal["forward", "inverse"]

_TARGET_ORDER = {"kind": 0, "attribute": 1, "relation": 2, "value": 3, "comparison": 4, "count": 5}


@dataclass(frozen=True)
class Term:
    """What a phrase can stand for: a Kind, an Attribute, a Relation, or values of an Attribute.

    For a Relation, `kind` is the Kind it is read from (where its predicate goes), `relation` the
    api name read from there (the forward or the inverse name), `to_kind` the Kind at the other
    end and `direction` which of the two names `relation` is.

    A comparison (`numbers.py`) holds `op` and its `values` in canonical form (`between`: the
    lowest value and the first one past the range); a count holds `op` and the number in `values`.
    """

    target: Target
    kind: str
    attribute: str | None = None
    type: str | None = None
    values: tuple[str, ...] = ()
    records: int | None = None
    relation: str | None = None
    to_kind: str | None = None
    direction: Direction | None = None
    op: str | None = None

    @property
    def order(self) -> tuple[int, str, str, tuple[str, ...]]:
        """The tie-break of candidates of equal score: target, Kind, Attribute or Relation, values."""
        name = self.attribute or self.relation or ""
        return (_TARGET_ORDER[self.target], self.kind, name, self.values)


def comparison_predicate(term: Term) -> dict[str, Any]:
    """The `where` of a comparison Term: integers as JSON numbers, the rest as canonical text."""
    attr = term.attribute
    typed: list[object] = [int(v) if term.type == "integer" else v for v in term.values]
    if term.op == "between":
        return {
            "and": [
                {"attr": attr, "op": "gte", "value": typed[0]},
                {"attr": attr, "op": "lt", "value": typed[1]},
            ]
        }
    return {"attr": attr, "op": term.op, "value": typed[0]}


def term_predicate(term: Term) -> dict[str, Any]:
    """The `where` of a value Term (`eq` one value, `in` several) or of a comparison Term."""
    if term.target == "comparison":
        return comparison_predicate(term)
    if len(term.values) == 1:
        return {"attr": term.attribute, "op": "eq", "value": term.values[0]}
    return {"attr": term.attribute, "op": "in", "value": list(term.values)}


@dataclass(frozen=True)
class Entry:
    """A key (normalized, or word stems for `stem` and `description`) naming a Term.

    `why` says in words what the key is ("an alias of the Kind Supplier").
    """

    key: str
    term: Term
    level: EntryLevel
    why: str = ""


@dataclass(frozen=True)
class Candidate:
    """A Term a phrase may stand for, with its score and level and why it matched.

    `span` is the phrase's word positions [start, end) in `words(text)` (not in the JSON).
    """

    term: Term
    score: float
    level: Level
    matched: str
    why: str = ""
    span: tuple[int, int] = (0, 0)

    def to_json(self) -> dict[str, Any]:
        """The candidate as the answer of POST /resolve shows it."""
        term = self.term
        document: dict[str, Any] = {"target": term.target, "kind": term.kind}
        if term.target == "relation":
            document.update(
                relation=term.relation,
                direction=term.direction,
                to_kind=term.to_kind,
                predicate={"rel": term.relation},
            )
        if term.attribute is not None:
            document["attribute"] = term.attribute
            document["type"] = term.type
        if term.target == "count":
            document["count"] = {"op": term.op, "value": int(term.values[0])}
        elif term.target in ("value", "comparison"):
            if term.target == "value":
                document["values"] = list(term.values)
            document["predicate"] = term_predicate(term)
        document.update(score=self.score, level=self.level, matched=self.matched, why=self.why)
        if term.records is not None:
            document["records"] = term.records
        return document
