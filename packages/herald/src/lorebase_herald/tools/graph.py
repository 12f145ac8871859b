"""Tools over several Records and Revisions: traverse, neighborhood, diff, changes, health."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import Field

from lorebase_core.markdown import inline_value, short_revision
from lorebase_herald.markdown import link_line, pairs, record_line, where
from lorebase_herald.tools.base import Ctx, Family, ToolCall, run
from lorebase_herald.tools.hints import READ, Answered
from lorebase_herald.tools.params import At, Branch, Domain, Kinds, Limit, Refs, Relations
from lorebase_herald.tools.shaping import LIMIT, Shape

TOOLS = Family()
"""The tools over several Records and Revisions, in the order they are listed."""

TRAVERSE = """\
Follow a path of Relations from start Records and answer the Records at the end, with the count
per hop. Use it for multi-hop questions ("the plants that stock the parts S-1007 supplies");
lorebase_neighborhood answers everything within a depth instead.
Example: {"domain": "supply", "start": ["Supplier/S-1007"], "path": ["supplies", "stocked_at"]}"""

NEIGHBORHOOD = """\
Everything within a depth of some Records: the seeds, their neighbors (with depth) and the Links
between them. Use it for "what depends on X" or "what is around X"; narrow it with relations=.
Example: {"domain": "supply", "refs": ["Supplier/S-1007"], "depth": 1}"""

DIFF = """\
What changed between two Revisions: the Records and Links added, removed or modified, with the
values before and after. Use it to compare two states; lorebase_history follows one Record.
Example: {"domain": "supply", "from_revision": "3595fb1145de", "to_revision": "9593454195d1"}"""

CHANGES = """\
The Revisions committed on a branch after a Revision (the polling change feed), oldest first,
with the Kinds and keys they touched. Use it to refresh what you read before (pass the
revision of your last answer as since).
Example: {"domain": "supply", "branch": "main", "since": "9593454195d1"}"""

HEALTH = """\
The data health of a Domain or one Kind: counts, invalid Records, orphan Links, gaps in required
values, duplicates, stale derived values. Use it to judge how far the data can be trusted.
Example: {"domain": "supply", "kind": "Supplier"}"""


@TOOLS.tool(title="Traverse", description=TRAVERSE, annotations=READ)
async def lorebase_traverse(
    ctx: Ctx,
    domain: Domain,
    start: Annotated[list[str], Field(description="Start Records, Kind/key.", min_length=1)],
    path: Annotated[list[str], Field(description="Relations to follow, in order.", min_length=1)],
    limit: Limit = None,
    branch: Branch = None,
    at: At = None,
) -> Answered:
    async def read(call: ToolCall) -> Answered:
        answer = await call.client.traverse(domain, start, path, limit=limit, branch=branch, at=at)
        hops = answer.get("hops") or []
        kinds = [hops[-1]["to_kind"]] if hops and hops[-1].get("to_kind") else []
        return call.shaped(answer, TRAVERSE_SHAPE, kinds=kinds)

    return await run(ctx, "lorebase_traverse", read)


@TOOLS.tool(title="Neighborhood", description=NEIGHBORHOOD, annotations=READ)
async def lorebase_neighborhood(
    ctx: Ctx,
    domain: Domain,
    refs: Refs,
    depth: Annotated[int | None, Field(description="How many hops (1 by default).", ge=0)] = None,
    relations: Relations = None,
    branch: Branch = None,
    at: At = None,
) -> Answered:
    async def read(call: ToolCall) -> Answered:
        answer = await call.client.neighborhood(
            domain, refs, depth=depth, relations=relations, branch=branch, at=at
        )
        return call.shaped(answer, NEIGHBORHOOD_SHAPE)

    return await run(ctx, "lorebase_neighborhood", read)


@TOOLS.tool(title="Diff", description=DIFF, annotations=READ)
async def lorebase_diff(
    ctx: Ctx,
    domain: Domain,
    from_revision: Annotated[str, Field(description="The older Revision (id, prefix or tag).")],
    to_revision: Annotated[str, Field(description="The newer Revision (id, prefix or tag).")],
) -> Answered:
    async def read(call: ToolCall) -> Answered:
        answer = await call.client.diff(domain, from_revision, to_revision)
        return call.shaped(answer, DIFF_SHAPE)

    return await run(ctx, "lorebase_diff", read)


@TOOLS.tool(title="Changes", description=CHANGES, annotations=READ)
async def lorebase_changes(
    ctx: Ctx,
    domain: Domain,
    branch: Annotated[str, Field(description="The branch to follow, e.g. 'main'.")],
    since: Annotated[
        str | None, Field(description="The Revision you last read; omit for the latest.")
    ] = None,
    kinds: Kinds = None,
    limit: Limit = None,
) -> Answered:
    async def read(call: ToolCall) -> Answered:
        answer = await call.client.changes(domain, branch, since=since, kinds=kinds, limit=limit)
        return call.shaped(answer, CHANGES_SHAPE, kinds=kinds or [])

    return await run(ctx, "lorebase_changes", read)


@TOOLS.tool(title="Data health", description=HEALTH, annotations=READ)
async def lorebase_health(
    ctx: Ctx,
    domain: Domain,
    kind: Annotated[str | None, Field(description="Only this Kind.")] = None,
    branch: Branch = None,
    at: At = None,
) -> Answered:
    async def read(call: ToolCall) -> Answered:
        text = await call.client.health(domain, kind, branch=branch, at=at, format="markdown")
        result = {"format": "markdown", "kind": kind}
        return call.rendered(text, domain=domain, branch=branch, result=result)

    return await run(ctx, "lorebase_health", read)


def render_traverse(answer: Mapping[str, Any]) -> str:
    lines = [f"# Traverse {' -> '.join(answer.get('path', []))} in {where(answer)}"]
    for hop in answer.get("hops", []):
        lines.append(
            f"- hop {hop.get('relation')} ({hop.get('direction')}): {hop.get('from_kind')} -> "
            f"{hop.get('to_kind')}, {hop.get('records')} Records, {hop.get('links')} Links"
        )
    if answer.get("missing"):
        lines.append(f"missing start Records: {', '.join(answer['missing'])}")
    if answer.get("capped"):
        lines.append(f"capped: {inline_value(answer.get('caps'))}")
    lines.append("## Records")
    lines += [record_line(record) for record in answer.get("records", [])]
    return "\n".join(lines)


def render_neighborhood(answer: Mapping[str, Any]) -> str:
    lines = [f"# Neighborhood in {where(answer)}", "## Seeds"]
    lines += [record_line(seed) for seed in answer.get("seeds", [])]
    if answer.get("missing"):
        lines.append(f"missing: {', '.join(answer['missing'])}")
    lines.append("## Neighbors")
    lines += [record_line(neighbor) for neighbor in answer.get("neighbors", [])]
    shown = {item.get("ref") for item in [*answer.get("seeds", []), *answer.get("neighbors", [])]}
    links = answer.get("links") or {}
    kept = [
        link_line({**link, "relation": relation})
        for relation, group in (links.items() if isinstance(links, Mapping) else [])
        for link in group
        if {link.get("from"), link.get("to")} <= shown
    ]
    if kept:
        lines += ["## Links", *kept]
    if answer.get("capped"):
        lines.append(f"capped: {inline_value(answer.get('caps'))}")
    return "\n".join(lines)


def render_diff(answer: Mapping[str, Any]) -> str:
    lines = [
        f"# Diff {short_revision(answer.get('from'))} -> {short_revision(answer.get('to'))} in {answer.get('domain')}"
    ]
    for record in answer.get("records", []):
        before, after = record.get("before") or {}, record.get("after") or {}
        changed = record.get("attributes") or sorted(set(before) | set(after))
        shifts = "; ".join(
            f"{name}: {inline_value(before.get(name))} -> {inline_value(after.get(name))}"
            for name in changed
        )
        lines.append(f"- {record.get('ref')} {record.get('change')}: {shifts}")
    for link in answer.get("links", []):
        lines.append(f"{link_line(link)} {link.get('change', '')}".rstrip())
    return "\n".join(lines)


def render_changes(answer: Mapping[str, Any]) -> str:
    lines = [f"# Changes of {answer.get('domain')}/{answer.get('branch')}, oldest first"]
    for event in answer.get("events", []):
        counts = event.get("kinds") or {}
        keys = event.get("keys") or {}
        touched = ", ".join(
            f"{kind} {count}" + (f" ({', '.join(keys[kind])})" if keys.get(kind) else "")
            for kind, count in counts.items()
        )
        cut = "; more keys than listed" if event.get("keys_truncated") else ""
        lines.append(
            f"- {short_revision(event.get('revision'))} {event.get('created_at')} by {event.get('author')}:"
            f" {inline_value(event.get('message') or '')} (Kinds {touched or 'none'}{cut};"
            f" {pairs(event.get('stats'))})"
        )
    if not answer.get("events"):
        lines.append("No Revisions after since.")
    if answer.get("next_since"):
        lines.append(f"next_since: {answer['next_since']}")
    if answer.get("more"):
        lines.append("more: this page was cut; call again with since=next_since at once.")
    return "\n".join(lines)


# How each tool shows its answer.
TRAVERSE_SHAPE = Shape(render_traverse, member="records", what="Records", rest=LIMIT)
NEIGHBORHOOD_SHAPE = Shape(
    render_neighborhood,
    member="neighbors",
    what="neighbors",
    rest="ask a smaller depth or only some relations=[...], or read one neighbor with lorebase_record.",
)
DIFF_SHAPE = Shape(
    render_diff,
    member="records",
    what="changed Records",
    rest="diff shorter steps (Revisions in between) or follow one Record with lorebase_history.",
)
CHANGES_SHAPE = Shape(
    render_changes,
    member="events",
    what="revision events",
    rest="call again with limit={shown} and go on from its next_since.",
)
