"""The supply questions of bench/guide/run.py, with expected answers computed from the data.

The data is read from examples/supply: the CSV files of data/ with the follow-up Revisions of
revisions/ applied (their `upsert_record` values), so an expected answer is what the graph
holds at the head of main, not a guess written by hand. tests/test_bench_guide.py (under
packages/guide/tests) checks them against Keeper's own reads.

A question's `expected` are the strings a complete answer names (Record keys, or values for
the history question); `wrong` are the keys of the same Kind a wrong answer would name. The
score of an answer is its recall of `expected` times its precision among `expected` and
`wrong` (partial credit for a partial answer); an answer that is not found scores 0.
"""

from __future__ import annotations

import csv
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

SUPPLY = Path(__file__).resolve().parents[2] / "examples" / "supply"


class SupplyData:
    """The supply example at the head of main: Records by Kind and key, Links by Relation."""

    def __init__(self, folder: Path = SUPPLY) -> None:
        schema = yaml.safe_load((folder / "schema.yaml").read_text())
        self.examples: list[str] = list(schema["domain"]["examples"])
        self.records: dict[str, dict[str, dict[str, str]]] = {}
        for kind, spec in schema["kinds"].items():
            key = spec["key"][0]
            rows = _rows(folder / "data" / f"{kind}.csv")
            self.records[kind] = {row[key]: row for row in rows}
        self.links: dict[str, list[dict[str, str]]] = {
            name: _rows(folder / "data" / f"{name}.csv") for name in schema["relations"]
        }
        self.history: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for path in sorted((folder / "revisions").glob("*.yaml")):
            revision = yaml.safe_load(path.read_text())
            for change in revision["changes"]:
                upsert = change.get("upsert_record")
                if upsert is None:
                    continue
                record = self.records[upsert["kind"]][upsert["key"]]
                values = {name: str(value) for name, value in upsert["values"].items()}
                record.update(values)
                self.history[f"{upsert['kind']}/{upsert['key']}"].append(
                    {"message": revision["message"], "values": values}
                )

    def targets(self, relation: str, source: str) -> set[str]:
        return {link["to"] for link in self.links[relation] if link["from"] == source}

    def sources(self, relation: str, target: str) -> set[str]:
        return {link["from"] for link in self.links[relation] if link["to"] == target}


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


@dataclass(frozen=True)
class Question:
    name: str
    text: str
    expected: list[str]
    wrong: list[str]
    """Keys a wrong answer names: the other Records of the Kind asked for."""


def _keys_question(
    name: str, text: str, data: SupplyData, kind: str, keys: Iterable[str]
) -> Question:
    expected = sorted(keys)
    wrong = sorted(set(data.records[kind]) - set(expected))
    return Question(name, text, expected, wrong)


def single_source(data: SupplyData, text: str) -> Question:
    counts: dict[str, int] = defaultdict(int)
    for link in data.links["supplied_by"]:
        counts[link["from"]] += 1
    keys = [part for part in data.records["Part"] if counts[part] == 1]
    return _keys_question("single_source", text, data, "Part", keys)


def tier1_high_risk_open_orders(data: SupplyData, text: str) -> Question:
    open_orders = {
        po for po, row in data.records["PurchaseOrder"].items() if row["status"] == "open"
    }
    keys = [
        code
        for code, row in data.records["Supplier"].items()
        if row["tier"] == "1"
        and int(row["risk_score"]) >= 70
        and data.sources("ordered_from", code) & open_orders
    ]
    return _keys_question("tier1_high_risk_open_orders", text, data, "Supplier", keys)


def depends_on_s1007(data: SupplyData, text: str) -> Question:
    parts = data.sources("supplied_by", "S-1007")
    contracts = data.sources("with_supplier", "S-1007")
    expected = sorted(parts | contracts)
    wrong = sorted(set(data.records["Part"]) - parts)
    return Question("depends_on_s1007", text, expected, wrong)


