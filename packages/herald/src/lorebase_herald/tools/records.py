"""Tools about one Record: record, links, history, lineage, explain."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any

from mcp.server.mcpserver import Context
from pydantic import Field

from lorebase_client import AsyncLorebaseClient
from lorebase_herald.markdown import link_line, pairs, short, value, where
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
from lorebase_herald.tools.shaping import rendered, shaped

if TYPE_CHECKING:
    from lorebase_herald.server import Herald

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


def register(herald: Herald) -> None:
    """Add the Record tools to Herald's server."""
    server = herald.mcp

    @server.tool(name="lorebase_record", title="Record", description=RECORD, annotations=READ)
    async def lorebase_record(
        ctx: Context[Any, Any],
        domain: Domain,
        key: Key,
        kind: Kind = None,
        lineage: Annotated[bool, Field(description="Add the lineage of each value.")] = False,
        branch: Branch = None,
        at: At = None,
    ) -> Answered:
        async def read(client: AsyncLorebaseClient) -> Answered:
            record_kind, record_key = record_of(kind, key)
            answer = await client.record(
                domain, record_kind, record_key, branch=branch, at=at, links=True, lineage=lineage
            )
            return shaped(herald.budget, "lorebase_record", answer, render=render_record)

        return await herald.call(ctx, "lorebase_record", read)

    @server.tool(name="lorebase_links", title="Links", description=LINKS, annotations=READ)
    async def lorebase_links(
        ctx: Context[Any, Any],
        domain: Domain,
        key: Key,
        relation: Annotated[str, Field(description="A Relation or its inverse name.")],
        kind: Kind = None,
        limit: Limit = None,
        cursor: Cursor = None,
        branch: Branch = None,
        at: At = None,
    ) -> Answered:
        async def read(client: AsyncLorebaseClient) -> Answered:
            record_kind, record_key = record_of(kind, key)
            answer = await client.links(
                domain,
                record_kind,
                record_key,
                relation,
                branch=branch,
                at=at,
                limit=limit,
                cursor=cursor,
            )
            return shaped(
                herald.budget,
                "lorebase_links",
                answer,
                render=render_links,
                member="links",
                kinds=[answer.get("target_kind") or record_kind],
                what="Links",
            )

        return await herald.call(ctx, "lorebase_links", read)

    @server.tool(name="lorebase_history", title="History", description=HISTORY, annotations=READ)
    async def lorebase_history(
        ctx: Context[Any, Any],
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
        async def read(client: AsyncLorebaseClient) -> Answered:
            record_kind, record_key = record_of(kind, key)
            answer = await client.history(
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
            return shaped(
                herald.budget,
                "lorebase_history",
                answer,
                render=render_history,
                member="changes",
                kinds=[record_kind],
                what="changes",
            )

        return await herald.call(ctx, "lorebase_history", read)

    @server.tool(name="lorebase_lineage", title="Lineage", description=LINEAGE, annotations=READ)
    async def lorebase_lineage(
        ctx: Context[Any, Any],
        domain: Domain,
        key: Key,
        kind: Kind = None,
        branch: Branch = None,
        at: At = None,
    ) -> Answered:
        async def read(client: AsyncLorebaseClient) -> Answered:
            record_kind, record_key = record_of(kind, key)
            answer = await client.lineage(domain, record_kind, record_key, branch=branch, at=at)
            return shaped(herald.budget, "lorebase_lineage", answer, render=render_lineage)

        return await herald.call(ctx, "lorebase_lineage", read)

    @server.tool(name="lorebase_explain", title="Explain", description=EXPLAIN, annotations=READ)
    async def lorebase_explain(
        ctx: Context[Any, Any],
        domain: Domain,
        key: Key,
        kind: Kind = None,
        branch: Branch = None,
        at: At = None,
    ) -> Answered:
        async def read(client: AsyncLorebaseClient) -> Answered:
            record_kind, record_key = record_of(kind, key)
            text = await client.explain(
                domain, record_kind, record_key, branch=branch, at=at, format="markdown"
            )
            return rendered(
                herald.budget,
                "lorebase_explain",
                str(text),
                domain=domain,
                branch=branch,
                revision=text.revision,
                result={"format": "markdown", "ref": f"{record_kind}/{record_key}"},
            )

        return await herald.call(ctx, "lorebase_explain", read)


def render_record(answer: Mapping[str, Any]) -> str:
    lines = [f"# {answer.get('ref')} {value(answer.get('title') or '')} in {where(answer)}"]
    lines += [f"- {name}: {value(item)}" for name, item in (answer.get("values") or {}).items()]
    lines.append(f"last changed in {short(answer.get('updated_revision'))}")
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
        f"- {name}: {short(source.get('revision'))} by {source.get('actor')} at {source.get('at')}"
        f" ({origin.get('type')} {origin.get('ref') or ''}".rstrip()
        + f"): {value(source.get('message') or '')}"
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
            f"- {short(change.get('revision'))} {change.get('at')} by {change.get('author')} "
            f"({origin.get('type')} {origin.get('ref') or ''}".rstrip()
            + f"): {change.get('change')} {', '.join(change.get('attributes', []))}"
            f" - {value(change.get('message') or '')}"
        )
        before, after = change.get("before"), change.get("after")
        if isinstance(after, Mapping):
            shifts = [
                f"{name}: {value((before or {}).get(name))} -> {value(after.get(name))}"
                for name in change.get("attributes", [])
            ]
            line += f" [{'; '.join(shifts)}]"
        lines.append(line)
    return "\n".join(lines)


def render_lineage(answer: Mapping[str, Any]) -> str:
    lines = [f"# Lineage of {answer.get('ref')} in {where(answer)}"]
    lines += [_source(name, source) for name, source in (answer.get("attributes") or {}).items()]
    return "\n".join(lines)
