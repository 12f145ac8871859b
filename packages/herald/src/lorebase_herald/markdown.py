"""Markdown renderings of Keeper's JSON answers, written for a model to read.

Short and regular: one line per Record or Link, `attribute=value` pairs, Revisions shortened to
12 characters (Keeper takes a unique prefix wherever it takes a Revision). Values are data, never
markup: a value with a line break or a control character is written as a JSON string, so text
stored in the graph cannot start a heading or a new instruction line of its own (the
`inline_value` rule of lorebase_core.markdown, which holds the rules Keeper and Guide use too).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from lorebase_core.markdown import inline_value, short_revision


def pairs(values: Mapping[str, Any] | None, skip: Iterable[str] = ()) -> str:
    """`name=value; name=value` of the values (without those named in `skip`)."""
    if not values:
        return ""
    left_out = set(skip)
    return "; ".join(
        f"{name}={inline_value(item)}" for name, item in values.items() if name not in left_out
    )


def where(answer: Mapping[str, Any]) -> str:
    """`supply/main @ 9593454195d1`: where an answer was read."""
    domain = answer.get("domain", "?")
    branch = answer.get("branch")
    place = f"{domain}/{branch}" if branch else str(domain)
    revision = answer.get("revision")
    return f"{place} @ {short_revision(revision)}" if revision else place


def record_line(record: Mapping[str, Any]) -> str:
    """`- Supplier/S-1001 "Kavsen Alloys": city=Poznan; ...` (the key and title not repeated)."""
    ref = record.get("ref", "?")
    title = record.get("title")
    key = record.get("key") or str(ref).partition("/")[2]
    head = f"- {ref}" + (f" {inline_value(title)}" if title and title != key else "")
    extra = []
    if "depth" in record:
        extra.append(f"depth {record['depth']}")
    if "score" in record:
        extra.append(f"score {float(record['score']):.2f}")
    if extra:
        head += f" ({', '.join(extra)})"
    values = record.get("values") or {}
    skip = [name for name, item in values.items() if item in (key, title)]
    rest = pairs(values, skip)
    return f"{head}: {rest}" if rest else head


def link_line(link: Mapping[str, Any]) -> str:
    """`- Part/P-10006 -supplied_by-> Supplier/S-1001 (is_primary=true)`."""
    line = f"- {link.get('from')} -{link.get('relation', '')}-> {link.get('to')}"
    values = pairs(link.get("values"))
    return f"{line} ({values})" if values else line


def section(title: str, lines: Sequence[str]) -> list[str]:
    return [f"## {title}", *lines] if lines else []


def coverage_notes(answer: Mapping[str, Any]) -> list[str]:
    """The coverage of an answer as short sentences: Records per Kind, missing values, notes."""
    coverage = answer.get("coverage")
    if not isinstance(coverage, Mapping):
        return []
    notes = [
        f"{kind.get('kind')}: {kind.get('records')} Records"
        + (" (approximate)" if kind.get("approximate") else "")
        for kind in coverage.get("kinds", [])
    ]
    for attribute in coverage.get("attributes", []):
        missing = attribute.get("missing")
        if missing:
            notes.append(
                f"{attribute.get('kind')}.{attribute.get('attribute')} is missing on "
                f"{float(missing):.0%} of the Records ({attribute.get('missing_records')})"
            )
    notes.extend(str(note) for note in coverage.get("notes", []))
    return notes


def empty_lines(answer: Mapping[str, Any], kinds: Sequence[str], what: str) -> list[str]:
    """The lines of an empty answer: what was searched, and what is known about coverage."""
    lines = [
        f"No {what} matched in {where(answer)}"
        + (f" (Kinds {', '.join(kinds)})" if kinds else "")
        + ". Nothing in this scope matched; that does not make the data unknown. Check the "
        "coverage, the spelling (lorebase_search corrects it) or the filter before concluding."
    ]
    notes = coverage_notes(answer)
    if notes:
        lines += ["Coverage:", *(f"- {note}" for note in notes)]
    return lines