def history_c3013(data: SupplyData, text: str) -> Question:
    expected = []
    for change in data.history["Contract/C-3013"]:
        for value in change["values"].values():
            expected.append(re.sub(r"\.00$", "", value))
    return Question("history_c3013", text, sorted(set(expected)), [])


def bering(data: SupplyData, text: str) -> Question:
    keys = [key for key, row in data.records["Part"].items() if "bearing" in row["name"].lower()]
    return _keys_question("bering", text, data, "Part", keys)


def plants_of_lindqvist(data: SupplyData) -> Question:
    [code] = [
        c for c, r in data.records["Supplier"].items() if r["legal_name"].startswith("Lindqvist")
    ]
    plants: set[str] = set()
    for part in data.sources("supplied_by", code):
        plants |= data.targets("stocked_at", part)
    return _keys_question(
        "plants_of_lindqvist",
        "Which plants stock parts supplied by Lindqvist Hydraulik AB?",
        data,
        "Plant",
        plants,
    )


def polish_suppliers_open_flags(data: SupplyData) -> Question:
    open_flags = {f for f, row in data.records["RiskFlag"].items() if row["status"] == "open"}
    keys = [
        code
        for code, row in data.records["Supplier"].items()
        if row["country"] == "PL" and data.sources("flags", code) & open_flags
    ]
    return _keys_question(
        "polish_suppliers_open_flags",
        "Which Polish suppliers have open risk flags?",
        data,
        "Supplier",
        keys,
    )


def active_contracts_high_risk(data: SupplyData) -> Question:
    risky = {c for c, r in data.records["Supplier"].items() if int(r["risk_score"]) >= 70}
    keys = [
        contract
        for contract, row in data.records["Contract"].items()
        if row["status"] == "active" and data.targets("with_supplier", contract) & risky
    ]
    return _keys_question(
        "active_contracts_high_risk",
        "Which active contracts are with suppliers that have a risk score of 70 or more?",
        data,
        "Contract",
        keys,
    )


def critical_flag_parts(data: SupplyData) -> Question:
    critical = {
        data.targets("flags", flag).pop()
        for flag, row in data.records["RiskFlag"].items()
        if row["severity"] in ("high", "critical") and row["status"] == "open"
    }
    parts = {link["from"] for link in data.links["supplied_by"] if link["to"] in critical}
    return _keys_question(
        "parts_of_flagged_suppliers",
        "Which parts are supplied by suppliers with an open high or critical risk flag?",
        data,
        "Part",
        parts,
    )


_EXAMPLES: list[Callable[[SupplyData, str], Question]] = [
    single_source,
    tier1_high_risk_open_orders,
    depends_on_s1007,
    history_c3013,
    bering,
]


def questions(data: SupplyData | None = None) -> list[Question]:
    """The Domain's example questions (domain.examples, in order), then the multi-hop ones."""
    data = data or SupplyData()
    made = [build(data, text) for build, text in zip(_EXAMPLES, data.examples, strict=True)]
    made += [
        plants_of_lindqvist(data),
        polish_suppliers_open_flags(data),
        active_contracts_high_risk(data),
        critical_flag_parts(data),
    ]
    return made


def score(question: Question, text: str, citations: Iterable[str], found: bool) -> float:
    """Recall of the expected strings times precision among expected and wrong (0 if not found)."""
    if not found:
        return 0.0
    said = (text + " " + " ".join(citations)).lower().replace(",", "")

    def named(item: str) -> bool:
        return re.search(rf"(?<![\w-]){re.escape(item.lower())}(?![\w-])", said) is not None

    hits = sum(1 for item in question.expected if named(item))
    wrong = sum(1 for item in question.wrong if named(item))
    if not question.expected:
        return 0.0
    recall = hits / len(question.expected)
    precision = hits / (hits + wrong) if hits + wrong else 0.0
    return round(recall * precision, 3)
