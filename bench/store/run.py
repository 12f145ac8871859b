"""Store benchmark: import, single-record commits and point reads, each against a raw baseline.

Every figure is a ratio to a baseline measured in the same run, on the same database engine with
the same settings (`lorebase_store.engine.create_store_engine`), because machines are noisy:

- import: `import_directory` of a generated CSV of N Records, vs reading the same CSV and
  inserting its rows into a plain table (SQLAlchemy Core executemany, one transaction; the
  median of three runs);
- import memory: tracemalloc peak (Python heap) and maxrss growth of the import
  for N/4 and N Records: the importer streams, so it should not grow with the file;
- commit: `Store.commit` of one upserted Record, vs one INSERT + COMMIT into a plain table;
- read: `Store.get_record` at the head and at the import Revision, vs one indexed SELECT.

Run it from the workspace root (bench/README.md):

    .venv/bin/python bench/store/run.py [--records N] [--backend sqlite|postgresql] [--out FILE]

For PostgreSQL the DSN comes from --dsn or LOREBASE_BENCH_POSTGRES_DSN; the run works in fresh
schemas it drops afterwards. `--profile import|commit|read` prints a cProfile summary of one phase instead.
"""

from __future__ import annotations

import argparse
import cProfile
import csv
import gc
import json
import pstats
import random
import resource
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from lorebase_core.changes import Origin, UpsertRecord
from lorebase_store import CommitRequest, Store, create_store_engine, import_directory

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/, for common.py
from common import (
    DOMAIN,
    KIND,
    Databases,
    git_commit,
    item_key,
    item_row,
    log,
    machine_info,
    workspace,
    write_dataset,
)

RESULTS = Path(__file__).resolve().parent / "results"
TARGETS = {"import": 3.0, "commit": 4.0, "read_head": 2.0, "read_at_import": 3.0}
BASELINE_IMPORTS = 3  # the baseline import is cheap: its median steadies the ratio
COMMITS = 500
COMMIT_WARMUP = 20
NEW_RECORD_EVERY = 5  # every 5th commit creates a Record, the others patch one
READS = 1000
READ_WARMUP = 100
STORE_READS = ("read_head", "read_at_import")


