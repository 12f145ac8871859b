"""Typed heads: the default branch's head of each Kind as a table of typed columns.

For every Domain and Kind, one table (`th_<domain>_<kind>_<layout>`) holds one row per live
Record at the head of the Domain's default branch: its key (`_key`, the collation of
`records.record_key`) and one column per scalar Attribute (string, integer, decimal, boolean,
date, datetime, enum; not text or json) holding exactly what `query_sql.sort_key` computes from
`values_json`: integers as NUMERIC, decimals as their scaled integer, booleans, datetimes padded
to microseconds, the rest as text (`COLLATE "C"` on PostgreSQL). Every such column has an index.
`reads.query` compiles a query at the default branch's head against these tables, so that
filters, GROUP BY and aggregates read typed values and indexes instead of `json_extract` over
every Item; the answers are those of the JSON path by construction (the same expressions, stored).

The table registry `typed_heads` names, per Domain and Kind, the table and its layout (a digest
of the Attributes and types it holds). A table is never altered: a schema change that changes a
Kind's layout builds a table of another name and drops the old one, so that a PostgreSQL reader
whose snapshot predates the change never reads a table its snapshot does not describe (it would
fail loudly, not answer wrongly).

Maintenance, in the transaction of each commit on the default branch (`CommitTypedHeads`):

- each batch: one `INSERT ... SELECT ... ON CONFLICT (_key) DO UPDATE` of the batch's live keys
  from their new head rows in `records`, and one DELETE of the keys it deleted;
- a schema change: before the batches, the Kinds whose layout changed are built anew from the
  head rows (`INSERT ... SELECT` over the Kind), Kinds gone are dropped;
- a Domain-creating commit: nothing per batch; at the end `build_typed_heads` builds every Kind
  in one `INSERT ... SELECT` each, then its indexes (cheaper than maintaining them per batch).

docs/storage.md ("Typed heads") has the costs and what falls back to the JSON path.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from lorebase_core.schema import KindDef, Schema
from lorebase_core.values import ValueType
from lorebase_store import tables as t
from lorebase_store.engine import is_sqlite
from lorebase_store.reads.query_sql import sort_key

KEY = "_key"
"""The key column (Attribute names start with a letter: no Attribute is called that)."""
COVERED = frozenset({"string", "integer", "decimal", "boolean", "date", "datetime", "enum"})
"""The types held in typed columns; text and json stay in `values_json` only."""
PREFIX = "th_"
_SLUG = re.compile(r"[^a-z0-9_]")
_CHUNK = 5000

RecordWrite = tuple[str, bool, Mapping[str, Any]]
"""A written Record version: key, deleted, values (as `search.index.RecordWrite`)."""


class _Untyped(sa.types.UserDefinedType[Any]):
    """A SQLite column without a declared type (no affinity): a value is stored as computed."""

    cache_ok = True

    def get_col_spec(self, **kw: Any) -> str:
        return ""


def _column_type(value_type: ValueType) -> sa.types.TypeEngine[Any]:
    base = value_type.base
    if base in ("integer", "decimal"):
        return sa.Numeric().with_variant(_Untyped(), "sqlite")
    if base == "boolean":
        return sa.Boolean().with_variant(_Untyped(), "sqlite")
    return sa.Text().with_variant(postgresql.TEXT(collation="C"), "postgresql")


def kind_layout(kind: KindDef) -> tuple[tuple[str, ValueType], ...]:
    """The typed columns of a Kind: its covered Attributes in declared order."""
    return tuple(
        (name, attribute.value_type)
        for name, attribute in kind.attributes.items()
        if attribute.value_type.base in COVERED
    )


@dataclass(frozen=True)
class TypedKind:
    """The typed head table of one Kind of one Domain, for one layout."""

    domain_id: int
    kind: str
    layout: str
    columns: dict[str, ValueType]
    table: sa.Table

    @property
    def name(self) -> str:
        return self.table.name


_tables: dict[tuple[int, str, str], TypedKind] = {}
_layouts: dict[tuple[str, str], tuple[str, tuple[tuple[str, ValueType], ...]]] = {}
_lock = threading.Lock()


def layout_digest(schema: Schema, kind_name: str) -> str:
    """A digest of the columns a Kind's table has under `schema` (cached per schema)."""
    return _layout(schema, kind_name)[0]


