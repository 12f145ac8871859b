"""Statistics of a Domain's default branch head: Records per Kind and values per Attribute.

Coverage blocks (docs/query.md) read them instead of counting at query time. A commit on the
default branch moves them along in its own transaction when they describe its parent; otherwise
(a database made before they existed) they stay at an older head and are marked approximate
until `recount` counts them again.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from lorebase_store import tables as t
from lorebase_store.clock import now_stamp
from lorebase_store.reads.records import RECORD_IDENTITY, visible_rows
from lorebase_store.versioned.views import View


@dataclass(frozen=True)
class KindStatistics:
    records: int
    present: dict[str, int]

    def missing(self, attribute: str) -> int:
        return max(self.records - self.present.get(attribute, 0), 0)


@dataclass(frozen=True)
class Statistics:
    """Statistics counted at Revision `as_of` of the default branch."""

    as_of: str | None
    kinds: dict[str, KindStatistics]


@dataclass
class StatisticsDelta:
    """How a commit changes the statistics: Records and present values per Kind."""

    records: Counter[str] = field(default_factory=Counter)
    present: dict[str, Counter[str]] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        """Whether no count moves (a commit that only changed values already present)."""
        return not any(self.records.values()) and not any(
            any(counter.values()) for counter in self.present.values()
        )

    def record_changed(
        self, kind: str, before: dict[str, Any] | None, after: dict[str, Any] | None
    ) -> None:
        self.records[kind] += (after is not None) - (before is not None)
        counter = self.present.setdefault(kind, Counter())
        for name in before or ():
            counter[name] -= 1
        for name in after or ():
            counter[name] += 1


def read_statistics(connection: sa.Connection, domain_id: int) -> Statistics | None:
    row = connection.execute(
        sa.select(t.statistics.c.as_of, t.statistics.c.kinds).where(
            t.statistics.c.domain_id == domain_id
        )
    ).first()
    if row is None:
        return None
    return Statistics(
        row.as_of,
        {
            kind: KindStatistics(int(entry["records"]), dict(entry["present"]))
            for kind, entry in dict(row.kinds).items()
        },
    )


def _write(connection: sa.Connection, domain_id: int, statistics: Statistics, exists: bool) -> None:
    document = {
        kind: {"records": entry.records, "present": dict(sorted(entry.present.items()))}
        for kind, entry in sorted(statistics.kinds.items())
    }
    values = {
        "as_of": statistics.as_of,
        "kinds": document,
        "counted_at": now_stamp(),
    }
    if exists:
        connection.execute(
            t.statistics.update().where(t.statistics.c.domain_id == domain_id).values(**values)
        )
    else:
        connection.execute(t.statistics.insert().values(domain_id=domain_id, **values))


def apply_delta(
    connection: sa.Connection,
    domain_id: int,
    parent: str | None,
    revision: str,
    delta: StatisticsDelta,
) -> None:
    """Move the statistics from `parent` to `revision`, when they describe `parent`."""
    if parent is not None and delta.empty:  # one statement: no count to read and add to
        connection.execute(
            t.statistics.update()
            .where(t.statistics.c.domain_id == domain_id, t.statistics.c.as_of == parent)
            .values(as_of=revision, counted_at=now_stamp())
        )
        return
    current = read_statistics(connection, domain_id)
    if current is None and parent is not None:
        return  # never counted: `recount` starts them
    if current is not None and current.as_of != parent:
        return  # behind already: they stay approximate until recounted
    kinds = dict(current.kinds) if current is not None else {}
    for kind in sorted(set(delta.records) | set(delta.present)):
        old = kinds.get(kind, KindStatistics(0, {}))
        present = Counter(old.present)
        present.update(delta.present.get(kind, Counter()))
        kinds[kind] = KindStatistics(
            old.records + delta.records[kind],
            {name: count for name, count in present.items() if count > 0},
        )
    _write(connection, domain_id, Statistics(revision, kinds), current is not None)


def _of_kind(kind: str) -> Callable[[sa.Table], sa.ColumnElement[bool]]:
    return lambda table: table.c.kind == kind


def recount(connection: sa.Connection, view: View, attributes: dict[str, list[str]]) -> Statistics:
    """Count the statistics at the view (the default branch head) and store them.

    `attributes` names the Attributes of each Kind (from the schema at that head).
    """
    kinds: dict[str, KindStatistics] = {}
    for kind, names in sorted(attributes.items()):
        rows_q = visible_rows(t.records, view.segments, RECORD_IDENTITY, _of_kind(kind))
        columns = [sa.func.count().label("records")]
        columns += [
            sa.func.count(rows_q.c.values_json[name].as_string()).label(f"a{index}")
            for index, name in enumerate(names)
        ]
        row = connection.execute(
            sa.select(*columns).select_from(rows_q).where(rows_q.c.deleted.is_(False))
        ).one()
        present = {name: int(row[index + 1]) for index, name in enumerate(names)}
        kinds[kind] = KindStatistics(
            int(row[0]), {name: count for name, count in present.items() if count > 0}
        )
    statistics = Statistics(view.revision, kinds)
    exists = read_statistics(connection, view.domain.id) is not None
    _write(connection, view.domain.id, statistics, exists)
    return statistics
