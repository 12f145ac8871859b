"""The peers' side of bench/peers/run.py: run with the peers venv's Python, never the project's.

It loads the CSV files of the generated `bench` Domain into a plain SQLite file (with
sqlite-utils: what Datasette serves), into DuckDB and into Kuzu, and times reads on them in
this process, one request per command. Commands come as JSON lines on stdin, answers go as JSON
lines on stdout (nothing else is printed there):

- `{"cmd": "versions"}`: the peers that import here and their versions;
- `{"cmd": "load", "engine": E, "data": DIR, "path": FILE}`: bulk load, timed;
- `{"cmd": "run", "engine": E, "figure": F, "arg": A}`: one read, timed here (the pipe is not
  in the time): `{"ns": ..., "rows": ...}`;
- `{"cmd": "quit"}`.

An engine that fails answers `{"error": "..."}`; the main script records it and goes on.
Only the standard library and the peers themselves are imported: the project is not installed
in the peers venv.
"""

from __future__ import annotations

import csv
import importlib
import json
import sqlite3
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

ITEM_TYPES = {
    "item_code": str,
    "name": str,
    "quantity": int,
    "price": float,
    "released": str,
    "status": str,
    "family": str,
    "notes": str,
}
"""The Item CSV's columns and the types they are stored as (SQLite has no date type)."""
SEARCH_LIMIT = 20
"""Hits per search, as Lorebase's `limit` and Datasette's `_size`."""

SQL = {
    "lookup": "SELECT * FROM items WHERE item_code = ?",
    "two_hop": (
        'SELECT DISTINCT c.* FROM links a JOIN links b ON b."from" = a."to"'
        " AND b.relation = 'uses' JOIN items c ON c.item_code = b.\"to\""
        " WHERE a.\"from\" = ? AND a.relation = 'uses'"
    ),
    "aggregate": (
        "SELECT status, count(price) AS priced, avg(price) AS avg_price FROM items"
        " WHERE quantity >= ? GROUP BY status ORDER BY status"
    ),
}
"""The same statements in SQLite (through Datasette and here) and in DuckDB."""
SQLITE_SEARCH = (
    "SELECT * FROM items WHERE rowid IN (SELECT rowid FROM items_fts WHERE items_fts MATCH ?)"
    f" ORDER BY item_code LIMIT {SEARCH_LIMIT}"
)
"""What Datasette's `?_search=` runs (without its extra row for the next page)."""
DUCKDB_SEARCH = (
    "SELECT * FROM items WHERE name ILIKE ?1 OR family ILIKE ?1 OR notes ILIKE ?1"
    f" ORDER BY item_code LIMIT {SEARCH_LIMIT}"
)
"""DuckDB's fts extension is not bundled and cannot be downloaded here: a scan with ILIKE."""
KUZU = {
    "lookup": "MATCH (i:Item) WHERE i.item_code = $k RETURN i.*",
    "two_hop": (
        "MATCH (a:Item)-[:uses]->(:Item)-[:uses]->(c:Item) WHERE a.item_code = $k"
        " RETURN DISTINCT c.*"
    ),
    "aggregate": (
        "MATCH (i:Item) WHERE i.quantity >= $k"
        " RETURN i.status, count(i.price) AS priced, avg(i.price) AS avg_price ORDER BY i.status"
    ),
    "search": (
        "MATCH (i:Item) WHERE i.name CONTAINS $k OR i.family CONTAINS $k OR i.notes CONTAINS $k"
        f" RETURN i.* ORDER BY i.item_code LIMIT {SEARCH_LIMIT}"
    ),
}
"""Kuzu's Cypher for the same reads; CONTAINS is case-sensitive (the words are lower case)."""
KUZU_SCHEMA = (
    "CREATE NODE TABLE Item(item_code STRING PRIMARY KEY, name STRING, quantity INT64,"
    " price DOUBLE, released DATE, status STRING, family STRING, notes STRING)",
    "CREATE REL TABLE uses(FROM Item TO Item, per_unit INT64)",
    "CREATE REL TABLE replaces(FROM Item TO Item)",
)


