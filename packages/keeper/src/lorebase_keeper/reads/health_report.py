"""The health report of agents.md section 6 as JSON and as Markdown (docs/health.md)."""

from __future__ import annotations

from collections.abc import Iterable

from lorebase_core.markdown import table_cell, text_line
from lorebase_keeper.reads.reading import Read
from lorebase_keeper.shapes.reads.health import (
    DuplicateGroupJson,
    DuplicatesJson,
    HealthAnswerJson,
    HealthSubject,
    HealthSummaryJson,
    KindHealthJson,
    RelationHealthJson,
)
from lorebase_store import (
    Duplicates,
    HealthLimits,
    HealthReport,
    KindHealth,
    RelationHealth,
)

SHORT = 12


def health_json(read: Read, *, kind: str | None = None) -> HealthAnswerJson:
    """The report of the Kinds and Relations the caller may read (one Kind and its Relations)."""
    schema = read.reader.schema
    kinds = read.scope.visible_kinds(schema)
    relations = read.scope.visible_relations(schema)
    if kind is not None:
        kinds = [kind]
        relations = [
            name
            for name in relations
            if kind in (schema.relations[name].from_kind, schema.relations[name].to_kind)
        ]
    limits = HealthLimits(**read.keeper.settings.read.health.model_dump())
    report = read.reader.health(kinds, relations, limits)
    subject: HealthSubject = {} if kind is None else {"kind": kind}
    return {
        **read.stamp(),
        **subject,
        "summary": _summary(report),
        "kinds": [_kind_json(found) for found in report.kinds],
        "relations": [_relation_json(found) for found in report.relations],
    }


def _summary(report: HealthReport) -> HealthSummaryJson:
    invalid = sum(found.invalid for found in report.kinds)
    orphans = sum(found.orphans for found in report.relations)
    gaps = sum(found.gaps or 0 for found in report.relations)
    unique_groups = sum(found.unique_duplicate_groups for found in report.kinds)
    return {
        "ok": not (invalid or orphans or gaps or unique_groups),
        "kinds": len(report.kinds),
        "records": sum(found.records for found in report.kinds),
        "links": sum(found.links for found in report.relations),
        "invalid_records": invalid,
        "orphan_links": orphans,
        "required_gaps": gaps,
        "duplicate_groups": sum(found.duplicate_groups for found in report.kinds),
        "unique_duplicate_groups": unique_groups,
        "kinds_with_stale_derived": sum(1 for found in report.kinds if found.stale_derived),
    }


def _kind_json(found: KindHealth) -> KindHealthJson:
    return {
        "kind": found.kind,
        "records": found.records,
        "last_change": found.last_change,
        "checked": found.checked,
        "sampled": found.sampled,
        "invalid": found.invalid,
        "violations": [
            {
                "rule": violation.rule,
                "attribute": violation.attribute,
                "count": violation.count,
                "examples": list(violation.examples),
            }
            for violation in found.violations
        ],
        "duplicates": [_duplicates_json(duplicates) for duplicates in found.duplicates],
        "derived": {"stale": dict(sorted(found.stale_derived.items()))},
    }


def _duplicates_json(found: Duplicates) -> DuplicatesJson:
    groups = []
    for group in found.groups:
        entry: DuplicateGroupJson = {"keys": list(group.keys), "count": group.count}
        if not found.sensitive:
            entry["value"] = group.value
        groups.append(entry)
    return {
        "attribute": found.attribute,
        "unique": found.unique,
        "title": found.title,
        "sensitive": found.sensitive,
        "group_count": found.group_count,
        "groups": groups,
    }


def _relation_json(found: RelationHealth) -> RelationHealthJson:
    return {
        "relation": found.relation,
        "from": found.from_kind,
        "to": found.to_kind,
        "links": found.links,
        "orphans": found.orphans,
        "orphan_examples": [{"from": a, "to": b} for a, b in found.orphan_examples],
        "required_from": found.gaps is not None,
        "gaps": found.gaps,
        "gap_examples": list(found.gap_examples),
    }


# -- Markdown --------------------------------------------------------------------------------


def _short(revision: str | None) -> str:
    return revision[:SHORT] if revision else ""


