"""Lorebase against its peers on the same generated data: Datasette over HTTP, DuckDB and Kuzu in process.

One data set, the `bench` Domain of bench/common.py with Links and words (N Items, `uses` and
`replaces` between them, `family` and `notes`), is loaded into Lorebase (`import_directory`, as
bench/reads) and, in a separate environment this script creates (a venv of pinned versions, never
the project's), into a plain SQLite file made with sqlite-utils (what Datasette serves), into
DuckDB and into Kuzu. Every load is timed (`bulk_load`). Then, each figure's sides interleaved
request by request:

- over HTTP: Keeper (uvicorn on 127.0.0.1 in a background thread, auth mode `api_key`, as
  bench/reads) against `datasette serve` on the SQLite file (its own process): point lookup (GET
  a Record vs Datasette's row JSON), 2-hop traversal along `uses` (POST /traverse vs a `?sql=`
  joining the Links twice), filtered group-by (POST /query aggregate vs the same `?sql=`) and
  word search (POST /search vs `?_search=` on the FTS5 table), 20 hits on both sides;
- in process: the store call Keeper makes (a Reader and its method) against the same reads in
  SQLite (stdlib sqlite3 on Datasette's file), DuckDB and Kuzu, timed in the peers' worker
  process (bench/peers/worker.py) one request per command, the pipe outside the time.

A peer that does not install is recorded and left out. Targets: over HTTP, Keeper's p50 no
slower than Datasette's on lookup, 2-hop, aggregate and search (ratio Lorebase / Datasette <= 1).

    .venv/bin/python bench/peers/run.py [--records N] [--check] [--no-install]

Figures go to bench/peers/results/latest.json (bench/README.md, "bench/peers").
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from lorebase_core.access import ReadScope
from lorebase_core.graph_requests import parse_traverse
from lorebase_core.query import parse_query
from lorebase_core.search_request import SearchRequest
from lorebase_keeper.app import create_app
from lorebase_platform.settings import Settings
from lorebase_store import Store, import_directory

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/, for common.py
from common import (
    DOMAIN,
    KIND,
    REPLACES,
    USES,
    git_commit,
    load_reads,
    log,
    machine_info,
    vocabulary,
    workspace,
    write_dataset,
)

reads = load_reads()

HERE = Path(__file__).resolve().parent
WORKER = HERE / "worker.py"
PRINCIPAL = "usr_bench"
API = f"/api/v1/domains/{DOMAIN}"
JSON_TYPE = {"content-type": "application/json"}
DEFAULT_VENV = Path.home() / ".cache" / "lorebase" / "bench-peers" / "venv"
PINS: dict[str, tuple[str, ...]] = {
    "datasette": ("datasette==0.65.5", "sqlite-utils==4.2.1"),
    "duckdb": ("duckdb==2.0.0",),
    "kuzu": ("kuzu==0.11.3",),
}
"""What the peers venv installs, one group at a time (a group that fails is left out)."""
ENGINES = {"sqlite": "datasette", "duckdb": "duckdb", "kuzu": "kuzu"}
"""The worker's engines and the install group each needs (the SQLite file needs sqlite-utils)."""
DATASETTE_DB = "peers"
"""Datasette names the database after the file: peers.sqlite is served at /peers."""
DATASETTE_SETTINGS = {
    "suggest_facets": "off",
    "sql_time_limit_ms": "10000",
    "default_page_size": "20",
}
SEARCH_LIMIT = 20

COUNTS = {"lookup": (1500, 100), "two_hop": (400, 20), "aggregate": (40, 5), "search": (300, 10)}
"""Measured requests and uncounted warm-up requests per figure (each request a distinct key,
start, threshold or word, so that Keeper's answer cache never serves one)."""
FIGURES = tuple(COUNTS)
TARGET = 1.0
"""Over HTTP, Keeper's p50 over Datasette's p50, at most."""

DATASETTE_SQL = {
    "two_hop": (
        'SELECT DISTINCT c.* FROM links a JOIN links b ON b."from" = a."to"'
        " AND b.relation = 'uses' JOIN items c ON c.item_code = b.\"to\""
        " WHERE a.\"from\" = :k AND a.relation = 'uses'"
    ),
    "aggregate": (
        "SELECT status, count(price) AS priced, avg(price) AS avg_price FROM items"
        " WHERE quantity >= :k GROUP BY status ORDER BY status"
    ),
}
"""The `?sql=` queries (the worker runs the same statements with `?` in SQLite and DuckDB)."""


