"""Engines for the two backends: embedded SQLite (the default) and PostgreSQL (psycopg 3).

SQLite runs through `sqlean.py`, a drop-in `sqlite3` built with loadable extensions (the standard
library's module here cannot load sqlite-vec, which every connection loads). Writers take SQLite's write lock when their
transaction begins (`BEGIN IMMEDIATE`), so concurrent commits queue instead of failing halfway.

No values reach a log: engines hide statement parameters (`hide_parameters`, in their log lines
and in the text of their exceptions), and the rows SQLAlchemy logs at DEBUG are dropped.
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa
import sqlean
import sqlite_vec

from lorebase_core.errors import BadRequest
from lorebase_core.schema import canonical_json
from lorebase_store.plans import listen_for_statements

WRITE = "lorebase_write"
_COMMITTED: weakref.WeakKeyDictionary[sa.Engine, int] = weakref.WeakKeyDictionary()
_COMMITTED_LOCK = threading.Lock()


class JsonText(str):
    """JSON already serialized in canonical form: stored as it is, not serialized again."""

    __slots__ = ()


def canonical_text(value: object) -> JsonText:
    """Compact JSON with sorted keys (`canonical_json`), marked as serialized."""
    return JsonText(canonical_json(value))


def _json_dumps(value: object) -> str:
    if isinstance(value, JsonText):
        return value
    return canonical_text(value)


def _without_rows(record: logging.LogRecord) -> bool:
    """False for SQLAlchemy's DEBUG lines that print result rows (`Row (...)`, `Col (...)`)."""
    return not (isinstance(record.msg, str) and record.msg.startswith(("Row ", "Col ")))


# Engine log lines go to this logger (engines here are created without a logging_name)
logging.getLogger("sqlalchemy.engine.Engine").addFilter(_without_rows)


def sqlite_url(path: Path) -> str:
    return f"sqlite:///{path}"


def create_store_engine(url: str, *, pool_size: int = 5, busy_timeout_ms: int = 30000) -> sa.Engine:
    """An engine for `url` (`sqlite:///PATH` or `postgresql://...`) tuned for the store."""
    engine = _engine(url, pool_size=pool_size, busy_timeout_ms=busy_timeout_ms)
    listen_for_statements(engine)  # the reads a traced debug request ran (plans.py)
    return engine


def _engine(url: str, *, pool_size: int, busy_timeout_ms: int) -> sa.Engine:
    if url.startswith("sqlite"):
        return _sqlite_engine(url, busy_timeout_ms)
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        url = "postgresql+psycopg://" + url.split("://", 1)[1]
    connect_args: dict[str, Any] = {}
    if "options=" not in url:
        connect_args["options"] = "-c timezone=UTC"
    return sa.create_engine(
        url,
        json_serializer=_json_dumps,
        hide_parameters=True,
        pool_size=pool_size,
        pool_pre_ping=True,
        connect_args=connect_args,
    )


def _sqlite_engine(url: str, busy_timeout_ms: int) -> sa.Engine:
    database = sa.engine.make_url(url).database
    if database and database != ":memory:":
        Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    engine = sa.create_engine(url, module=sqlean, json_serializer=_json_dumps, hide_parameters=True)

    @sa.event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we issue BEGIN ourselves, below
        # sqlite-vec: vector distances in SQL (semantic search, docs/search.md)
        dbapi_connection.enable_load_extension(True)
        sqlite_vec.load(dbapi_connection)
        dbapi_connection.enable_load_extension(False)
        cursor = dbapi_connection.cursor()
        for pragma in (
            "journal_mode=WAL",
            "synchronous=NORMAL",
            "foreign_keys=ON",
            f"busy_timeout={busy_timeout_ms}",
            "cache_size=-65536",
        ):
            cursor.execute(f"PRAGMA {pragma}")
        cursor.close()

    @sa.event.listens_for(engine, "begin")
    def _on_begin(connection: sa.Connection) -> None:
        immediate = connection.get_execution_options().get(WRITE, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine


def is_sqlite(engine: sa.Engine | sa.Connection) -> bool:
    return engine.dialect.name == "sqlite"


CHANNEL = "lorebase_events"
"""PostgreSQL's one notice channel (`feed.notices` listens on it). An event's notice says
`<schema> <domain id> <branch id> <sequence>`; any other announced write says `<schema> -`.
Databases in other schemas of the same PostgreSQL database share the channel; listeners keep
the notices of their own schema only."""
ANNOUNCED = "lorebase_announced"
"""`Connection.info` key: this transaction has sent its notice already (an event's)."""
_ANNOUNCE = sa.text("SELECT pg_notify(:channel, current_schema() || ' -')").bindparams(
    channel=CHANNEL
)


@contextmanager
def write_transaction(engine: sa.Engine, *, announce: bool = True) -> Iterator[sa.Connection]:
    """A transaction for a write: SQLite's write lock is held from its first statement.

    Every write a read's answer can depend on is announced: it counts in `writes_committed`
    once committed, and on PostgreSQL it sends a notice on `CHANNEL` (unless it sent an event's
    already), so that `HeadWatch` of every process sees it. `announce=False` is for bookkeeping
    no read of a Domain shows (rate windows, sessions' last use, the agent trace, job leases,
    webhook deliveries).
    """
    with (
        _refusing_nul(),
        engine.connect().execution_options(**{WRITE: True}) as connection,
        connection.begin(),
    ):
        connection.info.pop(ANNOUNCED, None)
        yield connection
        if announce and not is_sqlite(connection) and not connection.info.pop(ANNOUNCED, False):
            connection.execute(_ANNOUNCE)
    if announce:
        with _COMMITTED_LOCK:  # counted once committed, never before (HeadWatch relies on it)
            _COMMITTED[engine] = _COMMITTED.get(engine, 0) + 1


def writes_committed(engine: sa.Engine) -> int:
    """How many announced write transactions this process has committed through `engine`."""
    return _COMMITTED.get(engine, 0)


@contextmanager
def read_transaction(engine: sa.Engine) -> Iterator[sa.Connection]:
    """One transaction for a read, so that every statement sees the same heads."""
    with _refusing_nul(), engine.connect() as connection:
        if not is_sqlite(connection):
            connection = connection.execution_options(isolation_level="REPEATABLE READ")
        with connection.begin():
            yield connection


@contextmanager
def _refusing_nul() -> Iterator[None]:
    """PostgreSQL refuses text with NUL characters (SQLite stores them): bad input, not a 500."""
    try:
        yield
    except sa.exc.DataError as exc:
        if "NUL" not in str(exc.orig):
            raise
        raise BadRequest(
            "Names, keys and values may not contain the NUL character (\\u0000)"
        ) from None


def inserted_id(result: sa.CursorResult[Any]) -> int:
    """The primary key of the row an INSERT made."""
    key = result.inserted_primary_key
    if key is None:  # pragma: no cover - every table here has an integer primary key
        raise RuntimeError("the INSERT returned no primary key")
    return int(key[0])
