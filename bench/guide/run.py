"""Guide on the supply questions: mean score, score per question, steps, tokens, time.

One Keeper (uvicorn on loopback, auth mode `api_key`, the demo's admin key as the caller)
serves a fresh SQLite file with the supply example. Each question of questions.py (the
Domain's examples, then multi-hop ones; expected answers computed from the data) is explored
`--runs` times through `lorebase_guide.explore`, exactly as Guide's POST /explore runs it, and
each answer is scored against the data (partial credit: recall times precision).

    .venv/bin/python bench/guide/run.py                      # the local Qwen2.5-Coder-1.5B
    .venv/bin/python bench/guide/run.py --base-url URL --model NAME   # any OpenAI-compatible
    .venv/bin/python bench/guide/run.py --scripted           # plumbing check, no model

By default the model is llama.cpp serving `local_model_path()` (scripts/fetch-model.sh) on
loopback with one thread. Figures go to bench/guide/results/latest.json (latest-scripted.json
with --scripted).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # bench/, for common.py
sys.path.insert(0, str(HERE))
from questions import SUPPLY, Question, questions, score  # noqa: E402

from common import git_commit, log  # noqa: E402
from lorebase_guide import Caller, Exploration, explore  # noqa: E402
from lorebase_inference import ChatEndpoint, ChatModel  # noqa: E402
from lorebase_inference.testing import (  # noqa: E402
    LocalModelServer,
    RecordedRequest,
    ScriptedModelServer,
    local_model_path,
)
from lorebase_keeper.testing import demo_keeper  # noqa: E402
from lorebase_platform.settings import Settings  # noqa: E402

TARGET_SCORE = 0.83
TARGET_TOKENS = 20000


@dataclass(frozen=True)
class Outcome:
    question: str
    run: int
    score: float
    found: bool
    steps: int
    tools: list[str]
    calls: list[dict[str, Any]]
    """Each tool call of the model (after Guide's first step), with its arguments."""
    tokens: int
    seconds: float
    outcome: str
    answer: str
    citations: list[str]


@contextmanager
def keeper() -> Iterator[tuple[str, str]]:
    """Keeper on loopback with the supply example; its URL and the admin's key."""
    settings = {"auth": {"mode": "api_key"}, "rate_limits": {"enabled": False}}
    with (
        tempfile.TemporaryDirectory(prefix="bench-guide-") as folder,
        demo_keeper(SUPPLY, Path(folder), settings) as live,
    ):
        yield live.url, live.keys["admin"]


def plumbing(request: RecordedRequest) -> dict[str, Any]:
    """The scripted model: cite what resolve's first ready query (run in step 1) returned."""
    last = request.body["messages"][-1]["content"]
    _, ran, answered = last.partition("Ready query 1 was run for you; its answer:")
    refs = sorted(set(_refs(answered if ran else last)))
    return {
        "thought": "Answer from the result.",
        "action": "answer",
        "args": {
            "facts": [f"{ref} was returned" for ref in refs],
            "answer": "The Records: " + ", ".join(refs),
            "citations": refs,
            "found": bool(refs),
        },
    }


def _refs(text: str) -> list[str]:
    import re

    return re.findall(
        r"(?<![\w/])(?:Supplier|Part|PurchaseOrder|Contract|Plant|RiskFlag)/[A-Z0-9-]+", text
    )


async def explore_once(
    question: Question, run: int, url: str, key: str, endpoint: ChatEndpoint, budget: int
) -> Outcome:
    settings = Settings(guide={"keeper": {"base_url": url}})
    caller = Caller("usr_admin", {"Authorization": f"Bearer {key}"})
    started = time.monotonic()
    tools: list[str] = []
    calls: list[dict[str, Any]] = []
    final: dict[str, Any] = {}
    done: dict[str, Any] = {}
    async with ChatModel(endpoint) as model:
        exploration = Exploration(
            "supply", None, question.text, settings.guide.agent.max_steps, budget
        )
        async for name, data in explore(
            exploration, caller, settings=settings, model=model, embedder=None
        ):
            if name == "tool_call":
                tools.append(data["tool"])
                if data["step"] > 1:
                    calls.append({"tool": data["tool"], "args": data["args"]})
            elif name == "answer":
                final = data
            elif name == "done":
                done = data
    citations = [citation["ref"] for citation in final["citations"]]
    return Outcome(
        question=question.name,
        run=run,
        score=score(question, final["text"], citations, final["found"]),
        found=final["found"],
        steps=done["steps"],
        tools=tools,
        calls=calls,
        tokens=done["tokens"]["input"] + done["tokens"]["output"],
        seconds=round(time.monotonic() - started, 2),
        outcome=done["outcome"],
        answer=final["text"],
        citations=citations,
    )


def summary(outcomes: list[Outcome], asked: list[Question]) -> dict[str, Any]:
    per_question = {}
    for question in asked:
        mine = [o for o in outcomes if o.question == question.name]
        per_question[question.name] = {
            "question": question.text,
            "expected": question.expected,
            "score": round(statistics.mean(o.score for o in mine), 3),
            "scores": [o.score for o in mine],
            "steps": [o.steps for o in mine],
            "tokens": [o.tokens for o in mine],
            "max_tokens": max(o.tokens for o in mine),
            "median_s": round(statistics.median(o.seconds for o in mine), 1),
        }
    return {
        "mean_score": round(statistics.mean(o.score for o in outcomes), 3),
        "questions": per_question,
        "median_s": round(statistics.median(o.seconds for o in outcomes), 1),
        "max_tokens": max(o.tokens for o in outcomes),
        "mean_tokens": round(statistics.mean(o.tokens for o in outcomes)),
        "steps": {"min": min(o.steps for o in outcomes), "max": max(o.steps for o in outcomes)},
    }


def print_table(result: dict[str, Any]) -> None:
    print(f"{'question':32} {'score':>6} {'steps':>10} {'max tok':>8} {'median s':>9}")
    for name, figures in result["questions"].items():
        steps = "/".join(map(str, figures["steps"]))
        print(
            f"{name:32} {figures['score']:6.2f} {steps:>10} {figures['max_tokens']:8d} "
            f"{figures['median_s']:9.1f}"
        )
    print(
        f"mean score {result['mean_score']:.2f} (target {TARGET_SCORE}); "
        f"tokens per question at most {result['max_tokens']} (target {TARGET_TOKENS}); "
        f"median {result['median_s']} s"
    )


async def main_async(args: argparse.Namespace) -> int:
    asked = [q for q in questions() if not args.only or q.name in args.only]
    outcomes: list[Outcome] = []
    with ExitStack() as stack:
        url, key = stack.enter_context(keeper())
        if args.scripted:
            server = stack.enter_context(ScriptedModelServer([plumbing] * 1000))
            endpoint = ChatEndpoint(base_url=server.base_url, model="scripted")
            model_name = "scripted"
        elif args.base_url:
            model_key = os.environ.get(args.api_key_env) if args.api_key_env else None
            if args.api_key_env and not model_key:
                log(f"--api-key-env {args.api_key_env}: that environment variable is not set")
                return 2
            endpoint = ChatEndpoint(
                base_url=args.base_url,
                model=args.model or "default",
                api_key=model_key,
                timeout_s=600,
            )
            model_name = args.model or "default"
        else:
            gguf = local_model_path()
            if not gguf.exists():
                log(f"no model at {gguf}: run bash scripts/fetch-model.sh (or pass --base-url)")
                return 2
            log(f"starting llama.cpp on {gguf.name} (1 thread, n_ctx {args.n_ctx})")
            local = stack.enter_context(
                LocalModelServer(gguf, n_ctx=args.n_ctx, threads=args.threads)
            )
            endpoint = ChatEndpoint(base_url=local.base_url, model=local.model, timeout_s=600)
            model_name = gguf.name
        for run in range(1, args.runs + 1):
            for question in asked:
                outcome = await explore_once(question, run, url, key, endpoint, args.budget)
                outcomes.append(outcome)
                log(
                    f"run {run} {question.name}: score {outcome.score} ({outcome.outcome}, "
                    f"{outcome.steps} steps {'>'.join(outcome.tools)}, {outcome.tokens} tokens, "
                    f"{outcome.seconds} s) {outcome.answer[:160]!r}"
                )
    result = summary(outcomes, asked)
    result.update(
        {
            "benchmark": "guide",
            "model": model_name,
            "runs": args.runs,
            "budget_tokens": args.budget,
            "git_commit": git_commit(),
            "at": datetime.now(UTC).isoformat(timespec="seconds"),
            "outcomes": [o.__dict__ for o in outcomes],
        }
    )
    print_table(result)
    out = args.out or HERE / "results" / (
        "latest-scripted.json" if args.scripted else "latest.json"
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    log(f"wrote {out}")
    met = result["mean_score"] >= TARGET_SCORE and result["max_tokens"] <= TARGET_TOKENS
    return 0 if met or not args.check else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base-url", help="an OpenAI-compatible endpoint (…/v1)")
    parser.add_argument("--model", help="the model name of --base-url")
    parser.add_argument(
        "--api-key-env", metavar="NAME", help="the environment variable holding --base-url's key"
    )
    parser.add_argument("--scripted", action="store_true", help="the scripted model: plumbing")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--budget", type=int, default=TARGET_TOKENS, help="tokens per question")
    parser.add_argument("--only", nargs="*", help="question names to run")
    parser.add_argument("--n-ctx", type=int, default=16384)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    return asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    raise SystemExit(main())
