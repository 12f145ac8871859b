"""The system prompt: the tools Herald lists, the task, the Domain's questions and the rules.

Small local models do best with little text and explicit structure, so each tool is one line:
its name, the first sentence of its description (Herald wraps descriptions, so the first line
alone would stop mid-sentence), its arguments with their types (optional ones marked `?`) and
the example call of its description.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mcp.types import Tool


@dataclass(frozen=True)
class ToolLine:
    """What the prompt says of one tool."""

    name: str
    summary: str
    arguments: list[str]
    required: list[str]
    types: dict[str, str]
    example: str | None = None

    @classmethod
    def of(cls, tool: Tool) -> ToolLine:
        """The line of a tool `list_tools()` answered."""
        schema: dict[str, Any] = tool.input_schema or {}
        properties = schema.get("properties") or {}
        description = tool.description or ""
        example = description.partition("Example: ")[2].replace("\n", " ").strip()
        return cls(
            name=tool.name,
            summary=first_sentence(description),
            arguments=list(properties),
            required=[name for name in schema.get("required") or [] if name in properties],
            types={name: short_type(item) for name, item in properties.items()},
            example=example or None,
        )

    def render(self) -> str:
        """`- name(a: str, b?: bool): summary Example: {...}`."""
        names = [
            f"{name if name in self.required else f'{name}?'}: {self.types.get(name, 'any')}"
            for name in self.arguments
        ]
        line = f"- {self.name}({', '.join(names)}): {self.summary}"
        return f"{line} Example: {self.example}" if self.example else line


SHORT_TYPES = {"string": "str", "integer": "int", "boolean": "bool", "number": "float"}


def short_type(schema: dict[str, Any]) -> str:
    """A JSON schema's type in a word: str, int, bool, list, object, or one of its values."""
    options = [item for item in schema.get("anyOf", [schema]) if item.get("type") != "null"]
    if not options:
        return "any"
    first = options[0]
    if "enum" in first:
        return "|".join(str(item) for item in first["enum"])
    kind = first.get("type", "any")
    if kind == "array":
        return f"list[{short_type(first.get('items', {}))}]"
    return SHORT_TYPES.get(kind, str(kind))


def first_sentence(description: str, limit: int = 240) -> str:
    """The first sentence of a description's first paragraph, its lines joined."""
    paragraph: list[str] = []
    for line in description.strip().splitlines():
        if not line.strip() or line.startswith("Example:"):
            break
        paragraph.append(line.strip())
    text = " ".join(paragraph)
    end = text.find(". ")
    sentence = text if end < 0 else text[: end + 1]
    return sentence if len(sentence) <= limit else sentence[: limit - 3].rstrip() + "..."


RULES = """\
Rules:
- Each turn answer one JSON object: {"thought": ..., "action": "call" or "answer", "tool": ...,
  "args": {...}, "answer": ..., "citations": [...]}.
- thought: what you know so far and what you need next, in one or two sentences.
- action "call": tool is one of the tools above and args its arguments by name; answer "" and
  citations []. You then get the tool's result (or its error) and take the next turn.
- action "answer": answer the task in answer, and list in citations the Records you read, as
  Kind/key (Supplier/S-1001); tool "" and args {}. Cite only refs that appeared in tool results.
- Every tool takes domain: "{domain}". One tool call per turn; read before you answer.
- Write only through lorebase_execute: first with dry_run true, then the same Operation and
  parameters with dry_run false, a task (what you work on) and an intent (why you change it).
- A tool error says what was wrong: fix the arguments or use another tool."""


def system_prompt(
    tools: Sequence[ToolLine],
    *,
    domain: str,
    task: str,
    examples: Sequence[str] = (),
) -> str:
    """The system message of one question or task."""
    parts = [
        "You are a process agent reading and updating Lorebase, a versioned knowledge graph of "
        "typed Records (Kind/key, such as Supplier/S-1001) joined by Links, through these tools:",
        "\n".join(tool.render() for tool in tools),
        RULES.replace("{domain}", domain),
    ]
    if examples:
        parts.append(
            f"Example questions of the Domain {domain}:\n"
            + "\n".join(f"- {question}" for question in examples)
        )
    parts.append(f"Your task:\n{task}")
    return "\n\n".join(parts)
