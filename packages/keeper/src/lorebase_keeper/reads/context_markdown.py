"""The Markdown of a context pack (agents.md section 1): one block per section, and the document.

Each section renders on its own (the budget estimates tokens over that exact text); the document
is the header, then the non-empty sections separated by blank lines. Revisions inside sections
are cut to 12 hex digits, the header carries the full id. Untrusted text (values, titles,
messages, descriptions) goes through the escaping of `lorebase_core.markdown` (`table_cell`, `text_line`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from lorebase_core.context import (
    ImportedRecords,
    Pack,
    PackRecord,
    PackSchema,
    SchemaAttribute,
    Section,
)
from lorebase_core.markdown import SHORT
from lorebase_core.markdown import table_cell as cell
from lorebase_core.markdown import text_line as line


def _value(value: object) -> str:
    """A canonical value as text: strings as they are, booleans lowercase, others as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or value is None:
        return "" if value is None else str(value).lower()
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def _pairs(values: Mapping[str, object] | None, heading: frozenset[str] = frozenset()) -> str:
    """`a=b; c=d` without the `heading` Attributes (the caller escapes it for where it goes)."""
    return "; ".join(
        f"{name}={_value(value)}" for name, value in (values or {}).items() if name not in heading
    )


def _title(record: PackRecord) -> str | None:
    """The title, unless it is only the key again (the ref shows it)."""
    return None if record.title == record.ref.partition("/")[2] else record.title


def render_markdown_section(pack: Pack, section: Section) -> str:
    """The Markdown block of one section ("" for an empty optional section)."""
    if section == "seeds":
        return "\n".join(_seeds(pack))
    if section == "neighbors":
        return "\n".join(_neighbors(pack))
    if section == "links":
        return "\n".join(_links(pack))
    if section == "schema":
        return "\n".join(_schema(pack.schema or PackSchema()))
    if section == "recent_changes":
        return "\n".join(_changes(pack))
    return "\n".join(_lineage(pack))


def _seeds(pack: Pack) -> list[str]:
    lines = ["## Records"]
    if not pack.seeds:
        lines.append("(no Records)")
    for seed in pack.seeds:
        title = f": {line(seed.title)}" if _title(seed) is not None else ""
        lines.append(f"### {line(seed.ref)}{title}")
        lines += [
            f"- {line(name)}: {line(_value(value))}"
            for name, value in (seed.values or {}).items()
            if name not in seed.heading
        ]
        if seed.updated_revision:
            lines.append(f"- (last changed in {seed.updated_revision[:SHORT]})")
    return lines


def _neighbors(pack: Pack) -> list[str]:
    if not pack.neighbors:
        return []
    lines = ["## Neighbors", "| ref | title | depth | values |", "| --- | --- | --- | --- |"]
    for neighbor in pack.neighbors:
        values = _pairs(neighbor.values, neighbor.heading)
        cells = (neighbor.ref, _title(neighbor), str(neighbor.depth), values)
        lines.append("| " + " | ".join(cell(part) for part in cells) + " |")
    return lines


def _links(pack: Pack) -> list[str]:
    if not pack.links:
        return []
    lines = ["## Links"]
    relation = None
    for link in sorted(pack.links, key=lambda link: (link.relation, link.from_ref, link.to_ref)):
        if link.relation != relation:
            relation = link.relation
            ends = f"{link.from_ref.partition('/')[0]} -> {link.to_ref.partition('/')[0]}"
            lines.append(f"### {line(relation)} ({line(ends)})")
        values = f" ({line(_pairs(link.values))})" if link.values else ""
        lines.append(f"- {line(link.from_ref)} -> {line(link.to_ref)}{values}")
    return lines


def _attributes(attributes: tuple[SchemaAttribute, ...]) -> list[str]:
    return [f"- {line(attribute.name)} ({line(attribute.type)})" for attribute in attributes]


def _schema(schema: PackSchema) -> list[str]:
    if not schema.kinds and not schema.relations:
        return []
    lines = ["## Schema"]
    for kind in schema.kinds:
        lines.append(f"### Kind {line(kind.name)}")
        if kind.description:
            lines.append(line(kind.description))
        title = f"; title: {line(kind.title)}" if kind.title is not None else ""
        lines.append(f"key: {line(', '.join(kind.key))}{title}")
        lines += _attributes(kind.attributes)
    for relation in schema.relations:
        lines.append(
            f"### Relation {line(relation.name)} "
            f"({line(relation.from_kind)} -> {line(relation.to_kind)})"
        )
        if relation.description:
            lines.append(line(relation.description))
        inverse = f"inverse: {line(relation.inverse)}; " if relation.inverse else ""
        lines.append(f"{inverse}cardinality: {line(relation.cardinality)}")
        lines += _attributes(relation.attributes)
    return lines


def _changes(pack: Pack) -> list[str]:
    if not pack.recent_changes:
        return []
    lines = ["## Recent changes"]
    for change in pack.recent_changes:
        if isinstance(change, ImportedRecords):
            lines.append(
                f"- {change.revision[:SHORT]} {line(change.at)} {change.records} of these Records "
                f"created by {line(change.actor)} ({line(change.origin)}): {line(change.message)}"
            )
            continue
        attributes = f" {line(', '.join(change.attributes))}" if change.attributes else ""
        lines.append(
            f"- {change.revision[:SHORT]} {line(change.at)} {line(change.ref)} "
            f"{change.change}{attributes} by {line(change.actor)} ({line(change.origin)}): "
            f"{line(change.message)}"
        )
    return lines


def _lineage(pack: Pack) -> list[str]:
    if not pack.lineage:
        return []
    lines = ["## Lineage"]
    shown = {seed.ref: set(seed.values or ()) for seed in pack.seeds}
    for entry in pack.lineage:
        every = set(entry.attributes) == shown.get(entry.ref)
        attributes = "all values" if every else line(", ".join(entry.attributes))
        lines.append(
            f"- {line(entry.ref)}: {attributes} by {line(entry.actor)} "
            f"({line(entry.origin)}) at {line(entry.at)}"
        )
    return lines


def markdown_document(
    *,
    domain: str,
    branch: str,
    revision: str | None,
    used_tokens: int,
    limit_tokens: int,
    trimmed: tuple[tuple[str, int], ...],
    over_budget: bool,
    capped: bool,
    sections: list[str],
) -> str:
    """The whole pack: `# Context: domain/branch`, the revision and estimate line, the sections."""
    status = f"revision {revision or 'none'}; estimated {used_tokens} of {limit_tokens} tokens"
    if trimmed:
        status += "; trimmed: " + ", ".join(f"{step}({count})" for step, count in trimmed)
    if over_budget:
        status += "; over budget"
    if capped:
        status += "; capped"
    header = f"# Context: {line(domain)}/{line(branch)}\n{status}\n"
    blocks = [text for text in sections if text]
    return header + "".join(f"\n{block}\n" for block in blocks)
