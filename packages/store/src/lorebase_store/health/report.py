"""The health of the data at one View: GET /health and /kinds/{kind}/health (agents.md section 6).

Computed when asked from the materialized rows the View sees (docs/health.md):

- per Kind, one statement counts the live Records, finds the latest Revision that touched the
  Kind (the highest `revision_pk` of its visible rows, tombstones included) and counts the
  materialized values of its derived Attributes; one statement streams the Records to re-validate
  (all of them in key order, or past `max_records_validated` every n-th one, spread evenly by
  their rank in key order); one more streams the unique and title values when the validation
  read was a sample;
- per Relation, one statement counts the live Links and the orphans among them (anti-joins on
  the visible Records of both ends), one lists orphans when there are some, and for a Relation
  with `required_from` one counts the Records of the from Kind without a Link and one lists them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import sqlalchemy as sa

from lorebase_core.schema import Schema
from lorebase_store.engine import is_sqlite
from lorebase_store.health.checks import KindChecks, normalized
from lorebase_store.health.relations import records_of, relation_health
from lorebase_store.health.shapes import (
    DuplicateGroup,
    Duplicates,
    HealthLimits,
    HealthReport,
    KindHealth,
    Violation,
)
from lorebase_store.versioned.views import View, revisions_by_pk

_STREAM = 500


def check_health(
    connection: sa.Connection,
    view: View,
    schema: Schema,
    kinds: Iterable[str],
    relations: Iterable[str],
    limits: HealthLimits,
) -> HealthReport:
    """The health of `kinds` and `relations` (names of the schema) at the View, sorted by name."""
    if not is_sqlite(connection):
        timeout_ms = max(int(limits.statement_timeout_s * 1000), 1)
        connection.execute(sa.text(f"SET LOCAL statement_timeout = {timeout_ms}"))
    partial = [_kind_health(connection, view, schema, name, limits) for name in sorted(kinds)]
    revisions = revisions_by_pk(connection, [pk for _, pk in partial if pk is not None])
    kind_reports = tuple(
        replace(found, last_change=revisions[pk].id if pk is not None else None)
        for found, pk in partial
    )
    relation_reports = tuple(
        relation_health(connection, view, schema, name, limits) for name in sorted(relations)
    )
    return HealthReport(kind_reports, relation_reports)


# -- Kinds -----------------------------------------------------------------------------------


@dataclass
class _Tally:
    """Problems and values gathered while streaming a Kind's Records."""

    examples: int
    checked: int = 0
    invalid: int = 0
    counts: dict[tuple[str, str], int] = field(default_factory=dict)
    keys: dict[tuple[str, str], list[str]] = field(default_factory=dict)

    def add(self, key: str, problems: list[tuple[str, str]]) -> None:
        self.checked += 1
        if problems:
            self.invalid += 1
        for problem in problems:
            self.counts[problem] = self.counts.get(problem, 0) + 1
            listed = self.keys.setdefault(problem, [])
            if len(listed) < self.examples:
                listed.append(key)

    def violations(self) -> tuple[Violation, ...]:
        return tuple(
            Violation(rule, attribute, self.counts[(rule, attribute)], tuple(keys))
            for (rule, attribute), keys in sorted(self.keys.items())
        )


def _kind_health(
    connection: sa.Connection, view: View, schema: Schema, kind_name: str, limits: HealthLimits
) -> tuple[KindHealth, int | None]:
    kind = schema.kinds[kind_name]
    derived = list(kind.derived_attributes)
    rows_q = records_of(view, kind_name)
    live = rows_q.c.deleted.is_(False)
    columns: list[sa.ColumnElement[Any]] = [
        sa.func.coalesce(sa.func.sum(sa.case((live, 1), else_=0)), 0),
        sa.func.max(rows_q.c.revision_pk),
    ]
    columns += [
        sa.func.count(sa.case((live, rows_q.c.values_json[name].as_string()))) for name in derived
    ]
    summary = connection.execute(sa.select(*columns).select_from(rows_q)).one()
    total = int(summary[0])
    last_pk = None if summary[1] is None else int(summary[1])
    stale = {
        name: total - int(summary[index + 2])
        for index, name in enumerate(derived)
        if total - int(summary[index + 2]) > 0
    }

    checks = KindChecks.of(schema, kind_name)
    tally = _Tally(limits.max_examples)
    dedup = _duplicate_attributes(schema, kind_name)
    sampled = total > limits.max_records_validated
    seen: dict[str, dict[str, list[tuple[str, str]]]] = {name: {} for name in dedup}
    for key, values in _validated_rows(connection, view, kind_name, total, limits):
        tally.add(key, checks.problems(key, values))
        if not sampled:
            _remember(seen, key, values)
    if sampled and dedup:
        for key, values in _dedup_rows(connection, view, kind_name, list(dedup)):
            _remember(seen, key, values)
    duplicates = tuple(
        _duplicates(schema, kind_name, name, is_unique, seen[name], limits)
        for name, is_unique in dedup.items()
    )
    report = KindHealth(
        kind=kind_name,
        records=total,
        last_change=None,
        checked=tally.checked,
        sampled=sampled,
        invalid=tally.invalid,
        violations=tally.violations(),
        duplicates=tuple(found for found in duplicates if found.group_count),
        stale_derived=stale,
    )
    return report, last_pk


