"""The request document of POST /context (agents.md section 1), parsed against the schema.

Names that do not resolve for the caller answer at once: an unknown or unreadable Kind, Trait or
Relation 404 (`kind-not-found`, `trait-not-found`, `relation-not-found`), an unknown lens 422
`lens_unknown`. Every other problem is collected into one `ContextRequestInvalid` (422
`context-request-invalid`) listing each issue with its JSON path (`refs[2]`, `query.limit`,
`format`) and a code: `missing`, `unknown`, `type`, `range`, `bad-ref`, `conflict`, plus those of
the query DSL for the `query` seed.

Members the request gives win over the lens's, the lens's over the settings. A depth or budget
past `agents.context.max_depth` / `max_budget_tokens` is served at the cap and sets `capped`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from lorebase_core.access import ReadScope
from lorebase_core.context.lenses import LensView, resolve_lens, trait_kinds
from lorebase_core.errors import ContextRequestInvalid, Issue
from lorebase_core.members import (
    json_object,
    optional_integer,
    optional_text,
    record_refs,
    unknown_members,
)
from lorebase_core.query import Query, QueryInvalid, parse_query
from lorebase_core.refs import RecordRef
from lorebase_core.schema import Schema
from lorebase_core.search_request import MAX_QUERY_CHARS

ContextFormat = Literal["json", "markdown"]
SchemaDetail = Literal["described", "compact"]
"""`include_schema: true` (descriptions once per Kind and Relation) or `"compact"` (none)."""
OmitReason = Literal["request", "lens", "history-forbidden"]
OPTIONAL_SECTIONS = ("schema", "recent_changes", "lineage")
SELECTORS = ("refs", "query", "search")
MEMBERS = (
    *SELECTORS,
    "branch",
    "budget_tokens",
    "depth",
    "relations",
    "traits",
    "lens",
    "include_schema",
    "include_recent_changes",
    "include_lineage",
    "since",
    "format",
)
_QUERY_REFUSED = ("aggregate", "cursor", "branch", "at", "coverage")


@dataclass(frozen=True)
class ContextLimits:
    """The settings a request is checked against (`agents.context` and `read.query`)."""

    default_budget_tokens: int
    max_budget_tokens: int
    default_depth: int
    max_depth: int
    max_seeds: int
    query_max_predicates: int = 20
    query_max_hops: int = 3
    query_max_string_length: int = 1000
    query_max_in_values: int = 1000
    search_max_chars: int = MAX_QUERY_CHARS


@dataclass(frozen=True)
class ContextRequest:
    """A checked context pack request, with the lens and Traits resolved.

    Attributes:
        refs, query, search: the one seed selector given (the others None). `query.limit` is at
            most `max_seeds`, and its Kinds are already limited by `kinds`.
        branch: the branch read at its head (None: the Domain's default).
        budget_tokens: the budget served (capped at `max_budget_tokens`).
        depth: the neighborhood depth served (capped at `max_depth`).
        relations: forward names of the Relations followed, both ways, sorted.
        kinds: the Kinds neighbors and query or search seeds are limited to (None: all).
        lens: the lens used, if any.
        sections: the optional sections included (`schema`, `recent_changes`, `lineage`).
        schema_detail: `described` (`include_schema: true`, the default) or `compact`.
        omitted: the optional sections left out, with why (`request` or `lens`).
        since: the Revision id or tag recent changes follow.
        format: `json` or `markdown`.
        capped: a depth or budget was served at its cap.
    """

    refs: tuple[RecordRef, ...] | None = None
    query: Query | None = None
    search: str | None = None
    branch: str | None = None
    budget_tokens: int = 2000
    depth: int = 1
    relations: tuple[str, ...] = ()
    kinds: frozenset[str] | None = None
    lens: str | None = None
    sections: frozenset[str] = frozenset(OPTIONAL_SECTIONS)
    schema_detail: SchemaDetail = "described"
    omitted: tuple[tuple[str, OmitReason], ...] = field(default=())
    since: str | None = None
    format: ContextFormat = "json"
    capped: bool = False

    @property
    def selector(self) -> Literal["refs", "query", "search"]:
        if self.refs is not None:
            return "refs"
        return "query" if self.query is not None else "search"


def parse_context(
    document: object, schema: Schema, scope: ReadScope, limits: ContextLimits
) -> ContextRequest:
    """Check a POST /context document and resolve its lens, Traits and Relations.

    Raises:
        KindNotFound, TraitNotFound, RelationNotFound: a name that is unknown or not readable.
        LensUnknown: a lens that is unknown or none of whose Kinds is readable.
        ContextRequestInvalid: every other problem, each with its path.
    """
    body = json_object(document, ContextRequestInvalid)
    issues = unknown_members(body, MEMBERS)
    lens_name = optional_text(body, "lens", issues)
    lens = resolve_lens(schema, scope, lens_name) if lens_name is not None else None
    traits = _names(body, "traits", issues)
    kinds = (
        trait_kinds(schema, scope, traits)
        if traits is not None
        else (lens.kinds if lens is not None else None)
    )
    relations = _relations(body, schema, scope, lens, issues)
    depth, depth_capped = _depth(body, lens, limits, issues)
    budget, budget_capped = _budget(body, lens, limits, issues)
    compact = body.get("include_schema") == "compact"
    sections, omitted = _sections(
        {**body, "include_schema": True} if compact else body, lens, issues
    )
    since = optional_text(body, "since", issues)
    branch = optional_text(body, "branch", issues)
    output = body.get("format", "json")
    if output not in ("json", "markdown"):
        issues.append(Issue("format", "expected json or markdown", "type"))
        output = "json"
    refs, query, search = _selector(body, schema, scope, limits, kinds, issues)
    if issues:
        raise ContextRequestInvalid(f"{len(issues)} problem(s) in the context request", issues)
    return ContextRequest(
        refs=refs,
        query=query,
        search=search,
        branch=branch,
        budget_tokens=budget,
        depth=depth,
        relations=relations,
        kinds=kinds,
        lens=lens.name if lens is not None else None,
        sections=sections,
        schema_detail="compact" if compact else "described",
        omitted=omitted,
        since=since,
        format="markdown" if output == "markdown" else "json",
        capped=depth_capped or budget_capped,
    )


# -- members ---------------------------------------------------------------------------------


def _names(body: Mapping[str, object], member: str, issues: list[Issue]) -> list[str] | None:
    value = body.get(member)
    if value is None:
        return None
    if not isinstance(value, list):
        issues.append(Issue(member, "expected a list of names", "type"))
        return []
    names = []
    for index, item in enumerate(value):
        if not isinstance(item, str) or not item:
            issues.append(Issue(f"{member}[{index}]", "expected a name", "type"))
            continue
        names.append(item)
    return names


def _relations(
    body: Mapping[str, object],
    schema: Schema,
    scope: ReadScope,
    lens: LensView | None,
    issues: list[Issue],
) -> tuple[str, ...]:
    """Forward names: the request's, else the lens's, else every readable Relation."""
    names = _names(body, "relations", issues)
    if names is None:
        if lens is not None:
            return lens.relations
        return tuple(sorted(scope.visible_relations(schema)))
    return tuple(sorted({scope.relation_end(schema, name).name for name in names}))


def _depth(
    body: Mapping[str, object], lens: LensView | None, limits: ContextLimits, issues: list[Issue]
) -> tuple[int, bool]:
    from_lens = lens.definition.depth if lens is not None else None
    return _capped(body, "depth", 0, from_lens, limits.default_depth, limits.max_depth, issues)


def _budget(
    body: Mapping[str, object], lens: LensView | None, limits: ContextLimits, issues: list[Issue]
) -> tuple[int, bool]:
    from_lens = lens.definition.budget_tokens if lens is not None else None
    default, maximum = limits.default_budget_tokens, limits.max_budget_tokens
    return _capped(body, "budget_tokens", 1, from_lens, default, maximum, issues)


def _capped(
    body: Mapping[str, object],
    member: str,
    low: int,
    from_lens: int | None,
    default: int,
    maximum: int,
    issues: list[Issue],
) -> tuple[int, bool]:
    """The request's `member`, else the lens's, else `default` (within `maximum`); served at
    most at `maximum`, and whether it was cut there."""
    value = optional_integer(body, member, issues, low=low)
    if value is None and member not in body:
        value = from_lens
    if value is None:
        value = min(default, maximum)
    return min(value, maximum), value > maximum


def _sections(
    body: Mapping[str, object], lens: LensView | None, issues: list[Issue]
) -> tuple[frozenset[str], tuple[tuple[str, OmitReason], ...]]:
    included: set[str] = set()
    omitted: list[tuple[str, OmitReason]] = []
    for section in OPTIONAL_SECTIONS:
        member = f"include_{section}"
        value = body.get(member)
        reason: OmitReason = "request"
        if value is not None and not isinstance(value, bool):
            expected = '"compact", true or false' if section == "schema" else "true or false"
            issues.append(Issue(member, f"expected {expected}", "type"))
            value = None
        if value is None and lens is not None:
            value, reason = getattr(lens.definition, member), "lens"
        if value is None or value:
            included.add(section)
        else:
            omitted.append((section, reason))
    return frozenset(included), tuple(omitted)


def _selector(
    body: Mapping[str, object],
    schema: Schema,
    scope: ReadScope,
    limits: ContextLimits,
    kinds: frozenset[str] | None,
    issues: list[Issue],
) -> tuple[tuple[RecordRef, ...] | None, Query | None, str | None]:
    given = [member for member in SELECTORS if body.get(member) is not None]
    if not given:
        issues.append(
            Issue("refs", "give exactly one seed selector: refs, query or search", "missing")
        )
        return None, None, None
    issues.extend(
        Issue(member, f"give exactly one seed selector; {given[0]} is given already", "conflict")
        for member in given[1:]
    )
    if given[0] == "refs":
        found = record_refs(body["refs"], "refs", schema, scope, limits.max_seeds, issues)
        return tuple(sorted({ref for _, ref in found}, key=str)), None, None
    if given[0] == "query":
        return None, _query(body["query"], schema, scope, limits, kinds, issues), None
    search = optional_text(body, "search", issues)
    if search is not None and len(search.strip()) > limits.search_max_chars:
        issues.append(
            Issue(
                "search",
                f"at most {limits.search_max_chars} characters (read.search.max_q_chars)",
                "too-long",
            )
        )
        search = None
    return None, None, search


def _query(
    value: object,
    schema: Schema,
    scope: ReadScope,
    limits: ContextLimits,
    kinds: frozenset[str] | None,
    issues: list[Issue],
) -> Query | None:
    if not isinstance(value, Mapping):
        issues.append(Issue("query", "expected a query document (docs/query.md)", "type"))
        return None
    refused = [member for member in _QUERY_REFUSED if member in value]
    issues.extend(
        Issue(f"query.{member}", "not taken by a context pack's query seed", "unknown")
        for member in refused
    )
    try:
        query = parse_query(
            {name: item for name, item in value.items() if name not in refused},
            schema,
            scope,
            default_limit=limits.max_seeds,
            max_limit=limits.max_seeds,
            max_predicates=limits.query_max_predicates,
            max_hops=limits.query_max_hops,
            max_string_length=limits.query_max_string_length,
            max_in_values=limits.query_max_in_values,
            max_metrics=1,  # a seed takes no aggregate
        )
    except QueryInvalid as exc:
        issues.extend(
            Issue(f"query.{issue.path}" if issue.path else "query", issue.message, issue.code)
            for issue in exc.issues
        )
        return None
    if kinds is None:
        return query
    return Query(
        kinds=tuple(kind for kind in query.kinds if kind in kinds),
        trait=query.trait,
        where=query.where,
        select=query.select,
        order_by=query.order_by,
        limit=query.limit,
    )
