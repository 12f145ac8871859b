"""The `notes` of a lexical search: what the reading did, terms that matched nothing, what next.

Notes name only the Kinds searched (readable by the caller) and the caller's own words; the read
they suggest filters by a readable, non-sensitive text Attribute, never shows a stored value.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from lorebase_core.access import ReadScope
from lorebase_core.errors import quoted
from lorebase_core.schema import Schema
from lorebase_core.search_text import Interpretation, text_attributes

if TYPE_CHECKING:
    from lorebase_store.search.rank import Lexical


def search_notes(
    q: str,
    reading: Interpretation,
    found: Lexical,
    any_hit: bool,
    schema: Schema,
    scope: ReadScope,
) -> list[str]:
    """The notes of an answer, in a fixed order (the same request gives the same notes)."""
    notes = list(reading.notes)
    where = ", ".join(reading.kinds) or "no readable Kind"
    corrected = {item.corrected for item in found.corrected}
    for term in found.unmatched:
        if term in corrected:
            continue
        notes.append(f"{quoted(term)} matched nothing in {where}")
    if any_hit or not reading.kinds:
        return notes
    terms = found.unmatched or found.terms or [q]
    notes.append(
        f"nothing found: POST /resolve {json.dumps({'text': q})} finds the Kinds, Attributes "
        "and stored values these words name" + _query_hint(reading.kinds, terms[0], schema, scope)
    )
    return notes


def _query_hint(kinds: tuple[str, ...], term: str, schema: Schema, scope: ReadScope) -> str:
    """`; POST /query {...}` filtering the first Kind searched by a text Attribute, if any."""
    for kind_name in kinds:
        kind = schema.kinds[kind_name]
        names = text_attributes(kind, scope)
        if not names:
            continue
        attribute = kind.title if kind.title in names else names[0]
        body = {"kind": kind_name, "where": {"attr": attribute, "op": "contains", "value": term}}
        return f"; POST /query {json.dumps(body)} filters {kind_name} by an Attribute"
    return ""
