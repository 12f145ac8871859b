"""Writes benchmark: Operation executions and branch merges, each against a raw commit baseline.

Every figure is a ratio to a baseline measured in the same run, on the same store, the sides
alternated one after the other so that a busy neighbour slows them alike. The data is the `bench`
Domain of bench/common.py (N Items) with one Operation added to its schema, `set_quantity`
(`update_record` of an Item's `quantity`):

- execute: the Operation executed in-process as Keeper does it per execution, without HTTP:
  `plan_execution`, then `Writes.execute` (the commit, the invocation row and its audit entry,
  with an idempotency key), on an unprotected branch `work`; vs `Store.commit` of the same edit
  (one `UpsertRecord` of `quantity`) on the same branch. Two more sides, reported: Keeper's
  `execute_operation` called in-process (its reads of the Domain, the branch, the schema and the
  idempotency key, then the same write) and POST .../operations/set_quantity/execute over HTTP
  (uvicorn on 127.0.0.1, as in bench/reads; auth mode `none`);
- merge: `Writes.merge_branch` of a task branch holding 1000 changed Items (one commit) into
  `main`; vs a commit of 1000 changed Items directly on `main` (other Items, same shape). The
  commit of the task branch's 1000 changes on that branch is reported too;
- merge_scaling: the same merge on a second database whose `main` holds 2N Items, vs the merge at
  N (the two databases alternate within each repetition).

Run it from the workspace root (bench/README.md, "bench/writes"):

    .venv/bin/python bench/writes/run.py [--records N] [--backend sqlite|postgresql] [--check]

For PostgreSQL the DSN comes from --dsn or LOREBASE_BENCH_POSTGRES_DSN; the run works in fresh
schemas it drops afterwards. `--profile execute|merge` prints a cProfile summary of one phase
instead.
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
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import sqlalchemy as sa  # noqa: TID251 (the profile counts the statements the store sends)

from lorebase_core.changes import Origin, UpsertRecord
from lorebase_core.operations import parameter_view, plan_execution
from lorebase_core.schema import Schema
from lorebase_keeper.app import create_app
from lorebase_keeper.auth.authz import local_admin
from lorebase_keeper.reads.reading import Keeper
from lorebase_keeper.writes.executing import ExecuteRequest, execute_operation
from lorebase_platform.settings import Settings
from lorebase_store import (
    CommitRequest,
    ExecutionRecord,
    Store,
    import_directory,
    new_id,
    request_digest,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/, for common.py
from common import (
    DOMAIN,
    KIND,
    SCHEMA_YAML,
    Databases,
    git_commit,
    item_key,
    load_reads,
    log,
    machine_info,
    workspace,
    write_dataset,
)

reads = load_reads()

RESULTS = Path(__file__).resolve().parent / "results"
AUTHOR = "usr_bench"
OPERATION = "set_quantity"
WORK = "work"
"""The unprotected branch the executions write (main is protected: 409 review-required)."""
API = f"/api/v1/domains/{DOMAIN}"
EXECUTE_PATH = f"{API}/operations/{OPERATION}/execute"

OPERATIONS_YAML = """\
operations:
  set_quantity:
    description: Set the quantity of an Item; the Item must exist.
    parameters:
      key: {type: string, required: true, pattern: "^I-[0-9]{7}$", description: The item code.}
      quantity: {type: integer, required: true, min: 0, description: The new quantity.}
    edits:
      - update_record:
          kind: Item
          key: $key
          values: {quantity: $quantity}
    permissions: [operation.execute]
"""
"""Appended to common.SCHEMA_YAML: the Item Kind's `quantity` is an integer, min 0."""

TARGETS = {"execute": 3.0, "merge": 2.0, "merge_scaling": 1.3}
EXECUTIONS = 500
EXECUTION_WARMUP = 20
MERGES = 30
MERGE_WARMUP = 2
MERGE_SIZE = 1000
EXECUTION_SIDES = ("execution", "keeper", "http", "commit")
"""`commit` is the baseline; `keeper` and `http` are reported without a target."""


# -- the data --------------------------------------------------------------------------------
def schema_text() -> str:
    return SCHEMA_YAML + OPERATIONS_YAML


def write_domain(directory: Path, records: int) -> Path:
    """bench/common's dataset of `records` Items, its schema.yaml with the Operation added."""
    write_dataset(directory, records, origin="bench/writes")
    (directory / "schema.yaml").write_text(schema_text(), encoding="utf-8")
    return directory