# -- measuring -------------------------------------------------------------------------------
def summary(samples_ns: list[int]) -> dict[str, float]:
    ordered = sorted(samples_ns)

    def at(fraction: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(len(ordered) * fraction))] / 1000, 1)

    return {
        "n": len(ordered),
        "p50_us": round(statistics.median(ordered) / 1000, 1),
        "p95_us": at(0.95),
        "mean_us": round(statistics.fmean(ordered) / 1000, 1),
    }


def ratios(sides: dict[str, dict[str, float]], ours: str, peer: str) -> dict[str, float]:
    """Our time over the peer's (above 1: Lorebase is slower)."""
    return {
        f"{percentile}_ratio": round(
            sides[ours][f"{percentile}_us"] / sides[peer][f"{percentile}_us"], 2
        )
        for percentile in ("p50", "p95")
    }


Timed = Callable[[int], int]
"""One in-process side: does request `i` and returns its time in ns, measured where it ran."""


def interleaved_timed(sides: dict[str, Timed], count: int, warmup: int) -> dict[str, list[int]]:
    """`reads.interleaved` for sides that time themselves (the worker's, across a pipe)."""
    samples: dict[str, list[int]] = {name: [] for name in sides}
    order = list(sides)
    for index in range(warmup + count):
        order = order[1:] + order[:1]
        for name in order:
            elapsed = sides[name](index)
            if index >= warmup:
                samples[name].append(elapsed)
    return samples


def timed(call: Callable[[], object]) -> int:
    started = time.perf_counter_ns()
    call()
    return time.perf_counter_ns() - started


# -- the peers' environment and worker -------------------------------------------------------
def peers_env(venv: Path, install: bool) -> tuple[Path, dict[str, Any]]:
    """The peers venv's Python (created and filled when `install`) and what each group did."""
    python = venv / "bin" / "python"
    env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never"}
    env.setdefault("UV_SYSTEM_CERTS", "1")
    uv = shutil.which("uv")
    report: dict[str, Any] = {"venv": str(venv), "installer": "uv" if uv else "pip"}
    if not install:
        report["install"] = "skipped (--no-install)"
        return python, report
    if not python.exists():
        log(f"creating the peers venv {venv}")
        venv.parent.mkdir(parents=True, exist_ok=True)
        base = str(Path(sys.base_prefix) / "bin" / "python3")
        command = [uv, "venv", "-q", "--python", base, str(venv)] if uv else [base, "-m", "venv"]
        subprocess.run(command if uv else [*command, str(venv)], check=True, env=env)
    groups: dict[str, str] = {}
    for group, pins in PINS.items():
        if uv:
            command = [uv, "pip", "install", "-q", "--python", str(python), *pins]
        else:
            command = [str(python), "-m", "pip", "install", "-q", *pins]
        log(f"installing {' '.join(pins)} into the peers venv")
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
        groups[group] = "ok" if done.returncode == 0 else f"failed: {done.stderr.strip()[-400:]}"
        if done.returncode:
            log(f"WARNING: {group} did not install; it is left out")
    report["install"] = groups
    return python, report


