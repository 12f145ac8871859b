"""Scaling: import, point reads and depth-1 context packs at 10k, 50k, 100k and 200k Records.

For each size N (`--sizes`), one after the other, on fresh databases of one backend:

- import: the `bench` Domain of bench/common.py with Links (`write_dataset(links=True)`: N Items
  and about 4 N Links) imported by `import_directory` into a fresh store, in a fresh interpreter
  (as bench/store times it); seconds, µs per Record (per Item; the Links are part of the work),
  and that per-Record time over the smallest size's (a linear import stays near 1.0). Beside
  it, the same N rows inserted into a plain table (bench/store's baseline import, fresh process).
- read: `Store.reader("bench").get_record("Item", key)` at the head, distinct keys, interleaved
  key by key with the baseline: one `SELECT` by primary key on that plain table of N rows (a
  B-tree look-up, which should not change with N).
- pack: POST /context `{"refs": ["Item/<key>"], "depth": 1, "budget_tokens": 32000}` over real
  HTTP to Keeper (as bench/context measures `pack_depth1`: uvicorn in a thread, auth mode
  `api_key`, default settings, a different seed each request so the answer cache never serves
  it), interleaved request by request with the same baseline `SELECT`.

The reads and packs are reported as p50 and p95, as ratios to the smallest size's p50 (flat reads
stay near 1.0) and as ratios to the baseline measured beside them at that size (which cancels the
drift of a noisy machine between sizes). The SQL statements one read and one pack send are
counted at each size (they do not depend on the machine), and the database's bytes per Record.

    .venv/bin/python bench/scale/run.py [--sizes 10000,50000,100000,200000]
        [--backend sqlite|postgresql --dsn DSN] [--profile import|read|pack]

Figures go to bench/scale/results/latest-<backend>.json (bench/README.md, "bench/scale").
"""

from __future__ import annotations

import argparse
import cProfile
import csv
import gc
import json
import os
import pstats
import shutil
import statistics
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import httpx
import sqlalchemy as sa  # noqa: TID251 (the baseline is a raw SELECT on a plain table)

from lorebase_keeper.app import create_app
from lorebase_platform.settings import Settings
from lorebase_store import Store, create_store_engine, import_directory

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/, for common.py
from common import (
    DOMAIN,
    KIND,
    Databases,
    git_commit,
    load_reads,
    log,
    machine_info,
    workspace,
    write_dataset,
)

reads = load_reads()

HERE = Path(__file__).resolve().parent
SIZES = (10_000, 50_000, 100_000, 200_000)
PRINCIPAL = "usr_bench"
API = f"/api/v1/domains/{DOMAIN}"
JSON_TYPE = {"content-type": "application/json"}
BUDGET = 32_000
"""As bench/context: a depth-1 pack (about 8 neighbours) is never trimmed."""
READS = 400
"""Distinct keys read at each size, each once, after `READ_WARMUP` other keys."""
READ_WARMUP = 100
PACKS = 200
"""Distinct depth-1 seeds at each size, each once, after `PACK_WARMUP` other seeds."""
PACK_WARMUP = 20
COUNTED = 10
"""Other keys (and seeds) read once with a statement counter on the store's engine, untimed."""
BATCH = 1000


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


def load_average() -> list[float]:
    return [round(load, 2) for load in os.getloadavg()]


def run_in_fresh_process(function: Callable[..., dict[str, Any]], *args: Any) -> dict[str, Any]:
    """`function(*args)` in a new interpreter (as bench/store runs its imports)."""
    with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
        return pool.submit(function, *args).result()


class StatementCounter:
    """Counts the SQL statements an engine sends while `counting`."""

    def __init__(self, engine: sa.Engine) -> None:
        self.engine = engine
        self.count = 0

    def _count(self, *_args: object) -> None:
        self.count += 1

    @contextmanager
    def counting(self) -> Iterator[StatementCounter]:
        sa.event.listen(self.engine, "before_cursor_execute", self._count)
        try:
            yield self
        finally:
            sa.event.remove(self.engine, "before_cursor_execute", self._count)