def import_store(url: str, dataset: Path) -> tuple[Store, float]:
    """A fresh store at `url` holding the dataset, and the import's seconds."""
    store = Store.open(url)
    started = time.perf_counter()
    import_directory(store, dataset)
    seconds = time.perf_counter() - started
    if OPERATION not in store.schema(DOMAIN).operations:
        raise RuntimeError(f"the imported schema has no Operation {OPERATION}")
    return store, seconds


# -- measuring -------------------------------------------------------------------------------
def timed_ns(operation: Callable[[], object]) -> int:
    start = time.perf_counter_ns()
    operation()
    return time.perf_counter_ns() - start


def percentile(ordered: list[int], fraction: float) -> int:
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def summary(samples_ns: list[int]) -> dict[str, Any]:
    ordered = sorted(samples_ns)
    return {
        "n": len(ordered),
        "p50_us": round(statistics.median(ordered) / 1000, 1),
        "p95_us": round(percentile(ordered, 0.95) / 1000, 1),
        "mean_us": round(statistics.fmean(ordered) / 1000, 1),
        "per_second": round(len(ordered) / (sum(ordered) / 1e9), 2),
    }


def ratios(side: dict[str, float], baseline: dict[str, float]) -> dict[str, float]:
    return {
        "p50_ratio": round(side["p50_us"] / baseline["p50_us"], 2),
        "p95_ratio": round(side["p95_us"] / baseline["p95_us"], 2),
    }


def checked(name: str, result: dict[str, Any]) -> dict[str, Any]:
    """The target compares the p50s."""
    result["target"] = TARGETS[name]
    result["pass"] = result["p50_ratio"] <= TARGETS[name]
    return result


# -- 1. executions ---------------------------------------------------------------------------
@dataclass
class Executions:
    """The four ways of writing one Item's quantity, each call a different Item and value."""

    store: Store
    keeper: Keeper
    client: httpx.Client
    base_url: str
    schema: Schema
    records: int
    rng: random.Random
    counter: int = 0

    def _edit(self) -> tuple[str, int]:
        self.counter += 1
        return item_key(self.rng.randrange(1, self.records + 1)), 100_000 + self.counter

    def execution(self, _index: int = 0) -> None:
        """Keeper's `_direct` path: plan the Operation, then `Writes.execute` with a key."""
        key, quantity = self._edit()
        invocation_id = new_id("inv")
        execution = plan_execution(
            self.schema, OPERATION, {"key": key, "quantity": quantity}, invocation_id
        )
        operation = self.schema.operations[OPERATION]
        record = ExecutionRecord(
            invocation_id=invocation_id,
            operation=OPERATION,
            principal=AUTHOR,
            idempotency_key=f"bench-{invocation_id}",
            request_digest=request_digest(
                {
                    "operation": OPERATION,
                    "branch": WORK,
                    "parameters": execution.parameters,
                    "task": None,
                }
            ),
            branch=WORK,
            parameters=parameter_view(operation, execution.parameters),
            edits=execution.edits,
            side_effects=operation.side_effects,
            target=None,
            events_now=True,
        )
        request = CommitRequest(
            domain=DOMAIN,
            branch=WORK,
            author=AUTHOR,
            message=f"Run {OPERATION}",
            origin=Origin("operation", invocation_id),
        )
        executed = self.store.writes.execute(request, execution.changes, record)
        if executed.replayed or executed.invocation.revision is None:
            raise RuntimeError(f"execution {invocation_id} wrote nothing")

    def keeper_call(self, _index: int = 0) -> None:
        """Keeper's `execute_operation` in-process: its reads, then the same write."""
        key, quantity = self._edit()
        request = ExecuteRequest(parameters={"key": key, "quantity": quantity}, branch=WORK)
        answer = execute_operation(
            self.keeper, local_admin(), DOMAIN, OPERATION, request, f"bench-{new_id('key')}"
        )
        if answer.status != 200 or answer.body["revision"] is None:
            raise RuntimeError(f"execute_operation answered {answer.status}: {answer.body}")

    def http(self, _index: int = 0) -> None:
        key, quantity = self._edit()
        response = self.client.post(
            self.base_url + EXECUTE_PATH,
            json={"parameters": {"key": key, "quantity": quantity}, "branch": WORK},
            headers={"Idempotency-Key": f"bench-{new_id('key')}"},
        )
        if response.status_code != 200 or response.json()["status"] != "committed":
            raise RuntimeError(
                f"POST {EXECUTE_PATH} answered {response.status_code}: {response.text}"
            )

    def commit(self, _index: int = 0) -> None:
        """The baseline: the same edit as a plain commit on the same branch."""
        key, quantity = self._edit()
        request = CommitRequest(
            domain=DOMAIN,
            branch=WORK,
            author=AUTHOR,
            message="Benchmark commit",
            origin=Origin("operation", f"bench-{self.counter}"),
        )
        result = self.store.commit(request, [UpsertRecord(KIND, key, {"quantity": quantity})])
        if result.revision is None:
            raise RuntimeError(f"commit of {key} changed nothing")

    def sides(self) -> dict[str, Callable[[int], None]]:
        return {
            "execution": self.execution,
            "keeper": self.keeper_call,
            "http": self.http,
            "commit": self.commit,
        }