# -- databases -------------------------------------------------------------------------------
def plain_table(metadata: sa.MetaData) -> sa.Table:
    """The baseline's table: the Item's columns, the key as primary key (indexed)."""
    return sa.Table(
        "plain_items",
        metadata,
        sa.Column("item_code", sa.String(32), primary_key=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("quantity", sa.Integer),
        sa.Column("price", sa.String(16)),
        sa.Column("released", sa.String(10)),
        sa.Column("status", sa.String(16)),
    )


def parsed(row: dict[str, str]) -> dict[str, Any]:
    return {**row, "quantity": int(row["quantity"]) if row["quantity"] else None}


# -- measuring -------------------------------------------------------------------------------
def run_in_fresh_process(function: Callable[..., dict[str, Any]], *args: Any) -> dict[str, Any]:
    """`function(*args)` in a new interpreter: its memory high-water mark is its own."""
    with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
        return pool.submit(function, *args).result()


def maxrss_kib() -> int:
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def timed_ns(operation: Callable[[], object]) -> int:
    start = time.perf_counter_ns()
    operation()
    return time.perf_counter_ns() - start


def summary(samples_ns: list[int]) -> dict[str, float]:
    ordered = sorted(samples_ns)
    return {
        "n": len(ordered),
        "p50_us": round(statistics.median(ordered) / 1000, 1),
        "p90_us": round(ordered[int(len(ordered) * 0.9)] / 1000, 1),
        "mean_us": round(statistics.fmean(ordered) / 1000, 1),
    }


def compared(name: str, store: dict[str, float], baseline: dict[str, float]) -> dict[str, Any]:
    ratio = store["p50_us"] / baseline["p50_us"]
    return {
        "store": store,
        "baseline": baseline,
        "ratio": round(ratio, 2),
        "target": TARGETS[name],
        "pass": ratio <= TARGETS[name],
    }


# -- 1. import -------------------------------------------------------------------------------
def database_mib(url: str) -> float:
    """Size of the database after the run: the SQLite file and its WAL, or the schema's tables."""
    if url.startswith("sqlite"):
        path = Path(sa.engine.make_url(url).database or "")
        files = [path, path.with_name(path.name + "-wal")]
        return round(sum(f.stat().st_size for f in files if f.exists()) / 2**20, 1)
    engine = create_store_engine(url)
    query = (
        "select coalesce(sum(pg_total_relation_size(c.oid)), 0) from pg_class c"
        " join pg_namespace n on n.oid = c.relnamespace"
        " where n.nspname = current_schema() and c.relkind = 'r'"
    )
    try:
        with engine.connect() as connection:
            return round(int(connection.exec_driver_sql(query).scalar_one()) / 2**20, 1)
    finally:
        engine.dispose()


def store_import(url: str, directory: str, trace: bool) -> dict[str, Any]:
    """Import `directory` into a fresh store at `url`; run in a fresh process."""
    store = Store.open(url)
    try:
        gc.collect()
        rss_before = maxrss_kib()
        if trace:
            tracemalloc.start()
        start = time.perf_counter_ns()
        result = import_directory(store, Path(directory))
        elapsed = time.perf_counter_ns() - start
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        rss_after = maxrss_kib()
    finally:
        store.close()
    return {
        "seconds": round(elapsed / 1e9, 3),
        "changes": result.changes,
        "revision": result.revisions[0].id,
        "maxrss_delta_mib": round((rss_after - rss_before) / 1024, 1),
        "tracemalloc_peak_mib": round(peak / 2**20, 2) if trace else None,
        "database_mib": database_mib(url),
    }


def baseline_import(url: str, csv_path: str, batch_size: int = 1000) -> dict[str, Any]:
    """Read the CSV and insert its rows into a plain table in one transaction; fresh process."""
    engine = create_store_engine(url)
    metadata = sa.MetaData()
    table = plain_table(metadata)
    metadata.create_all(engine)
    gc.collect()
    rss_before = maxrss_kib()
    start = time.perf_counter_ns()
    rows = 0
    with engine.begin() as connection, open(csv_path, newline="", encoding="utf-8") as handle:
        batch: list[dict[str, Any]] = []
        for row in csv.DictReader(handle):
            batch.append(parsed(row))
            if len(batch) == batch_size:
                connection.execute(table.insert(), batch)
                rows, batch = rows + len(batch), []
        if batch:
            connection.execute(table.insert(), batch)
            rows += len(batch)
    elapsed = time.perf_counter_ns() - start
    engine.dispose()
    return {
        "seconds": round(elapsed / 1e9, 3),
        "rows": rows,
        "maxrss_delta_mib": round((maxrss_kib() - rss_before) / 1024, 1),
        "database_mib": database_mib(url),
    }


def bench_import(
    databases: Databases, store_url: str, base_url: str, dataset: Path
) -> dict[str, Any]:
    """The store's import once, against the median of three baseline imports (cheap, noisy)."""
    csv_path = str(dataset / "data" / f"{KIND}.csv")
    urls = [base_url, *(databases.new_url("plain") for _ in range(BASELINE_IMPORTS - 1))]
    runs = [run_in_fresh_process(baseline_import, url, csv_path) for url in urls]
    baseline = {**runs[0], "seconds": statistics.median(run["seconds"] for run in runs)}
    baseline["runs_s"] = [run["seconds"] for run in runs]
    store = run_in_fresh_process(store_import, store_url, str(dataset), False)
    ratio = store["seconds"] / baseline["seconds"]
    return {
        "store": store,
        "baseline": baseline,
        "ratio": round(ratio, 2),
        "target": TARGETS["import"],
        "pass": ratio <= TARGETS["import"],
    }


def bench_import_memory(
    databases: Databases, datasets: dict[str, Path], full: dict[str, Any], trace: bool
) -> dict[str, Any]:
    """Memory of the import of N/4 and of N Records (`full`: the timed run), fresh processes.

    maxrss includes SQLite's page cache (cache_size, 64 MiB a connection), which fills with the
    database; the tracemalloc peak (unless `--no-trace-memory`) is Python's heap only.
    """
    runs = {
        "quarter": run_in_fresh_process(
            store_import, databases.new_url("quarter"), str(datasets["quarter"]), False
        ),
        "full": full,
    }
    memory: dict[str, Any] = {
        name: {key: run[key] for key in ("changes", "seconds", "maxrss_delta_mib", "database_mib")}
        for name, run in runs.items()
    }
    if trace:
        for name, dataset in datasets.items():
            traced = run_in_fresh_process(
                store_import, databases.new_url(f"trace_{name}"), str(dataset), True
            )
            memory[name]["tracemalloc_peak_mib"] = traced["tracemalloc_peak_mib"]
    return memory


# -- 2. commits ------------------------------------------------------------------------------
@dataclass
class CommitPlan:
    """What each commit does: patch one existing Record, or (every 5th) create a new one."""

    records: int
    rng: random.Random = field(default_factory=lambda: random.Random(11))
    patched: list[str] = field(default_factory=list)
    created: int = 0

    def change(self, index: int) -> UpsertRecord:
        if index % NEW_RECORD_EVERY == NEW_RECORD_EVERY - 1:
            self.created += 1
            number = self.records + self.created
            return UpsertRecord(KIND, item_key(number), item_row(number, self.rng))
        key = item_key(self.rng.randrange(1, self.records + 1))
        self.patched.append(key)
        return UpsertRecord(KIND, key, {"quantity": 10_000 + index})


def store_commit(store: Store, change: UpsertRecord, index: int) -> None:
    request = CommitRequest(
        domain=DOMAIN,
        branch=None,
        author="usr_bench",
        message=f"Benchmark commit {index}",
        origin=Origin("operation", f"bench-{index}"),
    )
    result = store.commit(request, [change])
    if result.revision is None:
        raise RuntimeError(f"commit {index} changed nothing")


def baseline_commit(engine: sa.Engine, table: sa.Table, row: dict[str, Any]) -> None:
    with engine.begin() as connection:
        connection.execute(table.insert(), row)


def bench_commits(store: Store, base: sa.Engine, plan: CommitPlan) -> dict[str, Any]:
    """Store commits and baseline inserts, interleaved so drift hits both alike."""
    table = plain_table(sa.MetaData())
    rng = random.Random(13)
    store_ns: list[int] = []
    base_ns: list[int] = []
    for index in range(COMMIT_WARMUP + COMMITS):
        change = plan.change(index)
        row = parsed({**item_row(index, rng), "item_code": f"X-{index:07d}"})
        store_time = timed_ns(partial(store_commit, store, change, index))
        base_time = timed_ns(partial(baseline_commit, base, table, row))
        if index >= COMMIT_WARMUP:
            store_ns.append(store_time)
            base_ns.append(base_time)
    return compared("commit", summary(store_ns), summary(base_ns))


# -- 3. reads --------------------------------------------------------------------------------
def read_keys(plan: CommitPlan, count: int) -> list[str]:
    """Half of them patched by the commits (so an old read must skip a newer version)."""
    rng = random.Random(17)
    patched = [rng.choice(plan.patched) for _ in range(count // 2)]
    untouched = [item_key(rng.randrange(1, plan.records + 1)) for _ in range(count - len(patched))]
    keys = patched + untouched
    rng.shuffle(keys)
    return keys


def baseline_reader(engine: sa.Engine) -> Callable[[str], object]:
    table = plain_table(sa.MetaData())
    query = sa.select(table).where(table.c.item_code == sa.bindparam("key"))

    def read(key: str) -> object:
        with engine.connect() as connection:
            row = connection.execute(query, {"key": key}).first()
        if row is None:
            raise RuntimeError(f"baseline row {key} is missing")
        return row

    return read


def store_reader(store: Store, at: str | None) -> Callable[[str], object]:
    def read(key: str) -> object:
        with store.reader(DOMAIN, at=at) as reader:
            found = reader.get_record(KIND, key)
        if found is None:
            raise RuntimeError(f"{KIND} {key} is missing at {at or 'the head'}")
        return found

    return read


def bench_reads(store: Store, base: sa.Engine, keys: list[str], revision: str) -> dict[str, Any]:
    readers = {
        "read_head": store_reader(store, None),
        "read_at_import": store_reader(store, revision),
        "baseline": baseline_reader(base),
    }
    samples: dict[str, list[int]] = {name: [] for name in readers}
    order = list(readers)
    for index, key in enumerate(keys[:READ_WARMUP] + keys):
        order = order[1:] + order[:1]  # rotate who goes first
        for name in order:
            elapsed = timed_ns(partial(readers[name], key))
            if index >= READ_WARMUP:
                samples[name].append(elapsed)
    baseline = summary(samples["baseline"])
    return {name: compared(name, summary(samples[name]), baseline) for name in STORE_READS}


# -- the run ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Options:
    records: int
    backend: str
    out: Path
    trace_memory: bool
    profile: str | None
    check: bool
    dsn: str | None = None


def parse_options(argv: list[str] | None) -> Options:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--records", type=int, default=100_000, help="Records to import (N)")
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument(
        "--dsn", help="PostgreSQL DSN (default $LOREBASE_BENCH_POSTGRES_DSN); private schemas"
    )
    parser.add_argument("--out", type=Path, help="JSON file (default results/latest-BACKEND.json)")
    parser.add_argument(
        "--trace-memory",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also import N/4 and N under tracemalloc, ~6x slower (Python heap peak; default on)",
    )
    parser.add_argument(
        "--profile",
        choices=("import", "commit", "read"),
        help="print a cProfile summary of one phase (no JSON); use e.g. --records 20000",
    )
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args(argv)
    if args.records < 100:
        parser.error("--records must be at least 100")
    out = args.out or RESULTS / f"latest-{args.backend}.json"
    return Options(
        args.records, args.backend, out, args.trace_memory, args.profile, args.check, args.dsn
    )


def measure(options: Options, workdir: Path, databases: Databases) -> dict[str, Any]:
    """Every figure, in order: import, import memory, commits, reads."""
    quarter = max(options.records // 4, 1)
    log(f"generating {options.records} and {quarter} rows")
    datasets = {
        "quarter": write_dataset(workdir / "quarter", quarter),
        "full": write_dataset(workdir / "full", options.records),
    }
    store_url, base_url = databases.new_url("store"), databases.new_url("plain")
    machine = machine_info(options.backend, base_url)
    log(f"code: {machine['git_commit']}")
    log("import: baseline, then store")
    results: dict[str, Any] = {
        "import": bench_import(databases, store_url, base_url, datasets["full"])
    }
    log(
        "import memory: N/4"
        + (", then N/4 and N under tracemalloc" if options.trace_memory else "")
    )
    results["import_memory"] = bench_import_memory(
        databases, datasets, results["import"]["store"], options.trace_memory
    )
    plan = CommitPlan(options.records)
    store, base = Store.open(store_url), create_store_engine(base_url)
    try:
        log(f"commits: {COMMITS} (+{COMMIT_WARMUP} warm-up), interleaved with the baseline")
        results["commit"] = bench_commits(store, base, plan)
        log(f"reads: {READS} keys (+{READ_WARMUP} warm-up), interleaved with the baseline")
        revision = results["import"]["store"]["revision"]
        results.update(bench_reads(store, base, read_keys(plan, READS), revision))
    finally:
        store.close()
        base.dispose()
    results["machine"] = machine
    return results


def run(options: Options) -> dict[str, Any]:
    started = time.perf_counter()
    with workspace(options.backend, options.dsn) as (workdir, databases):
        results = measure(options, workdir, databases)
    machine = results.pop("machine")
    checked = [results[name] for name in TARGETS]
    if git_commit() != machine["git_commit"]:
        machine["git_commit_at_end"] = git_commit()
        log(f"WARNING: the code changed during the run ({machine['git_commit_at_end']})")
    return {
        "benchmark": "store",
        "backend": options.backend,
        "records": options.records,
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "duration_s": round(time.perf_counter() - started, 1),
        "machine": machine,
        "results": results,
        "passed": all(result["pass"] for result in checked),
    }


def print_report(report: dict[str, Any]) -> None:
    results = report["results"]
    imported = results["import"]
    print(f"store benchmark, {report['backend']}, N={report['records']}")
    print(f"{'figure':<16}{'store':>14}{'baseline':>14}{'ratio':>8}{'target':>8}  result")
    print(
        f"{'import':<16}{imported['store']['seconds']:>13.2f}s"
        f"{imported['baseline']['seconds']:>13.2f}s"
        f"{imported['ratio']:>8.2f}{imported['target']:>8.1f}  {_verdict(imported)}"
    )
    for name in ("commit", *STORE_READS):
        row = results[name]
        print(
            f"{name:<16}{row['store']['p50_us']:>11.0f} us{row['baseline']['p50_us']:>11.0f} us"
            f"{row['ratio']:>8.2f}{row['target']:>8.1f}  {_verdict(row)}"
        )
    for name, run in results["import_memory"].items():
        traced = run.get("tracemalloc_peak_mib")
        print(
            f"import memory, {run['changes']} Records: maxrss +{run['maxrss_delta_mib']} MiB"
            + (f", tracemalloc peak {traced} MiB" if traced is not None else "")
            + f", database {run['database_mib']} MiB ({name})"
        )
    print(f"took {report['duration_s']} s; {'all targets met' if report['passed'] else 'MISSED'}")


def _verdict(result: dict[str, Any]) -> str:
    return "pass" if result["pass"] else "FAIL"


# -- profiling -------------------------------------------------------------------------------
class StatementCounter:
    """Counts the SQL statements an engine sends, to show how many one operation costs."""

    def __init__(self, engine: sa.Engine) -> None:
        self.count = 0
        sa.event.listen(engine, "before_cursor_execute", self._count)

    def _count(self, *_args: object) -> None:
        self.count += 1


def profile(options: Options, top: int = 15) -> None:
    """cProfile of one phase on a fresh database: top functions by cumulative and own time."""
    with workspace(options.backend, options.dsn) as (workdir, databases):
        dataset = write_dataset(workdir / "data", options.records)
        store = Store.open(databases.new_url("profile"))
        counter = StatementCounter(store.engine)
        profiler = cProfile.Profile()
        try:
            statements = _profiled_phase(store, options, dataset, profiler, counter)
        finally:
            store.close()
    stats = pstats.Stats(profiler, stream=sys.stdout)
    stats.sort_stats("cumulative").print_stats(top)
    stats.sort_stats("tottime").print_stats(top)
    for label, (operations, count) in statements.items():
        print(
            f"{label}: {operations} operation(s), {count} SQL statements, {count / operations:.1f} each"
        )


def _profiled_phase(
    store: Store,
    options: Options,
    dataset: Path,
    profiler: cProfile.Profile,
    counter: StatementCounter,
) -> dict[str, tuple[int, int]]:
    """Run (and profile) one phase; the SQL statements it sent, by operation."""
    phase = options.profile
    if phase == "import":
        profiler.runcall(import_directory, store, dataset)
        return {"import": (1, counter.count)}
    revision = import_directory(store, dataset).revisions[0].id
    plan = CommitPlan(options.records)
    before = counter.count
    (profiler if phase == "commit" else cProfile.Profile()).runcall(_commit_all, store, plan)
    if phase == "commit":
        return {"commit": (COMMITS, counter.count - before)}
    keys = read_keys(plan, READS)
    before = counter.count
    profiler.runcall(_read_all, store, keys, None)
    head = counter.count - before
    profiler.runcall(_read_all, store, keys, revision)
    return {
        "read_head": (len(keys), head),
        "read_at_import": (len(keys), counter.count - before - head),
    }


def _commit_all(store: Store, plan: CommitPlan) -> None:
    for index in range(COMMITS):
        store_commit(store, plan.change(index), index)


def _read_all(store: Store, keys: list[str], at: str | None) -> None:
    read = store_reader(store, at)
    for key in keys:
        read(key)


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
