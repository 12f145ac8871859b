"""Tools that find things: schema, context, search, resolve, query."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import Field

from lorebase_core.markdown import inline_value
from lorebase_herald.markdown import pairs, record_line, where
from lorebase_herald.tools.base import Ctx, Family, ToolCall, run
from lorebase_herald.tools.hints import READ, Answered
from lorebase_herald.tools.params import At, Branch, Cursor, Domain, Kinds, Lens, Limit, Relations
from lorebase_herald.tools.shaping import LIMIT, Shape

TOOLS = Family()
"""The finding tools, in the order they are listed."""

SCHEMA = """\
The schema of a Domain: its Kinds with their Attributes (types, allowed values), Relations
(from -> to, inverse names), lenses (read presets) and Operation names. Call it first, narrowed
to the Kinds you need (kinds=) or to a lens (lens=), so it stays short; use lorebase_resolve
instead to map the words of a question onto the schema.
Example: {"domain": "supply", "kinds": ["Supplier", "Part"]}"""

CONTEXT = """\
A context pack: Records with their neighborhood (Links, neighbors), the schema they use and
their recent changes, in one answer sized to a token budget. Use it to understand one or a few
Records and what hangs off them; use lorebase_query for exact filters and counts.
Seeds are refs, a query or a search text; a lens presets Kinds, Relations and depth.
Example: {"domain": "supply", "refs": ["Supplier/S-1007"], "depth": 1}"""

SEARCH = """\
Fuzzy text search over Records (names, descriptions, other text), ranked, tolerant of typos (it
answers the spelling it corrected). Use it when you know words but not keys or exact values; use
lorebase_query when you can state exact conditions.
Example: {"domain": "supply", "q": "radial shaft seal", "kinds": ["Part"]}"""

RESOLVE = """\
Ground the words of a question in the schema: which Kinds, Attributes and stored values the
phrases mean (numbers and counts too: "risk score of 70 or more", "a single supplier"), as
scored candidates, plus the phrases nothing matched (do not guess those: search or ask), and
suggested queries: each line's JSON is the arguments of a lorebase_query (add the domain).
Use it before writing a query from a natural-language question.
Example: {"domain": "supply", "text": "tier-1 suppliers in Poland"}"""

QUERY = """\
Exact reads of one Kind: filter with a where predicate, select Attributes, order, page, or
aggregate (group_by + count). Answers the matching Records and coverage (how many Records the
Kind has, how many lack the filtered Attributes), so an empty answer can be told from missing
data. Predicates: {"attr": "tier", "op": "eq", "value": 1}, {"and": [...]}, {"or": [...]},
{"rel": "supplied_by", "where": {...}} to filter through a Relation.
Example: {"domain": "supply", "kind": "Supplier", "where": {"attr": "risk_score", "op": "gte",
"value": 70}, "select": ["legal_name", "risk_score"]}"""

# The arguments of one tool each (those tools share are in params.py).
SeedRefs = Annotated[list[str] | None, Field(description="Seed Records, Kind/key.")]
SeedQuery = Annotated[
    dict[str, Any] | None,
    Field(description='Seeds by query: {"kind": ..., "where": ...} as lorebase_query.'),
]
SeedSearch = Annotated[str | None, Field(description="Seeds by a search text.")]
Traits = Annotated[list[str] | None, Field(description="Only Records of Kinds with these Traits.")]
PackDepth = Annotated[int | None, Field(description="Neighborhood depth (1 by default).", ge=0)]
BudgetTokens = Annotated[
    int | None,
    Field(description="Token budget of the pack (at most herald.max_result_tokens).", ge=1),
]
IncludeSchema = Annotated[
    bool | Literal["compact"] | None,
    Field(description='Add the schema section (true), only names and types ("compact").'),
]
IncludeChanges = Annotated[bool | None, Field(description="Add the recent changes section.")]
IncludeLineage = Annotated[bool | None, Field(description="Add where each value came from.")]
Since = Annotated[str | None, Field(description="Only changes after this Revision in the pack.")]
SearchMode = Annotated[
    Literal["lexical", "semantic", "hybrid"] | None,
    Field(description="lexical (default), semantic or hybrid (need stored vectors)."),
]
Where = Annotated[dict[str, Any] | None, Field(description="A predicate (see the description).")]
Select = Annotated[list[str] | None, Field(description="Attributes to answer.")]
OrderBy = Annotated[
    list[dict[str, Any]] | None,
    Field(description='Sort keys: [{"attr": "risk_score", "dir": "desc"}].'),
]
Aggregate = Annotated[
    dict[str, Any] | None,
    Field(description='{"group_by": "status"} counts the matches per value.'),
]


@TOOLS.tool(title="Schema", description=SCHEMA, annotations=READ)
async def lorebase_schema(
    ctx: Ctx,
    domain: Domain,
    kinds: Kinds = None,
    lens: Lens = None,
    branch: Branch = None,
    at: At = None,
) -> Answered:
    async def read(call: ToolCall) -> Answered:
        answer = await call.client.schema(domain, branch=branch, at=at)
        narrowed, problem = narrow_schema(answer, kinds, lens)
        if problem is not None:
            return call.refused(problem, code="schema-narrowing-unknown")
        return call.shaped(narrowed, SCHEMA_KINDS)

    return await run(ctx, "lorebase_schema", read)


@TOOLS.tool(title="Context pack", description=CONTEXT, annotations=READ)
async def lorebase_context(
    ctx: Ctx,
    domain: Domain,
    refs: SeedRefs = None,
    query: SeedQuery = None,
    search: SeedSearch = None,
    lens: Lens = None,
    traits: Traits = None,
    relations: Relations = None,
    depth: PackDepth = None,
    budget_tokens: BudgetTokens = None,
    include_schema: IncludeSchema = None,
    include_recent_changes: IncludeChanges = None,
    include_lineage: IncludeLineage = None,
    since: Since = None,
    branch: Branch = None,
) -> Answered:
    async def read(call: ToolCall) -> Answered:
        budget = min(budget_tokens or call.budget.max_tokens, call.budget.max_tokens)
        pack = await call.client.context_markdown(
            domain,
            refs=refs,
            query=query,
            search=search,
            lens=lens,
            traits=traits,
            relations=relations,
            depth=depth,
            budget_tokens=budget,
            include_schema=include_schema,
            include_recent_changes=include_recent_changes,
            include_lineage=include_lineage,
            since=since,
            branch=branch,
        )
        result = {"format": "markdown", "budget_tokens": budget}
        return call.rendered(pack, domain=domain, branch=branch, result=result)

    return await run(ctx, "lorebase_context", read)


@TOOLS.tool(title="Search", description=SEARCH, annotations=READ)
async def lorebase_search(
    ctx: Ctx,
    domain: Domain,
    q: Annotated[str, Field(description="The words to look for.", min_length=1)],
    kinds: Kinds = None,
    lens: Lens = None,
    mode: SearchMode = None,
    limit: Limit = None,
    branch: Branch = None,
) -> Answered:
    async def read(call: ToolCall) -> Answered:
        answer = await call.client.search(
            domain, q, kinds=kinds, lens=lens, mode=mode, limit=limit, branch=branch
        )
        searched = answer.get("kinds") or kinds or []
        return call.shaped(answer, SEARCH_HITS, kinds=searched)

    return await run(ctx, "lorebase_search", read)


@TOOLS.tool(title="Resolve words", description=RESOLVE, annotations=READ)
async def lorebase_resolve(
    ctx: Ctx,
    domain: Domain,
    text: Annotated[str, Field(description="The question or phrase to ground.", min_length=1)],
    branch: Branch = None,
    at: At = None,
) -> Answered:
    async def read(call: ToolCall) -> Answered:
        answer = await call.client.resolve(domain, text, coverage=True, branch=branch, at=at)
        return call.shaped(answer, RESOLVE_CANDIDATES)

    return await run(ctx, "lorebase_resolve", read)


@TOOLS.tool(title="Query", description=QUERY, annotations=READ)
async def lorebase_query(
    ctx: Ctx,
    domain: Domain,
    kind: Annotated[str, Field(description="The Kind to read, e.g. 'Supplier'.")],
    where: Where = None,
    select: Select = None,
    order_by: OrderBy = None,
    aggregate: Aggregate = None,
    limit: Limit = None,
    cursor: Cursor = None,
    branch: Branch = None,
    at: At = None,
) -> Answered:
    async def read(call: ToolCall) -> Answered:
        answer = await call.client.query(
            domain,
            kind=kind,
            where=where,
            select=select,
            order_by=order_by,
            aggregate=aggregate,
            coverage=True,
            limit=limit,
            cursor=cursor,
            branch=branch,
            at=at,
        )
        shape = QUERY_GROUPS if "groups" in answer else QUERY_RECORDS
        return call.shaped(answer, shape, kinds=[kind])

    return await run(ctx, "lorebase_query", read)


def narrow_schema(
    answer: Mapping[str, Any], kinds: list[str] | None, lens: str | None
) -> tuple[dict[str, Any], str | None]:
    """The schema cut to `kinds` or to the Kinds of `lens`; or why it cannot be."""
    narrowed = dict(answer)
    known = [kind["name"] for kind in answer.get("kinds", [])]
    wanted: set[str] | None = None
    if lens is not None:
        found = [item for item in answer.get("lenses", []) if item.get("name") == lens]
        if not found:
            names = ", ".join(item["name"] for item in answer.get("lenses", [])) or "none"
            return narrowed, f"The Domain has no lens {lens!r}; lenses: {names}."
        wanted = set(found[0].get("kinds", []))
        narrowed["lenses"] = found
    if kinds:
        unknown = [kind for kind in kinds if kind not in known]
        if unknown:
            return narrowed, (
                f"Unknown Kinds {', '.join(map(repr, unknown))}; the Domain's Kinds: "
                f"{', '.join(known)}."
            )
        wanted = set(kinds) if wanted is None else wanted & set(kinds)
    if wanted is None:
        return narrowed, None
    narrowed["kinds"] = [kind for kind in answer.get("kinds", []) if kind["name"] in wanted]
    narrowed["relations"] = [
        relation
        for relation in answer.get("relations", [])
        if relation.get("from") in wanted or relation.get("to") in wanted
    ]
    narrowed["operations"] = [
        operation
        for operation in answer.get("operations", [])
        if wanted & set(operation.get("kinds", []) or wanted)
    ]
    return narrowed, None


def _attribute(attribute: Mapping[str, Any]) -> str:
    facts = [str(attribute.get("type", "?"))]
    if attribute.get("required"):
        facts.append("required")
    if attribute.get("sensitive"):
        facts.append("sensitive")
    line = f"  - {attribute['name']} ({', '.join(facts)})"
    if attribute.get("values"):
        line += f" one of {'|'.join(str(item) for item in attribute['values'])}"
    if attribute.get("description"):
        line += f": {inline_value(attribute['description'])}"
    return line


def render_schema(answer: Mapping[str, Any]) -> str:
    lines = [f"# Schema of {where(answer)}"]
    if answer.get("title"):
        lines.append(inline_value(answer["title"]))
    for kind in answer.get("kinds", []):
        head = f"## Kind {kind['name']} (key {', '.join(kind.get('key', []))}"
        head += f"; title {kind['title']})" if kind.get("title") else ")"
        lines.append(head)
        if kind.get("description"):
            lines.append(inline_value(kind["description"]))
        if kind.get("aliases"):
            lines.append(f"aliases: {', '.join(kind['aliases'])}")
        lines.extend(_attribute(attribute) for attribute in kind.get("attributes", []))
    relations = [
        f"- {relation['name']}: {relation.get('from')} -> {relation.get('to')}"
        + (f" (inverse {relation['inverse']})" if relation.get("inverse") else "")
        + (f", {relation['cardinality']}" if relation.get("cardinality") else "")
        + (f": {inline_value(relation['description'])}" if relation.get("description") else "")
        for relation in answer.get("relations", [])
    ]
    if relations:
        lines += ["## Relations", *relations]
    lenses = [
        f"- {lens['name']}: Kinds {', '.join(lens.get('kinds', []))}"
        + (f": {inline_value(lens['description'])}" if lens.get("description") else "")
        for lens in answer.get("lenses", [])
    ]
    if lenses:
        lines += ["## Lenses", *lenses]
    operations = [operation["name"] for operation in answer.get("operations", [])]
    if operations:
        lines += ["## Operations (lorebase_operations describes them)", ", ".join(operations)]
    examples = answer.get("examples") or []
    if examples:
        lines += ["## Example questions", *(f"- {inline_value(item)}" for item in examples)]
    return "\n".join(lines)


def render_search(answer: Mapping[str, Any]) -> str:
    lines = [
        f"# Search {inline_value(answer.get('q', ''))} in {where(answer)} ({answer.get('mode')})"
    ]
    interpreted = answer.get("interpreted") or {}
    if interpreted.get("kinds") or interpreted.get("attributes"):
        read = [f"Kinds {', '.join(interpreted.get('kinds') or answer.get('kinds', []))}"]
        read += [
            f"{item['attribute']}:{item['term']}" for item in interpreted.get("attributes", [])
        ]
        read.append(f"terms {', '.join(interpreted.get('terms', []))}")
        lines.append(f"read as: {'; '.join(read)}")
    if answer.get("corrected"):
        lines.append(f"corrected: {inline_value(answer['corrected'])}")
    for hit in answer.get("hits", []):
        line = record_line(hit)
        if hit.get("matched"):
            line += f" [matched {', '.join(hit['matched'])}]"
        lines.append(line)
    lines += [f"note: {note}" for note in answer.get("notes", [])]
    return "\n".join(lines)


def render_resolve(answer: Mapping[str, Any]) -> str:
    lines = [f"# Resolved in {where(answer)}"]
    for candidate in answer.get("candidates", []):
        facts = {
            name: item
            for name, item in candidate.items()
            if name not in ("target", "score", "level", "matched", "why")
        }
        lines.append(
            f"- {inline_value(candidate.get('matched'))} -> {candidate.get('target')} {pairs(facts)}"
            f" ({candidate.get('level')}, score {float(candidate.get('score', 0)):.2f})"
        )
    if answer.get("unmatched"):
        lines.append(f"unmatched: {', '.join(map(inline_value, answer['unmatched']))}")
    if answer.get("suggestions"):
        lines.append("suggested queries (pass one as is to lorebase_query):")
    for suggestion in answer.get("suggestions", []):
        uses = ", ".join(map(inline_value, suggestion.get("uses", [])))
        lines.append(
            f"- {json.dumps(suggestion.get('query'), separators=(',', ':'))}"
            f" (score {float(suggestion.get('score', 0)):.2f}; uses {uses})"
        )
    return "\n".join(lines)


def render_query(answer: Mapping[str, Any]) -> str:
    lines = [f"# {answer.get('kind')} in {where(answer)}"]
    if "groups" in answer:
        lines += [
            f"- {inline_value(group.get('key'))}: {pairs(group, ['key'])}"
            for group in answer["groups"]
        ]
    else:
        lines += [record_line(record) for record in answer.get("records", [])]
    return "\n".join(lines)


# How each tool shows its answer.
SCHEMA_KINDS = Shape(
    render_schema,
    member="kinds",
    what="Kinds",
    rest="narrow it with kinds=[...] (or lens=...) to see the others.",
)
SEARCH_HITS = Shape(render_search, member="hits", what="hits", rest=LIMIT)
RESOLVE_CANDIDATES = Shape(
    render_resolve,
    member="candidates",
    what="candidates",
    rest="resolve a shorter text (one phrase at a time).",
)
QUERY_GROUPS = Shape(render_query, member="groups", what="groups")
QUERY_RECORDS = Shape(render_query, member="records", what="Records")