def _layout(schema: Schema, kind_name: str) -> tuple[str, tuple[tuple[str, ValueType], ...]]:
    cache_key = (schema.digest, kind_name)
    found = _layouts.get(cache_key)
    if found is None:
        columns = kind_layout(schema.kinds[kind_name])
        text = json.dumps([kind_name, [[name, vt.name] for name, vt in columns]])
        found = (hashlib.sha256(text.encode()).hexdigest()[:16], columns)
        with _lock:
            _layouts[cache_key] = found
    return found


def typed_kind(domain_id: int, schema: Schema, kind_name: str) -> TypedKind:
    """The table object of a Kind's typed head under `schema` (built once per process)."""
    digest, columns = _layout(schema, kind_name)
    cache_key = (domain_id, kind_name, digest)
    found = _tables.get(cache_key)
    if found is not None:
        return found
    slug = _SLUG.sub("_", kind_name.lower())[:24]
    name = f"{PREFIX}{domain_id}_{slug}_{digest[:10]}"
    table = sa.Table(
        name,
        sa.MetaData(),
        sa.Column(KEY, sa.String(1024), primary_key=True),
        *(sa.Column(attribute, _column_type(vt), nullable=True) for attribute, vt in columns),
    )
    for position, (attribute, _vt) in enumerate(columns):
        sa.Index(f"{name}_i{position}", table.c[attribute])
    found = TypedKind(domain_id, kind_name, digest, dict(columns), table)
    with _lock:
        _tables[cache_key] = found
    return found


# -- building --------------------------------------------------------------------------------
def _head_rows(branch_id: int, kind_name: str) -> tuple[sa.ColumnElement[bool], ...]:
    records = t.records.c
    return (
        records.branch_id == branch_id,
        records.kind == kind_name,
        records.to_seq.is_(None),
        records.deleted.is_(False),
    )


def _typed_select(typed: TypedKind, branch_id: int) -> sa.Select[Any]:
    """The typed row of each live head Record of the Kind (callers add a key condition)."""
    values = t.records.c.values_json
    return sa.select(
        t.records.c.record_key,
        *(sort_key(values, attribute, vt) for attribute, vt in typed.columns.items()),
    ).where(*_head_rows(branch_id, typed.kind))


def _register(connection: sa.Connection, typed: TypedKind, branch_id: int) -> None:
    registry = t.typed_heads.c
    connection.execute(
        t.typed_heads.delete().where(
            registry.domain_id == typed.domain_id, registry.kind == typed.kind
        )
    )
    connection.execute(
        t.typed_heads.insert().values(
            domain_id=typed.domain_id,
            kind=typed.kind,
            branch_id=branch_id,
            table_name=typed.name,
            layout=typed.layout,
        )
    )


def _build_kind(
    connection: sa.Connection, domain_id: int, branch_id: int, schema: Schema, kind_name: str
) -> None:
    """(Re)build one Kind's table from the head rows: create, fill, index, register."""
    typed = typed_kind(domain_id, schema, kind_name)
    _drop_registered(connection, domain_id, kind_name)
    typed.table.drop(connection, checkfirst=True)
    # the table first, its indexes after the rows: one sort per index instead of per-row upkeep
    connection.execute(sa.schema.CreateTable(typed.table))
    connection.execute(
        typed.table.insert().from_select([KEY, *typed.columns], _typed_select(typed, branch_id))
    )
    for index in typed.table.indexes:
        index.create(connection)
    if not is_sqlite(connection):  # the planner's statistics of the rows just written
        connection.exec_driver_sql(f'ANALYZE "{typed.name}"')
    _register(connection, typed, branch_id)


