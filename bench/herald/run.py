"""Herald against the client it wraps: a tool call's latency, and its answer's size in tokens.

One Keeper (uvicorn on loopback, auth mode `none`, in a process of its own or with `--keeper
thread` in a thread of this one) serves a fresh SQLite file holding examples/supply. Two
figures, each against a baseline measured in the same run:

1. `latency`: five reads (a Record, a query, a search, a history, a context pack) made five
   ways: `client`, the read through `AsyncLorebaseClient` (the baseline, the very call Herald
   makes); `stdio`, the same read as a tool call of Herald started as `python -m lorebase_herald`
   (a subprocess, `mcp.Client(StdioServerParameters(...))`); `in_process`, the tool call through
   `mcp.Client(herald.mcp)`; `stdio_floor` and `in_process_floor`, the bare MCP server of
   floor.py answering the same stored results (the SDK's own cost). The sides are interleaved
   call by call (who goes first rotates), in rounds over the five reads, after a warm-up.
   Figures: p50 and p95 per read and side, and each side's p50 (and p95) divided by the
   client's. Target: stdio p50 <= 1.3x the client's, for every read.
2. `tokens`: for the reads an agent makes for the five questions of the supply example
   (`domain.examples`), the estimated tokens of the tool's Markdown text against those of Keeper's
   JSON answer to the same read (`json.dumps(answer)`), both `ceil(chars / chars_per_token)`.
   Target: at least 40% fewer tokens in total. Equal content is checked for each read: every
   ref and every value (each scalar leaf) of the JSON answer must appear in the text; the leaves
   that do not are listed by path.

    .venv/bin/python bench/herald/run.py [--rounds N] [--warmup N] [--check]

`LOREBASE_BENCH_HERALD_ROUNDS` sets the rounds too (the flag wins). Figures go to
bench/herald/results/latest-sqlite.json.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import httpx
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult, TextContent

from lorebase_client import AsyncLorebaseClient
from lorebase_core.context import estimate_tokens
from lorebase_core.markdown import inline_value as rendered
from lorebase_herald import Herald
from lorebase_keeper.app import create_app
from lorebase_platform.settings import Settings
from lorebase_store import Store, import_directory

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/, for common.py
from common import ROOT, git_commit, load_reads, log, machine_info, workspace

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/herald, for floor.py
from floor import floor_server

reads = load_reads()

HERE = Path(__file__).resolve().parent
SUPPLY = ROOT / "examples" / "supply"
DOMAIN = "supply"
ROUNDS_VARIABLE = "LOREBASE_BENCH_HERALD_ROUNDS"
ROUNDS = 300
WARMUP = 20
SIDES = ("client", "stdio", "in_process", "stdio_floor", "in_process_floor")
"""The baseline, Herald two ways, and the bare MCP server of floor.py two ways."""
LATENCY_TARGET = 1.3
"""Herald over stdio: the largest p50 ratio to the client, for every read."""
TOKEN_TARGET = 0.40
"""The least saving of the text against the JSON, over all the token reads."""

HIGH_RISK: dict[str, Any] = {
    "and": [
        {"attr": "tier", "op": "eq", "value": 1},
        {"attr": "risk_score", "op": "gte", "value": 70},
        {"rel": "supplier_orders", "where": {"attr": "status", "op": "eq", "value": "open"}},
    ]
}
SINGLE_SUPPLIER: dict[str, Any] = {"rel": "supplied_by", "count": {"op": "eq", "value": 1}}
SOLE_SOURCE_OF_S1007: dict[str, Any] = {
    "and": [
        {"rel": "supplied_by", "where": {"attr": "supplier_code", "op": "eq", "value": "S-1007"}},
        SINGLE_SUPPLIER,
    ]
}

ClientCall = Callable[[AsyncLorebaseClient], Awaitable[Any]]


@dataclass(frozen=True)
class Read:
    """One read, as a tool call and as the client call Herald makes for it."""

    name: str
    tool: str
    arguments: dict[str, Any]
    client: ClientCall
    question: str = ""


HIGH_RISK_READ = Read(
    "query tier-1 high risk",
    "lorebase_query",
    {
        "domain": DOMAIN,
        "kind": "Supplier",
        "where": HIGH_RISK,
        "select": ["legal_name", "risk_score"],
    },
    lambda c: c.query(
        DOMAIN, kind="Supplier", where=HIGH_RISK, select=["legal_name", "risk_score"], coverage=True
    ),
)
"""The query of tier-1 suppliers at high risk with open orders: in both figures."""


def latency_reads(max_tokens: int) -> list[Read]:
    """The five reads of the latency figure."""
    return [
        Read(
            "record S-1001",
            "lorebase_record",
            {"domain": DOMAIN, "kind": "Supplier", "key": "S-1001"},
            lambda c: c.record(DOMAIN, "Supplier", "S-1001", links=True, lineage=False),
        ),
        HIGH_RISK_READ,
        Read(
            'search "bearing"',
            "lorebase_search",
            {"domain": DOMAIN, "q": "bearing"},
            lambda c: c.search(DOMAIN, "bearing"),
        ),
        Read(
            "history C-3013",
            "lorebase_history",
            {"domain": DOMAIN, "kind": "Contract", "key": "C-3013"},
            lambda c: c.history(DOMAIN, "Contract", "C-3013"),
        ),
        Read(
            "context S-1007",
            "lorebase_context",
            {"domain": DOMAIN, "refs": ["Supplier/S-1007"]},
            lambda c: c.context_markdown(
                DOMAIN, refs=["Supplier/S-1007"], budget_tokens=max_tokens
            ),
        ),
    ]


def token_reads() -> list[Read]:
    """The reads an agent makes for the supply example's questions (examples/supply/README.md)."""
    single = "Which parts have a single supplier?"
    high_risk = "Which tier-1 suppliers at high risk have open purchase orders?"
    depends = "What depends on supplier S-1007?"
    history = "What changed in the history of contract C-3013?"
    bering = 'Find the parts whose names contain "bering".'
    return [
        Read(
            "query single-supplier parts",
            "lorebase_query",
            {"domain": DOMAIN, "kind": "Part", "where": SINGLE_SUPPLIER, "select": ["name"]},
            lambda c: c.query(
                DOMAIN, kind="Part", where=SINGLE_SUPPLIER, select=["name"], coverage=True
            ),
            single,
        ),
        replace(HIGH_RISK_READ, name="query tier-1 high risk, open orders", question=high_risk),
        Read(
            "neighborhood S-1007",
            "lorebase_neighborhood",
            {"domain": DOMAIN, "refs": ["Supplier/S-1007"], "depth": 1},
            lambda c: c.neighborhood(DOMAIN, ["Supplier/S-1007"], depth=1),
            depends,
        ),
        Read(
            "query sole-source parts of S-1007",
            "lorebase_query",
            {"domain": DOMAIN, "kind": "Part", "where": SOLE_SOURCE_OF_S1007, "select": ["name"]},
            lambda c: c.query(
                DOMAIN, kind="Part", where=SOLE_SOURCE_OF_S1007, select=["name"], coverage=True
            ),
            depends,
        ),
        Read(
            "history C-3013",
            "lorebase_history",
            {"domain": DOMAIN, "kind": "Contract", "key": "C-3013"},
            lambda c: c.history(DOMAIN, "Contract", "C-3013"),
            history,
        ),
        Read(
            "history C-3013, values",
            "lorebase_history",
            {"domain": DOMAIN, "kind": "Contract", "key": "C-3013", "values": True},
            lambda c: c.history(DOMAIN, "Contract", "C-3013", values=True),
            history,
        ),
        Read(
            'search "bering" in Part',
            "lorebase_search",
            {"domain": DOMAIN, "q": "bering", "kinds": ["Part"]},
            lambda c: c.search(DOMAIN, "bering", kinds=["Part"]),
            bering,
        ),
        Read(
            'query Part name contains "bearing"',
            "lorebase_query",
            {
                "domain": DOMAIN,
                "kind": "Part",
                "where": {"attr": "name", "op": "contains", "value": "bearing"},
                "select": ["name", "unit_cost"],
            },
            lambda c: c.query(
                DOMAIN,
                kind="Part",
                where={"attr": "name", "op": "contains", "value": "bearing"},
                select=["name", "unit_cost"],
                coverage=True,
            ),
            bering,
        ),
    ]