class Worker:
    """bench/peers/worker.py in the peers venv: one JSON command a line, one answer a line."""

    def __init__(self, python: Path) -> None:
        self.process = subprocess.Popen(
            [str(python), str(WORKER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )

    def call(self, cmd: str, **arguments: Any) -> dict[str, Any]:
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.process.stdin.write(json.dumps({"cmd": cmd, **arguments}) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the peers' worker stopped (exit {self.process.poll()})")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def run(self, engine: str, figure: str, arg: Any) -> dict[str, Any]:
        answer = self.call("run", engine=engine, figure=figure, arg=arg)
        if "error" in answer:
            raise RuntimeError(f"{engine} {figure} {arg!r}: {answer['error']}")
        return answer

    def close(self) -> None:
        try:
            self.call("quit")
        finally:
            self.process.wait(timeout=60)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def datasette(python: Path, database: Path, log_file: Path) -> Iterator[str]:
    """`datasette serve` on a free loopback port (its own process); yields its URL."""
    port = free_port()
    command = [str(python), "-m", "datasette", "serve", str(database), "-h", "127.0.0.1"]
    command += ["-p", str(port)]
    for name, value in DATASETTE_SETTINGS.items():
        command += ["--setting", name, value]
    url = f"http://127.0.0.1:{port}"
    with log_file.open("w") as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    if httpx.get(f"{url}/-/versions.json", timeout=5).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"datasette did not start: {log_file.read_text()[-800:]}")
                time.sleep(0.2)
            yield url
        finally:
            process.terminate()
            process.wait(timeout=30)


# -- the run ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Options:
    records: int
    out: Path
    check: bool
    venv: Path
    install: bool


@dataclass(frozen=True)
class Requests:
    """The distinct arguments of each figure: keys, starts, thresholds, words."""

    arguments: dict[str, list[Any]]

    @classmethod
    def make(cls, records: int) -> Requests:
        def keys(figure: str, seed: int) -> list[str]:
            count, warmup = COUNTS[figure]
            return reads.distinct_items(records, count + warmup, seed=seed)  # type: ignore[no-any-return]

        total = sum(COUNTS["aggregate"])
        thresholds = [round(index * 9000 / total) + 7 for index in range(total)]
        words = vocabulary()
        rng = random.Random(83)
        return cls(
            {
                "lookup": keys("lookup", 81),
                "two_hop": keys("two_hop", 82),
                "aggregate": thresholds,
                "search": rng.sample(words, sum(COUNTS["search"])),
            }
        )


@dataclass
class Lorebase:
    """The store, the Keeper it serves and the parsed requests of its in-process side."""

    store: Store
    settings: Settings
    scope: ReadScope
    secret: str

    def parsed(self, figure: str, argument: Any) -> Any:
        """The request Keeper's route would parse for `figure` (for the store side)."""
        with self.store.reader(DOMAIN) as reader:
            schema = reader.schema
        if figure == "two_hop":
            limits = self.settings.read.traverse
            return parse_traverse(
                traverse_document(argument),
                schema,
                self.scope,
                max_hops=limits.max_hops,
                max_results=limits.max_results,
            )
        if figure == "aggregate":
            query = self.settings.read.query
            return parse_query(
                reads.query_document(argument),
                schema,
                self.scope,
                default_limit=query.default_limit,
                max_limit=query.max_limit,
                max_predicates=query.max_predicates,
                max_hops=query.max_hops,
                max_string_length=query.max_string_length,
                max_in_values=query.max_in_values,
                max_metrics=query.max_metrics,
            )
        if figure == "search":
            return SearchRequest(q=argument, kinds=(KIND,), limit=SEARCH_LIMIT)
        return argument

    def call(self, figure: str, request: Any) -> object:
        """The store call Keeper makes for one request."""
        with self.store.reader(DOMAIN) as reader:
            if figure == "lookup":
                found = reader.get_record(KIND, request)
                if found is None:
                    raise RuntimeError(f"{request} is missing")
                return found
            if figure == "two_hop":
                fanout = self.settings.store.traverse.max_fanout
                return reader.traverse(request, self.scope, max_fanout=fanout)
            if figure == "aggregate":
                return reader.query(request, self.scope)
            minimum = self.settings.read.search.min_similarity
            return reader.search(request, self.scope, min_similarity=minimum)


def traverse_document(key: str) -> dict[str, Any]:
    return {"start": [f"{KIND}/{key}"], "path": ["uses", "uses"]}


def search_document(word: str) -> dict[str, Any]:
    return {"q": word, "kinds": [KIND], "limit": SEARCH_LIMIT}


def load_lorebase(url: str, dataset: Path) -> tuple[Lorebase, dict[str, Any]]:
    store = Store.open(url)
    log("bulk load: Lorebase import_directory")
    started = time.perf_counter()
    imported = import_directory(store, dataset)
    seconds = time.perf_counter() - started
    log(f"imported {imported.changes} Records and Links in {seconds:.1f} s")
    store.ensure_principal(PRINCIPAL)
    store.add_grant(PRINCIPAL, domain=DOMAIN, role="admin")
    secret = store.create_key(PRINCIPAL, description="bench/peers").secret
    settings = Settings(keeper={"auth": {"mode": "api_key"}, "rate_limits": {"enabled": False}})
    lorebase = Lorebase(store, settings, ReadScope.everything(), secret)
    what = "import_directory: Records, Links, versions, search index"
    return lorebase, {"seconds": round(seconds, 2), "changes": imported.changes, "what": what}


def load_peers(worker: Worker, workdir: Path, engines: list[str]) -> dict[str, Any]:
    """Each engine's bulk load from the same CSV files (an engine that fails is dropped)."""
    data = workdir / "data" / "data"
    loads: dict[str, Any] = {}
    for engine in list(engines):
        log(f"bulk load: {engine}")
        path = workdir / ("peers.sqlite" if engine == "sqlite" else f"peers.{engine}")
        answer = worker.call("load", engine=engine, data=str(data), path=str(path))
        if "error" in answer:
            log(f"WARNING: {engine} did not load ({answer['error']}); it is left out")
            engines.remove(engine)
        else:
            log(f"{engine} loaded in {answer['seconds']} s")
        loads[engine] = answer
    return loads


class Http:
    """Keeper and Datasette behind one keep-alive client; each side's request and check."""

    def __init__(self, client: httpx.Client, keeper_url: str, datasette_url: str, secret: str):
        self.client = client
        self.keeper_url = keeper_url
        self.datasette_url = datasette_url
        self.auth = {"authorization": f"Bearer {secret}"}

    def keeper(self, figure: str, argument: Any) -> httpx.Response:
        client, base = self.client, f"{self.keeper_url}{API}"
        if figure == "lookup":
            response = client.get(f"{base}/kinds/{KIND}/records/{argument}", headers=self.auth)
        else:
            path, document = {
                "two_hop": ("/traverse", traverse_document),
                "aggregate": ("/query", reads.query_document),
                "search": ("/search", search_document),
            }[figure]
            body = reads.encoded(document(argument))
            headers = {**self.auth, **JSON_TYPE}
            response = client.post(f"{base}{path}", content=body, headers=headers)
        return reads.expect(response, 200)  # type: ignore[no-any-return]

    def datasette(self, figure: str, argument: Any) -> httpx.Response:
        base = f"{self.datasette_url}/{DATASETTE_DB}"
        if figure == "lookup":
            response = self.client.get(f"{base}/items/{argument}.json")
        elif figure == "search":
            parameters = {
                "_search": argument,
                "_size": str(SEARCH_LIMIT),
                "_nocount": "1",
                "_nofacet": "1",
                "_nosuggest": "1",
            }
            response = self.client.get(f"{base}/items.json", params=parameters)
        else:
            parameters = {"sql": DATASETTE_SQL[figure], "k": str(argument)}
            response = self.client.get(f"{base}.json", params=parameters)
        return reads.expect(response, 200)  # type: ignore[no-any-return]

    def answers(self, figure: str, argument: Any) -> tuple[Any, Any]:
        """What both sides found, in a form to compare: row counts or the aggregate's groups."""
        answer = self.keeper(figure, argument)
        keeper = answer.json()
        rows = self.datasette(figure, argument).json()["rows"]
        if figure == "lookup":  # the Item's key and name, in Keeper's answer and Datasette's row
            found = [value for value in rows[0][:2] if json.dumps(value) in answer.text]
            return found, rows[0][:2]
        if figure == "two_hop":
            if keeper.get("caps"):
                raise RuntimeError(f"the traversal from {argument} was capped: {keeper['caps']}")
            return len(keeper["records"]), len(rows)
        if figure == "aggregate":
            groups = sorted((group["key"], group["priced"]) for group in keeper["groups"])
            return groups, sorted((row[0], row[1]) for row in rows)
        return len(keeper["hits"]), len(rows)


def check_http(http: Http, requests: Requests) -> dict[str, Any]:
    """On a sample of each figure's requests both sides find the same (else the run stops)."""
    shapes: dict[str, Any] = {}
    for figure in FIGURES:
        arguments = requests.arguments[figure]
        found = []
        for argument in arguments[:: max(1, len(arguments) // 10)]:
            ours, theirs = http.answers(figure, argument)
            if ours != theirs:
                raise RuntimeError(f"{figure} {argument!r}: Keeper {ours!r}, Datasette {theirs!r}")
            found.append(ours)
        if figure in ("two_hop", "search"):
            if figure == "search" and min(found) == 0:
                raise RuntimeError("a sampled search found nothing")
            shapes[figure] = (
                f"{statistics.fmean(found):.1f} rows on average (sample of {len(found)})"
            )
        elif figure == "aggregate":
            shapes[figure] = f"{len(found[0])} groups, same counts (sample of {len(found)})"
        else:
            shapes[figure] = f"same key and name (sample of {len(found)})"
    return shapes


def bench_http(http: Http, requests: Requests) -> dict[str, Any]:
    results: dict[str, Any] = {}
    shapes = check_http(http, requests)
    for figure in FIGURES:
        arguments = requests.arguments[figure]
        count, warmup = COUNTS[figure]

        def keeper(index: int, figure: str = figure, arguments: list[Any] = arguments) -> object:
            return http.keeper(figure, arguments[index])

        def peer(index: int, figure: str = figure, arguments: list[Any] = arguments) -> object:
            return http.datasette(figure, arguments[index])

        log(f"http {figure}: {count} requests (+{warmup} warm-up), Keeper and Datasette")
        samples = reads.interleaved({"lorebase": keeper, "datasette": peer}, count, warmup)
        sides = {side: summary(found) for side, found in samples.items()}
        row: dict[str, Any] = {**sides, **ratios(sides, "lorebase", "datasette")}
        row["answer_shape"] = shapes[figure]
        row["target"] = {"compares": "p50_ratio", "at_most": TARGET}
        row["pass"] = row["p50_ratio"] <= TARGET
        results[figure] = row
    return results


def bench_in_process(
    lorebase: Lorebase, worker: Worker, engines: list[str], requests: Requests
) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for figure in FIGURES:
        arguments = requests.arguments[figure]
        count, warmup = COUNTS[figure]
        parsed = [lorebase.parsed(figure, argument) for argument in arguments]
        rows: dict[str, list[int]] = {engine: [] for engine in engines}

        def ours(index: int, figure: str = figure, parsed: list[Any] = parsed) -> int:
            return timed(lambda: lorebase.call(figure, parsed[index]))

        sides: dict[str, Timed] = {"lorebase_store": ours}
        for engine in engines:

            def peer(
                index: int,
                engine: str = engine,
                figure: str = figure,
                arguments: list[Any] = arguments,
                rows: dict[str, list[int]] = rows,
            ) -> int:
                answer = worker.run(engine, figure, arguments[index])
                rows[engine].append(answer["rows"])
                return int(answer["ns"])

            sides[engine] = peer
        log(f"in process {figure}: {count} requests (+{warmup} warm-up), {', '.join(sides)}")
        samples = interleaved_timed(sides, count, warmup)
        summaries = {side: summary(found) for side, found in samples.items()}
        row: dict[str, Any] = dict(summaries)
        row["ratios"] = {engine: ratios(summaries, "lorebase_store", engine) for engine in engines}
        if engines:  # the peers found as many rows as each other, request by request
            row["rows_agree"] = all(rows[engine] == rows[engines[0]] for engine in engines)
            row["rows_mean"] = round(statistics.fmean(rows[engines[0]]), 1)
        results[figure] = row
    return results


def run(options: Options) -> dict[str, Any]:
    started = time.perf_counter()
    python, env = peers_env(options.venv, options.install)
    with workspace("sqlite") as (workdir, databases):
        url = databases.new_url("peers")
        machine = machine_info("sqlite", url)
        log(f"code: {machine['git_commit']}; load average {machine['load_average']}")
        log(f"generating {options.records} Items with words, and their Links")
        dataset = write_dataset(
            workdir / "data", options.records, links=True, words=True, origin="bench/peers"
        )
        worker = Worker(python)
        try:
            env["versions"] = versions = worker.call("versions")
            engines = [name for name, group in ENGINES.items() if versions.get(group)]
            if "sqlite" in engines and not versions.get("sqlite-utils"):
                engines.remove("sqlite")
            env["left_out"] = sorted(set(ENGINES) - set(engines))
            lorebase, lorebase_load = load_lorebase(url, dataset)
            try:
                loads = {"lorebase": lorebase_load, **load_peers(worker, workdir, engines)}
                measured = measure(lorebase, python, worker, engines, workdir, options.records)
            finally:
                lorebase.store.close()
        finally:
            worker.close()
    if git_commit() != machine["git_commit"]:
        machine["git_commit_at_end"] = git_commit()
        log(f"WARNING: the code changed during the run ({machine['git_commit_at_end']})")
    machine["load_average_at_end"] = [round(load, 2) for load in os.getloadavg()]
    loads["ratios"] = {
        engine: round(lorebase_load["seconds"] / loads[engine]["seconds"], 1)
        for engine in engines
        if loads[engine].get("seconds")
    }
    http = measured["http"]
    return {
        "benchmark": "peers",
        "backend": "sqlite",
        "records": options.records,
        "links_per_item": {"uses": list(USES), "replaces": list(REPLACES)},
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "duration_s": round(time.perf_counter() - started, 1),
        "machine": machine,
        "peers": env,
        "datasette": {"settings": DATASETTE_SETTINGS, "sql": DATASETTE_SQL},
        "bulk_load": loads,
        "http": http,
        "in_process": measured["in_process"],
        "passed": bool(http) and all(row["pass"] for row in http.values()),
    }


def measure(
    lorebase: Lorebase,
    python: Path,
    worker: Worker,
    engines: list[str],
    workdir: Path,
    records: int,
) -> dict[str, Any]:
    requests = Requests.make(records)
    http: dict[str, Any] = {}
    with (
        reads.serve_in_thread(create_app(lorebase.settings, store=lorebase.store), "keeper") as url,
        httpx.Client(timeout=120) as client,
    ):
        if "sqlite" in engines:
            log("starting datasette serve")
            with datasette(python, workdir / "peers.sqlite", workdir / "datasette.log") as peer:
                http = bench_http(Http(client, url, peer, lorebase.secret), requests)
        else:
            log("WARNING: no Datasette: the HTTP figures are left out")
    return {"http": http, "in_process": bench_in_process(lorebase, worker, engines, requests)}


def print_report(report: dict[str, Any]) -> None:
    versions = report["peers"].get("versions", {})
    shown = ", ".join(f"{name} {versions.get(name)}" for name in ("datasette", "duckdb", "kuzu"))
    print(f"peers benchmark, N={report['records']} Items ({shown}); times in us")
    print("over HTTP (ratio: Lorebase / Datasette, target p50 <= 1.00)")
    print(
        f"{'figure':<11}{'Keeper p50':>11}{'p95':>8} | {'Datasette p50':>13}{'p95':>8} |"
        f" {'ratio p50':>9}{'p95':>6}  target"
    )
    for name, row in report["http"].items():
        ours, theirs = row["lorebase"], row["datasette"]
        verdict = "met" if row["pass"] else "MISSED"
        print(
            f"{name:<11}{ours['p50_us']:>11.0f}{ours['p95_us']:>8.0f} | {theirs['p50_us']:>13.0f}"
            f"{theirs['p95_us']:>8.0f} | {row['p50_ratio']:>9.2f}{row['p95_ratio']:>6.2f}  {verdict}"
        )
    print("in process, not over HTTP (p50 / p95; ratio: Lorebase store / peer at p50)")
    for name, row in report["in_process"].items():
        cells = [
            f"store {row['lorebase_store']['p50_us']:.0f} / {row['lorebase_store']['p95_us']:.0f}"
        ]
        for engine, ratio in row["ratios"].items():
            cells.append(
                f"{engine} {row[engine]['p50_us']:.0f} / {row[engine]['p95_us']:.0f}"
                f" (x{ratio['p50_ratio']:.2f})"
            )
        print(f"  {name:<10} " + "; ".join(cells))
    loads = report["bulk_load"]
    cells = [f"{name} {loads[name]['seconds']} s" for name in loads if name != "ratios"]
    print("bulk load: " + ", ".join(cells) + f"; Lorebase / peer: {loads['ratios']}")
    machine = report["machine"]
    print(f"load average {machine['load_average']} -> {machine['load_average_at_end']}")
    print(f"took {report['duration_s']} s; {'targets met' if report['passed'] else 'MISSED'}")


def parse_options(argv: list[str] | None) -> Options:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--records", type=int, default=100_000, help="Items to load (N)")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "latest.json")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--venv", type=Path, default=DEFAULT_VENV, help="the peers' venv")
    parser.add_argument(
        "--no-install", action="store_true", help="use the peers venv as it is (offline)"
    )
    args = parser.parse_args(argv)
    if args.records < 1000:
        parser.error("--records must be at least 1000")
    return Options(args.records, args.out, args.check, args.venv, not args.no_install)


def main(argv: list[str] | None = None) -> int:
    options = parse_options(argv)
    report = run(options)
    options.out.parent.mkdir(parents=True, exist_ok=True)
    options.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print_report(report)
    print(f"wrote {options.out}")
    return 1 if options.check and not report["passed"] else 0


if __name__ == "__main__":
    sys.exit(main())
