"""The coverage block of a query answer: how much of the data a filter could see (docs/query.md).

POST /query and POST /resolve answer it. It is built from the statistics the store keeps for the default branch head (Records per Kind,
values per Attribute), never counted at query time. Reads of another branch, or at an earlier
Revision, get an `omitted` reason instead; statistics counted at an older head are `approximate`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from lorebase_core.query import Query
from lorebase_keeper.reads.reading import Read

_NOTES = {
    "where": "a filter on {attr} excludes them",
    "group_by": "they form the group with key null",
    "order_by": "they sort as missing values",
    "metrics": "metrics over {attr} leave them out",
    "resolve": "a filter on {attr} excludes them",
}


def _percent(ratio: float) -> str:
    percent = ratio * 100
    return f"{percent:.0f}%" if percent >= 1 else "less than 1%"


def statistics_mark(read: Read) -> str | None:
    """What a coverage block depends on besides the Revision, for the answer's ETag: Scribe
    recounts statistics without a commit, and an answer cached while they were `approximate`
    must not outlive the recount. The Revision they were counted at, or None."""
    view = read.reader.view
    if view.branch.name != view.domain.default_branch or not view.at_head:
        return None
    found = read.reader.statistics()
    return None if found is None else found.as_of


def query_coverage(read: Read, query: Query) -> dict[str, Any]:
    """The coverage block of a query: its Kinds, and the Attributes it uses and where."""
    return coverage_block(read, query.kinds, query.attributes_used())


def coverage_block(
    read: Read,
    kinds: Iterable[str],
    attributes: Mapping[tuple[str, str], Sequence[str]],
) -> dict[str, Any]:
    """Records of `kinds`, and the missing values of `attributes` ((Kind, Attribute) to the
    places that use it: where, select, order_by, group_by, metrics, resolve)."""
    view = read.reader.view
    block: dict[str, Any] = {"kinds": [], "attributes": [], "sources": [], "notes": []}
    if view.branch.name != view.domain.default_branch or not view.at_head:
        where = (
            f"branch {view.branch.name!r}"
            if view.branch.name != view.domain.default_branch
            else "an earlier Revision"
        )
        block["omitted"] = (
            f"statistics describe the head of the default branch "
            f"{view.domain.default_branch!r} only; this read is of {where}"
        )
        return block
    statistics = read.reader.statistics()
    if statistics is None:
        block["omitted"] = "statistics of this Domain have not been counted yet"
        return block
    approximate = statistics.as_of != read.reader.revision
    for kind in kinds:
        found = statistics.kinds.get(kind)
        block["kinds"].append(
            {
                "kind": kind,
                "records": found.records if found is not None else 0,
                "as_of": statistics.as_of,
                "approximate": approximate,
            }
        )
    schema = read.reader.schema
    for (kind, attribute), places in attributes.items():
        rules = schema.kinds[kind].attributes.get(attribute)
        if rules is None or not read.scope.value_readable(rules):
            continue  # values the caller may not read are never described
        found = statistics.kinds.get(kind)
        records = found.records if found is not None else 0
        missing_records = found.missing(attribute) if found is not None else 0
        ratio = round(missing_records / records, 4) if records else 0.0
        block["attributes"].append(
            {
                "kind": kind,
                "attribute": attribute,
                "missing": ratio,
                "missing_records": missing_records,
                "used_in": list(places),
            }
        )
        if missing_records:
            consequences = "; ".join(
                _NOTES[place].format(attr=attribute) for place in places if place in _NOTES
            )
            note = f"{attribute} missing on {_percent(ratio)} of {kind}"
            block["notes"].append(f"{note}: {consequences}" if consequences else note)
    return block