# -- running -----------------------------------------------------------------------------------
def text_of(result: CallToolResult, read: Read) -> str:
    if result.is_error:
        raise RuntimeError(f"{read.name}: {read.tool} answered an error: {result.content}")
    [content] = result.content
    assert isinstance(content, TextContent)
    return content.text


def floor_parameters(canned: Path) -> StdioServerParameters:
    """floor.py over stdio, started like Herald."""
    return StdioServerParameters(
        command=sys.executable, args=[str(HERE / "floor.py"), str(canned)], cwd=str(ROOT)
    )


def stdio_parameters(keeper_url: str) -> StdioServerParameters:
    """Herald as a desktop client starts it: `python -m lorebase_herald`, settings from the env."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "lorebase_herald"],
        env={"LOREBASE__HERALD__KEEPER__BASE_URL": keeper_url},
        cwd=str(ROOT),
    )


KEEPER_PROGRAM = """\
import sys
import uvicorn
from lorebase_keeper.app import create_app
from lorebase_platform.settings import Settings
from lorebase_store import Store

store = Store.open(sys.argv[1])
app = create_app(Settings(keeper={"auth": {"mode": "none"}, "rate_limits": {"enabled": False}}), store=store)
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning",
            access_log=False, timeout_keep_alive=120)
"""
"""Keeper under uvicorn, configured as bench/reads' `serve_in_thread` configures it."""


