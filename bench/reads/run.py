"""Keeper's reads over real HTTP, each against a baseline measured in the same run.

Keeper runs under uvicorn on 127.0.0.1 in a background thread, in auth mode `api_key` with an
admin key, over a fresh store holding the `bench` Domain of bench/common.py with Links (N Items,
`uses` and `replaces` between them). One keep-alive `httpx.Client` in the benchmark thread sends
sequential requests. Each figure is a ratio to a baseline measured in the same run, interleaved
with it request by request so that a busy neighbour slows both alike:

- get_record: GET .../records/{key} over distinct keys (the answer cache never holds them), vs a
  bare Starlette route (its own uvicorn, same client) returning the same bytes from a dict;
- not_modified: the same GET with If-None-Match -> 304, vs the same bare route (200, the bytes);
- query: POST /query with an aggregate (group_by status, count and avg of price), a distinct
  `where` threshold each request, vs the statement of `build_query_statement` compiled for the
  engine (`lorebase_store.reads.query.query_sql`) executed on a connection of the store's engine;
- query_vs_plain_table: the same requests vs the same aggregate in plain SQL on a plain table of
  the Items with typed columns and an index per column (`plain_items`, made in the same database
  after the import: BIGINT/INTEGER quantity, NUMERIC(10,2) or integer cents price, text status);
- traverse: POST /traverse from one Item along [uses, uses], a different start each request, vs
  the statements of `lorebase_store.graph.sql` the traversal issues, run directly;
- neighborhood: POST /neighborhood depth 2 from one Item, vs the statements of
  `lorebase_store.graph.sql` the walk issues, run directly (reconstructed in `NeighborhoodSql`);
- cached_*: the same query, traversal and neighborhood repeated (Keeper's answer cache serves
  them), vs the bare route returning the same bytes.

Two more sides, not baselines, show where Keeper's time goes: `fastapi`, a FastAPI app with sync
routes (as Keeper's are) answering the same bytes from the same dict (the framework's floor), for
the figures measured against the bare route; and `store`, the store call Keeper makes (a Reader
and its method, no HTTP), for the others, so that their time splits into SQL, store and HTTP +
Keeper. The bare route's answers are rendered by a second Keeper with its answer cache off, so
that Keeper's own cache stays cold.

    .venv/bin/python bench/reads/run.py [--records N] [--backend sqlite|postgresql --dsn DSN]

Figures go to bench/reads/results/latest-<backend>.json (bench/README.md, "bench/reads").
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import random
import statistics
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import httpx
import sqlalchemy as sa  # noqa: TID251 (the baselines are the store's raw SQL)
from fastapi import Body, FastAPI
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from lorebase_core.access import ReadScope
from lorebase_core.graph_requests import parse_neighborhood, parse_traverse
from lorebase_core.query import parse_query
from lorebase_keeper import testing as keeper_testing
from lorebase_keeper.app import create_app
from lorebase_platform.settings import Settings
from lorebase_store import Segment, Store, fetch_links, fetch_records, import_directory, query_sql

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/, for common.py
from common import (
    DOMAIN,
    KIND,
    REPLACES,
    USES,
    git_commit,
    item_key,
    log,
    machine_info,
    workspace,
    write_dataset,
)

HERE = Path(__file__).resolve().parent
PRINCIPAL = "usr_bench"
API = f"/api/v1/domains/{DOMAIN}"
JSON_TYPE = {"content-type": "application/json"}

GET_KEYS = 2500
"""Distinct keys read once each (the answer cache never holds them)."""
GET_WARMUP = 200
"""Other keys read first, to warm the connections, the pool and SQLite's page cache."""
NOT_MODIFIED = 2000
QUERIES = 60
"""Distinct `where` thresholds: each query is asked once, so the answer cache never serves it."""
QUERY_WARMUP = 5
TRAVERSALS = 400
NEIGHBORHOODS = 150
GRAPH_WARMUP = 20
CACHED = 500
CACHED_WARMUP = 50

TARGETS: dict[str, tuple[str, float]] = {
    "get_record": ("rps_ratio", 0.40),
    "not_modified": ("rps_ratio", 0.70),
    "query": ("p50_ratio", 2.0),
    "query_vs_plain_table": ("p50_ratio", 2.0),
    "traverse": ("p50_ratio", 2.0),
    "neighborhood": ("p50_ratio", 2.0),
}
"""What each target compares: Keeper's requests per second over the bare route's (at least), or
Keeper's p50 over the raw SQL's p50 (at most)."""
FIGURES = (
    "get_record",
    "not_modified",
    "query",
    "query_vs_plain_table",
    "traverse",
    "neighborhood",
    "cached_query",
    "cached_traverse",
    "cached_neighborhood",
)