def _drop_registered(connection: sa.Connection, domain_id: int, kind_name: str) -> None:
    registry = t.typed_heads.c
    name = connection.execute(
        sa.select(registry.table_name).where(
            registry.domain_id == domain_id, registry.kind == kind_name
        )
    ).scalar()
    if name is not None:
        connection.execute(sa.text(f'DROP TABLE IF EXISTS "{name}"'))
        connection.execute(
            t.typed_heads.delete().where(
                registry.domain_id == domain_id, registry.kind == kind_name
            )
        )


def build_typed_heads(
    connection: sa.Connection,
    branch_id: int,
    schema: Schema,
    *,
    kinds: Iterable[str] | None = None,
) -> None:
    """Build the typed head tables of a Domain's default branch from its head rows.

    One `INSERT ... SELECT` from `records.values_json` per Kind (then its indexes): what a
    Domain-creating import calls once at its end instead of maintaining the tables per batch.
    `kinds`: only these (default: every Kind of `schema`); Kinds no longer in the schema lose
    their tables.
    """
    domain_id = connection.execute(
        sa.select(t.branches.c.domain_id).where(t.branches.c.id == branch_id)
    ).scalar_one()
    for kind_name in schema.kinds if kinds is None else kinds:
        _build_kind(connection, domain_id, branch_id, schema, kind_name)
    if kinds is None:
        _drop_gone(connection, domain_id, schema)


def _drop_gone(connection: sa.Connection, domain_id: int, schema: Schema) -> None:
    registry = t.typed_heads.c
    registered = connection.execute(
        sa.select(registry.kind).where(registry.domain_id == domain_id)
    ).scalars()
    for kind_name in [kind for kind in registered if kind not in schema.kinds]:
        _drop_registered(connection, domain_id, kind_name)


def create_typed_heads(connection: sa.Connection, branch_id: int, schema: Schema) -> None:
    """The empty typed heads of a new Domain (`versioned.domains.insert_domain`)."""
    build_typed_heads(connection, branch_id, schema)


def sync_layouts(connection: sa.Connection, domain_id: int, branch_id: int, schema: Schema) -> None:
    """After a schema change: build anew the Kinds whose layout changed, drop the Kinds gone."""
    registry = t.typed_heads.c
    registered = dict(
        connection.execute(
            sa.select(registry.kind, registry.layout).where(registry.domain_id == domain_id)
        ).all()
    )
    for kind_name in schema.kinds:
        if registered.get(kind_name) != layout_digest(schema, kind_name):
            _build_kind(connection, domain_id, branch_id, schema, kind_name)
    _drop_gone(connection, domain_id, schema)


def rebuild_all(connection: sa.Connection) -> None:
    """Build the typed heads of every Domain's default branch (migration 0011)."""
    from lorebase_store.versioned.schemas import schema_by_digest

    rows = connection.execute(
        sa.select(
            t.domains.c.id,
            t.branches.c.id.label("branch_id"),
            t.branches.c.head_revision,
            t.domains.c.settings,
        )
        .join_from(
            t.domains,
            t.branches,
            sa.and_(
                t.branches.c.domain_id == t.domains.c.id,
                t.branches.c.name == t.domains.c.default_branch,
                t.branches.c.deleted.is_(False),
            ),
        )
        .order_by(t.domains.c.id)
    ).all()
    for row in rows:
        digest = (
            connection.execute(
                sa.select(t.revisions.c.schema_digest).where(t.revisions.c.id == row.head_revision)
            ).scalar_one()
            if row.head_revision is not None
            else str(dict(row.settings)["initial_schema"])
        )
        build_typed_heads(connection, row.branch_id, schema_by_digest(connection, digest))