@contextmanager
def executions(store: Store, records: int) -> Iterator[Executions]:
    """The unprotected branch `work`, Keeper over the store under uvicorn, and a client."""
    store.create_branch(DOMAIN, WORK, from_branch="main", created_by=AUTHOR)
    settings = Settings(keeper={"auth": {"mode": "none"}, "rate_limits": {"enabled": False}})
    app = create_app(settings, store=store)
    with (
        reads.serve_in_thread(app, "keeper") as base_url,
        httpx.Client(timeout=120) as client,
    ):
        yield Executions(
            store,
            app.state.keeper,
            client,
            base_url,
            store.schema(DOMAIN, branch=WORK),
            records,
            random.Random(23),
        )


def bench_executions(store: Store, records: int, count: int) -> dict[str, Any]:
    """The four sides, one after the other (rotating who goes first), after a warm-up."""
    with executions(store, records) as bench:
        samples = reads.interleaved(bench.sides(), count, EXECUTION_WARMUP)
    sides = {name: summary(samples[name]) for name in EXECUTION_SIDES}
    baseline = sides["commit"]
    result: dict[str, Any] = {"sides": sides}
    for name in ("execution", "keeper", "http"):
        result[name] = ratios(sides[name], baseline)
    result["p50_ratio"] = result["execution"]["p50_ratio"]
    result["p95_ratio"] = result["execution"]["p95_ratio"]
    return checked("execute", result)


# -- 2. and 3. merges ------------------------------------------------------------------------
@dataclass
class Merges:
    """One repetition's three writes on one store: a commit on main, a task branch, its merge."""

    store: Store
    label: str

    def commit_main(self, changes: list[UpsertRecord], rep: int) -> int:
        return timed_ns(lambda: self._commit("main", changes, f"Commit {rep} on main"))

    def task_and_merge(self, changes: list[UpsertRecord], rep: int) -> tuple[int, int]:
        """The task branch's commit and its merge into main (nanoseconds of each)."""
        source = f"task-{rep}"
        self.store.create_branch(DOMAIN, source, from_branch="main", created_by=AUTHOR)
        commit_ns = timed_ns(lambda: self._commit(source, changes, f"Task {rep}"))
        merged: list[Any] = []
        merge_ns = timed_ns(
            lambda: merged.append(
                self.store.writes.merge_branch(
                    DOMAIN,
                    source,
                    into="main",
                    author=AUTHOR,
                    message=f"Merge {source}",
                    resolutions={},
                )
            )
        )
        outcome = merged[0]
        if outcome.revision is None or len(outcome.plan.changes) != len(changes):
            raise RuntimeError(
                f"{self.label}: merge of {source} took {len(outcome.plan.changes)} changes, "
                f"expected {len(changes)} ({outcome.result})"
            )
        return commit_ns, merge_ns

    def _commit(self, branch: str, changes: list[UpsertRecord], message: str) -> None:
        request = CommitRequest(
            domain=DOMAIN,
            branch=branch,
            author=AUTHOR,
            message=message,
            origin=Origin("import", "bench/writes"),
        )
        result = self.store.commit(request, changes)
        if result.revision is None or result.changes != len(changes):
            raise RuntimeError(f"{self.label}: commit on {branch} changed {result.changes}")


