"""Following a branch over real HTTP: commit-to-client latency of Keeper's event stream against a
bare Starlette SSE route, and Keeper's get-record throughput with open streams against without,
all measured in the same run.

One fresh store holds the `bench` Domain of bench/common.py. Figures (`--figures`):

- `stream_1`, `stream_100`: 1 and 100 clients hold the stream of `main` open (one asyncio loop,
  one connection each); the run commits one change at a time and times, per client, from just
  before the commit until the event's frame arrives. The baseline is a bare Starlette route
  in its own uvicorn server that writes the same frame to its clients when the run tells it the
  commit returned (the same commit, so both sides pay it). Target: Keeper's p95 at most 5 ms
  over the bare route's.
- `get_record`: GET a Record (each key once) from two Keepers on the store, interleaved request
  by request: one with 100 idle streams open, one with none, both with the default poll
  interval. Target: at least 0.9 of the req/s.

On SQLite new events are found by polling (`--poll-interval-s`, default 0.005 here); on
PostgreSQL by LISTEN/NOTIFY (the poll is then set to 30 s, so only NOTIFY counts).

    .venv/bin/python bench/feed/run.py [--records N] [--backend sqlite|postgresql --dsn DSN]

Figures go to bench/feed/results/latest.json (latest-postgresql.json on PostgreSQL). Another
figure is a function `(Bench) -> dict` added to FIGURES under its name.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

from lorebase_core.changes import Origin, UpsertRecord
from lorebase_keeper.app import create_app
from lorebase_platform.settings import FeedSettings, Settings
from lorebase_store import CommitRequest, Store, import_directory

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/, for common.py
from common import DOMAIN, KIND, git_commit, load_reads, log, machine_info, workspace, write_dataset

reads = load_reads()

HERE = Path(__file__).resolve().parent
PRINCIPAL = "usr_bench"
API = f"/api/v1/domains/{DOMAIN}"
EVENTS = f"{API}/branches/main/events"
COMMITS = 60
WARMUP = 5
GETS = 1500
GET_WARMUP = 50
STREAM_TARGET_MS = 5.0
THROUGHPUT_TARGET = 0.90


# -- the bare SSE route ----------------------------------------------------------------------
class BareFeed:
    """A Starlette app whose route writes a frame to every open client when `publish` says."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.queues: list[asyncio.Queue[str]] = []
        self.app = Starlette(routes=[Route("/events", self.events)])

    async def events(self, request: Request) -> StreamingResponse:
        self.loop = asyncio.get_running_loop()
        queue: asyncio.Queue[str] = asyncio.Queue()
        self.queues.append(queue)

        async def frames() -> AsyncIterator[str]:
            yield "retry: 3000\n\n"
            try:
                while True:
                    yield await queue.get()
            finally:
                self.queues.remove(queue)

        return StreamingResponse(frames(), media_type="text/event-stream")

    def publish(self, event: dict[str, Any]) -> None:
        """From another thread: the frame of `event` to every client."""
        data = json.dumps(event, separators=(",", ":"))
        frame = f"id: {event['sequence']}\nevent: revision\ndata: {data}\n\n"
        assert self.loop is not None
        for queue in list(self.queues):
            self.loop.call_soon_threadsafe(queue.put_nowait, frame)


# -- clients holding streams open ------------------------------------------------------------
@dataclass
class Listeners:
    """`count` SSE clients on one asyncio loop in a thread; when each saw each event id."""

    url: str
    headers: dict[str, str]
    count: int
    seen: dict[int, list[int]] = field(default_factory=dict)
    ready: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    changed: threading.Condition = field(init=False)

    def __post_init__(self) -> None:
        self.changed = threading.Condition(self.lock)

    async def _one(self, client: httpx.AsyncClient, stop: asyncio.Event) -> None:
        try:
            await self._follow(client, stop)
        except (httpx.HTTPError, RuntimeError) as error:
            log(f"a stream client failed: {error!r}")
            raise

    async def _follow(self, client: httpx.AsyncClient, stop: asyncio.Event) -> None:
        async with client.stream("GET", self.url, headers=self.headers) as response:
            if response.status_code != 200:
                raise RuntimeError(f"{self.url} answered {response.status_code}")
            async for line in response.aiter_lines():
                now = time.perf_counter_ns()
                if line.startswith("retry:"):
                    with self.changed:
                        self.ready += 1
                        self.changed.notify_all()
                elif line.startswith("id:"):
                    with self.changed:
                        self.seen.setdefault(int(line[3:].strip()), []).append(now)
                        self.changed.notify_all()
                if stop.is_set():
                    return

    def wait(self, predicate: Callable[[], bool], timeout_s: float = 30.0) -> None:
        with self.changed:
            if not self.changed.wait_for(predicate, timeout_s):
                raise RuntimeError("the stream clients did not get there in time")

    @contextmanager
    def running(self) -> Iterator[Listeners]:
        loop = asyncio.new_event_loop()
        stop = asyncio.Event()

        async def main() -> None:
            limits = httpx.Limits(max_connections=self.count + 10)
            async with httpx.AsyncClient(timeout=None, limits=limits) as client:
                tasks = [asyncio.create_task(self._one(client, stop)) for _ in range(self.count)]
                await stop.wait()
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)

        thread = threading.Thread(target=loop.run_until_complete, args=(main(),), daemon=True)
        thread.start()
        try:
            self.wait(lambda: self.ready >= self.count)
            yield self
        finally:
            loop.call_soon_threadsafe(stop.set)
            thread.join(timeout=30)
            loop.close()