# -- the database ----------------------------------------------------------------------------
def plain_table(metadata: sa.MetaData) -> sa.Table:
    """The baseline's table (bench/store's): the Item's columns, the key as primary key."""
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


def database_bytes(url: str) -> int:
    """The SQLite file and its WAL, or every table of the schema (with indexes and TOAST)."""
    if url.startswith("sqlite"):
        path = Path(sa.engine.make_url(url).database or "")
        files = [path, path.with_name(path.name + "-wal")]
        return sum(file.stat().st_size for file in files if file.exists())
    engine = create_store_engine(url)
    query = (
        "select coalesce(sum(pg_total_relation_size(c.oid)), 0) from pg_class c"
        " join pg_namespace n on n.oid = c.relnamespace"
        " where n.nspname = current_schema() and c.relkind = 'r'"
    )
    try:
        with engine.connect() as connection:
            return int(connection.exec_driver_sql(query).scalar_one())
    finally:
        engine.dispose()


def store_import(url: str, directory: str) -> dict[str, Any]:
    """Import `directory` into a fresh store at `url`; run in a fresh process."""
    store = Store.open(url)
    try:
        gc.collect()
        start = time.perf_counter_ns()
        result = import_directory(store, Path(directory))
        elapsed = time.perf_counter_ns() - start
    finally:
        store.close()
    return {
        "seconds": round(elapsed / 1e9, 3),
        "changes": result.changes,
        "database_bytes": database_bytes(url),
    }


def baseline_import(url: str, csv_path: str) -> dict[str, Any]:
    """The Items' CSV into the plain table, one transaction, batches of 1000; fresh process."""
    engine = create_store_engine(url)
    metadata = sa.MetaData()
    table = plain_table(metadata)
    metadata.create_all(engine)
    gc.collect()
    start = time.perf_counter_ns()
    rows = 0
    with engine.begin() as connection, open(csv_path, newline="", encoding="utf-8") as handle:
        batch: list[dict[str, Any]] = []
        for row in csv.DictReader(handle):
            batch.append({**row, "quantity": int(row["quantity"]) if row["quantity"] else None})
            if len(batch) == BATCH:
                connection.execute(table.insert(), batch)
                rows, batch = rows + len(batch), []
        if batch:
            connection.execute(table.insert(), batch)
            rows += len(batch)
    elapsed = time.perf_counter_ns() - start
    engine.dispose()
    return {"seconds": round(elapsed / 1e9, 3), "rows": rows}


def baseline_reader(engine: sa.Engine) -> Callable[[str], object]:
    """One `SELECT` by primary key on the plain table, on its own connection from the pool."""
    table = plain_table(sa.MetaData())
    query = sa.select(table).where(table.c.item_code == sa.bindparam("key"))

    def read(key: str) -> object:
        with engine.connect() as connection:
            row = connection.execute(query, {"key": key}).first()
        if row is None:
            raise RuntimeError(f"baseline row {key} is missing")
        return row

    return read


def store_reader(store: Store) -> Callable[[str], object]:
    """`get_record` at the head, as bench/store's `read_head`."""

    def read(key: str) -> object:
        with store.reader(DOMAIN) as reader:
            found = reader.get_record(KIND, key)
        if found is None:
            raise RuntimeError(f"{KIND} {key} is missing at the head")
        return found

    return read


# -- one size --------------------------------------------------------------------------------
@dataclass
class Size:
    """One size's fresh store, the plain table's engine and a Keeper over the store."""

    records: int
    store: Store
    base: sa.Engine
    keeper_url: str
    client: httpx.Client

    def pack(self, key: str) -> bytes:
        body = reads.encoded({"refs": [f"{KIND}/{key}"], "depth": 1, "budget_tokens": BUDGET})
        url = f"{self.keeper_url}{API}/context"
        response = self.client.post(url, content=body, headers=JSON_TYPE)
        content: bytes = reads.expect(response, 200).content
        return content