def merge_changes(
    records: int, reps: int, size: int
) -> list[tuple[list[UpsertRecord], list[UpsertRecord]]]:
    """Per repetition: the task branch's changes and main's (disjoint Items, new values).

    The Items are among the first `records` so that both databases get the same changes.
    """
    rng = random.Random(29)
    planned = []
    for rep in range(reps):
        numbers = rng.sample(range(1, records + 1), 2 * size)
        base = 1_000_000 + rep * 10 * size
        task = [
            UpsertRecord(KIND, item_key(n), {"quantity": base + j})
            for j, n in enumerate(numbers[:size])
        ]
        main = [
            UpsertRecord(KIND, item_key(n), {"quantity": base + 5 * size + j})
            for j, n in enumerate(numbers[size:])
        ]
        planned.append((task, main))
    return planned


def bench_merges(
    stores: dict[str, Store], records: int, count: int, size: int = MERGE_SIZE
) -> dict[str, Any]:
    """Every repetition on both stores (alternating which goes first): main's commit before
    or after (alternating) the task branch's commit and its merge; main never moves between a
    task branch's fork and its merge."""
    samples: dict[str, dict[str, list[int]]] = {
        label: {"merge": [], "commit_main": [], "commit_task": []} for label in stores
    }
    order = list(stores)
    planned = merge_changes(records, MERGE_WARMUP + count, size)
    for rep, (task, main) in enumerate(planned):
        order = order[1:] + order[:1]
        for label in order:
            merges = Merges(stores[label], label)
            main_first = rep % 2 == 0
            if main_first:
                main_ns = merges.commit_main(main, rep)
            task_ns, merge_ns = merges.task_and_merge(task, rep)
            if not main_first:
                main_ns = merges.commit_main(main, rep)
            if rep >= MERGE_WARMUP:
                found = samples[label]
                found["merge"].append(merge_ns)
                found["commit_main"].append(main_ns)
                found["commit_task"].append(task_ns)
        if rep % 5 == 4 or rep == len(planned) - 1:
            log(f"merges: {rep + 1} of {len(planned)} repetitions")
    sides: dict[str, dict[str, dict[str, Any]]] = {
        label: {name: summary(found) for name, found in by_side.items()}
        for label, by_side in samples.items()
    }
    for label, by_side in samples.items():  # in order: does a merge slow as main's history grows?
        sides[label]["merge"]["samples_ms"] = [round(ns / 1e6, 1) for ns in by_side["merge"]]
    n, double = sides["n"], sides["2n"]
    merge: dict[str, Any] = {
        "sides": n,
        **ratios(n["merge"], n["commit_main"]),
        "vs_task_commit": ratios(n["merge"], n["commit_task"]),
        "at_2n": {
            "sides": double,
            "vs_main_commit": ratios(double["merge"], double["commit_main"]),
            "vs_task_commit": ratios(double["merge"], double["commit_task"]),
        },
    }
    scaling: dict[str, Any] = {
        "merge_n": n["merge"],
        "merge_2n": double["merge"],
        **ratios(double["merge"], n["merge"]),
        "commit_main": ratios(double["commit_main"], n["commit_main"]),
        "commit_task": ratios(double["commit_task"], n["commit_task"]),
    }
    return {"merge": checked("merge", merge), "merge_scaling": checked("merge_scaling", scaling)}


# -- the run ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Options:
    records: int
    backend: str
    out: Path
    executions: int
    merges: int
    profile: str | None
    check: bool
    dsn: str | None = None


def parse_options(argv: list[str] | None) -> Options:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--records", type=int, default=25_000, help="Items in main (N)")
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument(
        "--dsn", help="PostgreSQL DSN (default $LOREBASE_BENCH_POSTGRES_DSN); private schemas"
    )
    parser.add_argument("--out", type=Path, help="JSON file (default results/latest-BACKEND.json)")
    parser.add_argument(
        "--executions", type=int, default=EXECUTIONS, help="timed writes of each execution side"
    )
    parser.add_argument(
        "--merges", type=int, default=MERGES, help="timed merge repetitions on each database"
    )
    parser.add_argument(
        "--profile",
        choices=("execute", "merge"),
        help="print a cProfile summary of one phase and its baseline (no JSON)",
    )
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args(argv)
    if args.records < 2 * MERGE_SIZE:
        parser.error(f"--records must be at least {2 * MERGE_SIZE}")
    if args.executions < 20 or args.merges < 4:
        parser.error("--executions must be at least 20 and --merges at least 4")
    out = args.out or RESULTS / f"latest-{args.backend}.json"
    return Options(
        args.records,
        args.backend,
        out,
        args.executions,
        args.merges,
        args.profile,
        args.check,
        args.dsn,
    )


