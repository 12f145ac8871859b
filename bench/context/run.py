"""Context packs, search and resolve over real HTTP, each against a baseline measured in the same run.

Keeper runs as in bench/reads (uvicorn in a thread, auth mode `api_key`, an admin key) over a
fresh store holding the `bench` Domain of bench/common.py with Links and with words (`family`,
`notes`: `write_dataset(words=True)`). One keep-alive `httpx.Client` sends sequential requests;
the sides of a figure are interleaved request by request (bench/reads `interleaved`).

- pack_depth1, pack_depth2: POST /context `{"refs": ["Item/<key>"], "depth": d, "budget_tokens":
  32000}`, a different seed each request (the answer cache never serves them), against the raw
  reads of the pack in one transaction: the neighborhood's statements of
  `lorebase_store.graph.sql` (bench/reads `NeighborhoodSql`), then the store-level context reads
  `seed_versions`, `recent_changes` and `lineage_entries` of a `Reader` made directly on the
  connection (each seed version read once). A `store` side is the Reader's calls that
  `context_pack` makes (neighborhood, seed versions twice, recent changes, lineage), no HTTP.
- cached_pack: one pack repeated (the answer cache serves it) vs a bare Starlette route
  returning the same bytes.
- search, search_corrected, search_words: POST /search lexical, one word of the Items' notes per
  request (each once), a misspelled word that needs a correction, and two words of the notes
  (ranked over either); `store` side: `Reader.search`.
- resolve, resolve_misses: POST /resolve with distinct short questions, `record_misses: false`,
  and once with misses recorded; `store` side: the Reader's value index and `resolve_text`.

    .venv/bin/python bench/context/run.py [--records N] [--backend sqlite|postgresql --dsn DSN]

Figures go to bench/context/results/latest-<backend>.json (bench/README.md, "bench/context").
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
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from lorebase_core.access import ReadScope
from lorebase_core.resolve import Vocabulary, resolve_text, vocabulary_entries
from lorebase_core.search_request import SearchRequest
from lorebase_keeper.app import create_app
from lorebase_platform.settings import Settings
from lorebase_store import Reader, Store, import_directory

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/, for common.py
from common import (
    DOMAIN,
    FAMILIES,
    KIND,
    git_commit,
    item_key,
    load_reads,
    log,
    machine_info,
    vocabulary,
    workspace,
    write_dataset,
)

reads = load_reads()

HERE = Path(__file__).resolve().parent
PRINCIPAL = "usr_bench"
API = f"/api/v1/domains/{DOMAIN}"
JSON_TYPE = {"content-type": "application/json"}
BUDGET = 32_000
"""`agents.context.max_budget_tokens`: a depth-2 pack (about 70 Records) is not trimmed."""

PACKS = {1: 300, 2: 150}
"""Measured packs per depth, each from a different seed."""
PACK_WARMUP = 20
CACHED = 500
CACHED_WARMUP = 50
SEARCHES = 300
CORRECTED = 60
SEARCH_WARMUP = 10
RESOLVES = 300
RESOLVE_MISSES = 100
RESOLVE_WARMUP = 10

TARGETS: dict[str, tuple[str, float]] = {
    "pack_depth1": ("p50_ratio", 3.0),
    "pack_depth1_p95": ("keeper_p95_ms", 50.0),
    "cached_pack": ("rps_ratio", 0.50),
    "search": ("keeper_p95_ms", 20.0),
}
"""Figure -> (measure, limit): `rps_ratio` at least, the others at most."""
FIGURES = (
    "pack_depth1",
    "pack_depth2",
    "cached_pack",
    "search",
    "search_corrected",
    "search_words",
    "resolve",
    "resolve_misses",
)


# -- measuring -------------------------------------------------------------------------------
def summary(samples_ns: list[int]) -> dict[str, float]:
    ordered = sorted(samples_ns)

    def at(fraction: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(len(ordered) * fraction))] / 1000, 1)

    return {
        "n": len(ordered),
        "p50_us": round(statistics.median(ordered) / 1000, 1),
        "p95_us": at(0.95),
        "p99_us": at(0.99),
        "mean_us": round(statistics.fmean(ordered) / 1000, 1),
        "rps": round(len(ordered) / (sum(ordered) / 1e9), 1),
    }


def figure(samples: dict[str, list[int]], baseline: str | None) -> dict[str, Any]:
    sides = {side: summary(found) for side, found in samples.items()}
    result: dict[str, Any] = {"baseline_kind": baseline, **sides}
    keeper = sides["keeper"]
    result["keeper_p95_ms"] = round(keeper["p95_us"] / 1000, 2)
    if baseline is not None:
        base = sides[baseline]
        result["rps_ratio"] = round(keeper["rps"] / base["rps"], 3)
        for percentile in ("p50", "p95", "p99"):
            ratio = keeper[f"{percentile}_us"] / base[f"{percentile}_us"]
            result[f"{percentile}_ratio"] = round(ratio, 2)
    return result


def judge(results: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    verdicts = {}
    for name, (measure, limit) in TARGETS.items():
        row = results[name.removesuffix("_p95")]
        value = row[measure]
        passed = value >= limit if measure == "rps_ratio" else value <= limit
        verdicts[name] = {"compares": measure, "value": value, "limit": limit, "pass": passed}
    return verdicts


expect = reads.expect
encoded = reads.encoded


# -- the run ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Options:
    records: int
    backend: str
    dsn: str | None
    out: Path
    profile: str | None


@dataclass
class Bench:
    store: Store
    keeper_url: str
    bare_url: str
    renderer_url: str
    answers: Any
    client: httpx.Client
    records: int
    settings: Settings
    scope: ReadScope

    def keeper(self, path: str) -> str:
        return f"{self.keeper_url}{API}{path}"

    def bare(self, path: str) -> str:
        return f"{self.bare_url}{API}{path}"

    def renderer(self, path: str) -> str:
        return f"{self.renderer_url}{API}{path}"

    def post(self, url: str, body: bytes, status: int = 200) -> httpx.Response:
        return expect(self.client.post(url, content=body, headers=JSON_TYPE), status)


def pack_document(key: str, depth: int) -> dict[str, Any]:
    return {"refs": [f"{KIND}/{key}"], "depth": depth, "budget_tokens": BUDGET}


def pack_keys(answer: dict[str, Any]) -> dict[str, set[str]]:
    """The keys by Kind of a pack's Records (seeds and neighbors)."""
    found: dict[str, set[str]] = {}
    for record in (*answer["seeds"], *answer["neighbors"]):
        kind, _, key = record["ref"].partition("/")
        found.setdefault(kind, set()).add(key)
    return found