def check_pack(key: str, content: bytes) -> tuple[int, int]:
    """A real pack: neighbours and Links, not cut; (neighbours, Links)."""
    answer = json.loads(content)
    budget = answer["budget"]
    if not answer["neighbors"] or not answer["links"]:
        raise RuntimeError(f"the pack of {key} has no neighbours")
    if budget["trimmed"] or budget["capped"] or budget["over_budget"]:
        raise RuntimeError(f"the pack of {key} was cut: {budget}")
    return len(answer["neighbors"]), sum(len(group) for group in answer["links"].values())


def interleaved_sizes(
    sizes: list[Size],
    sides_of: Callable[[Size], dict[str, Callable[[int], object]]],
    count: int,
    warmup: int,
) -> dict[int, dict[str, list[int]]]:
    """Request i of every side of every size, one after the other (rotating who goes first), so
    that the machine's drift hits every size alike; the timings by size and side."""
    sides = {
        f"{size.records}/{name}": side for size in sizes for name, side in sides_of(size).items()
    }
    samples = reads.interleaved(sides, count, warmup)
    found: dict[int, dict[str, list[int]]] = {}
    for label, timings in samples.items():
        records, _, name = label.partition("/")
        found.setdefault(int(records), {})[name] = timings
    return found


def bench_reads(sizes: list[Size]) -> dict[int, dict[str, Any]]:
    """Point reads at the head against the plain `SELECT`, key by key (distinct keys)."""
    keys = {
        size.records: reads.distinct_items(size.records, COUNTED + READ_WARMUP + READS, seed=31)
        for size in sizes
    }
    statements = {}
    for size in sizes:
        read = store_reader(size.store)
        with StatementCounter(size.store.engine).counting() as counter:
            for key in keys[size.records][:COUNTED]:
                read(key)
        statements[size.records] = counter.count / COUNTED

    def sides(size: Size) -> dict[str, Callable[[int], object]]:
        read, baseline = store_reader(size.store), baseline_reader(size.base)
        chosen = keys[size.records][COUNTED:]
        return {
            "store": lambda index: read(chosen[index]),
            "baseline": lambda index: baseline(chosen[index]),
        }

    log(f"reads: {READS} keys (+{READ_WARMUP} warm-up) a size, every size and side interleaved")
    samples = interleaved_sizes(sizes, sides, READS, READ_WARMUP)
    return {
        records: {
            "store": summary(found["store"]),
            "baseline": summary(found["baseline"]),
            "statements": statements[records],
        }
        for records, found in samples.items()
    }


def bench_packs(sizes: list[Size]) -> dict[int, dict[str, Any]]:
    """Depth-1 packs over HTTP against the plain `SELECT` of the seed's key, request by request."""
    seeds = {
        size.records: reads.distinct_items(size.records, COUNTED + PACK_WARMUP + PACKS, seed=51)
        for size in sizes
    }
    statements = {}
    for size in sizes:
        with StatementCounter(size.store.engine).counting() as counter:
            for key in seeds[size.records][:COUNTED]:
                check_pack(key, size.pack(key))
        statements[size.records] = counter.count / COUNTED
    answers: dict[int, list[bytes]] = {size.records: [] for size in sizes}

    def sides(size: Size) -> dict[str, Callable[[int], object]]:
        baseline, chosen = baseline_reader(size.base), seeds[size.records][COUNTED:]
        kept = answers[size.records]

        def keeper(index: int) -> object:
            kept.append(size.pack(chosen[index]))
            return kept[-1]

        return {"keeper": keeper, "baseline": lambda index: baseline(chosen[index])}

    log(f"packs: {PACKS} seeds (+{PACK_WARMUP} warm-up) a size, every size and side interleaved")
    samples = interleaved_sizes(sizes, sides, PACKS, PACK_WARMUP)
    results = {}
    for records, found in samples.items():
        chosen = seeds[records][COUNTED:]
        shapes = [
            check_pack(key, content) for key, content in zip(chosen, answers[records], strict=True)
        ]
        results[records] = {
            "keeper": summary(found["keeper"]),
            "baseline": summary(found["baseline"]),
            "statements": statements[records],
            "neighbors_mean": round(statistics.fmean(shape[0] for shape in shapes), 2),
            "links_mean": round(statistics.fmean(shape[1] for shape in shapes), 2),
        }
    return results


