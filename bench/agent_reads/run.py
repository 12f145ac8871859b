"""What an agent reads to answer a question: following resolve's suggestion against composing by hand.

One Keeper (uvicorn on loopback, auth mode `api_key`, a viewer's key) serves a fresh SQLite file
holding the supply example and the library test Domain (tests/data/library). For each question
(the supply example's `domain.examples`, and multi-hop ones on both Domains) two plans are run
over HTTP, and the reads they make and the characters of the answers they read are counted:

- `hand`: what an agent composes by hand today: the schema (`GET /schema`, the only way to learn
  the names), then the reads a person who knows the Domain would write (`HAND` below, the
  queries of docs/query.md where it has them).
- `resolve`: `POST /resolve` with the question's text, then `POST /query` with the first of its
  `suggestions` (as resolve wrote it), then, for the questions that need one, a follow-up read of
  the first Record found (its history, or its Links along one Relation).

A plan answered the question when every Record the answer needs (`Question.expected`) appears in
what it read. Target: every question answered by the `resolve` plan in at most 3 reads and under
4,000 characters. The figure that travels between machines is the ratio of characters against
the `hand` plan of the same question, measured in the same run.

    .venv/bin/python bench/agent_reads/run.py [--check] [--out FILE]

Figures go to bench/agent_reads/results/latest-sqlite.json.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import httpx

from lorebase_keeper.app import create_app
from lorebase_keeper.testing import serve_in_thread
from lorebase_platform.settings import Settings
from lorebase_store import Store, import_directory

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/, for common.py
from common import ROOT, git_commit, log, machine_info, workspace

HERE = Path(__file__).resolve().parent
SUPPLY = ROOT / "examples" / "supply"
LIBRARY = ROOT / "tests" / "data" / "library"
MAX_READS = 3
MAX_CHARS = 4000

FollowUp = Literal["none", "history", "links"]
Step = tuple[str, str, Any]
"""A read: method, path under /api/v1/domains/{domain}, JSON body (None for a GET)."""


@dataclass(frozen=True)
class Question:
    name: str
    domain: str
    text: str
    expected: tuple[str, ...]
    """Refs (`Kind/key`), or words the answer must hold (a history's values), all of them."""
    hand: tuple[Step, ...]
    follow_up: FollowUp = "none"
    relation: str | None = None
    """The Relation of a `links` follow-up."""


def _query(body: dict[str, Any]) -> Step:
    return ("POST", "/query", body)


SUPPLIED_BY_S1007 = {
    "rel": "supplied_by",
    "where": {"attr": "supplier_code", "op": "eq", "value": "S-1007"},
}
SOLE_SOURCE = {"rel": "supplied_by", "count": {"op": "eq", "value": 1}}

QUESTIONS = (
    Question(
        "single-supplier",
        "supply",
        "Which parts have a single supplier?",
        ("Part/P-10007", "Part/P-10019", "Part/P-10033"),
        (_query({"kind": "Part", "where": SOLE_SOURCE, "select": ["name"]}),),
    ),
    Question(
        "high-risk-open-orders",
        "supply",
        "Which tier-1 suppliers at high risk (risk score of 70 or more) have open purchase orders?",
        ("Supplier/S-1001", "Supplier/S-1012"),
        (
            _query(
                {
                    "kind": "Supplier",
                    "where": {
                        "and": [
                            {"attr": "tier", "op": "eq", "value": 1},
                            {"attr": "risk_score", "op": "gte", "value": 70},
                            {
                                "rel": "supplier_orders",
                                "where": {"attr": "status", "op": "eq", "value": "open"},
                            },
                        ]
                    },
                    "select": ["legal_name", "risk_score"],
                }
            ),
        ),
    ),
    Question(
        "depends-on-s-1007",
        "supply",
        "What depends on supplier S-1007, and what is affected if it stops delivering?",
        ("Part/P-10007", "Part/P-10019"),
        (
            _query(
                {
                    "kind": "Part",
                    "where": {"and": [SUPPLIED_BY_S1007, SOLE_SOURCE]},
                    "select": ["name"],
                }
            ),
            _query(
                {
                    "kind": "Plant",
                    "where": {"rel": "stocks", "where": {"and": [SUPPLIED_BY_S1007, SOLE_SOURCE]}},
                    "select": ["name"],
                }
            ),
        ),
        follow_up="links",
        relation="supplies",
    ),
    Question(
        "history-of-c-3013",
        "supply",
        "What changed in the history of contract C-3013?",
        ("2028-09-30", "240000.00", "active"),
        (("GET", "/kinds/Contract/records/C-3013/history?values=true", None),),
        follow_up="history",
    ),
    Question(
        "bering",
        "supply",
        'Find the parts whose names contain "bering".',
        ("Part/P-10004", "Part/P-10012", "Part/P-10023", "Part/P-10036"),
        (
            _query(
                {"kind": "Part", "where": {"attr": "name", "op": "contains", "value": "bering"}}
            ),
            _query(
                {"kind": "Part", "where": {"attr": "name", "op": "contains", "value": "bearing"}}
            ),
        ),
    ),
    Question(
        "plants-of-polish-suppliers",
        "supply",
        "Which plants stock parts that Polish suppliers supply?",
        ("Plant/PL-01",),
        (
            _query(
                {
                    "kind": "Plant",
                    "where": {
                        "rel": "stocks",
                        "where": {
                            "rel": "supplied_by",
                            "where": {"attr": "country", "op": "eq", "value": "PL"},
                        },
                    },
                    "select": ["name"],
                }
            ),
        ),
    ),
    Question(
        "contracts-in-germany",
        "supply",
        "Which contracts are with suppliers in Germany?",
        (),
        (
            _query(
                {
                    "kind": "Contract",
                    "where": {
                        "rel": "with_supplier",
                        "where": {"attr": "country", "op": "eq", "value": "DE"},
                    },
                    "select": ["title"],
                }
            ),
        ),
    ),
    Question(
        "swedish-books-on-loan",
        "library",
        "Which books written by Swedish authors are on loan?",
        ("Book/B-0004", "Book/B-0006", "Book/B-0010"),
        (
            _query(
                {
                    "kind": "Book",
                    "where": {
                        "and": [
                            {
                                "rel": "written_by",
                                "where": {"attr": "country", "op": "eq", "value": "SE"},
                            },
                            {
                                "rel": "loans",
                                "where": {"attr": "status", "op": "eq", "value": "out"},
                            },
                        ]
                    },
                    "select": ["title"],
                }
            ),
        ),
    ),
    Question(
        "members-old-novels",
        "library",
        "Which members borrowed novels published before 2000?",
        ("Member/M-001", "Member/M-003", "Member/M-004"),
        (
            _query(
                {
                    "kind": "Member",
                    "where": {
                        "rel": "borrowings",
                        "where": {
                            "rel": "of_book",
                            "where": {
                                "and": [
                                    {"attr": "genre", "op": "eq", "value": "novel"},
                                    {"attr": "published_on", "op": "lt", "value": "2000-01-01"},
                                ]
                            },
                        },
                    },
                    "select": ["name"],
                }
            ),
        ),
    ),
    Question(
        "long-books",
        "library",
        "Which books of more than 400 pages does the library hold?",
        ("Book/B-0001", "Book/B-0003", "Book/B-0007", "Book/B-0011"),
        (
            _query(
                {
                    "kind": "Book",
                    "where": {"attr": "pages", "op": "gt", "value": 400},
                    "select": ["title"],
                }
            ),
        ),
    ),
)


@dataclass
class Plan:
    """The reads of one plan: how many, the characters of their answers, the answers."""

    reads: int = 0
    chars: int = 0
    texts: list[str] = field(default_factory=list)
    failure: str | None = None

    def read(self, response: httpx.Response) -> Any:
        """Count an answer (its body is what the agent reads); its JSON, or its text."""
        self.reads += 1
        self.chars += len(response.text)
        self.texts.append(response.text)
        if response.status_code >= 400:
            request = response.request
            raise PlanFailed(
                f"{request.method} {request.url.path}: {response.status_code} {response.text[:200]}"
            )
        if "json" in response.headers.get("content-type", ""):
            return response.json()
        return response.text


class PlanFailed(Exception):
    """A read of a plan answered an error, or the plan has nothing to follow."""


def run_plan(steps: Callable[[Plan], None]) -> Plan:
    plan = Plan()
    try:
        steps(plan)
    except PlanFailed as failure:
        plan.failure = str(failure)
    return plan


def hand_plan(client: httpx.Client, question: Question) -> Plan:
    def steps(plan: Plan) -> None:
        base = f"/api/v1/domains/{question.domain}"
        plan.read(client.get(f"{base}/schema"))
        for method, path, body in question.hand:
            plan.read(client.request(method, base + path, json=body))

    return run_plan(steps)


def resolve_plan(client: httpx.Client, question: Question) -> Plan:
    def steps(plan: Plan) -> None:
        base = f"/api/v1/domains/{question.domain}"
        resolved = plan.read(
            client.post(f"{base}/resolve", json={"text": question.text, "coverage": False})
        )
        suggestions = resolved.get("suggestions") or []
        if not suggestions:
            raise PlanFailed("resolve suggested no query")
        answer = plan.read(client.post(f"{base}/query", json=suggestions[0]["query"]))
        if question.follow_up == "none":
            return
        records = answer.get("records") or []
        if not records:
            raise PlanFailed(f"the suggestion found no Record to follow up ({question.follow_up})")
        first = records[0]
        if question.follow_up == "history":
            path = f"{base}/kinds/{first['kind']}/records/{first['key']}/history?values=true"
            plan.read(client.get(path))
        else:
            path = f"{base}/kinds/{first['kind']}/records/{first['key']}/links/{question.relation}"
            plan.read(client.get(path))

    return run_plan(steps)


def answered(plan: Plan, expected: tuple[str, ...]) -> list[str]:
    """What the plan's reads miss of the expected answer (empty: answered)."""
    if plan.failure:
        return list(expected) or ["(the plan failed)"]
    text = "\n".join(plan.texts)
    return [needle for needle in expected if needle not in text]


def measure(client: httpx.Client) -> dict[str, Any]:
    rows: dict[str, Any] = {}
    for question in QUESTIONS:
        expected = question.expected
        hand = hand_plan(client, question)
        if not expected:  # the data decides: every ref of the hand plan's last answer
            last = json.loads(hand.texts[-1]) if hand.texts else {}
            expected = tuple(record["ref"] for record in last.get("records", []))
        resolved = resolve_plan(client, question)
        row = {
            "domain": question.domain,
            "text": question.text,
            "expected": list(expected),
            "hand": {
                "reads": hand.reads,
                "chars": hand.chars,
                "missing": answered(hand, expected),
                "failure": hand.failure,
            },
            "resolve": {
                "reads": resolved.reads,
                "chars": resolved.chars,
                "missing": answered(resolved, expected),
                "failure": resolved.failure,
            },
        }
        row["chars_ratio"] = round(resolved.chars / hand.chars, 3) if hand.chars else None
        row["passed"] = (
            not row["resolve"]["missing"]
            and resolved.reads <= MAX_READS
            and resolved.chars < MAX_CHARS
        )
        rows[question.name] = row
    return rows


def principal_key(store: Store) -> str:
    store.ensure_principal("usr_bench_agent", principal_type="service")
    for domain in ("supply", "library"):
        store.add_grant("usr_bench_agent", domain=domain, role="viewer")
    return store.create_key("usr_bench_agent").secret


def run() -> dict[str, Any]:
    started = time.perf_counter()
    with workspace("sqlite") as (_workdir, databases):
        url = databases.new_url("agent_reads")
        machine = machine_info("sqlite", url)
        log(f"code: {machine['git_commit']}")
        store = Store.open(url)
        try:
            import_directory(store, SUPPLY)
            import_directory(store, LIBRARY)
            key = principal_key(store)
            app = create_app(
                Settings(keeper={"auth": {"mode": "api_key"}, "rate_limits": {"enabled": False}}),
                store=store,
            )
            with serve_in_thread(app, name="keeper") as keeper_url:
                headers = {"Authorization": f"Bearer {key}"}
                with httpx.Client(base_url=keeper_url, headers=headers, timeout=30) as client:
                    rows = measure(client)
        finally:
            store.close()
    if git_commit() != machine["git_commit"]:
        machine["git_commit_at_end"] = git_commit()
    return {
        "benchmark": "agent_reads",
        "backend": "sqlite",
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "duration_s": round(time.perf_counter() - started, 1),
        "machine": machine,
        "targets": {"reads_at_most": MAX_READS, "chars_under": MAX_CHARS},
        "questions": rows,
        "passed": all(row["passed"] for row in rows.values()),
    }


def print_report(report: dict[str, Any]) -> None:
    print(f"{'question':28} {'hand':>13} {'resolve':>13} {'ratio':>6}  answered  target")
    for name, row in report["questions"].items():
        hand, resolved = row["hand"], row["resolve"]
        print(
            f"{name:28} {hand['reads']:>2} r {hand['chars']:>7} c {resolved['reads']:>2} r {resolved['chars']:>7} c"
            f" {row['chars_ratio'] if row['chars_ratio'] is not None else '-':>6}"
            f"  {'yes' if not resolved['missing'] else 'no':8}  {'met' if row['passed'] else 'MISSED'}"
        )
        if resolved["failure"]:
            print(f"{'':28} resolve plan: {resolved['failure']}")
        elif resolved["missing"]:
            print(f"{'':28} resolve plan misses: {', '.join(resolved['missing'])}")
    print(
        f"target: answered in <= {MAX_READS} reads and < {MAX_CHARS} characters: {'met' if report['passed'] else 'MISSED'}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, help="JSON file (default results/latest-sqlite.json)")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args(argv)
    report = run()
    out = args.out or HERE / "results" / "latest-sqlite.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print_report(report)
    return 1 if args.check and not report["passed"] else 0


if __name__ == "__main__":
    sys.exit(main())
