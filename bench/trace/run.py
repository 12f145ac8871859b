"""The agent trace's cost over real HTTP: Keeper untraced, traced and with trace_all, against
Keeper with tracing disabled, all measured in the same run.

Four Keepers (uvicorn in threads, auth mode `api_key`, an admin key) serve one fresh store
holding the `bench` Domain of bench/common.py with Links:

- `off`: keeper.trace.enabled false, the baseline;
- `untraced`: tracing enabled, the request does not opt in (the target: within 2% of `off`);
- `traced`: tracing enabled, the request opts in with `X-Lorebase-Trace: on` and a session id
  (the target: within 15% of `off`);
- `trace_all`: tracing enabled with trace_all, no header (reported).

Figures: `get_record` (GET a Record, each key once, so the answer cache does not serve it) and
`context_pack` (POST /context depth 1, a different seed each request). One keep-alive
`httpx.Client` per side sends sequential requests, interleaved request by request
(bench/reads `interleaved`). Each figure is the req/s of a side divided by the req/s of `off`.
The traced sides' steps are written by their background writers during the run, as in
production; a traced session of this size reaches the cap, so `max_steps_per_session` is
raised to hold them all.

    .venv/bin/python bench/trace/run.py [--records N] [--backend sqlite|postgresql --dsn DSN]

Figures go to bench/trace/results/latest-<backend>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from lorebase_keeper.app import create_app
from lorebase_platform.settings import Settings
from lorebase_store import Store, import_directory

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/, for common.py
from common import (
    DOMAIN,
    KIND,
    git_commit,
    load_reads,
    log,
    machine_info,
    workspace,
    write_dataset,
)

reads = load_reads()

HERE = Path(__file__).resolve().parent
PRINCIPAL = "usr_bench"
API = f"/api/v1/domains/{DOMAIN}"
REQUESTS = {"get_record": 1500, "context_pack": 400}
WARMUP = 50
SIDES = ("off", "untraced", "traced", "trace_all")
TARGETS = {"untraced": 0.98, "traced": 0.85}
"""Side -> the least req/s ratio to `off`, in every figure."""


def keeper_settings(side: str, requests: int) -> Settings:
    trace: dict[str, Any] = {
        "enabled": side != "off",
        "trace_all": side == "trace_all",
        "max_steps_per_session": max(2000, requests * 2),
    }
    return Settings(
        keeper={"auth": {"mode": "api_key"}, "trace": trace, "rate_limits": {"enabled": False}}
    )


def side_headers(side: str, secret: str) -> dict[str, str]:
    headers = {"authorization": f"Bearer {secret}"}
    if side == "traced":
        headers |= {"X-Lorebase-Trace": "on", "X-Lorebase-Session": "bench-traced"}
    return headers


def run(records: int, backend: str, dsn: str | None) -> dict[str, Any]:
    started = time.perf_counter()
    with workspace(backend, dsn) as (workdir, databases):
        url = databases.new_url("trace")
        machine = machine_info(backend, url)
        log(f"code: {machine['git_commit']}")
        log(f"generating and importing {records} Items with Links")
        dataset = write_dataset(workdir / "data", records, links=True, origin="bench/trace")
        store = Store.open(url)
        try:
            import_directory(store, dataset)
            store.ensure_principal(PRINCIPAL)
            store.add_grant(PRINCIPAL, domain=DOMAIN, role="admin")
            secret = store.create_key(PRINCIPAL, description="bench/trace").secret
            results = measure(store, secret, records)
            steps = store.trace_session(PRINCIPAL, "bench-traced")
            recorded = len(steps.steps) if steps is not None else 0
        finally:
            store.close()
    if git_commit() != machine["git_commit"]:
        machine["git_commit_at_end"] = git_commit()
    machine["load_average_at_end"] = [round(load, 2) for load in os.getloadavg()]
    passed = all(
        results[name]["ratios"][side] >= limit
        for name in REQUESTS
        for side, limit in TARGETS.items()
    )
    return {
        "benchmark": "trace",
        "backend": backend,
        "records": records,
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "duration_s": round(time.perf_counter() - started, 1),
        "machine": machine,
        "results": results,
        "traced_steps_written": recorded,
        "targets": TARGETS,
        "passed": passed,
    }


def measure(store: Store, secret: str, records: int) -> dict[str, Any]:
    results: dict[str, Any] = {}
    total = sum(REQUESTS.values()) + 2 * WARMUP
    with ExitStack() as stack:
        apps = {side: create_app(keeper_settings(side, total), store=store) for side in SIDES}
        urls = {
            side: stack.enter_context(reads.serve_in_thread(app, side))
            for side, app in apps.items()
        }
        clients = {
            side: stack.enter_context(
                httpx.Client(base_url=urls[side], headers=side_headers(side, secret), timeout=120)
            )
            for side in SIDES
        }
        keys = reads.distinct_items(records, REQUESTS["get_record"] + WARMUP, seed=31)

        def get_record(side: str) -> Any:
            def call(index: int) -> object:
                path = f"{API}/kinds/{KIND}/records/{keys[index]}"
                return reads.expect(clients[side].get(path), 200)

            return call

        seeds = reads.distinct_items(records, REQUESTS["context_pack"] + WARMUP, seed=32)

        def context_pack(side: str) -> Any:
            def call(index: int) -> object:
                body = {"refs": [f"{KIND}/{seeds[index]}"], "depth": 1}
                return reads.expect(clients[side].post(f"{API}/context", json=body), 200)

            return call

        for name, make in (("get_record", get_record), ("context_pack", context_pack)):
            log(f"{name}: {REQUESTS[name]} requests per side, interleaved")
            samples = reads.interleaved(
                {side: make(side) for side in SIDES}, REQUESTS[name], WARMUP
            )
            sides = {side: reads.summary(found) for side, found in samples.items()}
            base = sides["off"]["rps"]
            results[name] = {
                **sides,
                "ratios": {side: round(sides[side]["rps"] / base, 3) for side in SIDES[1:]},
            }
        for app in apps.values():
            app.state.keeper.recorder.flush(30)
    return results


def print_report(report: dict[str, Any]) -> None:
    print(
        f"trace benchmark, {report['backend']}, N={report['records']} Items (req/s, ratio to off)"
    )
    print(f"{'figure':<14}" + "".join(f"{side:>18}" for side in SIDES))
    for name, row in report["results"].items():
        cells = [f"{row['off']['rps']:>18.1f}"]
        for side in SIDES[1:]:
            cells.append(f"{row[side]['rps']:>10.1f} ({row['ratios'][side]:.3f})")
        print(f"{name:<14}" + "".join(cells))
    print(f"targets: {report['targets']} -> {'pass' if report['passed'] else 'MISSED'}")
    print(f"steps written for the traced side: {report['traced_steps_written']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--records", type=int, default=20_000, help="Items to import (N)")
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--dsn", help="PostgreSQL DSN (default $LOREBASE_BENCH_POSTGRES_DSN)")
    parser.add_argument("--out", type=Path, help="JSON file (default results/latest-BACKEND.json)")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args(argv)
    report = run(args.records, args.backend, args.dsn)
    out = args.out or HERE / "results" / f"latest-{args.backend}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print_report(report)
    print(f"wrote {out}")
    return 1 if args.check and not report["passed"] else 0


if __name__ == "__main__":
    sys.exit(main())
