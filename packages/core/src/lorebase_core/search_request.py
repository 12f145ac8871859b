"""`parse_search`: check a POST /search document against a schema and a caller's scope.

Every problem is reported at once in one `SearchInvalid` (422), each `Issue` with its JSON path
(`query_vector[2]`) and a stable code. Names that do not resolve answer like the reads that name
them, before anything else: an unknown or unreadable Kind 404 `kind-not-found`, Trait 404
`trait-not-found`. An unknown lens, or one none of whose Kinds the caller reads, is 422
`lens_unknown`; `semantic` and `hybrid` on a schema without `search.embedding` are 422
`semantic_unavailable` (docs/search.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

from lorebase_core.access import ReadScope
from lorebase_core.errors import (
    Issue,
    LensUnknown,
    SearchInvalid,
    SemanticUnavailable,
    quoted,
    shortened,
)
from lorebase_core.schema import Schema
from lorebase_core.search_text import Interpretation, interpret

SearchMode = Literal["lexical", "semantic", "hybrid"]
MODES: tuple[SearchMode, ...] = ("lexical", "semantic", "hybrid")
MEMBERS = (
    "q",
    "kinds",
    "traits",
    "lens",
    "mode",
    "query_vector",
    "limit",
    "values",
    "branch",
    "at",
)
MAX_QUERY_CHARS = 500
"""The default of `read.search.max_q_chars`."""


@dataclass(frozen=True)
class SearchRequest:
    """A checked search: `kinds` are the readable Kinds searched, in schema order.

    Attributes:
        q: the text (lexical and hybrid), "" for a semantic search without text.
        kinds: the Kinds searched (already expanded from traits or the lens, readable only).
        mode: lexical, semantic or hybrid.
        query_vector: the vector of semantic and hybrid searches.
        limit: hits answered at most.
        values: whether hits carry the Records' values (masked by scope).
        model: the embedding model whose stored vectors are compared (semantic, hybrid).
        interpretation: how `q` was read (`lorebase_core.search_text`); None: read it when the
            search runs.
    """

    q: str
    kinds: tuple[str, ...]
    mode: SearchMode = "lexical"
    query_vector: tuple[float, ...] | None = None
    limit: int = 20
    values: bool = True
    model: str | None = None
    interpretation: Interpretation | None = None


def parse_search(
    document: object,
    schema: Schema,
    scope: ReadScope,
    *,
    default_limit: int,
    max_limit: int,
    max_q_chars: int = MAX_QUERY_CHARS,
) -> SearchRequest:
    """Check a POST /search document and return the `SearchRequest` it asks for.

    `max_q_chars` is the longest `q` (`read.search.max_q_chars`), counted after stripping.

    Raises:
        KindNotFound, TraitNotFound: a Kind or Trait that does not exist or is not readable.
        LensUnknown: an unknown lens, or one with no readable Kind.
        SemanticUnavailable: semantic or hybrid on a schema without `search.embedding`.
        SearchInvalid: every other problem, each with its path and code.
    """
    if not isinstance(document, dict):
        raise SearchInvalid(
            "A search is a JSON object",
            [Issue("", 'expected a JSON object such as {"q": "bearing"}', "bad-type")],
        )
    issues = _member_issues(document)
    kinds = _kinds(document, schema, scope, issues)
    mode = _mode(document.get("mode", "lexical"), issues)
    q = _text(document.get("q"), mode, max_q_chars, issues)
    limit = _limit(document.get("limit"), default_limit, max_limit, issues)
    values = document.get("values", True)
    if not isinstance(values, bool):
        issues.append(Issue("values", "expected true or false", "bad-type"))
        values = True
    vector, model = _vector(document, schema, mode, issues)
    interpretation = None
    if mode != "semantic" and q:
        interpretation, refused = interpret(q, schema, scope, kinds)
        issues.extend(refused)
    if issues:
        raise SearchInvalid(f"The search was refused: {len(issues)} problem(s)", issues)
    return SearchRequest(q, kinds, mode, vector, limit, values, model, interpretation)


def _member_issues(document: dict[Any, Any]) -> list[Issue]:
    """Members a search does not take: unknown ones, and `at` (a search reads the head)."""
    issues = [
        Issue(
            shortened(str(name)),
            f"unknown member {quoted(name)}; use {', '.join(MEMBERS)}",
            "unknown-member",
        )
        for name in document
        if name not in MEMBERS
    ]
    if document.get("at") is not None:
        issues.append(
            Issue("at", "search reads the head of the branch; leave out at", "unsupported")
        )
    return issues


def _mode(mode: object, issues: list[Issue]) -> SearchMode:
    for known in MODES:
        if mode == known:
            return known
    issues.append(Issue("mode", f"expected one of {', '.join(MODES)}", "bad-value"))
    return "lexical"


def _text(q: object, mode: SearchMode, max_q_chars: int, issues: list[Issue]) -> str:
    """The text searched for, stripped: required by lexical and hybrid searches."""
    if q is None:
        q = ""
    if not isinstance(q, str):
        issues.append(Issue("q", "expected the text to search for", "bad-type"))
        q = ""
    q = q.strip()
    if len(q) > max_q_chars:
        issues.append(
            Issue("q", f"at most {max_q_chars} characters (read.search.max_q_chars)", "too-long")
        )
    if "\x00" in q:
        issues.append(Issue("q", "the text may not contain NUL characters", "bad-value"))
    if mode in ("lexical", "hybrid") and not q:
        issues.append(Issue("q", f"a {mode} search needs text", "required"))
    return q


def _kinds(
    document: dict[str, Any], schema: Schema, scope: ReadScope, issues: list[Issue]
) -> tuple[str, ...]:
    """The Kinds searched: kinds and traits together, else the lens's, else every readable."""
    wanted: set[str] = set()
    named = False
    for member in ("kinds", "traits"):
        raw = document.get(member)
        if raw is None:
            continue
        if not isinstance(raw, list) or not all(isinstance(name, str) for name in raw):
            issues.append(Issue(member, f"expected a list of {member[:-1]} names", "bad-type"))
            continue
        named = True
        for name in raw:
            if member == "kinds":
                scope.kind(schema, name)
                wanted.add(name)
            else:
                wanted.update(scope.traits(schema, name))
    lens_name = document.get("lens")
    if lens_name is not None:
        if not isinstance(lens_name, str):
            issues.append(Issue("lens", "expected a lens name", "bad-type"))
        else:
            lens_kinds = _lens_kinds(schema, scope, lens_name)
            if not named:
                wanted = set(lens_kinds)
                named = True
    if not named:
        return tuple(scope.visible_kinds(schema))
    return tuple(name for name in schema.kinds if name in wanted)