def _row(cells: Iterable[object]) -> str:
    """One row of a Markdown table, each cell made safe by `table_cell`."""
    return "| " + " | ".join(table_cell(cell) for cell in cells) + " |"


def _more(listed: int, total: int) -> str:
    return f" (and {total - listed} more)" if total > listed else ""


def health_markdown(document: HealthAnswerJson) -> str:
    summary = document["summary"]
    subject = f"{text_line(document['kind'])} in " if "kind" in document else ""
    lines = [
        f"# Health of {subject}{text_line(document['domain'])} on {text_line(document['branch'])}",
        f"revision {_short(document['revision'])}",
        "",
        f"{'healthy' if summary['ok'] else 'needs attention'}: {summary['kinds']} kinds, "
        f"{summary['records']} records, {summary['links']} links",
        f"- invalid records: {summary['invalid_records']}; "
        f"orphan links: {summary['orphan_links']}; "
        f"required-relation gaps: {summary['required_gaps']}; "
        f"duplicate groups: {summary['duplicate_groups']}; "
        f"kinds with stale derived values: {summary['kinds_with_stale_derived']}",
        "",
        "## Kinds",
        "| kind | records | invalid | duplicate groups | derived | last change |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    details: list[str] = []
    for found in document["kinds"]:
        groups = sum(duplicates["group_count"] for duplicates in found["duplicates"])
        stale = ", ".join(
            f"{name} {count} stale" for name, count in found["derived"]["stale"].items()
        )
        last_change = _short(found["last_change"])
        lines.append(
            _row((found["kind"], found["records"], found["invalid"], groups, stale, last_change))
        )
        details += _kind_details(found, groups)
    if details:
        lines += ["", *details]
    lines += [
        "",
        "## Relations",
        "| relation | ends | links | orphans | gaps | side |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    bullets: list[str] = []
    for relation in document["relations"]:
        ends = f"{relation['from']} -> {relation['to']}"
        gaps = "" if relation["gaps"] is None else relation["gaps"]
        row = (relation["relation"], ends, relation["links"], relation["orphans"], gaps, "")
        lines.append(_row(row))
        bullets += _relation_bullets(relation)
    lines += bullets
    return "\n".join(lines) + "\n"


def _kind_details(found: KindHealthJson, groups: int) -> list[str]:
    name = text_line(found["kind"])
    lines: list[str] = []
    if found["violations"]:
        lines.append(
            f"### {name}: violations ({found['invalid']} of {found['checked']} Records checked)"
        )
        for violation in found["violations"]:
            examples = ", ".join(text_line(key) for key in violation["examples"])
            lines.append(
                f"- {text_line(violation['rule'])} on {text_line(violation['attribute'])}: "
                f"{violation['count']} (e.g. {examples})"
            )
    if groups:
        lines.append(f"### {name}: duplicates ({groups} group{'s' if groups != 1 else ''})")
        for duplicates in found["duplicates"]:
            tag = "unique" if duplicates["unique"] else "title"
            for group in duplicates["groups"]:
                keys = ", ".join(text_line(key) for key in group["keys"])
                if group["count"] > len(group["keys"]):
                    keys += ", ..."
                lines.append(
                    f"- {text_line(duplicates['attribute'])} [{tag}]: {keys} ({group['count']})"
                )
            listed = len(duplicates["groups"])
            if duplicates["group_count"] > listed:
                lines.append(
                    f"- {text_line(duplicates['attribute'])} [{tag}]: "
                    f"{duplicates['group_count'] - listed} more groups not listed"
                )
    return lines


def _relation_bullets(found: RelationHealthJson) -> list[str]:
    name = text_line(found["relation"])
    lines: list[str] = []
    if found["gaps"]:
        keys = ", ".join(text_line(key) for key in found["gap_examples"])
        more = _more(len(found["gap_examples"]), found["gaps"])
        lines.append(f"- {name} required, missing for: {keys}{more}")
    if found["orphans"]:
        pairs = ", ".join(
            f"{text_line(pair['from'])}->{text_line(pair['to'])}"
            for pair in found["orphan_examples"]
        )
        more = _more(len(found["orphan_examples"]), found["orphans"])
        lines.append(f"- {name} orphans: {pairs}{more}")
    return lines
