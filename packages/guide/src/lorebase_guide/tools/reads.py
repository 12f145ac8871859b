"""Tools that find Records: schema, resolve, search, query and context (a context pack)."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping
from typing import Any, Literal

from lorebase_core.errors import EmbeddingUnavailable, LorebaseError
from lorebase_guide.citations import refs_in_content, refs_in_text
from lorebase_guide.tools.args import (
    allowed,
    kind_arg,
    refs_arg,
    text_arg,
    whole,
)
from lorebase_guide.tools.base import ArgsInvalid, ToolContext, ToolResult, read_result
from lorebase_guide.tools.graph import neighborhood
from lorebase_guide.tools.records import history
from lorebase_guide.tools.shaping import bounded, record_lines, value_text

__all__ = [
    "FIRST_QUERY",
    "context_pack",
    "query",
    "resolve",
    "resolve_first",
    "resolve_text",
    "schema",
    "search",
]

logger = logging.getLogger(__name__)

_QUERY_MEMBERS = {"kind", "where", "select", "order_by", "aggregate", "limit"}


async def schema(context: ToolContext, args: Mapping[str, Any]) -> ToolResult:
    """The schema as Keeper renders it for a prompt (Markdown), optionally for some Kinds."""
    allowed(args, {"kinds"}, "schema")
    kinds = args.get("kinds")
    if kinds is not None:
        if not isinstance(kinds, list) or not kinds:
            raise ArgsInvalid("kinds must be a list of Kind names")
        kinds = [kind_arg(context.names, kind) for kind in kinds]
    text = await context.client.schema(
        context.domain, branch=context.branch, format="markdown", kinds=kinds
    )
    return ToolResult(True, "the schema", bounded(str(text), context.limits))


def _candidate_line(candidate: Mapping[str, Any]) -> str:
    target = candidate.get("target")
    matched = value_text(candidate.get("matched", ""), 60)
    if target == "kind":
        return f"'{matched}' is the Kind {candidate.get('kind')}"
    if target == "attribute":
        return f"'{matched}' is the Attribute {candidate.get('kind')}.{candidate.get('attribute')}"
    if target == "relation":
        return (
            f"'{matched}' is the Relation {candidate.get('relation')} "
            f"({candidate.get('kind')} to {candidate.get('to_kind')})"
        )
    if target == "count":
        return f"'{matched}' counts {candidate.get('kind')} Records: {json.dumps(candidate.get('count'))}"
    where = json.dumps(candidate.get("predicate"), ensure_ascii=False)
    records = candidate.get("records")
    held = f" ({records} Records hold it)" if records is not None else ""
    return f"'{matched}' is {candidate.get('kind')} where {where}{held}"


async def resolve_text(context: ToolContext, text: str) -> ToolResult:
    """What the words of `text` mean in this Domain, and the numbered queries they suggest.

    The suggestions are kept in the context: `query` with `{"suggestion": n}` runs one.
    """
    vector = await _query_vector(context, text)
    answer = await context.client.resolve(
        context.domain, text, query_vector=vector, coverage=False, branch=context.branch
    )
    candidates = answer.get("candidates") or []
    suggestions = [s for s in answer.get("suggestions") or [] if isinstance(s.get("query"), dict)]
    context.suggestions = [dict(s["query"]) for s in suggestions]
    context.ready = range(1, len(suggestions) + 1)
    lines = ["What the words mean:"]
    lines += ["- " + _candidate_line(c) for c in candidates[: context.limits.max_items]]
    if answer.get("unmatched"):
        lines.append("Words matching nothing: " + ", ".join(map(str, answer["unmatched"][:20])))
    if suggestions:
        lines.append('Ready queries (run one with the tool query and args {"suggestion": n}):')
        for number, suggestion in enumerate(suggestions, 1):
            lines.append(
                f"{number}. {json.dumps(suggestion['query'], ensure_ascii=False)}"
                f" -- {value_text(suggestion.get('why', ''), 160)}"
            )
    else:
        lines.append("No ready query: use search, get or the other tools.")
    summary = f"{len(candidates)} meanings, {len(suggestions)} ready queries"
    return read_result(context, summary, lines)


FIRST_QUERY: dict[str, Any] = {"suggestion": 1}
"""The arguments of the query resolve_first runs: the first ready query."""


async def resolve_first(context: ToolContext, text: str) -> ToolResult:
    """resolve of `text`, and the answer of its first ready query when it suggests one.

    The exploration's first step: the model starts from the meaning of the question and, when
    the words made a query, from its answer too, instead of having to choose to run it (a small
    model often does not). The query is the one listed first, run as `query` runs it. When it
    finds the one Record the question names by its key ("supplier S-1007"), the question is
    about that Record: its latest changes (history) and the Records linked to it (neighborhood,
    depth 1) are read too. A read that fails leaves out its part, never the rest.
    """
    resolved = await resolve_text(context, text)
    if not context.suggestions:
        return resolved
    parts = [(resolved.text, resolved.summary, frozenset[str]())]
    context.ready = range(2, len(context.suggestions) + 1)  # sent once: asking again repeats it
    try:
        answered = await query(context, FIRST_QUERY)
    except LorebaseError as exc:
        logger.info("the first ready query was refused (%s)", exc.code)
        return resolved
    parts.append(
        (
            "Ready query 1 was run for you; its answer:\n" + answered.text,
            "the first run: " + answered.summary,
            answered.refs,
        )
    )
    named = _named_record(answered.refs, text)
    if named is not None:
        reads = (
            (history, {"ref": named, "limit": NAMED_CHANGES}, "The latest changes of"),
            (neighborhood, {"refs": [named], "depth": 1}, "The Records linked to"),
        )
        for read, args, heading in reads:
            try:
                found = await read(context, args)
            except LorebaseError as exc:
                logger.info("a read of the named Record was refused (%s)", exc.code)
                continue
            parts.append(
                (f"{heading} {named} (already read):\n{found.text}", found.summary, found.refs)
            )
    return ToolResult(
        True,
        "; ".join(summary for _, summary, _ in parts),
        bounded("\n\n".join(part for part, _, _ in parts), context.limits),
        frozenset().union(*(refs for _, _, refs in parts)),
    )


NAMED_CHANGES = 5
"""The changes of a Record named by its key that the first step shows."""


def _named_record(refs: frozenset[str], text: str) -> str | None:
    """The one ref in `refs` whose key the text writes as a word of its own, or None."""
    if len(refs) != 1:
        return None
    [ref] = refs
    key = ref.split("/", 1)[1]
    words = re.split(r"[^\w.-]+", text.casefold())
    return ref if key.casefold() in (word.strip(".") for word in words) else None


async def resolve(context: ToolContext, args: Mapping[str, Any]) -> ToolResult:
    allowed(args, {"text"}, "resolve")
    text = text_arg(args, "text")
    assert text is not None
    return await resolve_text(context, text)


async def _query_vector(context: ToolContext, text: str) -> list[float] | None:
    """A query vector of `text`, only when Keeper stores vectors of the Embedder's model."""
    embedder = context.embedder
    if embedder is None or context.names.embedding_model != embedder.model:
        return None
    try:
        [vector] = await embedder.embed([text], "query")
    except EmbeddingUnavailable:
        logger.warning("no query vector: the embedding model is unavailable; searching lexically")
        return None
    return vector


