"""The values POST /resolve matches words against: per indexed Attribute, its distinct values.

Which Attributes are indexed is `lorebase_core.resolve.indexing`: enums always, strings when they
have at most `max_indexed_values` distinct values, `resolvable` forcing it, sensitive Attributes
never. Two statements per Kind count them at a View: the distinct values of the candidate strings,
then the Records per value of every indexed Attribute. A Revision never changes, so the index is
kept per process by (Domain, Revision, schema digest, limits), a bounded number of them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import sqlalchemy as sa

from lorebase_core.resolve import indexing
from lorebase_core.schema import Schema
from lorebase_store import tables as t
from lorebase_store.reads.records import RECORD_IDENTITY, visible_rows
from lorebase_store.versioned.views import View

FORCED_MAX_VALUES = 10_000  # `resolvable: true` indexes every value, up to this many
KEPT = 64

ValueCounts = dict[tuple[str, str], dict[str, int]]


@dataclass(frozen=True)
class ValueIndex:
    """Indexed values of one Revision: (Kind, Attribute) to {value: Records holding it}."""

    revision: str | None
    values: ValueCounts


_kept: OrderedDict[tuple[int, str, str, int, int], ValueIndex] = OrderedDict()
_lock = threading.Lock()


def value_index(
    connection: sa.Connection,
    view: View,
    schema: Schema,
    *,
    max_indexed_values: int,
    max_value_length: int,
) -> ValueIndex:
    """The value index at the view, from the process cache when counted before."""
    if view.revision is None:
        return ValueIndex(None, _enums_only(schema))
    cache_key = (view.domain.id, view.revision, schema.digest, max_indexed_values, max_value_length)
    with _lock:
        found = _kept.get(cache_key)
        if found is not None:
            _kept.move_to_end(cache_key)
            return found
    counted = ValueIndex(
        view.revision,
        count_values(
            connection,
            view,
            schema,
            max_indexed_values=max_indexed_values,
            max_value_length=max_value_length,
        ),
    )
    with _lock:
        _kept[cache_key] = counted
        while len(_kept) > KEPT:
            _kept.popitem(last=False)
    return counted


def _enums_only(schema: Schema) -> ValueCounts:
    """The index of a Domain without Records: the declared values of indexed enums."""
    return {
        (kind_name, name): dict.fromkeys(rules.value_type.enum_values, 0)
        for kind_name, kind in schema.kinds.items()
        for name, rules in kind.attributes.items()
        if indexing(rules) != "never" and rules.value_type.base == "enum"
    }


def _of_kind(kind: str) -> Callable[[sa.Table], sa.ColumnElement[bool]]:
    return lambda table: table.c.kind == kind


def count_values(
    connection: sa.Connection,
    view: View,
    schema: Schema,
    *,
    max_indexed_values: int,
    max_value_length: int,
) -> ValueCounts:
    """Count the indexed values at the view (no cache)."""
    counts: ValueCounts = {}
    for kind_name, kind in schema.kinds.items():
        policies = {name: indexing(rules) for name, rules in kind.attributes.items()}
        wanted = [name for name, policy in policies.items() if policy != "never"]
        if not wanted:
            continue
        rows_q = visible_rows(t.records, view.segments, RECORD_IDENTITY, _of_kind(kind_name))
        live = rows_q.c.deleted.is_(False)
        few = [name for name in wanted if policies[name] == "few"]
        if few:
            distinct = connection.execute(
                sa.select(
                    *[
                        sa.func.count(sa.distinct(rows_q.c.values_json[name].as_string()))
                        for name in few
                    ]
                ).where(live)
            ).one()
            too_many = {
                name
                for name, found in zip(few, distinct, strict=True)
                if int(found) > max_indexed_values
            }
            wanted = [name for name in wanted if name not in too_many]
        if not wanted:
            continue
        parts = []
        for name in wanted:
            # one expression object: PostgreSQL needs the GROUP BY to be the selected one
            value = rows_q.c.values_json[name].as_string()
            parts.append(
                sa.select(
                    sa.literal(name, sa.String).label("attribute"),
                    value.label("value"),
                    sa.func.count().label("records"),
                )
                .where(live, value.is_not(None))
                .group_by(value)
            )
        statement = parts[0] if len(parts) == 1 else sa.union_all(*parts)
        found_values: dict[str, dict[str, int]] = {name: {} for name in wanted}
        for row in connection.execute(statement):
            if row.value is not None and len(row.value) <= max_value_length:
                found_values[row.attribute][row.value] = int(row.records)
        for name in wanted:
            rules = kind.attributes[name]
            values = dict(sorted(found_values[name].items())[:FORCED_MAX_VALUES])
            for declared in rules.value_type.enum_values:
                values.setdefault(declared, 0)
            counts[(kind_name, name)] = values
    return counts


def attribute_values(
    connection: sa.Connection, view: View, kind: str, attribute: str, *, limit: int
) -> list[tuple[str, int]]:
    """The distinct values of one Attribute of a Kind at the view, each with the number of
    Records holding it: the most frequent first, then by value, at most `limit` (no cache).

    The caller decides whether the values may be read (Keeper's empty-answer notes ask for
    readable, not sensitive, text Attributes only).
    """
    rows_q = visible_rows(t.records, view.segments, RECORD_IDENTITY, _of_kind(kind))
    value = rows_q.c.values_json[attribute].as_string()
    records = sa.func.count()
    statement = (
        sa.select(value.label("value"), records.label("records"))
        .where(rows_q.c.deleted.is_(False), value.is_not(None))
        .group_by(value)
        .order_by(records.desc(), value)
        .limit(limit)
    )
    return [(str(row.value), int(row.records)) for row in connection.execute(statement)]