def measure(options: Options, workdir: Path, databases: Databases) -> dict[str, Any]:
    """Both databases imported, then the executions (at N), then the merges (at N and 2N)."""
    counts = {"n": options.records, "2n": 2 * options.records}
    log(f"generating {counts['n']} and {counts['2n']} Items")
    datasets = {label: write_domain(workdir / label, count) for label, count in counts.items()}
    urls = {label: databases.new_url(f"writes_{label}") for label in counts}
    machine = machine_info(options.backend, urls["n"])
    log(f"code: {machine['git_commit']}")
    stores: dict[str, Store] = {}
    data: dict[str, Any] = {}
    try:
        for label, count in counts.items():
            log(f"importing {count} Items")
            stores[label], seconds = import_store(urls[label], datasets[label])
            data[f"import_{label}_s"] = round(seconds, 1)
            log(f"imported {count} Items in {seconds:.1f} s")
        log(
            f"executions: {options.executions} of each side (+{EXECUTION_WARMUP} warm-up), "
            "interleaved"
        )
        results: dict[str, Any] = {
            "execute": bench_executions(stores["n"], options.records, options.executions)
        }
        log(
            f"merges: {options.merges} repetitions (+{MERGE_WARMUP} warm-up) of {MERGE_SIZE} "
            "changes on each database"
        )
        results.update(bench_merges(stores, options.records, options.merges))
    finally:
        for store in stores.values():
            store.close()
    return {"machine": machine, "data": data, "results": results}


def run(options: Options) -> dict[str, Any]:
    started = time.perf_counter()
    with workspace(options.backend, options.dsn) as (workdir, databases):
        measured = measure(options, workdir, databases)
    machine = measured["machine"]
    if git_commit() != machine["git_commit"]:
        machine["git_commit_at_end"] = git_commit()
        log(f"WARNING: the code changed during the run ({machine['git_commit_at_end']})")
    machine["load_average_at_end"] = [round(load, 2) for load in os.getloadavg()]
    results = measured["results"]
    return {
        "benchmark": "writes",
        "backend": options.backend,
        "records": options.records,
        "merge_size": MERGE_SIZE,
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "duration_s": round(time.perf_counter() - started, 1),
        "machine": machine,
        "data": measured["data"],
        "results": results,
        "passed": all(results[name]["pass"] for name in TARGETS),
    }


def print_report(report: dict[str, Any]) -> None:
    results = report["results"]
    n = report["records"]
    print(f"writes benchmark, {report['backend']}, N={n} (times p50 / p95)")
    execute = results["execute"]
    sides = execute["sides"]
    print(f"{'execution side':<22}{'p50':>10}{'p95':>10}{'per s':>9}{'p50 x':>8}{'p95 x':>8}")
    for name in EXECUTION_SIDES:
        side = sides[name]
        versus = execute.get(name, {"p50_ratio": 1.0, "p95_ratio": 1.0})
        print(
            f"{name:<22}{side['p50_us'] / 1000:>8.2f}ms{side['p95_us'] / 1000:>8.2f}ms"
            f"{side['per_second']:>9.1f}{versus['p50_ratio']:>8.2f}{versus['p95_ratio']:>8.2f}"
        )
    merge, scaling = results["merge"], results["merge_scaling"]
    print(f"{'merge side':<22}{'p50':>10}{'p95':>10}")
    for label, count in (("n", n), ("2n", 2 * n)):
        found = merge["sides"] if label == "n" else merge["at_2n"]["sides"]
        for name in ("merge", "commit_main", "commit_task"):
            side = found[name]
            print(
                f"{name + f' @{count}':<22}{side['p50_us'] / 1000:>8.1f}ms"
                f"{side['p95_us'] / 1000:>8.1f}ms"
            )
    print(f"{'figure':<34}{'p50 x':>8}{'p95 x':>8}{'target':>8}  result")
    rows = (
        ("execute (vs commit)", execute),
        ("http execute (vs commit)", {**execute["http"], "target": None}),
        ("keeper in-process (vs commit)", {**execute["keeper"], "target": None}),
        ("merge (vs commit on main)", merge),
        ("merge (vs task commit)", {**merge["vs_task_commit"], "target": None}),
        (f"merge @{2 * n} vs @{n}", scaling),
    )
    for name, row in rows:
        target = f"{row['target']:>8.1f}" if row["target"] is not None else f"{'-':>8}"
        verdict = ("pass" if row["pass"] else "FAIL") if row["target"] is not None else "reported"
        print(f"{name:<34}{row['p50_ratio']:>8.2f}{row['p95_ratio']:>8.2f}{target}  {verdict}")
    print(f"took {report['duration_s']} s; {'all targets met' if report['passed'] else 'MISSED'}")


