"""Why a query answered no Records: the notes and the `empty` member of its coverage block.

POST /query runs this only when the first page of a Record query is empty, so a non-empty answer
pays nothing for it (docs/query.md, "Empty answers"). Each leaf filter of `where` (a comparison,
a Relation predicate, a `not`) is counted alone against the same Kinds at the same Revision,
through the caller's own read (`Reader.query`, so through its grants); a text filter that matched
nothing gets the closest terms among the stored values of its Attribute (an Attribute the caller
reads unmasked and no sensitivity tag marks, of the queried Kinds only); a Relation filter that
matched nothing is told apart from a Relation without Links. At most
`read.query.explain_empty_max_checks` statements run; what did not is counted in `skipped`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from lorebase_core.errors import quoted
from lorebase_core.query import (
    Aggregate,
    And,
    Comparison,
    Or,
    Predicate,
    Query,
    RelationPredicate,
    ascii_lower,
)
from lorebase_core.resolve import similarity
from lorebase_keeper.reads.reading import Read
from lorebase_keeper.shapes.reads.queries import EmptyAnswerJson, FilterCheckJson

CLOSEST = 2
"""Closest stored terms named per text filter."""
MIN_WORD = 3
"""Shorter words of a text filter get no closest terms (search corrects none either)."""
TEXT_OPS = ("contains", "starts_with", "eq")
_WORD = re.compile(r"[^\W_]+")
_SYMBOLS = {"eq": "=", "ne": "!=", "lt": "<", "lte": "<=", "gt": ">", "gte": ">=", "in": "in"}


@dataclass
class _Checks:
    """The statements an empty answer may still run, and what they found."""

    read: Read
    query: Query
    left: int
    skipped: int = 0
    filters: list[FilterCheckJson] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def spend(self) -> bool:
        """Whether one more statement may run (one skipped is counted when not)."""
        if self.left <= 0:
            self.skipped += 1
            return False
        self.left -= 1
        return True

    def count(self, where: Predicate) -> int | None:
        """The Records of the queried Kinds matching `where` alone (None: past the bound)."""
        if not self.spend():
            return None
        counted = replace(
            self.query,
            where=where,
            select=None,
            order_by=(),
            limit=1,
            cursor=None,
            aggregate=Aggregate(None, None),
        )
        groups = self.read.reader.query(counted, self.read.scope).groups
        return groups[0].count if groups else 0


def explain_empty(read: Read, query: Query) -> tuple[list[str], EmptyAnswerJson]:
    """The notes and the `empty` member of an answer without Records."""
    checks = _Checks(read, query, read.keeper.settings.read.query.explain_empty_max_checks)
    label = _label(query)
    if query.where is None:
        checks.notes.append(f"no {label} Record exists at this Revision")
        return checks.notes, _member(checks, combination=False)
    leaves = list(_leaves(query.where, "where"))
    counts: dict[str, int] = {}
    for path, leaf in leaves:
        # a where of one filter is that filter: the answer already counted it
        records = 0 if len(leaves) == 1 else checks.count(leaf)
        if records is None:
            continue
        counts[path] = records
        checks.filters.append({"path": path, "filter": leaf.to_json(), "records": records})
        if records == 0:
            _explain_nothing(checks, label, path, leaf)
    combination = bool(leaves) and len(counts) == len(leaves) and all(counts.values())
    if combination:
        _explain_combination(checks, label, query.where, counts)
    if checks.skipped:
        bound = read.keeper.settings.read.query.explain_empty_max_checks
        checks.notes.append(
            f"{checks.skipped} more check(s) skipped past read.query.explain_empty_max_checks "
            f"({bound})"
        )
    return checks.notes, _member(checks, combination=combination)


def _member(checks: _Checks, *, combination: bool) -> EmptyAnswerJson:
    return {"filters": checks.filters, "combination": combination, "skipped": checks.skipped}


def _label(query: Query) -> str:
    return query.kinds[0] if query.trait is None else query.trait


def _leaves(predicate: Predicate, path: str) -> Iterator[tuple[str, Predicate]]:
    """The filters of a where with their paths: and/or are opened, the rest is one filter."""
    if isinstance(predicate, And | Or):
        name = "and" if isinstance(predicate, And) else "or"
        for index, child in enumerate(predicate.predicates):
            yield from _leaves(child, f"{path}.{name}[{index}]")
    else:
        yield path, predicate


def _describe(comparison: Comparison) -> str:
    value = comparison.value
    if comparison.op == "is_null":
        return f"no {comparison.attr}" if value else f"a {comparison.attr}"
    if comparison.op == "contains":
        return f"{comparison.attr} containing {quoted(value)}"
    if comparison.op == "starts_with":
        return f"{comparison.attr} starting with {quoted(value)}"
    return f"{comparison.attr} {_SYMBOLS[comparison.op]} {quoted(value)}"


def _explain_nothing(checks: _Checks, label: str, path: str, leaf: Predicate) -> None:
    if isinstance(leaf, Comparison):
        note = f"no {label} has {_describe(leaf)}"
        nearest = _closest(checks, leaf)
        if nearest:
            checks.filters[-1]["closest"] = [
                {"term": term, "records": records} for term, records, _ in nearest
            ]
            near = ", ".join(
                f"{quoted(term)} is {'the' if whole else 'in the'} {leaf.attr} of "
                f"{_records(records)}"
                for term, records, whole in nearest
            )
            note += f"; {near}"
        checks.notes.append(note)
    elif isinstance(leaf, RelationPredicate):
        _explain_relation(checks, label, path, leaf)
    else:
        checks.notes.append(f"no {label} matches the filter at {path}")


def _explain_relation(checks: _Checks, label: str, path: str, leaf: RelationPredicate) -> None:
    empty = f"no Link of Relation {quoted(leaf.relation)} exists at this Revision"
    if leaf.where is None and leaf.count is None:
        checks.notes.append(empty)
        return
    bare = RelationPredicate(
        leaf.rel, leaf.relation, leaf.direction, leaf.source_kind, leaf.target_kind
    )
    records = checks.count(bare)
    if records is not None:
        checks.filters.append({"path": path, "filter": bare.to_json(), "records": records})
    if records == 0:
        checks.notes.append(empty)
        return
    what = (
        "a number of them that matches its count"
        if leaf.where is None
        else (f"one to a {leaf.target_kind} that matches its where")
    )
    checks.notes.append(f"no {label} has Links of {leaf.rel} with {what} ({path})")


def _explain_combination(
    checks: _Checks, label: str, where: Predicate, counts: dict[str, int]
) -> None:
    checks.notes.append(
        f"each filter matches some {label} Records on its own; "
        "it is their combination that matches nothing"
    )
    if not isinstance(where, And) or len(where.predicates) < 2:
        return
    for index, child in enumerate(where.predicates):
        if not isinstance(child, RelationPredicate):
            continue
        others = where.predicates[:index] + where.predicates[index + 1 :]
        rest = counts.get(f"where.and[{1 - index}]") if len(others) == 1 else None
        if rest is None:
            rest = checks.count(others[0] if len(others) == 1 else And(others))
        if rest:
            checks.notes.append(
                f"none of the {rest} {label} Records matching the other filters has a Link of "
                f"{child.rel}{'' if child.where is None else ' matching its where'}"
            )


def _closest(checks: _Checks, leaf: Comparison) -> list[tuple[str, int, bool]]:
    """The stored terms nearest to a text filter: each with the Records whose value holds it
    and whether it is a whole stored value (of an eq)."""
    if leaf.op not in TEXT_OPS or leaf.value_type.base not in ("string", "text"):
        return []
    read = checks.read
    values: dict[str, int] = {}
    for kind_name in checks.query.kinds:
        rules = read.reader.schema.kinds[kind_name].attributes.get(leaf.attr)
        if rules is None or rules.sensitive or not read.scope.value_readable(rules):
            continue  # never a value of a sensitive Attribute, nor one masked for the caller
        if not read.scope.kind_visible(kind_name) or not checks.spend():
            continue
        limit = read.keeper.settings.read.query.explain_empty_max_values
        for value, records in read.reader.attribute_values(kind_name, leaf.attr, limit=limit):
            values[value] = values.get(value, 0) + records
    minimum = read.keeper.settings.read.search.min_similarity
    return _nearest(str(leaf.value), leaf.op, values, minimum)


def _nearest(
    needle: str, op: str, values: dict[str, int], minimum: float
) -> list[tuple[str, int, bool]]:
    """Candidates for `needle`: whole stored values (for eq), and the needle with one of its
    words replaced by a similar stored word (Records whose value holds it, as `contains`
    would find); each kept when some Records hold it, the most similar first."""
    lowered: dict[str, int] = {}
    for value, records in values.items():
        lowered[ascii_lower(value)] = lowered.get(ascii_lower(value), 0) + records
    folded = ascii_lower(needle)
    found: dict[str, tuple[float, int, bool]] = {}
    if op == "eq":
        for value, records in values.items():
            similar = similarity(folded, ascii_lower(value))
            if similar >= minimum and value != needle:
                found[value] = (similar, records, True)
    vocabulary = sorted({word for value in lowered for word in _WORD.findall(value)})
    for word in dict.fromkeys(_WORD.findall(folded)):
        if len(word) < MIN_WORD:
            continue
        for term in vocabulary:
            similar = similarity(word, term)
            candidate = folded.replace(word, term)
            if term == word or similar < minimum or candidate in found:
                continue
            starts = op == "starts_with"
            records = sum(
                count
                for value, count in lowered.items()
                if (value.startswith(candidate) if starts else candidate in value)
            )
            if records:
                found[candidate] = (similar, records, False)
    ranked = sorted(found.items(), key=lambda item: (-round(item[1][0], 6), -item[1][1], item[0]))
    return [(term, records, whole) for term, (_, records, whole) in ranked[:CLOSEST]]


def _records(count: int) -> str:
    return f"{count} Record" if count == 1 else f"{count} Records"
