"""Webhook deliveries per second to a loopback receiver, as a ratio to raw httpx POSTs.

Three sides, alternated within each repetition on the same receiver (uvicorn on 127.0.0.1
answering 204 without reading more than the body):

- deliver: `lorebase_store.webhooks.deliver_pending` passes with `lorebase_scribe.HttpxSender`
  until the N events of N fresh commits (of the `library` test Domain) are delivered: the fan-out,
  the leases, the signing, the sends and the recording of each answer;
- sender: the same deliveries (bodies and headers as the pass sent them) through
  `HttpxSender.send` alone, webhooks.concurrency at a time: the target rules' cost;
- raw: the same bodies and headers as plain `httpx.AsyncClient.post` calls, the same concurrency.

The figures are deliveries per second and the ratios deliver/raw and sender/raw. Run it from the
workspace root:

    .venv/bin/python bench/feed/webhooks.py [--events N] [--repeat R] [--backend sqlite|postgresql]

(for PostgreSQL, --dsn or LOREBASE_BENCH_POSTGRES_DSN). It writes
bench/feed/results/webhooks-<backend>.json. `run(...)` is the same as a function, for
bench/feed/run.py.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from lorebase_core.changes import UpsertRecord
from lorebase_keeper.testing import serve_in_thread
from lorebase_platform.settings import WebhookSettings
from lorebase_scribe import HttpxSender
from lorebase_store import (
    OutgoingDelivery,
    SendResult,
    Store,
    create_webhook,
    deliver_pending,
    import_directory,
)
from lorebase_store.testing import change_request

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/, for common.py
from common import ROOT, git_commit, log, machine_info, workspace

LIBRARY = ROOT / "tests" / "data" / "library"
DOMAIN = "library"
KEY_VARIABLE = "LOREBASE_BENCH_WEBHOOK_KEY"
RESULTS = Path(__file__).resolve().parent / "results"


async def _receiver(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Answers every POST 204 once its body has arrived."""
    assert scope["type"] == "http"
    while (await receive()).get("more_body"):
        pass
    await send({"type": "http.response.start", "status": 204, "headers": []})
    await send({"type": "http.response.body", "body": b""})


class Recording:
    """Wraps a sender and keeps every delivery it was given (for the other sides to replay)."""

    def __init__(self, sender: HttpxSender) -> None:
        self.sender = sender
        self.sent: list[OutgoingDelivery] = []

    async def send(self, delivery: OutgoingDelivery) -> SendResult:
        self.sent.append(delivery)
        return await self.sender.send(delivery)


def _settings(concurrency: int, batch: int) -> WebhookSettings:
    return WebhookSettings(
        encryption_key=f"secret://env/{KEY_VARIABLE}",
        allowed_schemes=["http"],
        allow_private_targets=True,
        concurrency=concurrency,
        batch=batch,
        backoff_initial_s=0.01,
    )


def _commit_events(store: Store, count: int, offset: int) -> None:
    for number in range(count):
        store.commit(
            change_request(f"Bench change {offset + number}", domain=DOMAIN),
            [UpsertRecord("Book", "B-0001", {"pages": 1 + (offset + number) % 5000})],
        )


async def _deliver_side(
    store: Store, settings: WebhookSettings, url: str, count: int, offset: int
) -> tuple[float, list[OutgoingDelivery]]:
    create_webhook(store, DOMAIN, url=url, principal="usr_bench", settings=settings)
    _commit_events(store, count, offset)
    async with HttpxSender(settings) as sender:
        recording = Recording(sender)
        started = time.perf_counter()
        delivered = 0
        while delivered < count:
            report = await deliver_pending(store, recording, settings, domain=DOMAIN)
            delivered += report.delivered
        elapsed = time.perf_counter() - started
    return count / elapsed, recording.sent[:count]