# -- the run ---------------------------------------------------------------------------------
@dataclass
class Bench:
    """What every figure gets: the store, its admin key, the settings of its Keepers."""

    store: Store
    secret: str
    records: int
    settings: Settings
    stack: ExitStack
    commits: int = 0

    @property
    def headers(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self.secret}"}

    def commit(self) -> int:
        """One change on main; its event's sequence."""
        self.commits += 1
        request = CommitRequest(
            domain=DOMAIN,
            branch=None,
            author=PRINCIPAL,
            message=f"bench/feed commit {self.commits}",
            origin=Origin("operation", "bench_feed"),
        )
        key = f"I-{(self.commits % self.records) + 1:07d}"
        result = self.store.commit(request, [UpsertRecord(KIND, key, {"quantity": self.commits})])
        return int(result.event_sequence)

    @property
    def default_feed(self) -> FeedSettings:
        poll = self.settings.agents.feed.poll_interval_s
        defaults = FeedSettings()
        return self.settings.agents.feed.model_copy(
            update={"poll_interval_s": poll if poll >= 30 else defaults.poll_interval_s}
        )

    def keeper_url(self, name: str, settings: Settings | None = None) -> str:
        app = create_app(settings or self.settings, store=self.store)
        url: str = self.stack.enter_context(reads.serve_in_thread(app, name))
        return url


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


def latency(
    listeners: Listeners, bench: Bench, publish: Callable[[int], None] | None
) -> dict[str, Any]:
    samples: list[float] = []
    commit_ms: list[float] = []
    for index in range(WARMUP + COMMITS):
        started = time.perf_counter_ns()
        sequence = bench.commit()
        committed = time.perf_counter_ns()
        if publish is not None:
            publish(sequence)
        listeners.wait(lambda s=sequence: len(listeners.seen.get(s, ())) >= listeners.count)
        if index >= WARMUP:
            samples += [(seen - started) / 1e6 for seen in listeners.seen[sequence]]
            commit_ms.append((committed - started) / 1e6)
    return {
        "n": len(samples),
        "p50_ms": round(statistics.median(samples), 2),
        "p95_ms": round(percentile(samples, 0.95), 2),
        "commit_p50_ms": round(statistics.median(commit_ms), 2),
    }


def stream_figure(bench: Bench, clients: int) -> dict[str, Any]:
    bare = BareFeed()
    bare_url = bench.stack.enter_context(reads.serve_in_thread(bare.app, f"bare-{clients}"))
    keeper_url = bench.keeper_url(f"keeper-{clients}")
    log(f"stream_{clients}: {COMMITS} commits, {clients} clients, Keeper then the bare route")
    with Listeners(f"{keeper_url}{EVENTS}", bench.headers, clients).running() as listeners:
        keeper = latency(listeners, bench, None)

    def publish(sequence: int) -> None:
        [event] = bench.store.events(DOMAIN, after=sequence - 1, limit=1)
        bare.publish(event)

    with Listeners(f"{bare_url}/events", {}, clients).running() as listeners:
        base = latency(listeners, bench, publish)
    added = round(keeper["p95_ms"] - base["p95_ms"], 2)
    return {
        "clients": clients,
        "keeper": keeper,
        "bare": base,
        "p50_ratio": round(keeper["p50_ms"] / base["p50_ms"], 2),
        "p95_ratio": round(keeper["p95_ms"] / base["p95_ms"], 2),
        "p95_added_ms": added,
        "target_p95_added_ms": STREAM_TARGET_MS,
        "passed": added <= STREAM_TARGET_MS,
    }


def throughput_figure(bench: Bench) -> dict[str, Any]:
    # the feed's default poll (1 s on SQLite): what a Keeper with idle streams pays by default
    idle = bench.settings.model_copy(
        update={"agents": bench.settings.agents.model_copy(update={"feed": bench.default_feed})}
    )
    quiet, busy = bench.keeper_url("keeper-quiet", idle), bench.keeper_url("keeper-busy", idle)
    keys = reads.distinct_items(bench.records, GETS + GET_WARMUP, seed=41)
    log(f"get_record: {GETS} requests per side, interleaved, 100 streams open on one side")
    with (
        Listeners(f"{busy}{EVENTS}", bench.headers, 100).running(),
        httpx.Client(base_url=quiet, headers=bench.headers, timeout=60) as to_quiet,
        httpx.Client(base_url=busy, headers=bench.headers, timeout=60) as to_busy,
    ):

        def side(client: httpx.Client) -> Callable[[int], object]:
            def call(index: int) -> object:
                path = f"{API}/kinds/{KIND}/records/{keys[index]}"
                return reads.expect(client.get(path), 200)

            return call

        samples = reads.interleaved(
            {"no_streams": side(to_quiet), "streams_100": side(to_busy)}, GETS, GET_WARMUP
        )
    sides = {name: reads.summary(found) for name, found in samples.items()}
    ratio = round(sides["streams_100"]["rps"] / sides["no_streams"]["rps"], 3)
    return {
        **sides,
        "rps_ratio": ratio,
        "target": THROUGHPUT_TARGET,
        "passed": ratio >= THROUGHPUT_TARGET,
    }


