"""The ready-made tasks: what the agent is asked to do, as the goals of its runs.

- `questions`: answer each of the Domain's example questions (`examples` of lorebase_schema),
  one run of the loop per question;
- `risk-review --supplier S-1001`: review a supplier's risk and flag it with the Operation
  `flag_supplier_risk` (a dry run first, then the write with a task and an intent, which opens
  a Proposal for review);
- `contract-history --contract C-3013`: the history of a Contract, summarized;
- `ask "question"`: one free question.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

TaskName = Literal["questions", "risk-review", "contract-history", "ask"]
TASK_NAMES: tuple[TaskName, ...] = ("questions", "risk-review", "contract-history", "ask")


@dataclass(frozen=True)
class Goal:
    """One run of the loop: a title for the report and the task text the model gets."""

    title: str
    text: str


def risk_review(supplier: str, write_task: str) -> Goal:
    """Review `supplier`'s risk and flag it through an agent task named `write_task`."""
    return Goal(
        title=f"risk review of Supplier/{supplier}",
        text=(
            f"Review the risk of the supplier Supplier/{supplier} and flag it.\n"
            f"1. Read it with its contracts, parts and risk flags (lorebase_context with "
            f'refs ["Supplier/{supplier}"] and lens "supplier_risk", or lorebase_record).\n'
            f"2. Decide a severity (low, medium, high or critical) and a short reason from what "
            f"you read (risk score, open risk flags, contracts).\n"
            f"3. Call lorebase_execute with operation flag_supplier_risk, parameters "
            f'{{"supplier": "{supplier}", "severity": ..., "reason": ...}} and dry_run true.\n'
            f"4. Call it again with the same parameters, dry_run false, task "
            f'"{write_task}" and an intent saying why you flag it. It opens a Proposal for '
            f"review.\n"
            f"5. Answer with the severity, the reason and the Proposal's id, citing "
            f"Supplier/{supplier} and what else you read."
        ),
    )


def contract_history(contract: str) -> Goal:
    """Find the history of `contract` and summarize it."""
    return Goal(
        title=f"history of Contract/{contract}",
        text=(
            f"Find the history of the contract Contract/{contract}: call lorebase_history "
            f'with {{"domain": "supply", "key": "Contract/{contract}", "values": true}} (every '
            f"change, no other argument), then summarize it: each change with its date, "
            f"author, what it changed and its message, oldest first; read the current values "
            f"(lorebase_record) if the history does not say them. Cite Contract/{contract}."
        ),
    )


def question(text: str) -> Goal:
    """Answer one question from the data, citing the Records it rests on."""
    return Goal(
        title=text,
        text=(
            f"Answer this question from the data, citing the Records the answer rests on:\n{text}"
        ),
    )