# -- servers ---------------------------------------------------------------------------------
@contextmanager
def serve_in_thread(app: Any, name: str, profiler: cProfile.Profile | None = None) -> Iterator[str]:
    """Run `app` on loopback (`lorebase_keeper.testing.serve_in_thread`); yields its URL.

    Every server gets the same configuration. With a `profiler`, the server's thread (its event
    loop) runs under it.
    """
    runner = None if profiler is None else profiler.runcall
    with keeper_testing.serve_in_thread(
        app, name=name, runner=runner, access_log=False, timeout_keep_alive=120
    ) as url:
        yield url


@dataclass(frozen=True)
class Canned:
    """An answer of the bare route: Keeper's bytes and the headers Keeper sent with them."""

    body: bytes
    headers: dict[str, str]

    @classmethod
    def of(cls, response: httpx.Response) -> Canned:
        names = ("etag", "cache-control", "lorebase-revision")
        return cls(response.content, {name: response.headers[name] for name in names})


@dataclass
class BareAnswers:
    """What the bare Starlette app answers: GETs by record key, POSTs by (operation, body)."""

    records: dict[str, Canned] = field(default_factory=dict)
    posts: dict[tuple[str, bytes], Canned] = field(default_factory=dict)


def bare_app(answers: BareAnswers) -> Starlette:
    """The baseline: the same paths, answers from memory (a dict look-up), nothing else."""

    async def get_record(request: Request) -> Response:
        canned = answers.records[request.path_params["key"]]
        return Response(canned.body, media_type="application/json", headers=canned.headers)

    async def post(request: Request) -> Response:
        body = await request.body()
        canned = answers.posts[(request.path_params["operation"], body)]
        return Response(canned.body, media_type="application/json", headers=canned.headers)

    return Starlette(
        routes=[
            Route(API + "/kinds/{kind}/records/{key}", get_record),
            Route(API + "/{operation}", post, methods=["POST"]),
        ]
    )


def fastapi_app(answers: BareAnswers) -> FastAPI:
    """Not a baseline but a floor: FastAPI with sync routes (as Keeper's are) answering the same
    bytes from the same dict; what the framework costs before Keeper does anything."""
    app = FastAPI()

    @app.get(API + "/kinds/{kind}/records/{key}")
    def get_record(kind: str, key: str) -> Response:
        canned = answers.records[key]
        return Response(canned.body, media_type="application/json", headers=canned.headers)

    @app.post(API + "/{operation}")
    def post(operation: str, body: Annotated[Any, Body()]) -> Response:
        canned = answers.posts[(operation, encoded(body))]
        return Response(canned.body, media_type="application/json", headers=canned.headers)

    return app


# -- measuring -------------------------------------------------------------------------------
Side = Callable[[int], object]
"""One side of a figure: does request number `i` (and checks its answer)."""


def interleaved(sides: dict[str, Side], count: int, warmup: int) -> dict[str, list[int]]:
    """Run request i of every side, one after the other (rotating who goes first); timings."""
    samples: dict[str, list[int]] = {name: [] for name in sides}
    order = list(sides)
    for index in range(warmup + count):
        order = order[1:] + order[:1]
        for name in order:
            start = time.perf_counter_ns()
            sides[name](index)
            elapsed = time.perf_counter_ns() - start
            if index >= warmup:
                samples[name].append(elapsed)
    return samples


def summary(samples_ns: list[int]) -> dict[str, float]:
    ordered = sorted(samples_ns)
    return {
        "n": len(ordered),
        "p50_us": round(statistics.median(ordered) / 1000, 1),
        "p99_us": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] / 1000, 1),
        "mean_us": round(statistics.fmean(ordered) / 1000, 1),
        "rps": round(len(ordered) / (sum(ordered) / 1e9), 1),
    }


def figure(name: str, samples: dict[str, list[int]], baseline: str) -> dict[str, Any]:
    """Keeper against `baseline` (and the store side, when measured)."""
    sides = {side: summary(found) for side, found in samples.items()}
    keeper, base = sides["keeper"], sides[baseline]
    result: dict[str, Any] = {
        "baseline_kind": baseline,
        **sides,
        "rps_ratio": round(keeper["rps"] / base["rps"], 3),
        "p50_ratio": round(keeper["p50_us"] / base["p50_us"], 2),
        "p99_ratio": round(keeper["p99_us"] / base["p99_us"], 2),
    }
    if name in TARGETS:
        measure, target = TARGETS[name]
        value = result[measure]
        result["target"] = {"compares": measure, "value": target}
        result["pass"] = value >= target if measure == "rps_ratio" else value <= target
    return result