# -- profiling -------------------------------------------------------------------------------
class StatementCounter:
    """Counts the SQL statements an engine sends, to show how many one operation costs."""

    def __init__(self, engine: sa.Engine) -> None:
        self.count = 0
        sa.event.listen(engine, "before_cursor_execute", self._count)

    def _count(self, *_args: object) -> None:
        self.count += 1


def profile(options: Options, top: int = 20) -> None:
    """cProfile of the measured side and of its baseline, on a fresh database of N Items."""
    with workspace(options.backend, options.dsn) as (workdir, databases):
        dataset = write_domain(workdir / "data", options.records)
        store, _seconds = import_store(databases.new_url("writes_profile"), dataset)
        counter = StatementCounter(store.engine)
        try:
            profiles = _profiled(store, options, counter)
        finally:
            store.close()
    for label, (profiler, operations, statements) in profiles.items():
        print(
            f"\n===== {label}: {operations} operation(s), "
            f"{statements / operations:.1f} SQL statements each"
        )
        stats = pstats.Stats(profiler, stream=sys.stdout)
        stats.sort_stats("cumulative").print_stats(top)
        stats.sort_stats("tottime").print_stats(top)


def repeated(function: Callable[[], None], count: int) -> Callable[[], None]:
    def run() -> None:
        for _ in range(count):
            function()

    return run


def _profiled(
    store: Store, options: Options, counter: StatementCounter
) -> dict[str, tuple[cProfile.Profile, int, int]]:
    found: dict[str, tuple[cProfile.Profile, int, int]] = {}

    def run(label: str, operations: int, function: Callable[[], object]) -> None:
        profiler = cProfile.Profile()
        before = counter.count
        profiler.runcall(function)
        found[label] = (profiler, operations, counter.count - before)

    if options.profile == "execute":
        count = options.executions
        with executions(store, options.records) as bench:
            for _ in range(EXECUTION_WARMUP):
                bench.execution()
                bench.commit()
                bench.keeper_call()
            run(
                "execution (plan_execution + Writes.execute)",
                count,
                repeated(bench.execution, count),
            )
            run("commit (the baseline)", count, repeated(bench.commit, count))
            run(
                "keeper execute_operation (in-process)",
                count,
                repeated(bench.keeper_call, count),
            )
        return found
    count = options.merges
    merges = Merges(store, "n")
    planned = merge_changes(options.records, count + 1, MERGE_SIZE)
    merges.task_and_merge(planned[0][0], 0)  # warm-up
    merges.commit_main(planned[0][1], 0)
    profiler_merge, profiler_main, profiler_task = (cProfile.Profile() for _ in range(3))
    statements = {"merge": 0, "main": 0, "task": 0}
    for rep in range(1, count + 1):
        task, main = planned[rep]
        source = f"task-{rep}"
        store.create_branch(DOMAIN, source, from_branch="main", created_by=AUTHOR)
        before = counter.count
        profiler_task.runcall(merges._commit, source, task, f"Task {rep}")
        statements["task"] += counter.count - before
        before = counter.count
        profiler_merge.runcall(
            store.writes.merge_branch,
            DOMAIN,
            source,
            into="main",
            author=AUTHOR,
            message=f"Merge {source}",
            resolutions={},
        )
        statements["merge"] += counter.count - before
        before = counter.count
        profiler_main.runcall(merges._commit, "main", main, f"Commit {rep} on main")
        statements["main"] += counter.count - before
    found[f"merge of a task branch with {MERGE_SIZE} changes"] = (
        profiler_merge,
        count,
        statements["merge"],
    )
    found[f"commit of {MERGE_SIZE} changes on main (the baseline)"] = (
        profiler_main,
        count,
        statements["main"],
    )
    found[f"commit of {MERGE_SIZE} changes on the task branch"] = (
        profiler_task,
        count,
        statements["task"],
    )
    return found


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
