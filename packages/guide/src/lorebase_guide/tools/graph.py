"""Tools on the graph around Records: neighborhood and traverse."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lorebase_guide.citations import refs_in_content
from lorebase_guide.tools.args import allowed, refs_arg, relation_arg, whole
from lorebase_guide.tools.base import ArgsInvalid, ToolContext, ToolResult, read_result
from lorebase_guide.tools.shaping import record_lines

__all__ = ["neighborhood", "traverse"]

MAX_PATH = 4


async def neighborhood(context: ToolContext, args: Mapping[str, Any]) -> ToolResult:
    """The Records linked to some Records, breadth first up to max_depth."""
    allowed(args, {"refs", "depth", "relations"}, "neighborhood")
    refs = refs_arg(context.names, args.get("refs"))
    depth = whole(args, "depth", 1, context.limits.max_depth) or 1
    relations = args.get("relations")
    if relations is not None:
        if not isinstance(relations, list) or not relations:
            raise ArgsInvalid("relations must be a list of Relation names")
        relations = [relation_arg(context.names, None, name) for name in relations]
    answer = await context.client.neighborhood(
        context.domain, refs, depth=depth, relations=relations, branch=context.branch
    )
    seeds = answer.get("seeds") or []
    neighbors = (answer.get("neighbors") or [])[: context.limits.max_nodes]
    lines = ["Records asked for:"]
    seed_lines, _ = record_lines(seeds, context.limits)
    lines += seed_lines
    missing = answer.get("missing") or []
    if missing:
        lines.append("Not found (no such Record): " + ", ".join(map(str, missing)))
    lines.append(f"{len(neighbors)} linked Records (depth up to {depth}):")
    shown, left = record_lines(neighbors, context.limits)
    lines += shown
    if left:
        lines.append(f"[{left} more linked Records not shown]")
    links = answer.get("links")
    if isinstance(links, Mapping) and links:
        lines.append("Links:")
        for relation, items in sorted(links.items()):
            for link in list(items)[: context.limits.max_items]:
                lines.append(f"- {link.get('from')} {relation} {link.get('to')}")
    found = refs_in_content(seeds, context.names.kinds) | refs_in_content(
        neighbors, context.names.kinds
    )
    return read_result(
        context, f"{len(seeds)} Records and {len(neighbors)} linked Records", lines, found
    )


async def traverse(context: ToolContext, args: Mapping[str, Any]) -> ToolResult:
    """Follow a path of Relations from Records of one Kind; the Records at its end."""
    allowed(args, {"start", "path"}, "traverse")
    start = refs_arg(context.names, args.get("start"), "start")
    kinds = {ref.partition("/")[0] for ref in start}
    if len(kinds) != 1:
        raise ArgsInvalid("start must name Records of one Kind")
    path = args.get("path")
    if isinstance(path, str):
        path = [path]
    if not isinstance(path, list) or not 1 <= len(path) <= MAX_PATH:
        raise ArgsInvalid(f"path must be a list of 1 to {MAX_PATH} Relation names")
    kind: str | None = kinds.pop()
    names = []
    for name in path:
        relation = relation_arg(context.names, kind, name, "path")
        names.append(relation)
        kind = context.names.relations[relation].to_kind
    answer = await context.client.traverse(
        context.domain, start, names, limit=context.limits.max_items, branch=context.branch
    )
    records = answer.get("records") or []
    hops = answer.get("hops") or []
    lines = [
        "Path: "
        + " -> ".join(
            f"{hop.get('relation')} ({hop.get('from_kind')} to {hop.get('to_kind')}: "
            f"{hop.get('records')} Records)"
            for hop in hops
        ),
        f"{len(records)} Records at the end of the path:",
    ]
    shown, left = record_lines(records, context.limits)
    lines += shown or ["(none: no Record is reached along this path)"]
    if left or answer.get("capped"):
        lines.append("[more Records not shown]")
    missing = answer.get("missing") or []
    if missing:
        lines.append("Not found (no such Record): " + ", ".join(map(str, missing)))
    found = refs_in_content(records, context.names.kinds) | (set(start) - set(map(str, missing)))
    return read_result(context, f"{len(records)} Records along {' -> '.join(names)}", lines, found)