def expect(response: httpx.Response, status: int) -> httpx.Response:
    if response.status_code != status:
        raise RuntimeError(
            f"{response.request.method} {response.request.url} answered "
            f"{response.status_code}, not {status}: {response.text[:300]}"
        )
    return response


# -- the raw SQL of graph reads --------------------------------------------------------------
def traverse_sql(
    connection: sa.Connection, chain: tuple[Segment, ...], start: str, relation: str, hops: int
) -> int:
    """What `lorebase_store.graph.traverse` runs for one start Item along `relation` x `hops`:
    the start Record, then per hop the Links from the frontier and the Records at their ends
    (with values on the last hop). The number of Records at the end."""
    rows = fetch_records(connection, chain, KIND, [start], with_values=False)
    frontier = [row.record_key for row in rows]
    for hop in range(hops):
        links = fetch_links(connection, chain, relation, "from_key", frontier, with_values=False)
        ends = [row.to_key for row in links]
        last = hop == hops - 1
        rows = fetch_records(connection, chain, KIND, ends, with_values=last)
        frontier = [row.record_key for row in rows]
    return len(frontier)


class NeighborhoodSql:
    """The statements `lorebase_store.graph.neighborhood` issues for one seed Item, run directly.

    Per hop, for each Relation in each direction, the live Links touching the frontier
    (`fetch_links`), then the newly reached Records (`fetch_records`, with values); after the
    last hop, the Links between two Records of the last frontier. The Python of the walk (caps,
    ordering, shaping) is left out; the cuts are not reached on this data set (checked).
    """

    def __init__(self, chain: tuple[Segment, ...], relations: list[str]) -> None:
        self.chain = chain
        self.relations = relations

    def run(self, connection: sa.Connection, seed: str, depth: int) -> tuple[int, int]:
        """(Records, Links) of the neighborhood."""
        chain = self.chain
        rows = fetch_records(connection, chain, KIND, [seed], with_values=True)
        frontier = [row.record_key for row in rows]
        seen = set(frontier)
        links: set[tuple[str, str, str]] = set()
        for _ in range(depth):
            if not frontier:
                break
            new: set[str] = set()
            for name in self.relations:
                for column in ("from_key", "to_key"):
                    found = fetch_links(connection, chain, name, column, frontier, with_values=True)
                    for row in found:
                        links.add((name, row.from_key, row.to_key))
                        other = row.to_key if column == "from_key" else row.from_key
                        if other not in seen:
                            new.add(other)
            rows = fetch_records(connection, chain, KIND, new, with_values=True)
            frontier = sorted(row.record_key for row in rows)
            seen.update(frontier)
        last = set(frontier)
        for name in self.relations:
            if frontier:
                found = fetch_links(connection, chain, name, "from_key", frontier, with_values=True)
                links.update(
                    (name, row.from_key, row.to_key) for row in found if row.to_key in last
                )
        return len(seen), sum(1 for _name, a, b in links if a in seen and b in seen)


# -- the run ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Options:
    records: int
    backend: str
    dsn: str | None
    out: Path
    check: bool
    profile: str | None


@dataclass
class Bench:
    """Everything a phase needs: the store, the servers, the client and the bare route's answers."""

    store: Store
    keeper_url: str
    bare_url: str
    fastapi_url: str
    renderer_url: str
    answers: BareAnswers
    client: httpx.Client
    records: int
    settings: Settings
    scope: ReadScope = field(default_factory=ReadScope.everything)

    def keeper(self, path: str) -> str:
        return f"{self.keeper_url}{API}{path}"

    def bare(self, path: str) -> str:
        return f"{self.bare_url}{API}{path}"

    def fastapi(self, path: str) -> str:
        return f"{self.fastapi_url}{API}{path}"

    def renderer(self, path: str) -> str:
        """The cache-less Keeper: checks and renderings through it leave Keeper's cache empty."""
        return f"{self.renderer_url}{API}{path}"