def version(module: str, distribution: str) -> str:
    importlib.import_module(module)
    return metadata.version(distribution)


def versions() -> dict[str, Any]:
    found: dict[str, Any] = {"python": sys.version.split()[0], "sqlite": sqlite3.sqlite_version}
    for name, module in (
        ("datasette", "datasette"),
        ("sqlite-utils", "sqlite_utils"),
        ("duckdb", "duckdb"),
        ("kuzu", "kuzu"),
        ("uvicorn", "uvicorn"),
    ):
        try:
            found[name] = version(module, name)
        except Exception as error:  # an engine that does not import is left out
            found[name] = None
            found[f"{name}_error"] = f"{type(error).__name__}: {error}"
    return found


def item_rows(data: Path) -> Iterator[dict[str, Any]]:
    with (data / "Item.csv").open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            yield {name: ITEM_TYPES[name](value) for name, value in row.items()}


def link_rows(data: Path) -> Iterator[dict[str, Any]]:
    for relation in ("uses", "replaces"):
        with (data / f"{relation}.csv").open(newline="", encoding="utf-8") as handle:
            for row in csv.DictReader(handle):
                per_unit = row.get("per_unit")
                yield {
                    "from": row["from"],
                    "to": row["to"],
                    "relation": relation,
                    "per_unit": int(per_unit) if per_unit else None,
                }


class Timer:
    """Seconds of each named part of a load."""

    def __init__(self) -> None:
        self.parts: dict[str, float] = {}
        self.started = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.parts[name] = round(now - self.started, 2)
        self.started = now

    def answer(self) -> dict[str, Any]:
        return {"seconds": round(sum(self.parts.values()), 2), "parts": self.parts}


# -- SQLite, as Datasette serves it ----------------------------------------------------------
class SqliteEngine:
    """A plain SQLite file made with sqlite-utils: typed columns, indexes, an FTS5 table."""

    def __init__(self) -> None:
        self.connection: sqlite3.Connection | None = None

    def load(self, data: Path, path: Path) -> dict[str, Any]:
        import sqlite_utils  # type: ignore[import-not-found]

        timer = Timer()
        db = sqlite_utils.Database(path)
        items = db.table("items")
        items.insert_all(item_rows(data), pk="item_code", columns=ITEM_TYPES, batch_size=5000)
        timer.lap("items")
        links = db.table("links")
        columns = {"from": str, "to": str, "relation": str, "per_unit": int}
        links.insert_all(link_rows(data), columns=columns, batch_size=5000)
        timer.lap("links")
        links.create_index(["from", "relation"])
        links.create_index(["to", "relation"])
        items.create_index(["quantity"])
        items.create_index(["status"])
        timer.lap("indexes")
        items.enable_fts(["name", "family", "notes"])
        timer.lap("fts")
        db.execute("ANALYZE")
        db.conn.commit()
        db.close()
        timer.lap("analyze")
        self.connection = sqlite3.connect(path, check_same_thread=False)
        answer = timer.answer()
        answer["rows"] = {
            "items": self.scalar("SELECT count(*) FROM items"),
            "links": self.scalar("SELECT count(*) FROM links"),
        }
        return answer

    def scalar(self, sql: str) -> int:
        assert self.connection is not None
        return int(self.connection.execute(sql).fetchone()[0])

    def run(self, figure: str, arg: Any) -> int:
        assert self.connection is not None
        if figure == "search":
            return len(self.connection.execute(SQLITE_SEARCH, (f'"{arg}"',)).fetchall())
        return len(self.connection.execute(SQL[figure], (arg,)).fetchall())