def _validated_rows(
    connection: sa.Connection, view: View, kind_name: str, total: int, limits: HealthLimits
) -> Iterator[tuple[str, dict[str, Any]]]:
    """The live Records to re-validate, in key order: all, or an evenly spread fixed sample.

    A sample keeps the Record of rank i (0-based, in key order) when `i * n % total < n`, for n
    = `max_records_validated`: exactly n Records, one every total/n, the same ones every time.
    """
    rows_q = records_of(view, kind_name)
    wanted = limits.max_records_validated
    if total <= wanted:
        query = (
            sa.select(rows_q.c.record_key, rows_q.c.values_json)
            .where(rows_q.c.deleted.is_(False))
            .order_by(rows_q.c.record_key)
        )
    else:
        ranked = (
            sa.select(
                rows_q.c.record_key,
                rows_q.c.values_json,
                (sa.func.row_number().over(order_by=rows_q.c.record_key) - 1).label("rank"),
            )
            .where(rows_q.c.deleted.is_(False))
            .subquery()
        )
        keep = (ranked.c.rank * sa.bindparam("wanted", wanted)) % sa.bindparam(
            "total", total
        ) < sa.bindparam("wanted_again", wanted)
        query = (
            sa.select(ranked.c.record_key, ranked.c.values_json)
            .where(keep)
            .order_by(ranked.c.record_key)
        )
    result = connection.execution_options(yield_per=_STREAM).execute(query)
    for row in result:
        yield row.record_key, dict(row.values_json)


def _dedup_rows(
    connection: sa.Connection, view: View, kind_name: str, names: list[str]
) -> Iterator[tuple[str, dict[str, Any]]]:
    rows_q = records_of(view, kind_name)
    query = (
        sa.select(
            rows_q.c.record_key,
            *(
                rows_q.c.values_json[name].as_string().label(f"a{i}")
                for i, name in enumerate(names)
            ),
        )
        .where(rows_q.c.deleted.is_(False))
        .order_by(rows_q.c.record_key)
    )
    for row in connection.execution_options(yield_per=_STREAM).execute(query):
        yield row[0], {name: row[index + 1] for index, name in enumerate(names)}


def _duplicate_attributes(schema: Schema, kind_name: str) -> dict[str, bool]:
    """The Attributes checked for duplicates: unique ones (True) and the title (False).

    A title that is the Kind's only key Attribute is left out: keys are unique already.
    """
    kind = schema.kinds[kind_name]
    found = {name: True for name, attribute in kind.attributes.items() if attribute.unique}
    if kind.title is not None and kind.title not in found and kind.key != (kind.title,):
        found[kind.title] = False
    return dict(sorted(found.items()))


def _remember(
    seen: dict[str, dict[str, list[tuple[str, str]]]], key: str, values: dict[str, Any]
) -> None:
    for name, groups in seen.items():
        value = values.get(name)
        text = normalized(value)
        if text is not None:
            groups.setdefault(text, []).append((key, str(value)))


def _duplicates(
    schema: Schema,
    kind_name: str,
    name: str,
    is_unique: bool,
    groups: dict[str, list[tuple[str, str]]],
    limits: HealthLimits,
) -> Duplicates:
    kind = schema.kinds[kind_name]
    sensitive = kind.attributes[name].sensitive
    found = sorted(
        (sorted(members) for members in groups.values() if len(members) > 1),
        key=lambda members: members[0][0],
    )
    shown = tuple(
        DuplicateGroup(
            tuple(key for key, _ in members[: limits.max_examples]),
            len(members),
            None if sensitive else members[0][1],
        )
        for members in found[: limits.max_duplicate_groups]
    )
    return Duplicates(
        attribute=name,
        unique=is_unique,
        title=kind.title == name,
        sensitive=sensitive,
        group_count=len(found),
        groups=shown,
    )
