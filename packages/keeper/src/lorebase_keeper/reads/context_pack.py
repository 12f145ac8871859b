"""Assembling a context pack (agents.md section 1) from one Reader, at one Revision.

The reads: the seeds (the refs, or one query statement), the neighborhood walk (batched hop by
hop), the seeds' live versions (one statement per seed Kind), and, when included, the versions of
the pack's Records for recent changes (one statement per Kind) and the Revisions the changes and
the lineage name (one statement each). No read is per Record.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from fastapi import Request, Response

from lorebase_core.context import (
    ContextLimits,
    ContextRequest,
    ImportedRecords,
    LineageEntry,
    Pack,
    PackLink,
    PackRecord,
    PackSchema,
    RecentChange,
    SchemaAttribute,
    SchemaDetail,
    SchemaKind,
    SchemaRelation,
    Trimmed,
    render_json_section,
    section_json,
    summarise_imports,
    trim,
)
from lorebase_core.errors import RecordNotFound, quoted, shortened
from lorebase_core.graph_requests import NeighborhoodRequest
from lorebase_core.refs import RecordRef
from lorebase_core.schema import Schema
from lorebase_core.search_request import SearchRequest
from lorebase_keeper.reads.context_markdown import markdown_document, render_markdown_section
from lorebase_keeper.reads.reading import Read
from lorebase_keeper.shapes.common import ValuesJson
from lorebase_keeper.shapes.reads.context import BudgetJson, ContextAnswerJson, PackSections
from lorebase_platform.settings import Settings
from lorebase_store import NeighborhoodResult, SeedVersion


def context_limits(settings: Settings) -> ContextLimits:
    context = settings.agents.context
    query = settings.read.query
    return ContextLimits(
        default_budget_tokens=context.default_budget_tokens,
        max_budget_tokens=context.max_budget_tokens,
        default_depth=context.default_depth,
        max_depth=context.max_depth,
        max_seeds=context.max_seeds,
        query_max_predicates=query.max_predicates,
        query_max_hops=query.max_hops,
        query_max_string_length=query.max_string_length,
        query_max_in_values=query.max_in_values,
        search_max_chars=settings.read.search.max_q_chars,
    )


def context_answer(request: Request, read: Read, parsed: ContextRequest, body: object) -> Response:
    """The pack as a revision-stamped answer (304 and the answer cache through `stamped`)."""
    return read.answer(
        request,
        lambda etag: build_pack(read, parsed, etag),
        body=body,
        markdown=parsed.format == "markdown",
    )


def _seed_refs(read: Read, parsed: ContextRequest) -> tuple[RecordRef, ...]:
    if parsed.refs is not None:
        return parsed.refs
    if parsed.search is not None:
        return _search_seeds(read, parsed, parsed.search)
    assert parsed.query is not None
    if not parsed.query.kinds:
        return ()  # the lens or Traits leave none of the query's Kinds
    result = read.reader.query(parsed.query, read.scope)
    return tuple(sorted({RecordRef(row.kind, row.key) for row in result.records}, key=str))


def _search_seeds(read: Read, parsed: ContextRequest, text: str) -> tuple[RecordRef, ...]:
    """The best lexical hits among the Kinds the lens or Traits allow (all readable ones else)."""
    schema = read.reader.schema
    kinds = tuple(
        kind
        for kind in read.scope.visible_kinds(schema)
        if parsed.kinds is None or kind in parsed.kinds
    )
    if not kinds:
        return ()
    settings = read.keeper.settings
    request = SearchRequest(
        q=text, kinds=kinds, limit=settings.agents.context.max_seeds, values=False
    )
    result = read.reader.search(
        request,
        read.scope,
        min_similarity=settings.read.search.min_similarity,
        candidates=settings.read.search.candidates_per_term,
    )
    return tuple(sorted({RecordRef(hit.kind, hit.key) for hit in result.hits}, key=str))


def _walk(read: Read, parsed: ContextRequest, seeds: tuple[RecordRef, ...]) -> NeighborhoodResult:
    settings = read.keeper.settings
    context, limits = settings.agents.context, settings.read.neighborhood
    result = read.reader.neighborhood(
        NeighborhoodRequest(
            refs=seeds,
            depth=parsed.depth,
            relations=parsed.relations,
            values=True,
            kinds=parsed.kinds,
        ),
        read.scope,
        max_records=min(context.max_neighbors, limits.max_records),
        max_links=min(context.max_links, limits.max_links),
        max_fanout=settings.store.traverse.max_fanout,
    )
    if result.missing:
        missing = list(result.missing)
        raise RecordNotFound(
            f"{', '.join(shortened(ref) for ref in missing)} "
            f"{'does' if len(missing) == 1 else 'do'} not exist on branch "
            f"{quoted(read.branch)}; give refs of live Records",
            missing=missing,
        )
    return result


def _held(values: Iterable[ValuesJson | None]) -> set[str]:
    return {name for found in values for name in found or ()}


def _schema_section(schema: Schema, pack: Pack, detail: SchemaDetail) -> PackSchema:
    """The Kinds and Relations present in the pack, in declared order, with the Attributes some
    Record (or Link) of the pack holds; descriptions once per Kind and Relation unless compact."""
    records = (*pack.seeds, *pack.neighbors)
    described = detail == "described"
    kinds = []
    for name, kind in schema.kinds.items():
        held = _held(record.values for record in records if record.kind == name)
        if any(record.kind == name for record in records):
            kinds.append(
                SchemaKind(
                    name,
                    kind.description if described else "",
                    tuple(kind.key),
                    kind.title,
                    tuple(
                        SchemaAttribute(attr, rules.type)
                        for attr, rules in kind.attributes.items()
                        if attr in held
                    ),
                )
            )
    relations = []
    for name, relation in schema.relations.items():
        links = [link for link in pack.links if link.relation == name]
        held = _held(link.values for link in links)
        if links:
            relations.append(
                SchemaRelation(
                    name,
                    relation.inverse,
                    relation.from_kind,
                    relation.to_kind,
                    relation.cardinality,
                    relation.description if described else "",
                    tuple(
                        SchemaAttribute(attr, rules.type)
                        for attr, rules in relation.attributes.items()
                        if attr in held
                    ),
                )
            )
    return PackSchema(tuple(kinds), tuple(relations))


def _heading(schema: Schema, ref: str) -> frozenset[str]:
    """The Attributes the ref and title show: a one-Attribute key and the title Attribute."""
    kind = schema.kinds[ref.partition("/")[0]]
    names = set(kind.key) if len(kind.key) == 1 else set()
    if kind.title is not None:
        names.add(kind.title)
    return frozenset(names)


def _graph_pack(read: Read, parsed: ContextRequest) -> tuple[Pack, bool, dict[str, SeedVersion]]:
    """The seeds, neighbors and Links of the pack, whether a graph cap cut them, and the seeds'
    live versions (read once: for `updated_revision` and for the lineage section)."""
    seeds = _seed_refs(read, parsed)
    if not seeds:
        return Pack(()), False, {}
    result = _walk(read, parsed, seeds)
    versions = read.reader.seed_versions((seed.kind, seed.key) for seed in result.seeds)
    schema = read.reader.schema
    pack = Pack(
        seeds=tuple(
            PackRecord(
                seed.ref,
                seed.title,
                dict(seed.values or {}),
                0,
                versions[seed.ref].revision if seed.ref in versions else None,
                _heading(schema, seed.ref),
            )
            for seed in result.seeds
        ),
        neighbors=tuple(
            PackRecord(
                record.ref,
                record.title,
                dict(record.values or {}),
                record.depth,
                heading=_heading(schema, record.ref),
            )
            for record in result.neighbors
        ),
        links=tuple(
            PackLink(link.relation, link.from_ref, link.to_ref, dict(link.values or {}) or None)
            for link in result.links
        ),
    )
    return pack, result.capped, versions


def _readable_lineage(read: Read, entries: Iterable[LineageEntry]) -> tuple[LineageEntry, ...]:
    """The lineage entries without masked Attributes: naming one would tell that it is set."""
    schema, kept = read.reader.schema, []
    for entry in entries:
        kind = schema.kinds[entry.ref.partition("/")[0]]
        masked = set(read.scope.masked_names(kind.attributes))
        attributes = tuple(name for name in entry.attributes if name not in masked)
        if attributes:
            kept.append(replace(entry, attributes=attributes))
    return tuple(kept)


def _shown_changes(read: Read, changes: Iterable[RecentChange]) -> tuple[RecentChange, ...]:
    """The changes, a creation or deletion naming masked Attributes whether set or not."""
    schema = read.reader.schema
    return tuple(
        replace(
            change,
            attributes=tuple(
                read.scope.changed_names(
                    schema.kinds[change.ref.partition("/")[0]].attributes,
                    change.attributes,
                    change.change,
                )
            ),
        )
        for change in changes
    )


def build_pack(read: Read, parsed: ContextRequest, etag: str) -> ContextAnswerJson | str:
    """The pack in the requested format: a JSON-ready document or the Markdown text."""
    settings = read.keeper.settings.agents.context
    pack, capped, versions = _graph_pack(read, parsed)
    omitted = dict(parsed.omitted)
    schema = recent = lineage = None
    if "schema" in parsed.sections:
        schema = _schema_section(read.reader.schema, pack, parsed.schema_detail)
    if "recent_changes" in parsed.sections:
        if read.scope.history:
            recent = _recent_changes(read, pack, parsed.since)
        else:
            omitted["recent_changes"] = "history-forbidden"
    if "lineage" in parsed.sections:
        lineage = _readable_lineage(
            read,
            read.reader.lineage_entries(
                versions[seed.ref] for seed in pack.seeds if seed.ref in versions
            ),
        )
    pack = Pack(pack.seeds, pack.neighbors, pack.links, schema, recent, lineage)
    markdown = parsed.format == "markdown"
    render = render_markdown_section if markdown else render_json_section
    trimmed = trim(
        pack,
        render,
        limit_tokens=parsed.budget_tokens,
        chars_per_token=settings.chars_per_token,
        order=settings.trim_order,
    )
    capped = capped or parsed.capped
    over_budget = trimmed.used_tokens > parsed.budget_tokens
    if markdown:
        return markdown_document(
            domain=read.domain,
            branch=read.branch,
            revision=read.reader.revision,
            used_tokens=trimmed.used_tokens,
            limit_tokens=parsed.budget_tokens,
            trimmed=trimmed.trimmed,
            over_budget=over_budget,
            capped=capped,
            sections=[
                render_markdown_section(trimmed.pack, name) for name in trimmed.pack.included()
            ],
        )
    budget: BudgetJson = {
        "limit_tokens": parsed.budget_tokens,
        "used_tokens": trimmed.used_tokens,
        "chars_per_token": settings.chars_per_token,
        "sections": {name: trimmed.sections[name] for name in trimmed.pack.included()},
        "trimmed": [{"step": step, "count": count} for step, count in trimmed.trimmed],
        "omitted": dict(sorted(omitted.items())),
        "over_budget": over_budget,
        "capped": capped,
    }
    return {**read.stamp(), "etag": etag, **_sections_json(trimmed), "budget": budget}


def _recent_changes(
    read: Read, pack: Pack, since: str | None
) -> tuple[RecentChange | ImportedRecords, ...]:
    """The recent changes of the pack's Records, an import's creations summed up as one."""
    records: dict[str, set[str]] = {}
    for record in (*pack.seeds, *pack.neighbors):
        records.setdefault(record.kind, set()).add(record.ref.partition("/")[2])
    limit = read.keeper.settings.agents.context.recent_changes
    changes = read.reader.recent_changes(records, limit=limit, since=since)
    return summarise_imports(_shown_changes(read, changes))


def _sections_json(trimmed: Trimmed) -> PackSections:
    """The sections the budget kept, in their order."""
    sections: PackSections = {}
    for name in trimmed.pack.included():
        sections[name] = section_json(trimmed.pack, name)
    return sections
