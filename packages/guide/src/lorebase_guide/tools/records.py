"""Tools on one Record: get, links, history and lineage."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lorebase_guide.citations import refs_in_content
from lorebase_guide.tools.args import allowed, ref_arg, relation_arg, whole
from lorebase_guide.tools.base import ToolContext, ToolResult, read_result
from lorebase_guide.tools.shaping import record_line, value_text

__all__ = ["get", "history", "lineage", "links"]


async def get(context: ToolContext, args: Mapping[str, Any]) -> ToolResult:
    """One Record with its values and its Link counts per Relation."""
    allowed(args, {"ref"}, "get")
    kind, key = ref_arg(context.names, args.get("ref"))
    answer = await context.client.record(
        context.domain, kind, key, branch=context.branch, links=True
    )
    lines = [record_line(answer, context.limits)]
    counts = answer.get("links")
    if isinstance(counts, Mapping) and counts:
        lines.append(
            "Links: " + ", ".join(f"{name}: {count}" for name, count in sorted(counts.items()))
        )
    ref = f"{kind}/{key}"
    return read_result(context, f"read {ref}", lines, {ref})


async def links(context: ToolContext, args: Mapping[str, Any]) -> ToolResult:
    """The Links of a Record along one Relation (with the Link's own values)."""
    allowed(args, {"ref", "relation"}, "links")
    kind, key = ref_arg(context.names, args.get("ref"))
    relation = relation_arg(context.names, kind, args.get("relation"))
    answer = await context.client.links(
        context.domain, kind, key, relation, branch=context.branch, limit=context.limits.max_items
    )
    items = answer.get("links") or []
    ref = f"{kind}/{key}"
    lines = [f"{len(items)} Links of {ref} along {relation}:"]
    for link in items[: context.limits.max_items]:
        other = link.get("to") if link.get("from") == ref else link.get("from")
        values = link.get("values") or {}
        shown = "; ".join(
            f"{name}={value_text(value, context.limits.max_value_chars)}"
            for name, value in values.items()
        )
        lines.append(f"- {other}" + (f" ({shown})" if shown else ""))
    if answer.get("next_cursor"):
        lines.append("[more Links not shown]")
    if not items:
        lines.append(f"(none: {ref} has no Link along {relation})")
    refs = refs_in_content(items, context.names.kinds) | {ref}
    return read_result(context, f"{len(items)} Links of {ref} along {relation}", lines, refs)


async def history(context: ToolContext, args: Mapping[str, Any]) -> ToolResult:
    """The changes of a Record, newest first, with the values each changed."""
    allowed(args, {"ref", "limit"}, "history")
    kind, key = ref_arg(context.names, args.get("ref"))
    limit = whole(args, "limit", 1, context.limits.max_items) or context.limits.max_items
    answer = await context.client.history(
        context.domain, kind, key, branch=context.branch, values=True, limit=limit
    )
    changes = answer.get("changes") or []
    ref = f"{kind}/{key}"
    lines = [f"{len(changes)} changes of {ref}, newest first:"]
    for change in changes:
        before = change.get("before") or {}
        after = change.get("after") or {}
        changed = change.get("attributes") or []
        shown = ", ".join(
            f"{name}: {value_text(before.get(name), 60)} -> {value_text(after.get(name), 60)}"
            for name in changed
        )
        origin = change.get("origin") or {}
        lines.append(
            f"- {change.get('at')} by {change.get('author')} ({change.get('change')}, "
            f'{origin.get("type")}): "{value_text(change.get("message") or "", 200)}"'
            + (f"; {shown}" if shown else "")
        )
    if answer.get("next_cursor"):
        lines.append("[older changes not shown]")
    return read_result(context, f"{len(changes)} changes of {ref}", lines, {ref})


async def lineage(context: ToolContext, args: Mapping[str, Any]) -> ToolResult:
    """Where each current value of a Record came from."""
    allowed(args, {"ref"}, "lineage")
    kind, key = ref_arg(context.names, args.get("ref"))
    answer = await context.client.lineage(context.domain, kind, key, branch=context.branch)
    attributes = answer.get("attributes") or {}
    ref = f"{kind}/{key}"
    lines = [f"Lineage of {ref} (per Attribute: when, by whom, how):"]
    for name, source in list(attributes.items())[: context.limits.max_items * 2]:
        origin = source.get("origin") or {}
        lines.append(
            f"- {name}: {source.get('at')} by {source.get('actor')} ({origin.get('type')} "
            f'{origin.get("ref")}): "{value_text(source.get("message") or "", 120)}"'
        )
    return read_result(context, f"lineage of {len(attributes)} Attributes of {ref}", lines, {ref})