def distinct_items(records: int, count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [item_key(number) for number in rng.sample(range(1, records + 1), count)]


def bench_get_record(bench: Bench) -> dict[str, dict[str, Any]]:
    """1 and 2: GET a Record (cold: each key once) and its 304, against the bare route."""
    count = min(GET_KEYS, bench.records - GET_WARMUP)
    keys = distinct_items(bench.records, GET_WARMUP + count, seed=21)
    log(f"get_record: rendering {len(keys)} answers with a cache-less Keeper for the bare route")
    for key in keys:
        path = f"/kinds/{KIND}/records/{key}"
        response = expect(bench.client.get(bench.renderer(path)), 200)
        bench.answers.records[key] = Canned.of(response)
    client, store = bench.client, bench.store

    def keeper(index: int) -> object:
        response = client.get(bench.keeper(f"/kinds/{KIND}/records/{keys[index]}"))
        if expect(response, 200).content != bench.answers.records[keys[index]].body:
            raise RuntimeError(f"Keeper and the renderer answered {keys[index]} differently")
        return response

    def bare(index: int) -> object:
        return expect(client.get(bench.bare(f"/kinds/{KIND}/records/{keys[index]}")), 200)

    def fastapi(index: int) -> object:
        return expect(client.get(bench.fastapi(f"/kinds/{KIND}/records/{keys[index]}")), 200)

    def store_side(index: int) -> object:
        with store.reader(DOMAIN) as reader:
            found = reader.get_record(KIND, keys[index])
        if found is None:
            raise RuntimeError(f"{keys[index]} is missing")
        return found

    sides = {"keeper": keeper, "bare": bare, "fastapi": fastapi, "store": store_side}
    log(f"get_record: {count} distinct keys (+{GET_WARMUP} warm-up), interleaved")
    results = {"get_record": figure("get_record", interleaved(sides, count, GET_WARMUP), "bare")}

    repeats = min(NOT_MODIFIED, len(keys))

    def keeper_304(index: int) -> object:
        key = keys[index % len(keys)]
        etag = bench.answers.records[key].headers["etag"]
        path = f"/kinds/{KIND}/records/{key}"
        return expect(client.get(bench.keeper(path), headers={"if-none-match": etag}), 304)

    def bare_200(index: int) -> object:
        return bare(index % len(keys))

    def fastapi_200(index: int) -> object:
        return fastapi(index % len(keys))

    def store_view(_index: int) -> object:
        with store.reader(DOMAIN) as reader:
            return reader.revision

    sides = {"keeper": keeper_304, "bare": bare_200, "fastapi": fastapi_200, "store": store_view}
    log(f"not_modified: {repeats} requests with If-None-Match (+{GET_WARMUP} warm-up)")
    samples = interleaved(sides, repeats, GET_WARMUP)
    results["not_modified"] = figure("not_modified", samples, "bare")
    return results


def query_document(threshold: int) -> dict[str, Any]:
    return {
        "kind": KIND,
        "where": {"attr": "quantity", "op": "gte", "value": threshold},
        "aggregate": {
            "group_by": "status",
            "metrics": {"priced": {"count": "price"}, "avg_price": {"avg": "price"}},
        },
    }


def encoded(document: dict[str, Any]) -> bytes:
    return json.dumps(document, separators=(",", ":")).encode()


def bench_query(bench: Bench) -> dict[str, Any]:
    """3: an aggregate over every Item, a distinct threshold per request, against its SQL."""
    total = QUERY_WARMUP + QUERIES
    thresholds = [round(index * 9000 / total) + 7 for index in range(total)]  # all distinct
    documents = [query_document(threshold) for threshold in thresholds]
    bodies = [encoded(document) for document in documents]
    engine, store, client = bench.store.engine, bench.store, bench.client
    limits = bench.settings.read.query
    with store.reader(DOMAIN) as reader:
        view, schema = reader.view, reader.schema
        parsed = [
            parse_query(
                document,
                schema,
                bench.scope,
                default_limit=limits.default_limit,
                max_limit=limits.max_limit,
                max_predicates=limits.max_predicates,
                max_hops=limits.max_hops,
                max_string_length=limits.max_string_length,
                max_in_values=limits.max_in_values,
                max_metrics=limits.max_metrics,
            )
            for document in documents
        ]
        statements = [query_sql(reader.connection, view, schema, q, bench.scope) for q in parsed]

    def keeper(index: int) -> object:
        response = client.post(bench.keeper("/query"), content=bodies[index], headers=JSON_TYPE)
        return expect(response, 200)

    def raw_sql(index: int) -> object:
        sql, parameters = statements[index]
        with engine.connect() as connection:
            return connection.exec_driver_sql(sql, parameters).all()  # type: ignore[arg-type]

    def store_side(index: int) -> object:
        with store.reader(DOMAIN) as reader:
            return reader.query(parsed[index], bench.scope)

    create_plain_table(engine)
    plain_sql = (
        "SELECT status, count(*), count(price), sum(price), count(price) FROM plain_items"
        f" WHERE quantity >= {'?' if engine.dialect.name == 'sqlite' else '%(t)s'}"
        " GROUP BY status ORDER BY status"
    )

    def plain(index: int) -> list[Any]:
        parameters: Any = (
            (thresholds[index],) if engine.dialect.name == "sqlite" else {"t": thresholds[index]}
        )
        with engine.connect() as connection:
            return list(connection.exec_driver_sql(plain_sql, parameters).all())

    groups = len(raw_sql(0))
    if len(plain(0)) != groups:
        raise RuntimeError("the plain table's aggregate and the query's SQL disagree")
    answer = client.post(bench.renderer("/query"), content=bodies[0], headers=JSON_TYPE)
    expect(answer, 200)
    if len(answer.json()["groups"]) != groups:
        raise RuntimeError("the query's SQL and Keeper's answer disagree")
    log(f"query: {QUERIES} distinct aggregates (+{QUERY_WARMUP} warm-up), {groups} groups each")
    sides = {"keeper": keeper, "sql": raw_sql, "store": store_side, "plain": plain}
    samples = interleaved(sides, QUERIES, QUERY_WARMUP)
    result = figure("query", samples, "sql")
    result["answer_bytes"] = len(answer.content)
    return {
        "query": result,
        "query_vs_plain_table": figure("query_vs_plain_table", samples, "plain"),
    }


def create_plain_table(engine: sa.Engine) -> None:
    """`plain_items`: the Items of the default branch's head in a plain table of typed columns,
    an index on each (the baseline of `query_vs_plain_table`), analyzed like any table."""
    sqlite = engine.dialect.name == "sqlite"

    def value(name: str) -> str:
        return f"json_extract(values_json, '$.{name}')" if sqlite else f"(values_json ->> '{name}')"

    numbers = (
        f"CAST({value('quantity')} AS INTEGER), CAST(REPLACE({value('price')}, '.', '') AS INTEGER)"
        if sqlite
        else f"CAST({value('quantity')} AS BIGINT), CAST({value('price')} AS NUMERIC(10,2))"
    )
    released = value("released") if sqlite else f"CAST({value('released')} AS DATE)"
    with engine.begin() as connection:
        connection.exec_driver_sql(
            "CREATE TABLE plain_items (item_code TEXT PRIMARY KEY, name TEXT, "
            f"quantity {'INTEGER' if sqlite else 'BIGINT'}, "
            f"price {'INTEGER' if sqlite else 'NUMERIC(10,2)'}, "
            f"released {'TEXT' if sqlite else 'DATE'}, status TEXT)"
        )
        connection.exec_driver_sql(
            "INSERT INTO plain_items SELECT record_key, "
            f"{value('name')}, {numbers}, {released}, {value('status')} FROM records "
            f"WHERE kind = '{KIND}' AND to_seq IS NULL AND deleted = {'0' if sqlite else 'false'}"
        )
        for column in ("name", "quantity", "price", "released", "status"):
            connection.exec_driver_sql(
                f"CREATE INDEX ix_plain_items_{column} ON plain_items ({column})"
            )
        connection.exec_driver_sql("ANALYZE plain_items")


def bench_graph(bench: Bench) -> dict[str, dict[str, Any]]:
    """4 and 5: a 2-hop traversal and a depth-2 neighborhood, against their raw statements."""
    engine, store, client = bench.store.engine, bench.store, bench.client
    settings = bench.settings
    view = store.view(DOMAIN)
    chain = view.segments
    with store.reader(DOMAIN) as reader:
        schema = reader.schema
    starts = distinct_items(bench.records, GRAPH_WARMUP + TRAVERSALS, seed=31)
    seeds = distinct_items(bench.records, GRAPH_WARMUP + NEIGHBORHOODS, seed=41)
    traversals = [{"start": [f"{KIND}/{key}"], "path": ["uses", "uses"]} for key in starts]
    walks = [{"refs": [f"{KIND}/{key}"], "depth": 2} for key in seeds]
    traverse_bodies = [encoded(document) for document in traversals]
    walk_bodies = [encoded(document) for document in walks]
    traverse_requests = [
        parse_traverse(
            document,
            schema,
            bench.scope,
            max_hops=settings.read.traverse.max_hops,
            max_results=settings.read.traverse.max_results,
        )
        for document in traversals
    ]
    walk_requests = [
        parse_neighborhood(
            document, schema, bench.scope, max_depth=settings.read.neighborhood.max_depth
        )
        for document in walks
    ]
    walk_sql = NeighborhoodSql(chain, sorted(schema.relations))
    max_fanout = settings.store.traverse.max_fanout
    limits = settings.read.neighborhood

    def keeper_traverse(index: int) -> object:
        body = traverse_bodies[index]
        return expect(client.post(bench.keeper("/traverse"), content=body, headers=JSON_TYPE), 200)

    def sql_traverse(index: int) -> object:
        with engine.connect() as connection:
            return traverse_sql(connection, chain, starts[index], "uses", 2)

    def store_traverse(index: int) -> object:
        with store.reader(DOMAIN) as reader:
            return reader.traverse(traverse_requests[index], bench.scope, max_fanout=max_fanout)

    def keeper_walk(index: int) -> object:
        body = walk_bodies[index]
        response = client.post(bench.keeper("/neighborhood"), content=body, headers=JSON_TYPE)
        return expect(response, 200)

    def sql_walk(index: int) -> object:
        with engine.connect() as connection:
            return walk_sql.run(connection, seeds[index], 2)

    def store_walk(index: int) -> object:
        with store.reader(DOMAIN) as reader:
            return reader.neighborhood(
                walk_requests[index],
                bench.scope,
                max_records=limits.max_records,
                max_links=limits.max_links,
                max_fanout=max_fanout,
            )

    shapes = check_graph_baselines(bench, starts, seeds, sql_traverse, sql_walk)
    log(f"traverse: {TRAVERSALS} starts (+{GRAPH_WARMUP} warm-up), {shapes['traverse']}")
    sides = {"keeper": keeper_traverse, "sql": sql_traverse, "store": store_traverse}
    results = {"traverse": figure("traverse", interleaved(sides, TRAVERSALS, GRAPH_WARMUP), "sql")}
    log(f"neighborhood: {NEIGHBORHOODS} seeds (+{GRAPH_WARMUP} warm-up), {shapes['neighborhood']}")
    sides = {"keeper": keeper_walk, "sql": sql_walk, "store": store_walk}
    samples = interleaved(sides, NEIGHBORHOODS, GRAPH_WARMUP)
    results["neighborhood"] = figure("neighborhood", samples, "sql")
    for name, shape in shapes.items():
        results[name]["answer_shape"] = shape
    return results


def check_graph_baselines(
    bench: Bench,
    starts: list[str],
    seeds: list[str],
    sql_traverse: Side,
    sql_walk: Side,
) -> dict[str, str]:
    """The raw statements find what Keeper answers (on a sample), with no cap cutting it."""
    ends, records, links, sizes = [], [], [], []
    for index in range(0, len(starts), max(1, len(starts) // 20)):
        document = {"start": [f"{KIND}/{starts[index]}"], "path": ["uses", "uses"]}
        answer = expect(bench.client.post(bench.renderer("/traverse"), json=document), 200).json()
        if answer["caps"] or len(answer["records"]) != sql_traverse(index):
            raise RuntimeError(f"the traversal's SQL and Keeper disagree from {starts[index]}")
        ends.append(len(answer["records"]))
    for index in range(0, len(seeds), max(1, len(seeds) // 20)):
        document = {"refs": [f"{KIND}/{seeds[index]}"], "depth": 2}
        response = expect(bench.client.post(bench.renderer("/neighborhood"), json=document), 200)
        answer = response.json()
        linked = sum(len(group) for group in answer["links"].values())
        found = (len(answer["seeds"]) + len(answer["neighbors"]), linked)
        if answer["caps"] or found != sql_walk(index):
            raise RuntimeError(f"the neighborhood's SQL and Keeper disagree at {seeds[index]}")
        records.append(found[0])
        links.append(found[1])
        sizes.append(len(response.content))
    return {
        "traverse": f"{statistics.fmean(ends):.1f} Records at the end on average",
        "neighborhood": (
            f"{statistics.fmean(records):.0f} Records and {statistics.fmean(links):.0f} Links, "
            f"{statistics.fmean(sizes) / 1024:.0f} KiB on average"
        ),
    }


def bench_cached(bench: Bench) -> dict[str, dict[str, Any]]:
    """The same query, traversal and neighborhood repeated: Keeper's answer cache serves them."""
    client = bench.client
    requests = {
        "query": encoded(query_document(4321)),
        "traverse": encoded({"start": [f"{KIND}/{item_key(1)}"], "path": ["uses", "uses"]}),
        "neighborhood": encoded({"refs": [f"{KIND}/{item_key(2)}"], "depth": 2}),
    }
    results = {}
    for operation, body in requests.items():
        first = client.post(bench.keeper(f"/{operation}"), content=body, headers=JSON_TYPE)
        bench.answers.posts[(operation, body)] = Canned.of(expect(first, 200))

        def keeper(_index: int, operation: str = operation, body: bytes = body) -> object:
            url = bench.keeper(f"/{operation}")
            response = expect(client.post(url, content=body, headers=JSON_TYPE), 200)
            return response

        def bare(_index: int, operation: str = operation, body: bytes = body) -> object:
            url = bench.bare(f"/{operation}")
            return expect(client.post(url, content=body, headers=JSON_TYPE), 200)

        def fastapi(_index: int, operation: str = operation, body: bytes = body) -> object:
            url = bench.fastapi(f"/{operation}")
            return expect(client.post(url, content=body, headers=JSON_TYPE), 200)

        log(f"cached {operation}: {CACHED} repeats (+{CACHED_WARMUP} warm-up), interleaved")
        sides = {"keeper": keeper, "bare": bare, "fastapi": fastapi}
        samples = interleaved(sides, CACHED, CACHED_WARMUP)
        results[f"cached_{operation}"] = figure(f"cached_{operation}", samples, "bare")
        results[f"cached_{operation}"]["answer_bytes"] = len(first.content)
    return results


PHASES: dict[str, Callable[[Bench], dict[str, Any]]] = {
    "get_record": bench_get_record,
    "query": bench_query,
    "graph": bench_graph,
    "cached": bench_cached,
}


def prepare(options: Options, workdir: Path, url: str) -> tuple[Store, str, dict[str, Any]]:
    """Generate and import the Domain into a fresh store; an admin key; the import's figures."""
    log(f"generating {options.records} Items and their Links")
    dataset = write_dataset(workdir / "data", options.records, links=True, origin="bench/reads")
    store = Store.open(url)
    log("importing them")
    started = time.perf_counter()
    imported = import_directory(store, dataset)
    seconds = time.perf_counter() - started
    store.ensure_principal(PRINCIPAL)
    store.add_grant(PRINCIPAL, domain=DOMAIN, role="admin")
    secret = store.create_key(PRINCIPAL, description="bench/reads").secret
    info = {"records": options.records, "changes": imported.changes, "import_s": round(seconds, 1)}
    log(f"imported {imported.changes} Records and Links in {seconds:.1f} s")
    return store, secret, info


@contextmanager
def running(
    options: Options, store: Store, secret: str, profiler: cProfile.Profile | None = None
) -> Iterator[Bench]:
    """Keeper, the cache-less Keeper that renders the bare route's answers, and the bare app.

    With a `profiler`, Keeper's event loop runs under it.
    """
    settings = Settings(keeper={"auth": {"mode": "api_key"}, "rate_limits": {"enabled": False}})
    renderer = Settings(
        keeper={
            "auth": {"mode": "api_key"},
            "cache": {"max_entries": 0},
            "rate_limits": {"enabled": False},
        }
    )
    answers = BareAnswers()
    headers = {"authorization": f"Bearer {secret}"}
    with (
        serve_in_thread(create_app(settings, store=store), "keeper", profiler) as keeper_url,
        serve_in_thread(create_app(renderer, store=store), "renderer") as renderer_url,
        serve_in_thread(bare_app(answers), "bare") as bare_url,
        serve_in_thread(fastapi_app(answers), "fastapi") as fastapi_url,
        httpx.Client(headers=headers, timeout=120) as client,
    ):
        yield Bench(
            store,
            keeper_url,
            bare_url,
            fastapi_url,
            renderer_url,
            answers,
            client,
            options.records,
            settings,
        )


def measure(options: Options, workdir: Path, url: str) -> dict[str, Any]:
    store, secret, data = prepare(options, workdir, url)
    results: dict[str, Any] = {}
    try:
        with running(options, store, secret) as bench:
            for phase in PHASES.values():
                results.update(phase(bench))
    finally:
        store.close()
    return {"data": data, "results": {name: results[name] for name in FIGURES}}


def run(options: Options) -> dict[str, Any]:
    started = time.perf_counter()
    with workspace(options.backend, options.dsn) as (workdir, databases):
        url = databases.new_url("reads")
        machine = machine_info(options.backend, url)
        log(f"code: {machine['git_commit']}")
        measured = measure(options, workdir, url)
    if git_commit() != machine["git_commit"]:
        machine["git_commit_at_end"] = git_commit()
        log(f"WARNING: the code changed during the run ({machine['git_commit_at_end']})")
    machine["load_average_at_end"] = [round(load, 2) for load in os.getloadavg()]
    results = measured["results"]
    return {
        "benchmark": "reads",
        "backend": options.backend,
        "records": options.records,
        "links_per_item": {"uses": list(USES), "replaces": list(REPLACES)},
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "duration_s": round(time.perf_counter() - started, 1),
        "machine": machine,
        "data": measured["data"],
        "results": results,
        "passed": all(results[name]["pass"] for name in TARGETS),
    }


def print_report(report: dict[str, Any]) -> None:
    results = report["results"]
    print(f"reads benchmark, {report['backend']}, N={report['records']} Items (p50 and p99 in us)")
    print(
        f"{'figure':<20}{'Keeper p50':>10}{'p99':>7}{'req/s':>6} | {'baseline':>8}{'p50':>7}"
        f"{'p99':>7}{'req/s':>6} | {'FastAPI':>7} {'store':>6} | {'ratio':>10}  target"
    )
    for name in FIGURES:
        row = results[name]
        keeper, base = row["keeper"], row[row["baseline_kind"]]
        floor = f"{row['fastapi']['p50_us']:>7.0f}" if "fastapi" in row else f"{'':>7}"
        store = f"{row['store']['p50_us']:>6.0f}" if "store" in row else f"{'':>6}"
        if "target" in row:
            measure = row["target"]["compares"]
            sign = ">=" if measure == "rps_ratio" else "<="
            label = "req/s" if measure == "rps_ratio" else "p50"
            verdict = "pass" if row["pass"] else "MISS"
            ratio = f"{label} {row[measure]:.2f}"
            target = f"{sign} {row['target']['value']:.2f} {verdict}"
        else:
            ratio, target = f"req/s {row['rps_ratio']:.2f}", "(reported)"
        print(
            f"{name:<20}{keeper['p50_us']:>10.0f}{keeper['p99_us']:>7.0f}{keeper['rps']:>6.0f}"
            f" | {row['baseline_kind']:>8}{base['p50_us']:>7.0f}{base['p99_us']:>7.0f}"
            f"{base['rps']:>6.0f} | {floor} {store} | {ratio:>10}  {target}"
        )
    print("where Keeper's p50 goes (us):")
    for name in ("query", "traverse", "neighborhood"):
        row = results[name]
        if name == "query":
            print(f"  query: the plain table's aggregate {row['plain']['p50_us']:>7.0f}")
        sql, store, keeper = (row[side]["p50_us"] for side in ("sql", "store", "keeper"))
        print(
            f"  {name:<13} SQL {sql:>7.0f} + store {store - sql:>6.0f}"
            f" + HTTP and Keeper {keeper - store:>6.0f} = {keeper:>7.0f}"
        )
    print(f"took {report['duration_s']} s; {'all targets met' if report['passed'] else 'MISSED'}")


# -- profiling -------------------------------------------------------------------------------
def profile(options: Options, top: int = 30) -> None:
    """cProfile of Keeper during one phase: its event loop's thread and its route handlers.

    FastAPI runs the (sync) route handlers in worker threads through `run_in_threadpool`; the
    benchmark wraps that function so that a second profiler runs around each handler call of
    Keeper (not of the renderer). cProfile counts each resumption of a coroutine as a call.
    """
    import fastapi.routing

    loop, handlers = cProfile.Profile(), cProfile.Profile()
    original = fastapi.routing.run_in_threadpool

    async def profiled(function: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        if threading.current_thread().name != "keeper":  # the renderer's handlers
            return await original(function, *args, **kwargs)

        def call() -> Any:
            handlers.enable()
            try:
                return function(*args, **kwargs)
            finally:
                handlers.disable()

        return await original(call)

    fastapi.routing.run_in_threadpool = profiled  # type: ignore[assignment]
    with workspace(options.backend, options.dsn) as (workdir, databases):
        store, secret, _data = prepare(options, workdir, databases.new_url("profile"))
        try:
            with running(options, store, secret, loop) as bench:
                PHASES[options.profile or "get_record"](bench)
        finally:
            store.close()
    for label, profiler in (("event loop (Keeper's uvicorn thread)", loop), ("handlers", handlers)):
        print(f"==== {label}")
        stats = pstats.Stats(profiler, stream=sys.stdout)
        stats.sort_stats("cumulative").print_stats(top)
        stats.sort_stats("tottime").print_stats(top)


def parse_options(argv: list[str] | None) -> Options:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--records", type=int, default=100_000, help="Items to import (N)")
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument(
        "--dsn", help="PostgreSQL DSN (default $LOREBASE_BENCH_POSTGRES_DSN); a private schema"
    )
    parser.add_argument(
        "--out", type=Path, help="JSON file (default results/latest-BACKEND.json here)"
    )
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument(
        "--profile",
        choices=tuple(PHASES),
        help="print a cProfile summary of Keeper's handlers during one phase (no JSON)",
    )
    args = parser.parse_args(argv)
    if args.records < 1000:
        parser.error("--records must be at least 1000")
    out = args.out or HERE / "results" / f"latest-{args.backend}.json"
    return Options(args.records, args.backend, args.dsn, out, args.check, args.profile)


def main(argv: list[str] | None = None) -> int:
    options = parse_options(argv)
    if options.profile:
        profile(options)
        return 0
    report = run(options)
    options.out.parent.mkdir(parents=True, exist_ok=True)
    options.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print_report(report)
    print(f"wrote {options.out}")
    return 1 if options.check and not report["passed"] else 0


if __name__ == "__main__":
    sys.exit(main())
