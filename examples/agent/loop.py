"""The loop: a model step, an MCP tool call, the tool's text back to the model, until an answer.

Each turn the model answers one `Step` (structured output). A call runs the tool through
Herald and the tool's Markdown text (already bounded by Herald) becomes the next user message;
a tool error is shown as one, an unknown tool name is reported and calls nothing, and a write
that skips the rules (a dry run first, then a task and an intent) is refused by the agent
before it reaches Herald. After every step the thought is posted as a note of the trace
session, with the key Herald uses, so notes and calls share one session.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
from examples.agent.citations import check_citations, refs_in_content, refs_in_text
from examples.agent.errors import AgentError
from examples.agent.prompt import ToolLine, system_prompt
from examples.agent.report import Episode, Outcome, RunReport, ToolStep
from examples.agent.steps import STEP_NAME, Step, step_schema
from examples.agent.tasks import Goal
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import CONNECTION_CLOSED, CallToolResult, TextContent

from lorebase_client import AsyncLorebaseClient
from lorebase_core.errors import LorebaseError
from lorebase_inference import ChatModel

MAX_NOTE_CHARS = 4000
"""Keeper's default keeper.trace.max_note_chars: longer thoughts are cut to it."""
FIRST_TURN = "Take the first step of the task."
LAST_TURN = (
    "This is your last step: answer now (action answer) from what the tools showed, citing the "
    "Records you read; say what you could not find out."
)


@dataclass
class NoteTaker:
    """Posts each thought as a note of the trace session (best effort: failures are warnings)."""

    keeper: AsyncLorebaseClient
    session_id: str
    domain: str
    report: RunReport

    async def note(self, step: Step) -> None:
        """Post the thought of `step`, with what it does next."""
        then = f"next: {step.tool or '(no tool)'}" if step.action == "call" else "next: answer"
        text = f"{step.thought or '(no thought)'} [{then}]"[:MAX_NOTE_CHARS]
        try:
            recorded = await self.keeper.trace.add_note(
                self.session_id, text, domain_id=self.domain
            )
        except (LorebaseError, httpx.TransportError) as error:
            self._warn(f"a note was not posted: {_reason(error)}")
            return
        if recorded:
            self.report.notes_recorded += 1
        else:
            self._warn(
                "Keeper did not record a note (keeper.trace.enabled is off, or its queue is full)"
            )

    def _warn(self, warning: str) -> None:
        if warning not in self.report.warnings:
            self.report.warnings.append(warning)


@dataclass
class AgentLoop:
    """The loop over one Herald session (`mcp`) and one chat model."""

    mcp: Client
    model: ChatModel
    tools: Sequence[ToolLine]
    notes: NoteTaker
    domain: str
    max_steps: int = 8
    examples: Sequence[str] = ()

    async def run(self, goal: Goal) -> Episode:
        """Run the loop on `goal` until the model answers or `max_steps` steps were taken."""
        episode = Episode(goal)
        state = _EpisodeState()
        names = [tool.name for tool in self.tools]
        schema = step_schema(names)
        messages: list[dict[str, Any]] = [
            {
                "role": "system",
                "content": system_prompt(
                    self.tools, domain=self.domain, task=goal.text, examples=self.examples
                ),
            },
            {"role": "user", "content": FIRST_TURN},
        ]
        report = self.notes.report
        while episode.steps < self.max_steps:
            last = episode.steps == self.max_steps - 1
            if last:
                messages[-1] = {
                    "role": "user",
                    "content": f"{messages[-1]['content']}\n\n{LAST_TURN}",
                }
            answered = await self.model.structured(
                messages, step_schema(names, last=True) if last else schema, name=STEP_NAME
            )
            usage = answered.usage
            report.tokens.add(usage.prompt_tokens, usage.completion_tokens, usage.cost_usd)
            episode.steps += 1
            step = Step.of(answered.value)
            await self.notes.note(step)
            messages.append({"role": "assistant", "content": json.dumps(answered.value)})
            if step.action == "answer":
                episode.answer = step.answer
                episode.citations = check_citations(step.citations, state.refs)
                episode.proposals = state.proposals
                return episode
            outcome, text = await self._act(step, state)
            episode.tool_steps.append(ToolStep(episode.steps, step.tool, outcome))
            messages.append({"role": "user", "content": text})
        episode.proposals = state.proposals
        return episode

    async def _act(self, step: Step, state: _EpisodeState) -> tuple[Outcome, str]:
        """Run the step's tool call (or say why not): its outcome and the text for the model."""
        tool = next((item for item in self.tools if item.name == step.tool), None)
        if tool is None:
            return "unknown-tool", (
                f"There is no tool {step.tool!r}: nothing was called. The tools are "
                f"{', '.join(item.name for item in self.tools)}."
            )
        args = dict(step.args)
        if "domain" in tool.arguments and not args.get("domain"):
            args["domain"] = self.domain
        refusal = state.refusal(tool.name, args)
        if refusal is not None:
            return "refused", f"Not called: {refusal}"
        try:
            result = await self.mcp.call_tool(tool.name, args)
        except MCPError as error:
            if error.code == CONNECTION_CLOSED:
                raise AgentError(f"Herald stopped during {tool.name}: {error.message}") from None
            return "tool-error", f"{tool.name} failed (a tool error): {error.message}"
        text = _text_of(result)
        if result.is_error:
            return "tool-error", f"{tool.name} failed (a tool error):\n{text}"
        state.absorb(tool.name, args, text, result.structured_content)
        return "ok", f"{tool.name} answered:\n{text}"


@dataclass
class _EpisodeState:
    """What one episode's tool results showed: refs, dry runs, Proposals."""

    refs: set[str] = field(default_factory=set)
    dry_runs: set[str] = field(default_factory=set)
    proposals: list[str] = field(default_factory=list)

    def refusal(self, tool: str, args: dict[str, Any]) -> str | None:
        """Why the agent does not send this call (writes only after a dry run, with a task)."""
        if tool != "lorebase_execute" or args.get("dry_run") is True:
            return None
        missing = [name for name in ("task", "intent") if not args.get(name)]
        if missing:
            return (
                f"a write through lorebase_execute needs {' and '.join(missing)}: say what you "
                f"work on (task) and why you make the change (intent)."
            )
        if _write_key(args) not in self.dry_runs:
            return (
                "run lorebase_execute with dry_run true and the same operation and parameters "
                "first, and read its edits."
            )
        return None

    def absorb(
        self, tool: str, args: dict[str, Any], text: str, content: dict[str, Any] | None
    ) -> None:
        """Note the refs, dry runs and Proposals of a successful result."""
        self.refs |= refs_in_text(text) | refs_in_content(content)
        if tool != "lorebase_execute" or content is None:
            return
        result = content.get("result") or {}
        if args.get("dry_run") is True:
            self.dry_runs.add(_write_key(args))
        proposal = result.get("proposal")
        proposal_id = proposal.get("id") if isinstance(proposal, dict) else proposal
        if isinstance(proposal_id, str) and proposal_id not in self.proposals:
            self.proposals.append(proposal_id)


def _write_key(args: dict[str, Any]) -> str:
    return json.dumps(
        [args.get("domain"), args.get("operation"), args.get("parameters")], sort_keys=True
    )


def _text_of(result: CallToolResult) -> str:
    texts = [item.text for item in result.content if isinstance(item, TextContent)]
    return "\n".join(texts) or "(no text)"


def _reason(error: Exception) -> str:
    if isinstance(error, LorebaseError):
        return f"{error.code}: {error.detail}"
    return type(error).__name__
