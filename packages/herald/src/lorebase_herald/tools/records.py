"""Tools about one Record: record, links, history, lineage, explain."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import Field

from lorebase_core.markdown import inline_value, short_revision
from lorebase_herald.markdown import link_line, pairs, where
from lorebase_herald.tools.base import Ctx, Family, ToolCall, run
from lorebase_herald.tools.hints import READ, Answered
from lorebase_herald.tools.params import (
    At,
    Attributes,
    Branch,
    Cursor,
    Domain,
    Key,
    Kind,
    Limit,
    record_of,
)
from lorebase_herald.tools.shaping import Shape

TOOLS = Family()
"""The tools about one Record, in the order they are listed."""

RECORD = """\
One Record: its values, how many Links it has per Relation, and optionally the lineage of each
value (which Revision, actor and origin set it). Use it when you know the Kind and key; follow a
Relation with lorebase_links, ask why a value is what it is with lorebase_explain.
Example: {"domain": "supply", "kind": "Supplier", "key": "S-1001", "lineage": true}"""

LINKS = """\
The Links of one Record along one Relation (or its inverse name), with the Link's own values,
paged. Use it to list what a Record is connected to; lorebase_traverse follows several hops.
Example: {"domain": "supply", "kind": "Supplier", "key": "S-1001", "relation": "supplies"}"""

HISTORY = """\
The changes of one Record, newest first: Revision, author, time, message, origin (import,
Operation, merge) and the Attributes changed (values=true adds them). Use it for "what changed
and when"; attributes narrows it to some Attributes ("what was the risk score before": one
small read); lorebase_lineage answers where each current value came from.
Example: {"domain": "supply", "kind": "Supplier", "key": "S-1001", "attributes": ["risk_score"],
"values": true}"""

LINEAGE = """\
Where each current value of a Record came from: the Revision that set it, its actor, time,
message and origin. Use it before quoting a value as fact; lorebase_history lists every change.
Example: {"domain": "supply", "kind": "Supplier", "key": "S-1001"}"""

EXPLAIN = """\
Why a Record is what it is: when it was created, each value with the change that set it, its
Links, derived values and checks, written for reading. Use it to justify an answer; it is longer
than lorebase_lineage.
Example: {"domain": "supply", "kind": "Supplier", "key": "S-1001"}"""


@TOOLS.tool(title="Record", description=RECORD, annotations=READ)
async def lorebase_record(
    ctx: Ctx,
    domain: Domain,
    key: Key,
    kind: Kind = None,
    lineage: Annotated[bool, Field(description="Add the lineage of each value.")] = False,
    branch: Branch = None,
    at: At = None,
) -> Answered:
    async def read(call: ToolCall) -> Answered:
        record_kind, record_key = record_of(kind, key)
        answer = await call.client.record(
            domain, record_kind, record_key, branch=branch, at=at, links=True, lineage=lineage
        )
        return call.shaped(answer, RECORD_SHAPE)

    return await run(ctx, "lorebase_record", read)


@TOOLS.tool(title="Links", description=LINKS, annotations=READ)
async def lorebase_links(
    ctx: Ctx,
    domain: Domain,
    key: Key,
    relation: Annotated[str, Field(description="A Relation or its inverse name.")],
    kind: Kind = None,
    limit: Limit = None,
    cursor: Cursor = None,
    branch: Branch = None,
    at: At = None,
) -> Answered:
    async def read(call: ToolCall) -> Answered:
        record_kind, record_key = record_of(kind, key)
        answer = await call.client.links(
            domain,
            record_kind,
            record_key,
            relation,
            branch=branch,
            at=at,
            limit=limit,
            cursor=cursor,
        )
        target = [answer.get("target_kind") or record_kind]
        return call.shaped(answer, LINKS_SHAPE, kinds=target)

    return await run(ctx, "lorebase_links", read)


@TOOLS.tool(title="History", description=HISTORY, annotations=READ)
async def lorebase_history(
    ctx: Ctx,
    domain: Domain,
    key: Key,
    kind: Kind = None,
    values: Annotated[bool, Field(description="Add the values each change set.")] = False,
    attributes: Attributes = None,
    limit: Limit = None,
    cursor: Cursor = None,
    branch: Branch = None,
    at: At = None,
) -> Answered:
    async def read(call: ToolCall) -> Answered:
        record_kind, record_key = record_of(kind, key)
        answer = await call.client.history(
            domain,
            record_kind,
            record_key,
            branch=branch,
            at=at,
            values=values,
            limit=limit,
            cursor=cursor,
            attributes=attributes,
        )
        return call.shaped(answer, HISTORY_SHAPE, kinds=[record_kind])

    return await run(ctx, "lorebase_history", read)


@TOOLS.tool(title="Lineage", description=LINEAGE, annotations=READ)
async def lorebase_lineage(
    ctx: Ctx, domain: Domain, key: Key, kind: Kind = None, branch: Branch = None, at: At = None
) -> Answered:
    async def read(call: ToolCall) -> Answered:
        record_kind, record_key = record_of(kind, key)
        answer = await call.client.lineage(domain, record_kind, record_key, branch=branch, at=at)
        return call.shaped(answer, LINEAGE_SHAPE)

    return await run(ctx, "lorebase_lineage", read)


@TOOLS.tool(title="Explain", description=EXPLAIN, annotations=READ)
async def lorebase_explain(
    ctx: Ctx, domain: Domain, key: Key, kind: Kind = None, branch: Branch = None, at: At = None
) -> Answered:
    async def read(call: ToolCall) -> Answered:
        record_kind, record_key = record_of(kind, key)
        text = await call.client.explain(
            domain, record_kind, record_key, branch=branch, at=at, format="markdown"
        )
        result = {"format": "markdown", "ref": f"{record_kind}/{record_key}"}
        return call.rendered(text, domain=domain, branch=branch, result=result)

    return await run(ctx, "lorebase_explain", read)


def render_record(answer: Mapping[str, Any]) -> str:
    lines = [f"# {answer.get('ref')} {inline_value(answer.get('title') or '')} in {where(answer)}"]
    lines += [
        f"- {name}: {inline_value(item)}" for name, item in (answer.get("values") or {}).items()
    ]
    lines.append(f"last changed in {short_revision(answer.get('updated_revision'))}")
    links = answer.get("links") or {}
    if links:
        lines.append(f"Links: {pairs(links)} (lorebase_links lists them)")
    lineage = answer.get("lineage") or {}
    if lineage:
        lines.append("## Lineage")
        lines += [_source(name, source) for name, source in lineage.items()]
    return "\n".join(lines)


def _source(name: str, source: Mapping[str, Any]) -> str:
    origin = source.get("origin") or {}
    return (
        f"- {name}: {short_revision(source.get('revision'))} by {source.get('actor')} at {source.get('at')}"
        f" ({origin.get('type')} {origin.get('ref') or ''}".rstrip()
        + f"): {inline_value(source.get('message') or '')}"
    )


def render_links(answer: Mapping[str, Any]) -> str:
    head = (
        f"# {answer.get('ref')} {answer.get('relation')} ({answer.get('direction')}, to "
        f"{answer.get('target_kind')}) in {where(answer)}"
    )
    return "\n".join([head, *(link_line(link) for link in answer.get("links", []))])


def render_history(answer: Mapping[str, Any]) -> str:
    lines = [f"# History of {answer.get('ref')} in {where(answer)}"]
    for change in answer.get("changes", []):
        origin = change.get("origin") or {}
        line = (
            f"- {short_revision(change.get('revision'))} {change.get('at')} by {change.get('author')} "
            f"({origin.get('type')} {origin.get('ref') or ''}".rstrip()
            + f"): {change.get('change')} {', '.join(change.get('attributes', []))}"
            f" - {inline_value(change.get('message') or '')}"
        )
        before, after = change.get("before"), change.get("after")
        if isinstance(after, Mapping):
            shifts = [
                f"{name}: {inline_value((before or {}).get(name))} -> {inline_value(after.get(name))}"
                for name in change.get("attributes", [])
            ]
            line += f" [{'; '.join(shifts)}]"
        lines.append(line)
    return "\n".join(lines)


def render_lineage(answer: Mapping[str, Any]) -> str:
    lines = [f"# Lineage of {answer.get('ref')} in {where(answer)}"]
    lines += [_source(name, source) for name, source in (answer.get("attributes") or {}).items()]
    return "\n".join(lines)


# How each tool shows its answer.
RECORD_SHAPE = Shape(render_record)
LINKS_SHAPE = Shape(render_links, member="links", what="Links")
HISTORY_SHAPE = Shape(render_history, member="changes", what="changes")
LINEAGE_SHAPE = Shape(render_lineage)