@contextmanager
def opened(records: int, store_url: str, base_url: str) -> Iterator[Size]:
    """The imported store in this process, a Keeper over it and a keep-alive client."""
    store, base = Store.open(store_url), create_store_engine(base_url)
    try:
        store.ensure_principal(PRINCIPAL)
        store.add_grant(PRINCIPAL, domain=DOMAIN, role="admin")
        secret = store.create_key(PRINCIPAL, description="bench/scale").secret
        settings = Settings(keeper={"auth": {"mode": "api_key"}, "rate_limits": {"enabled": False}})
        headers = {"authorization": f"Bearer {secret}"}
        with (
            reads.serve_in_thread(
                create_app(settings, store=store), f"keeper-{records}"
            ) as keeper_url,
            httpx.Client(headers=headers, timeout=120) as client,
        ):
            yield Size(records, store, base, keeper_url, client)
    finally:
        store.close()
        base.dispose()


def import_size(records: int, workdir: Path, databases: Databases) -> dict[str, Any]:
    """Generate, then import: the plain table, then the store, each in a fresh process."""
    load_at_start = load_average()
    log(f"N={records}: generating the Items and their Links (load average {load_at_start})")
    dataset = write_dataset(workdir / f"n{records}", records, links=True, origin="bench/scale")
    store_url, base_url = databases.new_url(f"scale{records}"), databases.new_url("plain")
    log(f"N={records}: plain import, then the store's import, fresh processes")
    plain = run_in_fresh_process(baseline_import, base_url, str(dataset / "data" / f"{KIND}.csv"))
    imported = run_in_fresh_process(store_import, store_url, str(dataset))
    shutil.rmtree(dataset)
    log(f"N={records}: imported {imported['changes']} changes in {imported['seconds']} s")
    return {
        "records": records,
        "store_url": store_url,
        "base_url": base_url,
        "load_average_at_start": load_at_start,
        "import": {
            **imported,
            "us_per_record": round(imported["seconds"] * 1e6 / records, 1),
            "us_per_change": round(imported["seconds"] * 1e6 / imported["changes"], 2),
            "bytes_per_record": round(imported["database_bytes"] / records),
        },
        "plain_import": {**plain, "us_per_row": round(plain["seconds"] * 1e6 / records, 2)},
    }


def measure(options: Options, workdir: Path, databases: Databases) -> list[dict[str, Any]]:
    """Every size's import one after the other, then the reads and packs of all sizes at once."""
    rows = [import_size(records, workdir, databases) for records in options.sizes]
    with ExitStack() as stack:
        sizes = [
            stack.enter_context(opened(row["records"], row["store_url"], row["base_url"]))
            for row in rows
        ]
        load_at_reads = load_average()
        log(f"reads and packs at every size (load average {load_at_reads})")
        read, pack = bench_reads(sizes), bench_packs(sizes)
    for row in rows:
        del row["store_url"], row["base_url"]
        row["load_average_at_reads"] = load_at_reads
        row["read"], row["pack"] = read[row["records"]], pack[row["records"]]
    return rows