FIGURES: dict[str, Callable[[Bench], dict[str, Any]]] = {
    "stream_1": lambda bench: stream_figure(bench, 1),
    "stream_100": lambda bench: stream_figure(bench, 100),
    "get_record": throughput_figure,
}
"""Figure name -> how it is measured; `--figures` picks some (webhook deliveries add theirs)."""


def run(
    records: int, backend: str, dsn: str | None, figures: list[str], poll_s: float
) -> dict[str, Any]:
    started = time.perf_counter()
    with workspace(backend, dsn) as (workdir, databases):
        url = databases.new_url("feed")
        machine = machine_info(backend, url)
        log(f"code: {machine['git_commit']}; load average {machine['load_average']}")
        dataset = write_dataset(workdir / "data", records, origin="bench/feed")
        store = Store.open(url)
        try:
            import_directory(store, dataset)
            store.ensure_principal(PRINCIPAL)
            store.add_grant(PRINCIPAL, domain=DOMAIN, role="admin")
            secret = store.create_key(PRINCIPAL, description="bench/feed").secret
            poll = 30.0 if backend == "postgresql" else poll_s
            settings = Settings(
                keeper={"auth": {"mode": "api_key"}, "rate_limits": {"enabled": False}},
                agents={"feed": {"poll_interval_s": poll, "max_streams_per_principal": 1000}},
            )
            with ExitStack() as stack:
                bench = Bench(store, secret, records, settings, stack)
                results = {name: FIGURES[name](bench) for name in figures}
        finally:
            store.close()
    if git_commit() != machine["git_commit"]:
        machine["git_commit_at_end"] = git_commit()
    machine["load_average_at_end"] = [round(load, 2) for load in os.getloadavg()]
    return {
        "benchmark": "feed",
        "backend": backend,
        "records": records,
        "poll_interval_s": 30.0 if backend == "postgresql" else poll_s,
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "duration_s": round(time.perf_counter() - started, 1),
        "machine": machine,
        "results": results,
        "passed": all(figure["passed"] for figure in results.values() if "passed" in figure),
    }


def print_report(report: dict[str, Any]) -> None:
    print(f"feed benchmark, {report['backend']}, N={report['records']} Items")
    for name, row in report["results"].items():
        if "keeper" in row:
            print(
                f"{name:<12} Keeper p50 {row['keeper']['p50_ms']} ms p95 {row['keeper']['p95_ms']}"
                f" ms; bare p50 {row['bare']['p50_ms']} ms p95 {row['bare']['p95_ms']} ms;"
                f" p95 added {row['p95_added_ms']} ms -> {'pass' if row['passed'] else 'MISSED'}"
            )
        elif "rps_ratio" in row:
            print(
                f"{name:<12} {row['no_streams']['rps']} req/s without streams,"
                f" {row['streams_100']['rps']} with 100 (ratio {row['rps_ratio']})"
                f" -> {'pass' if row['passed'] else 'MISSED'}"
            )
        else:
            print(f"{name:<12} {row}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--records", type=int, default=2000, help="Items to import (N)")
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--dsn", help="PostgreSQL DSN (default $LOREBASE_BENCH_POSTGRES_DSN)")
    parser.add_argument(
        "--figures", default=",".join(FIGURES), help=f"comma-separated, of {', '.join(FIGURES)}"
    )
    parser.add_argument(
        "--poll-interval-s", type=float, default=0.005, help="agents.feed.poll_interval_s (SQLite)"
    )
    parser.add_argument("--out", type=Path, help="JSON file (default results/latest*.json)")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args(argv)
    figures = [name for name in args.figures.split(",") if name]
    unknown = [name for name in figures if name not in FIGURES]
    if unknown:
        parser.error(f"unknown figures {unknown}; known: {', '.join(FIGURES)}")
    report = run(args.records, args.backend, args.dsn, figures, args.poll_interval_s)
    name = "latest.json" if args.backend == "sqlite" else f"latest-{args.backend}.json"
    out = args.out or HERE / "results" / name
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print_report(report)
    print(f"wrote {out}")
    return 1 if args.check and not report["passed"] else 0


if __name__ == "__main__":
    sys.exit(main())