async def _concurrently(
    items: Sequence[OutgoingDelivery],
    concurrency: int,
    send: Callable[[OutgoingDelivery], Awaitable[object]],
) -> float:
    gate = asyncio.Semaphore(concurrency)

    async def one(item: OutgoingDelivery) -> None:
        async with gate:
            await send(item)

    started = time.perf_counter()
    await asyncio.gather(*(one(item) for item in items))
    return len(items) / (time.perf_counter() - started)


async def _sender_side(settings: WebhookSettings, sent: Sequence[OutgoingDelivery]) -> float:
    async with HttpxSender(settings) as sender:

        async def send(item: OutgoingDelivery) -> None:
            result = await sender.send(item)
            assert result.acknowledged, result.error

        return await _concurrently(sent, settings.concurrency, send)


async def _raw_side(settings: WebhookSettings, sent: Sequence[OutgoingDelivery]) -> float:
    async with httpx.AsyncClient(trust_env=False) as client:

        async def send(item: OutgoingDelivery) -> None:
            response = await client.post(item.url, headers=dict(item.headers), content=item.body)
            assert response.status_code == 204

        return await _concurrently(sent, settings.concurrency, send)


def run(
    *,
    events: int = 300,
    repeat: int = 3,
    concurrency: int = 8,
    backend: str = "sqlite",
    dsn: str | None = None,
) -> dict[str, Any]:
    """Measure the three sides `repeat` times; the figures as a JSON-ready dict."""
    os.environ.setdefault(KEY_VARIABLE, "bench-webhook-sealing-key-" + "x" * 16)
    settings = _settings(concurrency, batch=events)
    sides: dict[str, list[float]] = {"deliver": [], "sender": [], "raw": []}
    with (
        workspace(backend, dsn) as (_, databases),
        serve_in_thread(_receiver, name="receiver", lifespan="off", access_log=False) as base,
    ):
        url = databases.new_url("webhooks")
        store = Store.open(url)
        try:
            import_directory(store, LIBRARY)
            for repetition in range(repeat):
                per_s, sent = asyncio.run(
                    _deliver_side(store, settings, f"{base}/hook", events, repetition * events)
                )
                sides["deliver"].append(per_s)
                sides["sender"].append(asyncio.run(_sender_side(settings, sent)))
                sides["raw"].append(asyncio.run(_raw_side(settings, sent)))
                log(
                    f"repetition {repetition + 1}: deliver {per_s:.0f}/s, "
                    f"sender {sides['sender'][-1]:.0f}/s, raw {sides['raw'][-1]:.0f}/s"
                )
        finally:
            store.close()
        machine = machine_info(backend, url)
    median = {side: statistics.median(values) for side, values in sides.items()}
    return {
        "benchmark": "feed/webhooks",
        "created_at": datetime.now(UTC).isoformat(),
        "commit": git_commit(),
        "machine": machine,
        "events": events,
        "repeat": repeat,
        "concurrency": concurrency,
        "per_second": {side: round(value, 1) for side, value in median.items()},
        "samples": {side: [round(v, 1) for v in values] for side, values in sides.items()},
        "ratios": {  # the median of each repetition's ratio: the sides ran back to back
            "deliver_to_raw": _median_ratio(sides["deliver"], sides["raw"]),
            "sender_to_raw": _median_ratio(sides["sender"], sides["raw"]),
        },
    }


def _median_ratio(side: list[float], baseline: list[float]) -> float:
    return round(statistics.median(a / b for a, b in zip(side, baseline, strict=True)), 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--backend", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--dsn")
    parser.add_argument("--out", type=Path)
    options = parser.parse_args()
    report = run(
        events=options.events,
        repeat=options.repeat,
        concurrency=options.concurrency,
        backend=options.backend,
        dsn=options.dsn,
    )
    out = options.out or RESULTS / f"webhooks-{options.backend}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({"per_second": report["per_second"], "ratios": report["ratios"]}))


if __name__ == "__main__":
    main()
