"""What every tool answers: Markdown for the model, a `ToolAnswer` as structured content.

The text is what a model reads; the structured content is the same answer for the application
(Keeper's JSON, cut exactly like the text). Both say where the answer was read (Domain, branch,
Revision), whether it was cut and how to get the rest, and, for an empty answer, the scope that
was searched, so that "nothing found" is never read as "not known".
"""

from __future__ import annotations

from typing import Any

from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, ConfigDict, Field


class Scope(BaseModel):
    """Where an empty answer looked."""

    model_config = ConfigDict(extra="forbid")

    domain: str | None = Field(default=None, description="The Domain searched.")
    branch: str | None = Field(default=None, description="The branch searched.")
    revision: str | None = Field(default=None, description="The Revision read.")
    kinds: list[str] = Field(default_factory=list, description="The Kinds searched.")


class ToolAnswer(BaseModel):
    """The structured content of every Herald tool."""

    model_config = ConfigDict(extra="forbid")

    tool: str = Field(description="The tool that answered.")
    domain: str | None = Field(default=None, description="The Domain read.")
    branch: str | None = Field(default=None, description="The branch read.")
    revision: str | None = Field(default=None, description="The Revision the answer was read at.")
    truncated: bool = Field(
        default=False,
        description="Whether Herald cut the answer to stay within herald.max_result_tokens.",
    )
    shown: int | None = Field(default=None, description="Items shown (lists only).")
    total: int | None = Field(default=None, description="Items in Keeper's answer (lists only).")
    more: str | None = Field(
        default=None, description="How to get the rest: a cursor, a smaller limit, depth or lens."
    )
    empty: bool = Field(default=False, description="Whether the answer holds no items.")
    scope: Scope | None = Field(default=None, description="What an empty answer searched.")
    notes: list[str] = Field(default_factory=list, description="Coverage and other notes.")
    result: dict[str, Any] = Field(
        default_factory=dict, description="Keeper's answer, cut like the text."
    )


class ToolProblem(BaseModel):
    """The structured content of a tool error: Keeper's problem document."""

    model_config = ConfigDict(extra="forbid")

    tool: str
    problem: dict[str, Any]


def tool_result(text: str, answer: ToolAnswer) -> CallToolResult:
    """A successful tool result: `text` for the model, `answer` for the application."""
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=answer.model_dump(mode="json"),
    )


def tool_error(text: str, problem: ToolProblem) -> CallToolResult:
    """A tool error the model can read (and act on), with the problem document attached."""
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=problem.model_dump(mode="json"),
        is_error=True,
    )