async def search(context: ToolContext, args: Mapping[str, Any]) -> ToolResult:
    """Records by text: hybrid (lexical and semantic) when Keeper has vectors of our model."""
    allowed(args, {"text", "kinds"}, "search")
    text = text_arg(args, "text")
    assert text is not None
    kinds = args.get("kinds")
    if kinds is not None:
        if not isinstance(kinds, list):
            raise ArgsInvalid("kinds must be a list of Kind names")
        kinds = [kind_arg(context.names, kind) for kind in kinds] or None
    vector = await _query_vector(context, text)
    mode: Literal["lexical", "hybrid"] = "hybrid" if vector is not None else "lexical"
    answer = await context.client.search(
        context.domain,
        text,
        kinds=kinds,
        mode=mode,
        query_vector=vector,
        limit=context.limits.max_items,
        branch=context.branch,
    )
    hits = answer.get("hits") or []
    lines = []
    for correction in answer.get("corrected") or []:
        lines.append(f"(searched '{correction.get('to')}' for '{correction.get('from')}')")
    lines.append(f"{len(hits)} Records found by text ({mode} search):")
    shown, left = record_lines(hits, context.limits)
    lines += shown
    if left:
        lines.append(f"[{left} more not shown]")
    if not hits:
        lines.append(
            "(none matched these words; this does not mean no such Record exists: try other "
            "words, resolve, or a query by Attribute)"
        )
    return read_result(
        context,
        f"{len(hits)} Records found ({mode})",
        lines,
        refs_in_content(hits, context.names.kinds),
    )


