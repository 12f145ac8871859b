"""Suggested queries: POST /query bodies composed from resolve's candidates (docs/resolve.md).

Never run here. For each Kind the question names, in the order it names them (or, when it names
none, the Kind of its first predicate), one query with that Kind as the subject:

- each phrase with value or comparison candidates gives one predicate (a close spelling only on a
  Kind the question names): the candidate on a Kind the question names, nearest to where it
  names it (then the best score), else the best one;
- each other Kind involved (named, holding a chosen predicate, or at the other end of a Relation
  named from an involved Kind) is reached by the shortest path of Relations from the subject (at
  most `max_hops`), the Relations the question names first; its predicates go in the `where` of
  the last Relation predicate;
- a count candidate ("a single supplier") on a Kind one Relation away becomes that Relation
  predicate's `count`;
- `select` is the subject's title and the subject's Attributes the question names;
- after it, the same query without the values named by an alias on Kinds the question does not
  name, when it has some (an alias of a state may be meant otherwise: "late" for the Loan status
  `overdue` in "members with late novels").
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lorebase_core.access import ReadScope
from lorebase_core.resolve.terms import Candidate, term_predicate
from lorebase_core.schema import Schema

Edge = tuple[str, str]
"""A step across a Relation: the name read from the Kind it starts at, and the Kind it reaches."""


@dataclass(frozen=True)
class Suggestion:
    """A query document composed from candidates, its score and the phrases it uses."""

    query: dict[str, Any]
    score: float
    uses: tuple[str, ...]
    why: str

    def to_json(self) -> dict[str, Any]:
        return {"query": self.query, "score": self.score, "uses": list(self.uses), "why": self.why}


@dataclass
class _Node:
    """A Kind in the tree of a suggestion: its predicates and the Relations to other Kinds."""

    kind: str
    predicates: list[dict[str, Any]] = field(default_factory=list)
    children: dict[str, _Node] = field(default_factory=dict)
    count: dict[str, Any] | None = None

    def where(self) -> dict[str, Any] | None:
        parts = _one_of(self.predicates)
        for name, child in self.children.items():
            part: dict[str, Any] = {"rel": name}
            inner = child.where()
            if inner is not None:
                part["where"] = inner
            if child.count is not None:
                part["count"] = child.count
            parts.append(part)
        if not parts:
            return None
        return parts[0] if len(parts) == 1 else {"and": parts}


def _one_of(predicates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The predicates, with the equalities of one Attribute to different values made one `in`:
    "high or critical severity" names two values that one value cannot both equal."""
    values: dict[str, list[Any]] = {}
    for predicate in predicates:
        if _is_equality(predicate):
            named = values.setdefault(predicate["attr"], [])
            if predicate["value"] not in named:
                named.append(predicate["value"])
    merged: list[dict[str, Any]] = []
    written: set[str] = set()
    for predicate in predicates:
        attr = str(predicate.get("attr"))
        if not _is_equality(predicate) or len(values[attr]) < 2:
            merged.append(predicate)
        elif attr not in written:  # once, where the first of them was
            merged.append({"attr": attr, "op": "in", "value": values[attr]})
            written.add(attr)
    return merged


def _is_equality(predicate: dict[str, Any]) -> bool:
    """Whether `predicate` is exactly an Attribute's equality, `{"attr", "op": "eq", "value"}`."""
    return predicate.get("op") == "eq" and set(predicate) == {"attr", "op", "value"}


def _edges(schema: Schema, scope: ReadScope, named: set[str]) -> dict[str, list[Edge]]:
    """The steps from each Kind across the readable Relations, those the question names first."""
    steps: dict[str, list[tuple[bool, int, Edge]]] = {}
    for order, name in enumerate(scope.visible_relations(schema)):
        relation = schema.relations[name]
        forward = (relation.from_kind, (name, relation.to_kind))
        ends = [forward]
        if relation.inverse is not None:
            ends.append((relation.to_kind, (relation.inverse, relation.from_kind)))
        for start, edge in ends:
            steps.setdefault(start, []).append((edge[0] not in named, order, edge))
    return {start: [edge for *_, edge in sorted(found)] for start, found in steps.items()}


