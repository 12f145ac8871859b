"""What a run did, for its user: answers, citations, steps, tokens and where the trace is."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from examples.agent.citations import CheckedCitations
from examples.agent.tasks import Goal

Outcome = Literal["ok", "tool-error", "unknown-tool", "refused"]
"""What became of a tool call: answered, a tool error, no such tool, or refused by the agent
(a write without its dry run, task or intent)."""


@dataclass(frozen=True)
class ToolStep:
    """One tool call of the loop."""

    number: int
    tool: str
    outcome: Outcome


@dataclass
class Episode:
    """One run of the loop on one goal."""

    goal: Goal
    steps: int = 0
    """Model steps taken (the final answer included)."""
    tool_steps: list[ToolStep] = field(default_factory=list)
    answer: str | None = None
    """None: no answer within the step limit."""
    citations: CheckedCitations = field(default_factory=lambda: CheckedCitations([], []))
    proposals: list[str] = field(default_factory=list)
    """Proposals the run's writes opened (or joined)."""


@dataclass
class Tokens:
    """The model's token counts, summed over every call of the run (repairs included)."""

    prompt: int = 0
    completion: int = 0
    cost_usd: float | None = None

    def add(self, prompt: int, completion: int, cost_usd: float | None) -> None:
        """Count one structured call."""
        self.prompt += prompt
        self.completion += completion
        if cost_usd is not None:
            self.cost_usd = (self.cost_usd or 0.0) + cost_usd


@dataclass
class RunReport:
    """A whole run: its episodes, its tokens, its trace session and what went wrong on the way."""

    task: str
    session_id: str
    episodes: list[Episode] = field(default_factory=list)
    tokens: Tokens = field(default_factory=Tokens)
    notes_recorded: int = 0
    warnings: list[str] = field(default_factory=list)
    trace_command: str = ""

    @property
    def answered(self) -> bool:
        """Whether every episode ended with an answer."""
        return bool(self.episodes) and all(item.answer is not None for item in self.episodes)

    def render(self) -> str:
        """The report as printed at the end of a run."""
        lines = [f"# {self.task}"]
        for episode in self.episodes:
            lines += ["", *_episode_lines(episode)]
        lines.append("")
        cost = "" if self.tokens.cost_usd is None else f", ${self.tokens.cost_usd:.4f}"
        lines.append(
            f"tokens: {self.tokens.prompt} prompt + {self.tokens.completion} completion{cost}"
        )
        lines.append(f"trace session: {self.session_id} ({self.notes_recorded} notes)")
        lines.append(f"read it with: {self.trace_command}")
        lines += [f"warning: {warning}" for warning in self.warnings]
        return "\n".join(lines)


def _episode_lines(episode: Episode) -> list[str]:
    lines = [f"## {episode.goal.title}"]
    if episode.answer is None:
        lines.append(f"no answer within {episode.steps} steps")
    else:
        lines.append(episode.answer)
    if episode.citations.kept:
        lines.append(f"citations: {', '.join(episode.citations.kept)}")
    if episode.citations.dropped:
        lines.append(
            f"dropped citations (in no tool result): {', '.join(episode.citations.dropped)}"
        )
    if episode.proposals:
        lines.append(f"proposals: {', '.join(episode.proposals)}")
    calls = ", ".join(
        step.tool if step.outcome == "ok" else f"{step.tool or '(none)'} ({step.outcome})"
        for step in episode.tool_steps
    )
    lines.append(f"steps: {episode.steps}" + (f" (tools: {calls})" if calls else ""))
    return lines