def bench_packs(bench: Bench) -> dict[str, dict[str, Any]]:
    """Cold packs of depth 1 and 2 against the raw reads they need."""
    store, engine, settings = bench.store, bench.store.engine, bench.settings
    view = store.view(DOMAIN)
    with store.reader(DOMAIN) as reader:
        schema = reader.schema
    walk_sql = reads.NeighborhoodSql(view.segments, sorted(schema.relations))
    context = settings.agents.context
    limits = settings.read.neighborhood
    results: dict[str, dict[str, Any]] = {}
    for depth, count in PACKS.items():
        seeds = reads.distinct_items(bench.records, PACK_WARMUP + count, seed=50 + depth)
        bodies = [encoded(pack_document(key, depth)) for key in seeds]
        log(f"pack depth {depth}: rendering {len(seeds)} packs with the cache-less Keeper")
        records_of, shapes = [], []
        for index, body in enumerate(bodies):
            answer = bench.post(bench.renderer("/context"), body).json()
            if not answer["neighbors"] or not answer["links"]:
                raise RuntimeError(f"the pack of {seeds[index]} has no neighbors")
            budget = answer["budget"]
            if budget["trimmed"] or budget["capped"] or budget["over_budget"]:
                raise RuntimeError(f"the pack of {seeds[index]} was cut: {budget}")
            records_of.append(pack_keys(answer))
            shapes.append(
                (
                    len(answer["neighbors"]),
                    sum(len(group) for group in answer["links"].values()),
                    len(answer["recent_changes"]),
                    len(answer["lineage"]),
                    budget["used_tokens"],
                )
            )
        walks = [
            reads.parse_neighborhood(
                {"refs": [f"{KIND}/{key}"], "depth": depth},
                schema,
                bench.scope,
                max_depth=limits.max_depth,
            )
            for key in seeds
        ]

        def keeper(index: int, bodies: list[bytes] = bodies) -> object:
            return bench.post(bench.keeper("/context"), bodies[index])

        def raw(
            index: int,
            seeds: list[str] = seeds,
            records: list[Any] = records_of,
            depth: int = depth,
        ) -> object:
            with engine.connect() as connection:
                found = walk_sql.run(connection, seeds[index], depth)
                reads = Reader(connection, view)
                versions = reads.seed_versions([(KIND, seeds[index])])
                recent = reads.recent_changes(records[index], limit=context.recent_changes)
                lineage = reads.lineage_entries(versions.values())
            return found, recent, lineage

        def store_side(
            index: int, walks: list[Any] = walks, records: list[Any] = records_of
        ) -> object:
            with store.reader(DOMAIN) as reader:
                result = reader.neighborhood(
                    walks[index],
                    bench.scope,
                    max_records=min(context.max_neighbors, limits.max_records),
                    max_links=min(context.max_links, limits.max_links),
                    max_fanout=settings.store.traverse.max_fanout,
                )
                refs = [(seed.kind, seed.key) for seed in result.seeds]
                reader.seed_versions(refs)
                reader.recent_changes(records[index], limit=context.recent_changes)
                versions = reader.seed_versions(refs)
                return reader.lineage_entries(versions.values())

        # The raw walk finds what the pack holds (on a sample), so the baseline is the same read.
        for index in range(0, len(seeds), max(1, len(seeds) // 20)):
            records, _links = raw(index)[0]
            if records != 1 + shapes[index][0]:
                raise RuntimeError(f"the raw walk and the pack disagree at {seeds[index]}")
        log(f"pack depth {depth}: {count} seeds (+{PACK_WARMUP} warm-up), interleaved")
        sides = {"keeper": keeper, "raw": raw, "store": store_side}
        result = figure(reads.interleaved(sides, count, PACK_WARMUP), "raw")
        columns = ("neighbors", "links", "recent_changes", "lineage", "used_tokens")
        result["answer_shape"] = {
            column: round(statistics.fmean(shape[position] for shape in shapes), 1)
            for position, column in enumerate(columns)
        }
        results[f"pack_depth{depth}"] = result
    return results


def bench_cached(bench: Bench) -> dict[str, dict[str, Any]]:
    body = encoded(pack_document(item_key(3), 1))
    first = bench.post(bench.keeper("/context"), body)
    bench.answers.posts[("context", body)] = reads.Canned.of(first)

    def keeper(_index: int) -> object:
        return bench.post(bench.keeper("/context"), body)

    def bare(_index: int) -> object:
        return bench.post(bench.bare("/context"), body)

    if keeper(0).content != first.content:
        raise RuntimeError("the cached pack differs from the first answer")
    log(f"cached pack: {CACHED} repeats (+{CACHED_WARMUP} warm-up), interleaved")
    result = figure(
        reads.interleaved({"keeper": keeper, "bare": bare}, CACHED, CACHED_WARMUP), "bare"
    )
    result["answer_bytes"] = len(first.content)
    return {"cached_pack": result}


def misspelled(word: str, rng: random.Random) -> str:
    """`word` with one inner letter replaced by a letter no vocabulary word has (`x`, `y`, `w`)."""
    position = rng.randrange(1, len(word) - 1)
    return word[:position] + rng.choice("xyw") + word[position + 1 :]


def bench_search(bench: Bench) -> dict[str, dict[str, Any]]:
    words = vocabulary()
    rng = random.Random(61)
    chosen = rng.sample(words, SEARCH_WARMUP + SEARCHES + SEARCH_WARMUP + CORRECTED)
    plain = chosen[: SEARCH_WARMUP + SEARCHES]
    wrong = [misspelled(word, rng) for word in chosen[SEARCH_WARMUP + SEARCHES :]]
    paired = random.Random(67)  # its own generator: the other figures keep their words
    two = [" ".join(paired.sample(words, 2)) for _ in range(SEARCH_WARMUP + SEARCHES)]
    limits = bench.settings.read.search
    store = bench.store
    results: dict[str, dict[str, Any]] = {}
    for name, queries, count in (
        ("search", plain, SEARCHES),
        ("search_corrected", wrong, CORRECTED),
        ("search_words", two, SEARCHES),
    ):
        bodies = [encoded({"q": q, "kinds": [KIND], "limit": 20}) for q in queries]
        hits, corrected = [], 0
        for index in range(0, len(bodies), max(1, len(bodies) // 20)):
            answer = bench.post(bench.renderer("/search"), bodies[index]).json()
            if not answer["hits"]:
                raise RuntimeError(f"search {queries[index]!r} found nothing")
            hits.append(len(answer["hits"]))
            corrected += bool(answer["corrected"])
        if name == "search_corrected" and not corrected:
            raise RuntimeError("the misspelled searches were not corrected")
        requests = [SearchRequest(q=q, kinds=(KIND,), limit=20) for q in queries]

        def keeper(index: int, bodies: list[bytes] = bodies) -> object:
            return bench.post(bench.keeper("/search"), bodies[index])

        def store_side(index: int, requests: list[SearchRequest] = requests) -> object:
            with store.reader(DOMAIN) as reader:
                return reader.search(
                    requests[index], bench.scope, min_similarity=limits.min_similarity
                )

        log(f"{name}: {count} queries (+{SEARCH_WARMUP} warm-up), interleaved")
        sides = {"keeper": keeper, "store": store_side}
        result = figure(reads.interleaved(sides, count, SEARCH_WARMUP), "store")
        result["hits_mean"] = round(statistics.fmean(hits), 1)
        result["corrected_in_sample"] = corrected
        results[name] = result
    return results


def question(index: int, rng: random.Random, words: list[str]) -> str:
    """A short question: the Kind, a status, a family, an Attribute, and a word or a number."""
    status = rng.choice(("active", "retired", "draft"))
    family = rng.choice(FAMILIES)
    attribute = rng.choice(("price", "quantity", "released"))
    tail = rng.choice(words) if index % 2 else f"over {index}"
    return f"{status} items of {family} by {attribute} {tail}"


def bench_resolve(bench: Bench) -> dict[str, dict[str, Any]]:
    rng = random.Random(71)
    words = vocabulary()
    total = RESOLVE_WARMUP + RESOLVES + RESOLVE_WARMUP + RESOLVE_MISSES
    texts = list(dict.fromkeys(question(index, rng, words) for index in range(total * 2)))[:total]
    limits = bench.settings.read.resolve
    store = bench.store
    results: dict[str, dict[str, Any]] = {}
    for name, part, count, misses in (
        ("resolve", texts[: RESOLVE_WARMUP + RESOLVES], RESOLVES, False),
        ("resolve_misses", texts[RESOLVE_WARMUP + RESOLVES :], RESOLVE_MISSES, True),
    ):
        bodies = [
            encoded({"text": text} if misses else {"text": text, "record_misses": False})
            for text in part
        ]
        answer = bench.post(bench.renderer("/resolve"), bodies[0]).json()
        targets = {candidate["target"] for candidate in answer["candidates"]}
        if not {"kind", "attribute", "value"} <= targets:
            raise RuntimeError(f"resolve found too little: {answer['candidates']}")

        def keeper(index: int, bodies: list[bytes] = bodies) -> object:
            return bench.post(bench.keeper("/resolve"), bodies[index])

        def store_side(index: int, part: list[str] = part) -> object:
            with store.reader(DOMAIN) as reader:
                found = reader.value_index(
                    max_indexed_values=limits.max_indexed_values,
                    max_value_length=limits.max_value_length,
                )
                entries = vocabulary_entries(reader.schema, bench.scope, found.values)
            return resolve_text(
                part[index],
                Vocabulary(entries),
                min_similarity=limits.min_similarity,
                max_candidates=limits.max_candidates,
            )

        log(f"{name}: {count} questions (+{RESOLVE_WARMUP} warm-up), interleaved")
        sides = {"keeper": keeper, "store": store_side}
        result = figure(reads.interleaved(sides, count, RESOLVE_WARMUP), "store")
        result["candidates_first"] = len(answer["candidates"])
        results[name] = result
    return results


PHASES: dict[str, Callable[[Bench], dict[str, Any]]] = {
    "packs": bench_packs,
    "cached": bench_cached,
    "search": bench_search,
    "resolve": bench_resolve,
}


def prepare(options: Options, workdir: Path, url: str) -> tuple[Store, str, dict[str, Any]]:
    log(f"generating {options.records} Items with words, and their Links")
    dataset = write_dataset(
        workdir / "data", options.records, links=True, words=True, origin="bench/context"
    )
    store = Store.open(url)
    log("importing them")
    started = time.perf_counter()
    imported = import_directory(store, dataset)
    seconds = time.perf_counter() - started
    store.ensure_principal(PRINCIPAL)
    store.add_grant(PRINCIPAL, domain=DOMAIN, role="admin")
    secret = store.create_key(PRINCIPAL, description="bench/context").secret
    log(f"imported {imported.changes} Records and Links in {seconds:.1f} s")
    return store, secret, {"changes": imported.changes, "import_s": round(seconds, 1)}


def measure(options: Options, workdir: Path, url: str, only: str | None = None) -> dict[str, Any]:
    store, secret, data = prepare(options, workdir, url)
    settings = Settings(keeper={"auth": {"mode": "api_key"}, "rate_limits": {"enabled": False}})
    renderer = Settings(
        keeper={
            "auth": {"mode": "api_key"},
            "cache": {"max_entries": 0},
            "rate_limits": {"enabled": False},
        }
    )
    answers = reads.BareAnswers()
    headers = {"authorization": f"Bearer {secret}"}
    results: dict[str, Any] = {}
    try:
        with (
            reads.serve_in_thread(create_app(settings, store=store), "keeper") as keeper_url,
            reads.serve_in_thread(create_app(renderer, store=store), "renderer") as renderer_url,
            reads.serve_in_thread(reads.bare_app(answers), "bare") as bare_url,
            httpx.Client(headers=headers, timeout=120) as client,
        ):
            bench = Bench(
                store,
                keeper_url,
                bare_url,
                renderer_url,
                answers,
                client,
                options.records,
                settings,
                ReadScope.everything(),
            )
            for name, phase in PHASES.items():
                if only is None or name == only:
                    results.update(phase(bench))
    finally:
        store.close()
    return {"data": data, "results": results}


def run(options: Options) -> dict[str, Any]:
    started = time.perf_counter()
    with workspace(options.backend, options.dsn) as (workdir, databases):
        url = databases.new_url("context")
        machine = machine_info(options.backend, url)
        log(f"code: {machine['git_commit']}; load average {machine['load_average']}")
        measured = measure(options, workdir, url)
    if git_commit() != machine["git_commit"]:
        machine["git_commit_at_end"] = git_commit()
        log(f"WARNING: the code changed during the run ({machine['git_commit_at_end']})")
    machine["load_average_at_end"] = [round(load, 2) for load in os.getloadavg()]
    results = {name: measured["results"][name] for name in FIGURES}
    targets = judge(results)
    return {
        "benchmark": "context",
        "backend": options.backend,
        "records": options.records,
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "duration_s": round(time.perf_counter() - started, 1),
        "machine": machine,
        "data": measured["data"],
        "results": results,
        "targets": targets,
        "passed": all(verdict["pass"] for verdict in targets.values()),
    }


def print_report(report: dict[str, Any]) -> None:
    print(f"context benchmark, {report['backend']}, N={report['records']} Items (us)")
    print(
        f"{'figure':<18}{'Keeper p50':>11}{'p95':>7}{'p99':>7}{'req/s':>7} | {'baseline':>8}"
        f"{'p50':>7}{'p95':>7}{'req/s':>7} | {'store p50':>9} | ratios p50 / p95 / req/s"
    )
    for name in FIGURES:
        row = report["results"][name]
        keeper, base_name = row["keeper"], row["baseline_kind"]
        base = row[base_name]
        store = f"{row['store']['p50_us']:>9.0f}" if "store" in row and base_name != "store" else ""
        print(
            f"{name:<18}{keeper['p50_us']:>11.0f}{keeper['p95_us']:>7.0f}{keeper['p99_us']:>7.0f}"
            f"{keeper['rps']:>7.0f} | {base_name:>8}{base['p50_us']:>7.0f}{base['p95_us']:>7.0f}"
            f"{base['rps']:>7.0f} | {store:>9} | {row['p50_ratio']:.2f} / {row['p95_ratio']:.2f}"
            f" / {row['rps_ratio']:.2f}"
        )
    for name, verdict in report["targets"].items():
        sign = ">=" if verdict["compares"] == "rps_ratio" else "<="
        mark = "met" if verdict["pass"] else "MISSED"
        print(
            f"  {name}: {verdict['compares']} {verdict['value']} {sign} {verdict['limit']} {mark}"
        )
    print(f"took {report['duration_s']} s")


def profile(options: Options, phase: str, top: int = 25) -> None:
    """cProfile of Keeper's route handlers (worker threads) during one phase."""
    import threading

    import fastapi.routing

    handlers = cProfile.Profile()
    original = fastapi.routing.run_in_threadpool

    async def profiled(function: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        if threading.current_thread().name != "keeper":
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
        measure(options, workdir, databases.new_url("profile"), only=phase)
    stats = pstats.Stats(handlers, stream=sys.stdout)
    stats.sort_stats("cumulative").print_stats(top)
    stats.sort_stats("tottime").print_stats(top)


def parse_options(argv: list[str] | None) -> Options:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--records", type=int, default=100_000, help="Items to import (N)")
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--dsn", help="PostgreSQL DSN (default $LOREBASE_BENCH_POSTGRES_DSN)")
    parser.add_argument("--out", type=Path, help="JSON file (default results/latest-BACKEND.json)")
    parser.add_argument("--profile", choices=tuple(PHASES), help="cProfile one phase (no JSON)")
    args = parser.parse_args(argv)
    if args.records < 1000:
        parser.error("--records must be at least 1000")
    out = args.out or HERE / "results" / f"latest-{args.backend}.json"
    return Options(args.records, args.backend, args.dsn, out, args.profile)


def main(argv: list[str] | None = None) -> int:
    options = parse_options(argv)
    if options.profile:
        profile(options, options.profile)
        return 0
    report = run(options)
    options.out.parent.mkdir(parents=True, exist_ok=True)
    options.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print_report(report)
    print(f"wrote {options.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