def relative(rows: list[dict[str, Any]]) -> None:
    """Add each size's ratios: to its own baseline, and to the first (smallest) size."""
    first = rows[0]
    for row in rows:
        imported, plain = row["import"], row["plain_import"]
        imported["per_record_vs_first"] = round(
            imported["us_per_record"] / first["import"]["us_per_record"], 2
        )
        plain["per_row_vs_first"] = round(
            plain["us_per_row"] / first["plain_import"]["us_per_row"], 2
        )
        for name, side in (("read", "store"), ("pack", "keeper")):
            figure, base = row[name], first[name]
            own = figure[side]["p50_us"] / figure["baseline"]["p50_us"]
            figure["p50_vs_first"] = round(figure[side]["p50_us"] / base[side]["p50_us"], 2)
            figure["p95_vs_first"] = round(figure[side]["p95_us"] / base[side]["p95_us"], 2)
            figure["p50_vs_baseline"] = round(own, 2)
            first_own = base[side]["p50_us"] / base["baseline"]["p50_us"]
            figure["vs_baseline_vs_first"] = round(own / first_own, 2)
            figure["baseline_p50_vs_first"] = round(
                figure["baseline"]["p50_us"] / base["baseline"]["p50_us"], 2
            )


# -- the run ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Options:
    sizes: tuple[int, ...]
    backend: str
    dsn: str | None
    out: Path
    profile: str | None


def run(options: Options) -> dict[str, Any]:
    started = time.perf_counter()
    with workspace(options.backend, options.dsn) as (workdir, databases):
        machine = machine_info(options.backend, databases.new_url("machine"))
        log(f"code: {machine['git_commit']}; load average {machine['load_average']}")
        rows = measure(options, workdir, databases)
    relative(rows)
    if git_commit() != machine["git_commit"]:
        machine["git_commit_at_end"] = git_commit()
        log(f"WARNING: the code changed during the run ({machine['git_commit_at_end']})")
    machine["load_average_at_end"] = load_average()
    return {
        "benchmark": "scale",
        "backend": options.backend,
        "sizes": list(options.sizes),
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "duration_s": round(time.perf_counter() - started, 1),
        "machine": machine,
        "results": rows,
    }


def print_report(report: dict[str, Any]) -> None:
    machine = report["machine"]
    print(
        f"scale benchmark, {report['backend']}, code {machine['git_commit']}, load average"
        f" {machine['load_average']} -> {machine['load_average_at_end']}"
    )
    print(
        f"{'N':>7} | {'import s':>8}{'us/Rec':>7}{'x1st':>6}{'plain x1st':>11} |"
        f" {'read p50':>8}{'p95':>6}{'x1st':>6}{'/base':>6}{'x1st':>6} |"
        f" {'pack p50':>8}{'p95':>7}{'x1st':>6}{'/base':>6}{'x1st':>6} |"
        f" {'base p50':>8} | {'B/Rec':>6} | {'stmts r/p':>9}"
    )
    for row in report["results"]:
        imported, plain, read, pack = row["import"], row["plain_import"], row["read"], row["pack"]
        print(
            f"{row['records']:>7} | {imported['seconds']:>8.1f}{imported['us_per_record']:>7.0f}"
            f"{imported['per_record_vs_first']:>6.2f}{plain['per_row_vs_first']:>11.2f} |"
            f" {read['store']['p50_us']:>8.0f}{read['store']['p95_us']:>6.0f}"
            f"{read['p50_vs_first']:>6.2f}{read['p50_vs_baseline']:>6.2f}"
            f"{read['vs_baseline_vs_first']:>6.2f} |"
            f" {pack['keeper']['p50_us']:>8.0f}{pack['keeper']['p95_us']:>7.0f}"
            f"{pack['p50_vs_first']:>6.2f}{pack['p50_vs_baseline']:>6.1f}"
            f"{pack['vs_baseline_vs_first']:>6.2f} |"
            f" {read['baseline']['p50_us']:>8.0f} | {imported['bytes_per_record']:>6} |"
            f" {read['statements']:>4.1f}/{pack['statements']:<4.1f}"
        )
    print(
        "us; x1st: over the first size's figure; /base: over the plain SELECT's p50 measured"
        f" beside it; took {report['duration_s']} s"
    )