_QUERY_SHAPES: tuple[tuple[str, type, str], ...] = (
    ("where", dict, "an object of the query DSL"),
    ("aggregate", dict, "an object of the query DSL"),
    ("select", list, "a list"),
    ("order_by", list, "a list"),
)
"""The members of a query the model may write, other than kind and limit: their type, named."""


def _query_document(context: ToolContext, args: Mapping[str, Any]) -> dict[str, Any]:
    if "suggestion" in args:
        allowed(args, {"suggestion"}, "query")
        number = whole(args, "suggestion", 1, max(len(context.suggestions), 1))
        if number is None or not context.suggestions:
            raise ArgsInvalid("there is no ready query to run: write the query (kind, where ...)")
        return dict(context.suggestions[number - 1])
    allowed(args, _QUERY_MEMBERS, "query")
    document: dict[str, Any] = {"kind": kind_arg(context.names, args.get("kind"))}
    for name, shape, what in _QUERY_SHAPES:
        value = args.get(name)
        if value is not None:
            if not isinstance(value, shape):
                raise ArgsInvalid(f"{name} must be {what}")
            if value:
                document[name] = value
    return document


async def query(context: ToolContext, args: Mapping[str, Any]) -> ToolResult:
    """A query of the DSL (docs/query.md), or one of resolve's ready queries by its number."""
    document = _query_document(context, args)
    limit = whole(args, "limit", 1, context.limits.max_items) or context.limits.max_items
    document["limit"] = min(int(document.get("limit") or limit), limit)
    answer = await context.client.query(context.domain, document, branch=context.branch)
    kind = str(document.get("kind"))
    shown_query = json.dumps({k: v for k, v in document.items() if k != "limit"})
    lines = [f"Query: {value_text(shown_query, 600)}"]
    groups = answer.get("groups")
    if isinstance(groups, list):
        lines.append(f"{len(groups)} groups:")
        for group in groups[: context.limits.max_items]:
            lines.append(
                "- " + "; ".join(f"{name}={value_text(value, 80)}" for name, value in group.items())
            )
        refs = refs_in_content(groups, context.names.kinds)
        summary = f"{len(groups)} groups of {kind}"
    else:
        records = answer.get("records") or []
        more = bool(answer.get("next_cursor"))
        count = f"{len(records)}{' or more' if more else ''}"
        lines.append(f"{count} {kind} Records match:")
        shown, _ = record_lines(records, context.limits)
        lines += shown
        if more:
            lines.append("[more match than shown]")
        if not records:
            lines.append(
                "(no Record matches these exact conditions; before saying something does not "
                "exist, check the names and values with resolve or search)"
            )
        refs = refs_in_content(records, context.names.kinds)
        summary = f"{count} {kind} Records"
    return read_result(context, summary, lines, refs)


async def context_pack(context: ToolContext, args: Mapping[str, Any]) -> ToolResult:
    """A context pack (Keeper's Markdown): Records, their neighbors and Links, through a lens."""
    allowed(args, {"refs", "search", "lens"}, "context")
    refs = args.get("refs")
    text = args.get("search")
    if (refs is None) == (text is None):
        raise ArgsInvalid("context takes exactly one of refs (a list of Kind/key) or search")
    lens = args.get("lens")
    if lens is not None and lens not in context.names.lenses:
        valid = ", ".join(context.names.lenses) or "none"
        raise ArgsInvalid(f"lens {lens!r} is not a lens of this Domain; lenses: {valid}")
    pack = await context.client.context_markdown(
        context.domain,
        refs=refs_arg(context.names, refs) if refs is not None else None,
        search=text_arg(args, "search") if text is not None else None,
        lens=lens,
        budget_tokens=context.limits.max_context_tokens,
        include_schema=False,
        branch=context.branch,
    )
    body = str(pack)
    found = refs_in_text(body, context.names.kinds)
    return ToolResult(
        True,
        f"a context pack of {len(found)} Records",
        bounded(body, context.limits),
        frozenset(found),
    )