@contextmanager
def keeper_process(database_url: str, log_file: Path) -> Iterator[str]:
    """Keeper (`KEEPER_PROGRAM`, auth mode none) on a free loopback port; yields its URL.

    A process of its own, so that Keeper does not share the interpreter lock with the measuring
    client as a Keeper thread would. Its stderr goes to `log_file`.
    """
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-c", KEEPER_PROGRAM, database_url, str(port)]
    log = log_file.open("wb")
    server = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.DEVNULL, stderr=log)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if server.poll() is not None:
                raise RuntimeError(
                    f"Keeper stopped before it answered (exit {server.returncode}): "
                    + log_file.read_text(errors="replace")[-2000:]
                )
            try:
                if httpx.get(f"{url}/readyz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("Keeper did not answer /readyz within 60 s")
            time.sleep(0.1)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


def run(rounds: int, warmup: int, keeper: str) -> dict[str, Any]:
    started = time.perf_counter()
    with workspace("sqlite") as (workdir, databases):
        url = databases.new_url("herald")
        machine = machine_info("sqlite", url)
        log(f"code: {machine['git_commit']}")
        store = Store.open(url)
        try:
            import_directory(store, SUPPLY)
            if keeper == "thread":
                app = create_app(
                    Settings(keeper={"auth": {"mode": "none"}, "rate_limits": {"enabled": False}}),
                    store=store,
                )
                with reads.serve_in_thread(app, "keeper") as keeper_url:
                    results = anyio.run(measure, keeper_url, rounds, warmup, workdir)
        finally:
            store.close()
        if keeper == "process":
            with keeper_process(url, workdir / "keeper.log") as keeper_url:
                results = anyio.run(measure, keeper_url, rounds, warmup, workdir)
    if git_commit() != machine["git_commit"]:
        machine["git_commit_at_end"] = git_commit()
    machine["load_average_at_end"] = [round(load, 2) for load in os.getloadavg()]
    latency, tokens = results["latency"], results["tokens"]
    return {
        "benchmark": "herald",
        "backend": "sqlite",
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "duration_s": round(time.perf_counter() - started, 1),
        "machine": machine,
        "rounds": rounds,
        "warmup": warmup,
        "keeper": keeper,
        "settings": results["settings"],
        "latency": latency,
        "tokens": tokens,
        "targets": {
            "stdio_p50_ratio_at_most": LATENCY_TARGET,
            "token_saving_at_least": TOKEN_TARGET,
        },
        "passed": {
            "latency": all(row["stdio"]["p50_ratio"] <= LATENCY_TARGET for row in latency.values()),
            "tokens": tokens["total"]["saving"] >= TOKEN_TARGET,
            "equal_content": all(not row["missing"] for row in tokens["reads"].values()),
        },
    }


async def measure(keeper_url: str, rounds: int, warmup: int, workdir: Path) -> dict[str, Any]:
    settings = Settings(herald={"keeper": {"base_url": keeper_url}})
    herald = Herald(settings)
    client = AsyncLorebaseClient(keeper_url)
    chars_per_token = settings.agents.context.chars_per_token
    chosen = latency_reads(settings.herald.max_result_tokens)
    try:
        async with Client(herald.mcp) as in_process:
            canned = {
                read.name: (await in_process.call_tool(read.tool, read.arguments)).model_dump(
                    mode="json", by_alias=True, exclude_none=True
                )
                for read in chosen
            }
            path = workdir / "canned.json"
            path.write_text(json.dumps(canned), encoding="utf-8")
            async with (
                Client(stdio_parameters(keeper_url)) as stdio,
                Client(floor_server(canned)) as in_process_floor,
                Client(floor_parameters(path)) as stdio_floor,
            ):
                sessions = {
                    "stdio": stdio,
                    "in_process": in_process,
                    "stdio_floor": stdio_floor,
                    "in_process_floor": in_process_floor,
                }
                latency = await measure_latency(chosen, client, sessions, rounds, warmup)
                tokens = await measure_tokens(token_reads(), client, in_process, chars_per_token)
    finally:
        await client.aclose()
        await herald.aclose()
    return {
        "latency": latency,
        "tokens": tokens,
        "settings": {
            "chars_per_token": chars_per_token,
            "max_result_tokens": settings.herald.max_result_tokens,
            "herald_trace_enabled": settings.herald.trace.enabled,
            "keeper_auth": "none",
        },
    }


async def measure_latency(
    chosen: list[Read],
    client: AsyncLorebaseClient,
    sessions: dict[str, Client],
    rounds: int,
    warmup: int,
) -> dict[str, Any]:
    calls: dict[str, dict[str, Callable[[], Awaitable[Any]]]] = {}
    for read in chosen:
        answer = await read.client(client)
        if not answer:
            raise RuntimeError(f"{read.name}: the client's answer is empty")
        floor = {"read": read.name}
        texts = {
            side: text_of(await sessions[side].call_tool(read.tool, read.arguments), read)
            for side in ("stdio", "in_process")
        }
        texts |= {
            side: text_of(await sessions[side].call_tool("canned", floor), read)
            for side in ("stdio_floor", "in_process_floor")
        }
        if len(set(texts.values())) != 1:
            raise RuntimeError(f"{read.name}: Herald and the floor answered different texts")
        calls[read.name] = {
            "client": _client_call(read, client),
            "stdio": _tool_call(read, sessions["stdio"], read.tool, read.arguments),
            "in_process": _tool_call(read, sessions["in_process"], read.tool, read.arguments),
            "stdio_floor": _tool_call(read, sessions["stdio_floor"], "canned", floor),
            "in_process_floor": _tool_call(read, sessions["in_process_floor"], "canned", floor),
        }
    log(f"latency: {len(chosen)} reads x {len(SIDES)} sides, {rounds} rounds after {warmup}")
    samples: dict[str, dict[str, list[int]]] = {
        read.name: {side: [] for side in SIDES} for read in chosen
    }
    order = list(SIDES)
    for index in range(warmup + rounds):
        for read in chosen:
            order = order[1:] + order[:1]
            for side in order:
                start = time.perf_counter_ns()
                await calls[read.name][side]()
                elapsed = time.perf_counter_ns() - start
                if index >= warmup:
                    samples[read.name][side].append(elapsed)
        if index and index % 100 == 0:
            log(f"latency: round {index} of {warmup + rounds}")
    results: dict[str, Any] = {}
    for read in chosen:
        found = {side: summary(samples[read.name][side]) for side in SIDES}
        base = found["client"]
        row: dict[str, Any] = {"tool": read.tool, "arguments": read.arguments, "client": base}
        for side in SIDES[1:]:
            row[side] = {
                **found[side],
                "p50_ratio": round(found[side]["p50_ms"] / base["p50_ms"], 2),
                "p95_ratio": round(found[side]["p95_ms"] / base["p95_ms"], 2),
                "p50_added_ms": round(found[side]["p50_ms"] - base["p50_ms"], 3),
            }
        results[read.name] = row
    return results


def _client_call(read: Read, client: AsyncLorebaseClient) -> Callable[[], Awaitable[Any]]:
    async def call() -> Any:
        return await read.client(client)

    return call


def _tool_call(
    read: Read, session: Client, tool: str, arguments: dict[str, Any]
) -> Callable[[], Awaitable[Any]]:
    async def call() -> Any:
        result = await session.call_tool(tool, arguments)
        if result.is_error:
            raise RuntimeError(f"{read.name}: {tool} answered an error")
        return result

    return call


def summary(samples_ns: list[int]) -> dict[str, float]:
    ordered = sorted(samples_ns)
    return {
        "n": len(ordered),
        "p50_ms": round(statistics.median(ordered) / 1e6, 3),
        "p95_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))] / 1e6, 3),
        "mean_ms": round(statistics.fmean(ordered) / 1e6, 3),
    }


# -- tokens and content ------------------------------------------------------------------------
async def measure_tokens(
    chosen: list[Read], client: AsyncLorebaseClient, session: Client, chars_per_token: float
) -> dict[str, Any]:
    rows: dict[str, Any] = {}
    total_text = total_json = total_shown = 0
    for read in chosen:
        answer = dict(await read.client(client))
        result = await session.call_tool(read.tool, read.arguments)
        text = text_of(result, read)
        structured = result.structured_content or {}
        raw = json.dumps(answer)
        text_tokens = estimate_tokens(text, chars_per_token)
        json_tokens = estimate_tokens(raw, chars_per_token)
        compact = estimate_tokens(json.dumps(answer, separators=(",", ":")), chars_per_token)
        leaves = list(content_leaves(answer))
        missing = [path for path, needle in leaves if not appears(needle, text)]
        shown = estimate_tokens(json.dumps(pruned(answer, set(missing))), chars_per_token)
        total_text += text_tokens
        total_json += json_tokens
        total_shown += shown
        rows[read.name] = {
            "question": read.question,
            "tool": read.tool,
            "arguments": read.arguments,
            "text_tokens": text_tokens,
            "json_tokens": json_tokens,
            "compact_json_tokens": compact,
            "saving": round(1 - text_tokens / json_tokens, 3),
            "shown_json_tokens": shown,
            "saving_at_equal_content": round(1 - text_tokens / shown, 3),
            "truncated": bool(structured.get("truncated")),
            "leaves": len(leaves),
            "missing": missing,
            "missing_paths": collapsed(missing),
            "json_tokens_by_member": {
                member: estimate_tokens(json.dumps(item), chars_per_token)
                for member, item in answer.items()
            },
            "text_largest_lines": largest_lines(text, chars_per_token),
            "text": text,
        }
    complete = [row for row in rows.values() if not row["missing"]]
    complete_text = sum(row["text_tokens"] for row in complete)
    complete_json = sum(row["json_tokens"] for row in complete)
    return {
        "reads": rows,
        "total": {
            "text_tokens": total_text,
            "json_tokens": total_json,
            "saving": round(1 - total_text / total_json, 3),
            "shown_json_tokens": total_shown,
            "saving_at_equal_content": round(1 - total_text / total_shown, 3),
        },
        "complete_content": {
            "reads": [name for name, row in rows.items() if not row["missing"]],
            "text_tokens": complete_text,
            "json_tokens": complete_json,
            "saving": round(1 - complete_text / complete_json, 3) if complete_json else None,
        },
    }


REVISION = re.compile(r"^[0-9a-f]{64}$")


Needle = tuple[tuple[str, ...], list[str]]
"""What must be on one line of the text: every anchor (as is) and one of the spellings."""


def content_leaves(
    document: Any, path: str = "", anchors: tuple[str, ...] = ()
) -> Iterator[tuple[str, Needle]]:
    """Every scalar of `document` with its path and what counts as showing it.

    A value is shown as `lorebase_core.markdown.inline_value` writes it, a Revision id by its first
    12 characters (Herald's short form), a float also rounded to 2 decimals (scores); `null`,
    empty lists and empty objects carry nothing and are skipped. A value inside an item of a
    list must be on the item's line: an item with a `ref` anchors its values to a line holding
    that ref, a Link (`from`, `to`) to a line holding both ends, a change (`revision`) to a line
    holding its short Revision.
    """
    if isinstance(document, Mapping):
        if path:
            anchors = anchors + _anchors(document)
        for name, item in document.items():
            yield from content_leaves(item, f"{path}.{name}" if path else str(name), anchors)
        return
    if isinstance(document, list):
        for index, item in enumerate(document):
            yield from content_leaves(item, f"{path}[{index}]", anchors)
        return
    if document is None:
        return
    if isinstance(document, str) and REVISION.match(document):
        yield path, (anchors, [document[:12]])
        return
    spellings = [rendered(document)]
    if isinstance(document, float):
        spellings.append(f"{document:.2f}")
    yield path, (anchors, spellings)


def _anchors(item: Mapping[str, Any]) -> tuple[str, ...]:
    if isinstance(item.get("ref"), str):
        return (item["ref"],)
    if isinstance(item.get("from"), str) and isinstance(item.get("to"), str):
        return (item["from"], item["to"])
    if isinstance(item.get("revision"), str):
        return (item["revision"][:12],)
    return ()


def appears(needle: Needle, text: str) -> bool:
    """Whether a line of `text` holds every anchor and a spelling as a whole word."""
    anchors, spellings = needle
    patterns = [re.compile(rf"(?<![\w.]){re.escape(item)}(?![\w])") for item in spellings]
    return any(
        all(anchor in line for anchor in anchors)
        and any(pattern.search(line) for pattern in patterns)
        for line in text.splitlines()
    )


def pruned(document: Any, missing: set[str], path: str = "") -> Any:
    """`document` without the leaves at the `missing` paths (and the containers they empty):
    the JSON of what the text shows."""
    if isinstance(document, Mapping):
        kept = {}
        for name, item in document.items():
            inner = f"{path}.{name}" if path else str(name)
            cut = pruned(item, missing, inner)
            if inner not in missing and not (_container(item) and item and not cut):
                kept[name] = cut
        return kept
    if isinstance(document, list):
        items = [pruned(item, missing, f"{path}[{index}]") for index, item in enumerate(document)]
        return [
            cut
            for index, (item, cut) in enumerate(zip(document, items, strict=True))
            if f"{path}[{index}]" not in missing and not (_container(item) and item and not cut)
        ]
    return document


def _container(item: Any) -> bool:
    return isinstance(item, Mapping | list)


def collapsed(paths: list[str]) -> dict[str, int]:
    """The missing paths with list indices folded (`coverage.kinds[*].records`), counted."""
    counts: dict[str, int] = {}
    for path in paths:
        folded = re.sub(r"\[\d+\]", "[*]", path)
        counts[folded] = counts.get(folded, 0) + 1
    return counts


def largest_lines(text: str, chars_per_token: float, count: int = 3) -> list[dict[str, Any]]:
    lines = sorted(text.splitlines(), key=len, reverse=True)[:count]
    return [{"tokens": estimate_tokens(line, chars_per_token), "line": line} for line in lines]


# -- the report --------------------------------------------------------------------------------
def print_report(report: dict[str, Any]) -> None:
    print(
        f"herald benchmark, supply example, {report['rounds']} rounds, Keeper in a "
        f"{report['keeper']}: p50 / p95 in ms (p50 ratio to client)"
    )
    print(f"{'read':<24}" + "".join(f"{side:>22}" for side in SIDES))
    for name, row in report["latency"].items():
        cells = []
        for side in SIDES:
            found = row[side]
            cell = f"{found['p50_ms']:.2f} / {found['p95_ms']:.2f}"
            if side != "client":
                cell += f" ({found['p50_ratio']:.2f})"
            cells.append(f"{cell:>22}")
        print(f"{name:<24}" + "".join(cells))
    print(f"{'read':<38}{'text':>6}{'json':>6}{'saving':>8}{'shown':>7}{'saving':>8}  content")
    for name, row in report["tokens"]["reads"].items():
        content = (
            f"all {row['leaves']} values"
            if not row["missing"]
            else f"{len(row['missing'])} of {row['leaves']} missing: "
            + ", ".join(row["missing_paths"])
        )
        print(
            f"{name:<38}{row['text_tokens']:>6}{row['json_tokens']:>6}{row['saving']:>8.0%}"
            f"{row['shown_json_tokens']:>7}{row['saving_at_equal_content']:>8.0%}  {content}"
        )
    total = report["tokens"]["total"]
    print(
        f"{'total':<38}{total['text_tokens']:>6}{total['json_tokens']:>6}{total['saving']:>8.0%}"
        f"{total['shown_json_tokens']:>7}{total['saving_at_equal_content']:>8.0%}"
    )
    complete = report["tokens"]["complete_content"]
    if complete["json_tokens"]:
        print(
            f"{'total of the reads with all values':<38}{complete['text_tokens']:>6}"
            f"{complete['json_tokens']:>6}{complete['saving']:>8.0%}"
        )
    print(f"targets: {report['targets']} -> {report['passed']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    default_rounds = int(os.environ.get(ROUNDS_VARIABLE) or ROUNDS)
    parser.add_argument("--rounds", type=int, default=default_rounds, help="measured rounds")
    parser.add_argument("--warmup", type=int, default=WARMUP, help="rounds before measuring")
    parser.add_argument(
        "--keeper",
        choices=("process", "thread"),
        default="process",
        help="Keeper in a process of its own (default) or in a thread of this one",
    )
    parser.add_argument("--out", type=Path, help="JSON file (default results/latest-sqlite.json)")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args(argv)
    report = run(args.rounds, args.warmup, args.keeper)
    out = args.out or HERE / "results" / "latest-sqlite.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print_report(report)
    print(f"wrote {out}")
    passed = report["passed"]
    return 1 if args.check and not (passed["latency"] and passed["tokens"]) else 0


if __name__ == "__main__":
    sys.exit(main())