# -- per commit ------------------------------------------------------------------------------
class CommitTypedHeads:
    """What one commit does to the typed heads (nothing off the default branch).

    `start` runs before the batches (a schema change rebuilds the Kinds whose layout changed,
    from the head before this commit); `write` after each batch of Record versions; `finish`
    after the last batch (a Domain-creating commit builds every table there).
    """

    def __init__(
        self,
        connection: sa.Connection,
        *,
        domain_id: int,
        branch_id: int,
        on_default_branch: bool,
        schema: Schema,
        schema_changed: bool,
        creates_domain: bool,
    ) -> None:
        self.connection = connection
        self.domain_id = domain_id
        self.branch_id = branch_id
        self.schema = schema
        self.enabled = on_default_branch
        self.deferred = creates_domain
        if self.enabled and schema_changed and not creates_domain:
            sync_layouts(connection, domain_id, branch_id, schema)

    def write(self, kind_name: str, written: Iterable[RecordWrite]) -> None:
        """One batch's new versions of one Kind: upsert the live ones, delete the deleted."""
        if not self.enabled or self.deferred or kind_name not in self.schema.kinds:
            return
        live: list[str] = []
        gone: list[str] = []
        for key, deleted, _values in written:
            (gone if deleted else live).append(key)
        if not live and not gone:
            return
        typed = typed_kind(self.domain_id, self.schema, kind_name)
        upsert, delete = _statements(self.connection, typed, self.branch_id)
        for start in range(0, len(gone), _CHUNK):
            self.connection.execute(delete, {"keys": gone[start : start + _CHUNK]})
        for start in range(0, len(live), _CHUNK):
            self.connection.execute(upsert, {"keys": live[start : start + _CHUNK]})

    def finish(self) -> None:
        if self.enabled and self.deferred:
            build_typed_heads(self.connection, self.branch_id, self.schema)


_statement_cache: dict[tuple[str, int, str], tuple[Any, Any]] = {}


def _statements(connection: sa.Connection, typed: TypedKind, branch_id: int) -> tuple[Any, Any]:
    """The upsert and the delete of a batch's keys (parameter `keys`), built once per table and
    branch: a commit of one Record then pays neither their construction nor their cache key."""
    dialect = connection.dialect.name
    cache_key = (typed.name, branch_id, dialect)
    found = _statement_cache.get(cache_key)
    if found is None:
        keys: sa.BindParameter[list[str]] = sa.bindparam("keys", expanding=True)
        select = _typed_select(typed, branch_id).where(t.records.c.record_key.in_(keys))
        delete = typed.table.delete().where(typed.table.c[KEY].in_(keys))
        found = (_upsert(dialect, typed, select), delete)
        with _lock:
            _statement_cache[cache_key] = found
    return found


def _upsert(dialect_name: str, typed: TypedKind, select: sa.Select[Any]) -> Any:
    names = [KEY, *typed.columns]
    dialect = sqlite if dialect_name == "sqlite" else postgresql
    statement = dialect.insert(typed.table).from_select(names, select)
    if not typed.columns:
        return statement.on_conflict_do_nothing(index_elements=[KEY])
    return statement.on_conflict_do_update(
        index_elements=[KEY],
        set_={name: statement.excluded[name] for name in typed.columns},
    )


# -- checking --------------------------------------------------------------------------------
def typed_rows(
    connection: sa.Connection, domain_id: int, kind_name: str
) -> list[tuple[Any, ...]] | None:
    """Every row of a Kind's typed head, by key (None: no table registered); for tests."""
    registry = t.typed_heads.c
    name = connection.execute(
        sa.select(registry.table_name).where(
            registry.domain_id == domain_id, registry.kind == kind_name
        )
    ).scalar()
    if name is None:
        return None
    return [
        tuple(row)
        for row in connection.execute(sa.text(f'SELECT * FROM "{name}" ORDER BY {KEY}')).all()
    ]