# -- DuckDB ----------------------------------------------------------------------------------
class DuckdbEngine:
    """A DuckDB file: the Items with a primary key, the Links in one table with an index."""

    def __init__(self) -> None:
        self.connection: Any = None

    def load(self, data: Path, path: Path) -> dict[str, Any]:
        import duckdb  # type: ignore[import-not-found]

        timer = Timer()
        connection = duckdb.connect(str(path))
        connection.execute(
            "CREATE TABLE items (item_code VARCHAR PRIMARY KEY, name VARCHAR, quantity BIGINT,"
            " price DECIMAL(10,2), released DATE, status VARCHAR, family VARCHAR, notes VARCHAR)"
        )
        connection.execute(f"INSERT INTO items SELECT * FROM read_csv('{data / 'Item.csv'}')")
        timer.lap("items")
        connection.execute(
            "CREATE TABLE links AS"
            f" SELECT \"from\", \"to\", 'uses' AS relation, per_unit FROM read_csv('{data / 'uses.csv'}')"
            ' UNION ALL SELECT "from", "to", \'replaces\', NULL'
            f" FROM read_csv('{data / 'replaces.csv'}')"
        )
        timer.lap("links")
        connection.execute('CREATE INDEX links_from ON links ("from")')
        timer.lap("indexes")
        connection.execute("CHECKPOINT")
        timer.lap("checkpoint")
        self.connection = connection
        answer = timer.answer()
        answer["rows"] = {
            "items": connection.execute("SELECT count(*) FROM items").fetchone()[0],
            "links": connection.execute("SELECT count(*) FROM links").fetchone()[0],
        }
        return answer

    def run(self, figure: str, arg: Any) -> int:
        if figure == "search":
            return len(self.connection.execute(DUCKDB_SEARCH, [f"%{arg}%"]).fetchall())
        return len(self.connection.execute(SQL[figure], [arg]).fetchall())


# -- Kuzu ------------------------------------------------------------------------------------
class KuzuEngine:
    """A Kuzu database: Item nodes, `uses` and `replaces` relationships, COPY from the CSVs."""

    def __init__(self) -> None:
        self.connection: Any = None
        self.database: Any = None

    def load(self, data: Path, path: Path) -> dict[str, Any]:
        import kuzu  # type: ignore[import-not-found]

        timer = Timer()
        database = kuzu.Database(str(path), buffer_pool_size=1 << 30)
        connection = kuzu.Connection(database)
        for statement in KUZU_SCHEMA:
            connection.execute(statement)
        connection.execute(f"COPY Item FROM '{data / 'Item.csv'}' (header=true)")
        timer.lap("items")
        connection.execute(f"COPY uses FROM '{data / 'uses.csv'}' (header=true)")
        connection.execute(f"COPY replaces FROM '{data / 'replaces.csv'}' (header=true)")
        timer.lap("links")
        self.connection = connection
        self.database = database

        def count(query: str) -> int:
            return int(connection.execute(query).get_next()[0])

        answer = timer.answer()
        answer["rows"] = {
            "items": count("MATCH (i:Item) RETURN count(*)"),
            "links": count("MATCH ()-[r]->() RETURN count(*)"),
        }
        return answer

    def run(self, figure: str, arg: Any) -> int:
        result = self.connection.execute(KUZU[figure], {"k": arg})
        return len(result.get_all())


ENGINES: dict[str, Callable[[], Any]] = {
    "sqlite": SqliteEngine,
    "duckdb": DuckdbEngine,
    "kuzu": KuzuEngine,
}


def serve() -> None:
    engines: dict[str, Any] = {}
    for line in sys.stdin:
        command = json.loads(line)
        try:
            answer = handle(engines, command)
        except Exception as error:
            answer = {"error": f"{type(error).__name__}: {error}", "trace": traceback.format_exc()}
        print(json.dumps(answer), flush=True)
        if command["cmd"] == "quit":
            return


def handle(engines: dict[str, Any], command: dict[str, Any]) -> dict[str, Any]:
    if command["cmd"] == "versions":
        return versions()
    if command["cmd"] == "load":
        engine = ENGINES[command["engine"]]()
        answer: dict[str, Any] = engine.load(Path(command["data"]), Path(command["path"]))
        engines[command["engine"]] = engine
        return answer
    if command["cmd"] == "run":
        engine = engines[command["engine"]]
        started = time.perf_counter_ns()
        rows = engine.run(command["figure"], command["arg"])
        return {"ns": time.perf_counter_ns() - started, "rows": rows}
    if command["cmd"] == "quit":
        return {}
    raise ValueError(f"unknown command {command['cmd']!r}")


if __name__ == "__main__":
    serve()