def _lens_kinds(schema: Schema, scope: ReadScope, name: str) -> list[str]:
    lens = schema.lenses.get(name)
    kinds: set[str] = set()
    if lens is not None:
        kinds.update(kind for kind in lens.kinds if kind in schema.kinds)
        for trait in lens.traits:
            if trait in schema.traits:
                kinds.update(schema.kinds_implementing(trait))
    readable = [kind for kind in schema.kinds if kind in kinds and scope.kind_visible(kind)]
    if not readable:
        known = [
            lens_name
            for lens_name, lens_def in schema.lenses.items()
            if any(scope.kind_visible(kind) for kind in _declared_kinds(schema, lens_def))
        ]
        raise LensUnknown.named(name, schema.domain.name, known)
    return readable


def _declared_kinds(schema: Schema, lens: Any) -> list[str]:
    kinds = [kind for kind in lens.kinds if kind in schema.kinds]
    for trait in lens.traits:
        if trait in schema.traits:
            kinds.extend(schema.kinds_implementing(trait))
    return kinds


def _limit(raw: object, default: int, maximum: int, issues: list[Issue]) -> int:
    if raw is None:
        return default
    if isinstance(raw, bool) or not isinstance(raw, int):
        issues.append(Issue("limit", "expected an integer", "bad-type"))
        return default
    if not 1 <= raw <= maximum:
        issues.append(Issue("limit", f"{raw} is not between 1 and {maximum}", "out-of-range"))
        return default
    return raw


def _vector(
    document: dict[str, Any], schema: Schema, mode: str, issues: list[Issue]
) -> tuple[tuple[float, ...] | None, str | None]:
    raw = document.get("query_vector")
    if mode == "lexical":
        if raw is not None:
            issues.append(
                Issue("query_vector", "a lexical search takes no vector", "conflicting-members")
            )
        return None, None
    embedding = schema.search.embedding
    if embedding is None:
        raise SemanticUnavailable(
            f"Domain {quoted(schema.domain.name)} declares no search.embedding: "
            f"{mode} search is unavailable; use mode lexical",
            [Issue("mode", f"{mode} needs search.embedding in the schema", "semantic_unavailable")],
        )
    if raw is None:
        issues.append(Issue("query_vector", f"a {mode} search needs a vector", "required"))
        return None, embedding.model
    problem = vector_issues(raw, embedding.dimensions, "query_vector")
    if problem:
        issues.extend(problem)
        return None, embedding.model
    return tuple(float(number) for number in raw), embedding.model


def vector_issues(raw: object, dimensions: int, path: str) -> list[Issue]:
    """What is wrong with a vector of `dimensions` finite numbers (nothing: an empty list)."""
    if not isinstance(raw, list):
        return [Issue(path, f"expected a list of {dimensions} numbers", "bad-type")]
    found = [
        Issue(f"{path}[{index}]", "expected a finite number", "bad-type")
        for index, number in enumerate(raw)
        if isinstance(number, bool)
        or not isinstance(number, int | float)
        or not math.isfinite(number)
    ]
    if len(raw) != dimensions:
        found.append(
            Issue(path, f"expected {dimensions} numbers, got {len(raw)}", "vector-dimensions")
        )
    elif not found and not any(number != 0 for number in raw):
        found.append(Issue(path, "the zero vector has no direction", "bad-value"))
    return found
