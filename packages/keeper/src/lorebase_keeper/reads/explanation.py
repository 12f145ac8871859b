"""The explanation of a Record, as JSON and as the Markdown of agents.md section 3."""

from __future__ import annotations

from lorebase_core.markdown import SHORT, table_cell, text_line
from lorebase_core.schema import KindDef
from lorebase_core.values import JsonValue
from lorebase_keeper.reads.reading import Read
from lorebase_keeper.shapes import title_of
from lorebase_keeper.shapes.common import JsonObject, ValuesJson
from lorebase_keeper.shapes.reads.history import (
    CreatedJson,
    ExplainAnswerJson,
    ExplainedLinkJson,
    ProposalLinkJson,
)
from lorebase_store import Provenance, RevisionInfo


def _revision_json(revision: RevisionInfo) -> CreatedJson:
    return {
        "revision": revision.id,
        "at": revision.created_at,
        "author": revision.author,
        "origin": {"type": revision.origin_type, "ref": revision.origin_ref},
        "message": revision.message,
    }


_WITHHELD: JsonObject = {
    "revision": None,
    "origin": None,
    "actor": None,
    "at": None,
    "message": None,
}
"""The provenance members of a masked value: all null, so set and unset ones look alike."""


def explain_json(read: Read, kind: str, key: str) -> ExplainAnswerJson:
    schema = read.reader.schema
    kind_def = schema.kinds[kind]
    record = read.record(kind, key)
    created, found = read.reader.explain(
        kind, key, count_max=read.keeper.settings.read.history.lineage_count_max
    )
    values = read.scope.mask(kind_def.attributes, record.values)
    masked = set(read.scope.masked_names(kind_def.attributes))
    links, truncated = _links(read, kind, key)
    return {
        **read.stamp(),
        "ref": f"{kind}/{key}",
        "title": title_of(kind_def, record.values, read.scope),
        "changes": found.changes,
        "changes_truncated": found.changes_truncated,
        "created": _revision_json(created),
        "attributes": _attributes(kind_def, values, masked, found.attributes),
        "links": links,
        "links_truncated": truncated,
        "proposals": _proposals(read.domain, values, masked, found.attributes),
    }


def _attributes(
    kind: KindDef, values: ValuesJson, masked: set[str], provenance: dict[str, Provenance]
) -> list[JsonObject]:
    """Each value with its provenance; a masked one, set or not, alike: without provenance."""
    return [
        {"name": name, "value": values[name], **_WITHHELD}
        if name in masked
        else {"name": name, "value": values[name], **provenance[name].to_json()}
        for name in kind.attributes
        if name in masked or (name in values and name in provenance)
    ]


def _links(read: Read, kind: str, key: str) -> tuple[list[ExplainedLinkJson], bool]:
    """The Record's Links along every Relation the caller reads, and whether some were cut."""
    schema = read.reader.schema
    links: list[ExplainedLinkJson] = []
    truncated = False
    limit = read.keeper.settings.agents.explain.max_links
    for name in read.scope.visible_relations(schema):
        relation = schema.relations[name]
        for forward, end_kind in ((True, relation.from_kind), (False, relation.to_kind)):
            if end_kind != kind:
                continue
            listed = read.reader.links(
                name,
                from_key=key if forward else None,
                to_key=None if forward else key,
                limit=limit + 1,
            )
            truncated = truncated or len(listed) > limit
            for link in listed[:limit]:
                links.append(
                    {
                        "relation": name if forward else (relation.inverse or name),
                        "direction": "forward" if forward else "inverse",
                        "ref": f"{relation.to_kind}/{link.to_key}"
                        if forward
                        else f"{relation.from_kind}/{link.from_key}",
                        "revision": link.revision,
                    }
                )
    return links, truncated


def _proposals(
    domain: str, values: ValuesJson, masked: set[str], provenance: dict[str, Provenance]
) -> list[ProposalLinkJson]:
    """The Proposals whose merges brought the values the caller reads."""
    return [
        {"id": proposal, "url": f"/api/v1/domains/{domain}/proposals/{proposal}"}
        for proposal in sorted(
            {
                entry.proposal
                for name, entry in provenance.items()
                if entry.proposal is not None and name in values and name not in masked
            }
        )
    ]


def explain_markdown(document: ExplainAnswerJson) -> str:
    title = f": {text_line(document['title'])}" if document["title"] is not None else ""
    changes = document["changes"]
    more = "+" if document["changes_truncated"] else ""
    created = document["created"]
    origin = created["origin"]
    source = f" {text_line(origin['ref'])}" if origin["ref"] else ""
    lines = [
        f"# Explain: {document['ref']}{title}",
        f"{document['domain']}/{document['branch']} at revision {document['revision']}; "
        f"{changes}{more} change{'s' if changes != 1 else ''} on this branch",
        "",
        "## Created",
        f"In {created['revision'][:SHORT]} at {created['at']} by {text_line(created['author'])} "
        f"({origin['type']}{source}): {text_line(created['message'])}",
        "",
        "## Attributes",
        "| attribute | value | last change | at | by | origin | message |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for entry in document["attributes"]:
        lines.append(
            "| "
            + " | ".join(
                table_cell(part)
                for part in (
                    entry["name"],
                    entry["value"],
                    str(entry["revision"] or "")[:SHORT],
                    entry["at"],
                    entry["actor"],
                    _origin_type(entry["origin"]),
                    entry["message"],
                )
            )
            + " |"
        )
    if document["links"]:
        lines += ["", "## Links", "| relation | record | made in |", "| --- | --- | --- |"]
        for link in document["links"]:
            lines.append(
                f"| {table_cell(link['relation'])} | {table_cell(link['ref'])} | {link['revision'][:SHORT]} |"
            )
        if document["links_truncated"]:
            lines.append("(more Links not listed)")
    return "\n".join(lines) + "\n"


def _origin_type(origin: JsonValue) -> JsonValue:
    """The `type` of a provenance's origin (None for a masked value's)."""
    return origin.get("type") if isinstance(origin, dict) else None