def shortest_path(
    edges: dict[str, list[Edge]], start: str, goal: str, max_hops: int
) -> list[Edge] | None:
    """The fewest steps from `start` to `goal` (breadth first, in the edges' order), or None."""
    paths: dict[str, list[Edge]] = {start: []}
    queue = deque([start])
    while queue:
        kind = queue.popleft()
        if kind == goal:
            return paths[kind]
        if len(paths[kind]) == max_hops:
            continue
        for edge in edges.get(kind, ()):
            if edge[1] not in paths:
                paths[edge[1]] = [*paths[kind], edge]
                queue.append(edge[1])
    return None


def _distance(span: tuple[int, int], others: Iterable[tuple[int, int]]) -> int:
    """Words between a phrase and the nearest of `others` (a large number without any)."""
    gaps = [max(other[0] - span[1], span[0] - other[1], 0) for other in others]
    return min(gaps, default=10_000)


class _Composer:
    """Suggestions for one resolution: shared state of the candidates, per subject Kind."""

    def __init__(
        self, candidates: Sequence[Candidate], schema: Schema, scope: ReadScope, max_hops: int
    ) -> None:
        self.schema, self.scope, self.max_hops = schema, scope, max_hops
        self.mentions: dict[str, list[Candidate]] = {}
        self.phrases: dict[tuple[int, int], list[Candidate]] = {}
        self.counts: list[Candidate] = []
        self.attributes: list[Candidate] = []
        named: set[str] = set()
        self.relations: list[Candidate] = []
        for candidate in candidates:
            target = candidate.term.target
            if target == "kind":
                self.mentions.setdefault(candidate.term.kind, []).append(candidate)
            elif target in ("value", "comparison"):
                self.phrases.setdefault(candidate.span, []).append(candidate)
            elif target == "count":
                self.counts.append(candidate)
            elif target == "attribute":
                self.attributes.append(candidate)
            elif target == "relation" and candidate.term.relation is not None:
                named.add(candidate.term.relation)
                self.relations.append(candidate)
        self.edges = _edges(schema, scope, named)
        # a close spelling is evidence enough only on a Kind the text names ("Find" is not Finland)
        for span, options in list(self.phrases.items()):
            kept = [c for c in options if c.level != "similar" or c.term.kind in self.mentions]
            if kept:
                self.phrases[span] = kept
            else:
                del self.phrases[span]

    def subjects(self) -> list[str]:
        """The Kinds a suggestion may be about: as named, else as the predicates hold them."""
        named = sorted(self.mentions, key=lambda kind: (self._first(kind), kind))
        if named:
            return named
        firsts = sorted(self.phrases)
        return list(dict.fromkeys(self.phrases[span][0].term.kind for span in firsts))

    def _first(self, kind: str) -> tuple[int, int]:
        return min(mention.span for mention in self.mentions[kind])

    def choose(self, options: list[Candidate]) -> Candidate:
        """The candidate of a phrase on a named Kind nearest to it, else the best one."""

        def rank(candidate: Candidate) -> tuple[int, int, float, tuple[Any, ...]]:
            spans = [mention.span for mention in self.mentions.get(candidate.term.kind, [])]
            return (
                0 if spans else 1,
                _distance(candidate.span, spans),
                -candidate.score,
                candidate.term.order,
            )

        return min(options, key=rank)

    def compose(self, subject: str, *, named_only: bool = False) -> Suggestion:
        """The query about `subject`; `named_only` leaves out the values named by an alias on
        Kinds the question does not name ("late" as the Loan status `overdue` in "members with
        late novels")."""
        root = _Node(subject)
        nodes = {subject: root}
        used: list[Candidate] = []
        chosen = [self.choose(options) for _, options in sorted(self.phrases.items())]
        left_out = [
            c
            for c in chosen
            if named_only
            and c.term.target == "value"
            and c.level == "synonym"
            and c.term.kind not in self.mentions
        ]
        chosen = [c for c in chosen if c not in left_out]
        others = dict.fromkeys(
            [
                *sorted(self.mentions, key=self._first),
                *(candidate.term.kind for candidate in chosen),
            ]
        )
        counted = {candidate.term.kind: candidate for candidate in self.counts}
        kind_spans = {m.span for mentions in self.mentions.values() for m in mentions}
        for relation in self.relations:
            # a Relation named from an involved Kind brings its other end, unless its words
            # name a Kind too ("purchase orders" is also the inverse name of for_part)
            if (
                relation.term.kind in others
                and relation.term.to_kind is not None
                and relation.span not in kind_spans
            ):
                others.setdefault(relation.term.to_kind)
        for kind in others:
            if kind == subject or kind in counted:
                continue
            self._attach(root, nodes, kind, None)
        for kind, candidate in counted.items():
            if kind != subject and self._attach(root, nodes, kind, candidate):
                used.append(candidate)
        for candidate in chosen:
            node = nodes.get(candidate.term.kind)
            if node is None:
                continue
            node.predicates.append(term_predicate(candidate.term))
            used.append(candidate)
        for kind, mentions in self.mentions.items():
            if kind in nodes:
                used.extend(mentions)
        return self._suggestion(root, subject, used, left_out)

    def _attach(
        self, root: _Node, nodes: dict[str, _Node], kind: str, count: Candidate | None
    ) -> bool:
        """Adds the path to `kind` to the tree (one step only for a count); False: no path."""
        path = shortest_path(self.edges, root.kind, kind, 1 if count else self.max_hops)
        if path is None:
            return False
        node = root
        for name, reached in path:
            node = node.children.setdefault(name, _Node(reached))
            nodes.setdefault(reached, node)
        if count is not None:
            node.count = {"op": count.term.op, "value": int(count.term.values[0])}
        return True

    def _suggestion(
        self, root: _Node, subject: str, used: list[Candidate], left_out: list[Candidate]
    ) -> Suggestion:
        kind = self.schema.kinds[subject]
        select = [kind.title] if kind.title else []
        for candidate in sorted(
            [*self.attributes, *(c for c in used if c.term.target == "comparison")],
            key=lambda c: c.span,
        ):
            name = candidate.term.attribute
            if candidate.term.kind == subject and name is not None and name not in select:
                select.append(name)
        query: dict[str, Any] = {"kind": subject}
        where = root.where()
        if where is not None:
            query["where"] = where
        query["select"] = select
        ordered = [
            c
            for c in sorted(used, key=lambda c: (c.span, c.term.order))
            if not any(
                o.span != c.span and o.span[0] <= c.span[0] <= c.span[1] <= o.span[1] for o in used
            )
        ]
        uses = tuple(dict.fromkeys(c.matched for c in ordered))
        score = round(sum(c.score for c in used) / len(used), 4) if used else 0.0
        why = f"{subject} Records" + (
            f" matching {', '.join(repr(phrase) for phrase in uses)}" if uses else ""
        )
        if left_out:
            phrases = ", ".join(repr(c.matched) for c in left_out)
            why += f"; without {phrases}, an alias of a value of a Kind the question does not name"
        return Suggestion(query, score, uses, why)


def suggest(
    candidates: Sequence[Candidate],
    schema: Schema,
    scope: ReadScope,
    *,
    max_hops: int,
    max_suggestions: int,
    valid: Callable[[dict[str, Any]], bool] = lambda _query: True,
) -> list[Suggestion]:
    """At most `max_suggestions` queries: per subject Kind, in the order the text names them,
    the query with every phrase, then (when it differs) the one without the values named by an
    alias on Kinds the question does not name.

    `valid` checks a query (Keeper parses it as POST /query would); the ones it refuses and the
    repeated ones are left out.
    """
    composer = _Composer(candidates, schema, scope, max_hops)
    found: list[Suggestion] = []
    for subject in composer.subjects():
        for named_only in (False, True):
            suggestion = composer.compose(subject, named_only=named_only)
            if valid(suggestion.query) and all(k.query != suggestion.query for k in found):
                found.append(suggestion)
    return found[:max_suggestions]
