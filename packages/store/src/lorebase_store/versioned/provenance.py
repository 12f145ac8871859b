"""Per-Attribute provenance of a row version, stored compactly.

A version keeps, for each Attribute, the pk of the Revision that set its value. Most versions
have one Revision behind most values (an import sets them all), so the most common entry is
stored once under `*` and only the others are named: `{"*": 1, "risk_score": 2}`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

ALL = "*"


def expand(provenance: Mapping[str, Any], names: Iterable[str]) -> dict[str, int]:
    """The Revision pk behind each of `names` (a name without an entry is left out)."""
    default = provenance.get(ALL)
    found: dict[str, int] = {}
    for name in names:
        entry = provenance.get(name, default)
        if entry is not None:
            found[name] = int(entry)
    return found


def compact(entries: Mapping[str, int]) -> dict[str, int]:
    """The stored form of `{attribute: revision pk}`."""
    if not entries:
        return {}
    common = Counter(entries.values()).most_common(1)[0][0]
    stored = {name: pk for name, pk in entries.items() if pk != common}
    stored[ALL] = common
    return stored


def carried(
    old_provenance: Mapping[str, Any],
    old_values: Mapping[str, object],
    new_values: Mapping[str, object],
    revision_pk: int,
    brought: Mapping[str, int] | None = None,
) -> dict[str, int]:
    """Provenance of a new version: unchanged values keep their entry, changed ones name the commit.

    `brought` gives the entries of values a merge brings from another branch: they keep the
    Revision that set them there (a value it does not name is the commit's own).
    """
    if not old_values and not brought:
        return {ALL: revision_pk}
    previous = expand(old_provenance, old_values)
    brought = brought or {}
    entries = {
        name: previous[name]
        if name in previous and old_values.get(name) == value
        else brought.get(name, revision_pk)
        for name, value in new_values.items()
    }
    return compact(entries)
