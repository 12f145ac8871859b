"""The coverage block of a query answer: how much of the data a filter could see (docs/query.md).

POST /query and POST /resolve answer it. It is built from the statistics the store keeps for the
default branch head (Records per Kind, values per Attribute), never counted at query time. Reads
of another branch, or at an earlier Revision, get an `omitted` reason instead; statistics counted
at an older head are `approximate`. The statistics are read once per answer (`Read.statistics`):
the ETag's mark and the block see the same.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from lorebase_core.query import Query
from lorebase_keeper.reads.reading import Read
from lorebase_keeper.shapes.reads.queries import CoverageJson, CoveredAttributeJson, CoveredKindJson
from lorebase_store import KindStatistics, View

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


def _elsewhere(view: View) -> str | None:
    """Why the statistics do not describe this read, None when they do: they describe the head
    of the default branch only."""
    if view.branch.name == view.domain.default_branch and view.at_head:
        return None
    where = (
        f"branch {view.branch.name!r}"
        if view.branch.name != view.domain.default_branch
        else "an earlier Revision"
    )
    return (
        f"statistics describe the head of the default branch "
        f"{view.domain.default_branch!r} only; this read is of {where}"
    )


def statistics_mark(read: Read) -> str | None:
    """What a coverage block depends on besides the Revision, for the answer's ETag: Scribe
    recounts statistics without a commit, and an answer cached while they were `approximate`
    must not outlive the recount. The Revision they were counted at, or None."""
    if _elsewhere(read.reader.view) is not None:
        return None
    found = read.statistics
    return None if found is None else found.as_of


def query_coverage(read: Read, query: Query) -> CoverageJson:
    """The coverage block of a query: its Kinds, and the Attributes it uses and where."""
    return coverage_block(read, query.kinds, query.attributes_used())


def coverage_block(
    read: Read,
    kinds: Iterable[str],
    attributes: Mapping[tuple[str, str], Sequence[str]],
) -> CoverageJson:
    """Records of `kinds`, and the missing values of `attributes` ((Kind, Attribute) to the
    places that use it: where, select, order_by, group_by, metrics, resolve)."""
    covered: list[CoveredKindJson] = []
    described: list[CoveredAttributeJson] = []
    notes: list[str] = []
    block: CoverageJson = {
        "kinds": covered,
        "attributes": described,
        "sources": [],
        "notes": notes,
    }
    omitted = _elsewhere(read.reader.view)
    statistics = read.statistics if omitted is None else None
    if statistics is None:
        block["omitted"] = omitted or "statistics of this Domain have not been counted yet"
        return block
    approximate = statistics.as_of != read.reader.revision
    for kind in kinds:
        found = statistics.kinds.get(kind)
        records = found.records if found is not None else 0
        covered.append(
            {
                "kind": kind,
                "records": records,
                "as_of": statistics.as_of,
                "approximate": approximate,
            }
        )
    for (kind, attribute), places in attributes.items():
        rules = read.reader.schema.kinds[kind].attributes.get(attribute)
        if rules is None or not read.scope.value_readable(rules):
            continue  # values the caller may not read are never described
        entry = _attribute(statistics.kinds.get(kind), kind, attribute, places)
        described.append(entry)
        if entry["missing_records"]:
            notes.append(_note(entry))
    return block


def _attribute(
    found: KindStatistics | None, kind: str, attribute: str, places: Sequence[str]
) -> CoveredAttributeJson:
    records = found.records if found is not None else 0
    missing_records = found.missing(attribute) if found is not None else 0
    ratio = round(missing_records / records, 4) if records else 0.0
    return {
        "kind": kind,
        "attribute": attribute,
        "missing": ratio,
        "missing_records": missing_records,
        "used_in": list(places),
    }


def _note(entry: CoveredAttributeJson) -> str:
    """What the missing values of an Attribute do to the places that use it."""
    attribute = entry["attribute"]
    consequences = "; ".join(
        _NOTES[place].format(attr=attribute) for place in entry["used_in"] if place in _NOTES
    )
    note = f"{attribute} missing on {_percent(entry['missing'])} of {entry['kind']}"
    return f"{note}: {consequences}" if consequences else note
