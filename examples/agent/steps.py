"""One model step: the JSON schema the model answers with, and the step read from it.

The model gets no tool-call API: each turn it answers one JSON object valid against
`STEP_SCHEMA` (structured output, `lorebase_inference`), which small local models follow far
better than free text. Every member is required (OpenAI's strict mode wants that), so the
unused ones are empty: `tool: ""` and `args: {}` with an answer, `answer: ""` and
`citations: []` with a call.

`tool` is a string, not an enum of the tool names: a misspelled name is then a step the agent
reports back to the model (which can correct it in the next turn), instead of an invalid
answer that costs a repair call and can end the run.

Every string and list is bounded (`maxLength`, `maxItems`): a small model under a grammar can
otherwise fall into repeating one list item until the completion cap cuts its JSON off (a
1.5B model did, listing made-up attribute names in `args`), and a cut answer is no step at all.
The bounds close the list instead; what the tool makes of the arguments is told back.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Action = Literal["call", "answer"]

STEP_NAME = "agent_step"

THOUGHT_CHARS = 400
ANSWER_CHARS = 2000
MAX_CITATIONS = 20
MAX_LIST_ITEMS = 20
_SCALAR: list[dict[str, Any]] = [
    {"type": "string", "maxLength": 300},
    {"type": "number"},
    {"type": "boolean"},
]
ARG_VALUE: dict[str, Any] = {
    "anyOf": [
        *_SCALAR,
        {"type": "array", "items": {"anyOf": _SCALAR}, "maxItems": MAX_LIST_ITEMS},
        {"type": "object", "description": "A filter or another structured argument."},
    ]
}
"""One argument's value: a bounded string, a number, a boolean, a list of at most
MAX_LIST_ITEMS of those, or an object (a query's filter)."""


def step_schema(tool_names: list[str], *, last: bool = False) -> dict[str, Any]:
    """The JSON schema of one step, naming the tools in the description of `tool`; the `last`
    step of a run may only answer (a model that still wants to read must conclude)."""
    actions = ["answer"] if last else ["call", "answer"]
    return {
        "type": "object",
        "properties": {
            "thought": {
                "type": "string",
                "maxLength": THOUGHT_CHARS,
                "description": "What you know so far and what you need next (one or two "
                "sentences).",
            },
            "action": {"type": "string", "enum": actions},
            "tool": {
                "type": "string",
                "maxLength": 80,
                "description": "With action call: one of " + ", ".join(tool_names) + ".",
            },
            "args": {
                "type": "object",
                "additionalProperties": ARG_VALUE,
                "description": "With action call: the tool's arguments.",
            },
            "answer": {
                "type": "string",
                "maxLength": ANSWER_CHARS,
                "description": "With action answer: the answer.",
            },
            "citations": {
                "type": "array",
                "items": {"type": "string", "maxLength": 200},
                "maxItems": MAX_CITATIONS,
                "description": "With action answer: the Records you read, as Kind/key.",
            },
        },
        "required": ["thought", "action", "tool", "args", "answer", "citations"],
        "additionalProperties": False,
    }


@dataclass(frozen=True)
class Step:
    """A model step, read from an answer valid against `step_schema`."""

    thought: str
    action: Action
    tool: str = ""
    args: dict[str, Any] = field(default_factory=dict)
    answer: str = ""
    citations: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, value: Mapping[str, Any]) -> Step:
        """The step of a validated answer."""
        action: Action = "answer" if value["action"] == "answer" else "call"
        return cls(
            thought=str(value["thought"]).strip(),
            action=action,
            tool=str(value["tool"]).strip(),
            args=dict(value["args"]),
            answer=str(value["answer"]).strip(),
            citations=[str(ref).strip() for ref in value["citations"]],
        )