# -- profiling -------------------------------------------------------------------------------
def profile(options: Options, top: int = 20) -> None:
    """cProfile of one phase at the largest size: the import (in this process), the reads, or
    the packs (Keeper's route handlers, in its worker threads)."""
    records = max(options.sizes)
    profiler = cProfile.Profile()
    with workspace(options.backend, options.dsn) as (workdir, databases):
        dataset = write_dataset(workdir / "data", records, links=True, origin="bench/scale")
        store_url, base_url = databases.new_url("profile"), databases.new_url("plain")
        baseline_import(base_url, str(dataset / "data" / f"{KIND}.csv"))
        log(f"N={records}: importing" + (" under cProfile" if options.profile == "import" else ""))
        store = Store.open(store_url)
        try:
            if options.profile == "import":
                profiler.runcall(import_directory, store, dataset)
            else:
                import_directory(store, dataset)
        finally:
            store.close()
        if options.profile != "import":
            with opened(records, store_url, base_url) as size:
                if options.profile == "read":
                    read = store_reader(size.store)
                    keys = reads.distinct_items(records, READ_WARMUP + READS, seed=31)
                    for key in keys[:READ_WARMUP]:
                        read(key)
                    for key in keys[READ_WARMUP:]:
                        profiler.runcall(read, key)
                else:
                    profile_packs(size, profiler)
    stats = pstats.Stats(profiler, stream=sys.stdout)
    stats.sort_stats("cumulative").print_stats(top)
    stats.sort_stats("tottime").print_stats(top)


def profile_packs(size: Size, profiler: cProfile.Profile) -> None:
    """The packs with Keeper's sync route handlers under `profiler` (as bench/context does)."""
    import fastapi.routing

    original = fastapi.routing.run_in_threadpool

    async def profiled(function: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        if not threading.current_thread().name.startswith("keeper"):
            return await original(function, *args, **kwargs)

        def call() -> Any:
            profiler.enable()
            try:
                return function(*args, **kwargs)
            finally:
                profiler.disable()

        return await original(call)

    seeds = reads.distinct_items(size.records, PACK_WARMUP + PACKS, seed=51)
    for key in seeds[:PACK_WARMUP]:
        size.pack(key)
    fastapi.routing.run_in_threadpool = profiled  # type: ignore[assignment]
    try:
        for key in seeds[PACK_WARMUP:]:
            size.pack(key)
    finally:
        fastapi.routing.run_in_threadpool = original  # type: ignore[assignment]


def parse_options(argv: list[str] | None) -> Options:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--sizes",
        default=",".join(str(size) for size in SIZES),
        help="Records (Items) of each run, comma-separated, smallest first (the reference)",
    )
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--dsn", help="PostgreSQL DSN (default $LOREBASE_BENCH_POSTGRES_DSN)")
    parser.add_argument("--out", type=Path, help="JSON file (default results/latest-BACKEND.json)")
    parser.add_argument(
        "--profile",
        choices=("import", "read", "pack"),
        help="print a cProfile summary of one phase at the largest size (no JSON)",
    )
    args = parser.parse_args(argv)
    try:
        sizes = tuple(int(size) for size in args.sizes.split(","))
    except ValueError:
        parser.error("--sizes takes integers separated by commas")
    minimum = COUNTED + READ_WARMUP + READS
    if any(size < minimum for size in sizes):
        parser.error(f"every size must be at least {minimum}")
    if list(sizes) != sorted(sizes):
        parser.error("--sizes must be in increasing order (the first is the reference)")
    out = args.out or HERE / "results" / f"latest-{args.backend}.json"
    return Options(sizes, args.backend, args.dsn, out, args.profile)


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
    return 0


if __name__ == "__main__":
    sys.exit(main())
