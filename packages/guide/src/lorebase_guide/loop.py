"""The exploration loop: resolve first, then one model step and one read at a time.

The loop's discipline, for small models as much as large ones:

- it starts from resolve: the question's words, grounded in the schema and the stored values,
  with ready queries and the answer of the first of them, are the first result the model sees;
- it never repeats an identical call: the model is told it already has that result;
- a fruitless step (a repeat, or the same tool again bringing no new Record) says so, and after
  guide.agent.max_stale_steps of them in a row the next turn is the last: reading has stopped
  adding, so the model answers from what it read (a small model otherwise walks through every
  ready query, or repeats itself, until max_steps);
- after a miss (an unknown Kind, Attribute, Relation or Record) the result lists the valid names;
- an empty query or search result says it does not prove absence; only an exact read does;
- each result is fenced with the exploration's marker; citations are checked against the
  Records the tools returned.

Budgets (docs/guide.md, "Budgets and limits"): max_steps tool calls then one last turn; each
call only when its estimated input fits, its completion capped to what remains; a turn is the
last when the budget cannot cover another tool step; the error `budget` only when even an
answer does not fit; the wall clock `timeout_s` over model calls and reads alike.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import AsyncIterator, Awaitable
from typing import Any, TypeVar

import httpx
from opentelemetry import trace as otel_trace
from opentelemetry.trace import Tracer

from lorebase_client import AsyncLorebaseClient
from lorebase_core.errors import (
    Forbidden,
    KindNotFound,
    LensUnknown,
    LorebaseError,
    ModelAnswerInvalid,
    ModelUnavailable,
    NotFound,
    RecordNotFound,
    TooManyRequests,
    shortened,
)
from lorebase_guide.budget import TokenBudget
from lorebase_guide.citations import check_citations
from lorebase_guide.keeper_access import CallerTransport, TraceNotes
from lorebase_guide.markers import new_fence
from lorebase_guide.prompt import NOT_FOUND, cite_note, result_message, step_message, system_prompt
from lorebase_guide.question import Caller, Event, Exploration
from lorebase_guide.steps import ANSWER, STEP_NAME, Step, step_schema
from lorebase_guide.tools import (
    FIRST_QUERY,
    TOOLS,
    ArgsInvalid,
    DomainNames,
    QueryEmbedder,
    ToolContext,
    ToolResult,
    resolve_first,
)
from lorebase_inference import ChatModel
from lorebase_platform.settings import Settings
from lorebase_platform.telemetry import Metrics

__all__ = ["Run"]

logger = logging.getLogger(__name__)

T = TypeVar("T")

_TOOL_DETAIL_CHARS = 400


class _Timeout(Exception):
    """The wall clock of the exploration ran out."""


class _Finished(Exception):
    """The exploration ended (its answer and done are queued)."""


class Run:
    """One exploration's state: its client, messages, budget and the refs the tools returned."""

    def __init__(
        self,
        exploration: Exploration,
        caller: Caller,
        *,
        settings: Settings,
        model: ChatModel,
        embedder: QueryEmbedder | None,
        keeper_transport: httpx.AsyncBaseTransport | None,
        metrics: Metrics | None,
        tracer: Tracer | None,
    ) -> None:
        self.exploration = exploration
        self.settings = settings
        self.agent = settings.guide.agent
        self.limits = settings.guide.limits
        self.model = model
        self.embedder = embedder
        self.metrics = metrics
        self.tracer = tracer or otel_trace.get_tracer("lorebase_guide")
        self.session_id = "guide-" + secrets.token_hex(8)
        self.fence = new_fence()
        self.budget = TokenBudget(
            max_total_tokens=exploration.budget,
            max_tokens_per_call=self.agent.max_tokens_per_call,
        )
        self.transport = CallerTransport(
            keeper_transport or httpx.AsyncHTTPTransport(),
            caller.headers,
            settings.guide.trace,
            self.session_id,
        )
        keeper = settings.guide.keeper
        self.client = AsyncLorebaseClient(
            keeper.base_url, transport=self.transport, timeout=keeper.timeout_s
        )
        self.notes = TraceNotes(
            self.client, settings.guide.trace, self.session_id, exploration.domain
        )
        self.started = time.monotonic()
        self.deadline = 0.0
        self.steps = 0
        self.seen: set[str] = set()
        self.calls: dict[str, int] = {}
        self.messages: list[dict[str, str]] = []
        self.outcome: str | None = None
        self.names = DomainNames()
        self.ready = range(0)
        """The numbers of resolve's ready queries the model may still ask for (the first one
        runs in the first step)."""
        self.stale = 0
        """Fruitless steps in a row (repeats, or the same tool bringing no new Record)."""
        self.previous_tool = ""
        self.repeated = False

    async def aclose(self) -> None:
        if self.outcome is None:
            self._count_exploration("stopped")
        await self.client.aclose()

    # -- the stream ---------------------------------------------------------------------------

    async def events(self) -> AsyncIterator[Event]:
        loop = asyncio.get_running_loop()
        self.deadline = loop.time() + self.agent.timeout_s
        yield (
            "session",
            {
                "session_id": self.session_id,
                "domain": self.exploration.domain,
                "branch": self.exploration.branch,
                "model": self.model.endpoint.model or None,
                "max_steps": self.exploration.max_steps,
            },
        )
        queue: list[Event] = []
        try:
            async for event in self._steps(queue):
                yield event
        except _Finished:
            pass
        except Exception as exc:  # a fault of Guide's, not the caller's: the stream still ends
            logger.error(
                "exploration %s failed (%s); it ends without an answer",
                self.session_id,
                type(exc).__name__,
            )
            self._finish(queue, NOT_FOUND, [], False, "failed")
        for event in queue:
            yield event

    async def _steps(self, queue: list[Event]) -> AsyncIterator[Event]:
        context = await self._context(queue)
        self.messages = self._opening()
        # The loop starts from resolve, before the first model call.
        first = Step(
            "First, what the words of the question mean.",
            "resolve",
            {"text": self.exploration.question},
        )
        async for event in self._tool_step(queue, context, first):
            yield event
        while True:
            chars, last = self._next_turn(queue)
            step = await self._model_step(queue, chars, last=last)
            if step.thought:
                yield ("thought", {"step": self.steps + 1, "text": step.thought})
                await self._note(step.thought, self.steps + 1)
            if step.action == ANSWER or last:
                self._answer(queue, step)
                raise _Finished
            async for event in self._tool_step(queue, context, step):
                yield event

    async def _context(self, queue: list[Event]) -> ToolContext:
        """The tools' context, after reading the Domain's schema (its names)."""
        try:
            schema = await self._timed(
                self.client.schema(self.exploration.domain, branch=self.exploration.branch)
            )
        except _Timeout:
            self._end(queue, "timeout", "the exploration ran out of time")
            raise _Finished from None
        except (LorebaseError, httpx.HTTPError) as exc:
            logger.info(
                "exploration %s: the schema read failed (%s)", self.session_id, type(exc).__name__
            )
            self._finish(queue, NOT_FOUND, [], False, "keeper_error")
            raise _Finished from None
        self.names = DomainNames.of(schema)
        return ToolContext(
            self.client,
            self.exploration.domain,
            self.exploration.branch,
            self.limits,
            self.names,
            self.embedder,
        )

    def _opening(self) -> list[dict[str, str]]:
        """The system prompt and the question."""
        return [
            {
                "role": "system",
                "content": system_prompt(
                    self.exploration.domain, self.names.title, self.names, self.fence
                ),
            },
            {"role": "user", "content": "Question: " + self.fence.scrub(self.exploration.question)},
        ]

    def _next_turn(self, queue: list[Event]) -> tuple[int, bool]:
        """The input size of the next model call and whether it is the last turn; the
        exploration ends (`budget`) when the budget cannot cover that call."""
        chars = self._input_chars()
        last = (
            self.steps >= self.exploration.max_steps
            or 0 < self.agent.max_stale_steps <= self.stale
            or not self.budget.covers_step(chars, self.limits.max_result_chars)
        )
        if last and self.messages[-1]["role"] == "user":
            self._add_last_turn_note()
            chars = self._input_chars()
        if not self.budget.fits_call(chars):
            self._end(queue, "budget", "the token budget does not cover another model call")
            raise _Finished
        return chars, last

    # -- one tool step ------------------------------------------------------------------------

    async def _tool_step(
        self, queue: list[Event], context: ToolContext, step: Step
    ) -> AsyncIterator[Event]:
        self.steps += 1
        number = self.steps
        yield ("tool_call", {"step": number, "tool": step.action, "args": step.args})
        try:
            result = await self._timed(self._run_tool(context, step, number))
        except _Timeout:
            self._end(queue, "timeout", "the exploration ran out of time")
            raise _Finished from None
        if number == 1:
            self.ready = context.ready
        # Fruitless: a repeated call, or the same tool again returning only Records already
        # seen (a walk through the ready queries). A miss is not: it shows the valid names.
        walking = result.ok and not result.refs - self.seen and step.action == self.previous_tool
        self.stale = self.stale + 1 if (self.repeated or walking) and number > 1 else 0
        self.previous_tool = step.action
        self.seen |= result.refs
        yield (
            "tool_result",
            {
                "step": number,
                "tool": step.action,
                "ok": result.ok,
                "summary": result.summary,
                "refs": sorted(result.refs),
            },
        )
        self.messages.append(
            {"role": "assistant", "content": step_message(step.thought, step.action, step.args)}
        )
        left = self.exploration.max_steps - self.steps
        self.messages.append(
            {
                "role": "user",
                "content": result_message(
                    self.fence,
                    number,
                    step.action,
                    result.text,
                    steps_left=left,
                    last=False,
                    stale=walking and number > 1,
                ),
            }
        )

    async def _run_tool(self, context: ToolContext, step: Step, number: int) -> ToolResult:
        tool = step.action
        self.repeated = False
        run = TOOLS.get(tool)
        if run is None:
            self._count_step(tool if tool.isidentifier() and len(tool) <= 40 else "unknown", False)
            return ToolResult(
                False,
                "unknown tool: nothing done",
                f"There is no tool {shortened(tool, 40)!r}; the tools are {', '.join(TOOLS)}.",
            )
        key = tool + json.dumps(step.args, sort_keys=True, ensure_ascii=False)
        before = self.calls.get(key)
        self.repeated = before is not None
        if before is not None:
            self._count_step(tool, False)
            return ToolResult(
                False,
                f"repeated call of step {before}: not sent",
                f"You already made exactly this call at step {before}; its result is above. Do "
                "not repeat it: use another tool or other arguments, or answer.",
            )
        self.calls[key] = number
        self.transport.tool = tool
        with self.tracer.start_as_current_span(
            "guide.tool", attributes={"guide.tool": tool}
        ) as span:
            try:
                if tool == "resolve" and number == 1:
                    result = await resolve_first(context, self.exploration.question)
                    if context.suggestions and 1 not in context.ready:
                        self.calls["query" + json.dumps(FIRST_QUERY, sort_keys=True)] = number
                else:
                    result = await run(context, step.args)
            except ArgsInvalid as exc:
                result = ToolResult(False, "arguments refused: nothing sent", str(exc))
            except LorebaseError as exc:
                result = self._miss(tool, step, exc)
            except httpx.HTTPError as exc:
                result = ToolResult(
                    False, "Keeper did not answer", f"Keeper did not answer ({type(exc).__name__})."
                )
            except Exception as exc:
                # A fault of the tool's own code: this step failed, the exploration goes on. The
                # type only in the log: the message may quote values.
                logger.error(
                    "exploration %s: the tool %s failed (%s)",
                    self.session_id,
                    tool,
                    type(exc).__name__,
                )
                result = ToolResult(
                    False, "tool failed", "This read failed inside Guide; try another read."
                )
            finally:
                self.transport.tool = None
            span.set_attribute("guide.ok", result.ok)
        self._count_step(tool, result.ok)
        return result

    def _miss(self, tool: str, step: Step, exc: LorebaseError) -> ToolResult:
        """A refused read, told to the model with the valid names."""
        detail = shortened(str(exc.detail), _TOOL_DETAIL_CHARS)
        kind = _kind_of_args(self.names, step.args)
        if isinstance(exc, RecordNotFound):
            text = (
                f"{detail}. This was an exact read: that Record does not exist here. To find a "
                "Record by its words, use search."
            )
            return ToolResult(False, "no such Record", text)
        if isinstance(exc, KindNotFound):
            return ToolResult(False, "unknown Kind", f"{detail}. {self.names.kinds_hint()}.")
        if isinstance(exc, LensUnknown):
            lenses = ", ".join(self.names.lenses) or "none"
            return ToolResult(False, "unknown lens", f"{detail}. Lenses: {lenses}.")
        if isinstance(exc, Forbidden):
            return ToolResult(False, "not allowed", f"{detail}. You may not read this.")
        if isinstance(exc, TooManyRequests):
            return ToolResult(
                False, "Keeper is rate limiting", "Keeper refused: too many requests."
            )
        issues = getattr(exc, "issues", None)
        if issues:
            detail += " " + "; ".join(shortened(str(issue), 160) for issue in issues[:5])
        hint = self.names.kind_hint(kind) if kind else self.names.kinds_hint()
        label = "miss" if isinstance(exc, NotFound) else "refused"
        return ToolResult(False, f"{tool} {label}: {exc.code}", f"{detail}\n{hint}")

    # -- model calls --------------------------------------------------------------------------

    async def _model_step(self, queue: list[Event], chars: int, *, last: bool) -> Step:
        schema = step_schema(
            self.names,
            last=last,
            max_depth=self.limits.max_depth,
            max_items=self.limits.max_items,
            ready=self.ready,
        )
        cap = self.budget.cap(chars)
        with self.tracer.start_as_current_span("guide.model", attributes={"guide.last": last}):
            try:
                answer = await self._timed(
                    self.model.structured(self.messages, schema, name=STEP_NAME, max_tokens=cap)
                )
            except _Timeout:
                self._end(queue, "timeout", "the exploration ran out of time")
                raise _Finished from None
            except (ModelUnavailable, ModelAnswerInvalid) as exc:
                logger.warning(
                    "exploration %s: model call failed (%s)", self.session_id, type(exc).__name__
                )
                if isinstance(exc, ModelAnswerInvalid):
                    # Both calls were answered: their tokens are spent and counted.
                    self.budget.record(chars, exc.prompt_tokens, exc.completion_tokens)
                    self._count_tokens(exc.prompt_tokens, exc.completion_tokens)
                self._end(queue, "model", "the model did not give a usable step")
                raise _Finished from None
        usage = answer.usage
        self.budget.record(chars, usage.prompt_tokens, usage.completion_tokens)
        self._count_tokens(usage.prompt_tokens, usage.completion_tokens)
        return Step.of(answer.value)

    def _input_chars(self) -> int:
        return sum(len(message["content"]) for message in self.messages)

    def _add_last_turn_note(self) -> None:
        note = (
            "\n"
            + cite_note(self.seen)
            + "\nNo more tool calls: answer now from what the results above say."
        )
        self.messages[-1] = {**self.messages[-1], "content": self.messages[-1]["content"] + note}

    # -- the end ------------------------------------------------------------------------------

    def _answer(self, queue: list[Event], step: Step) -> None:
        args = step.args
        cited = args.get("citations")
        checked = check_citations(
            [str(ref) for ref in cited] if isinstance(cited, list) else [], self.seen
        )
        text = str(args.get("answer") or "").strip()
        found = bool(args.get("found")) and bool(checked.kept) and bool(text)
        if step.action != ANSWER:
            found = False
        if found:
            self._finish(queue, text, [c.as_event() for c in checked.kept], True, "answered")
        else:
            self._finish(queue, NOT_FOUND, [], False, "not_found")

    def _end(self, queue: list[Event], code: str, message: str) -> None:
        """An error event, a Not found answer and done."""
        queue.append(("error", {"code": code, "message": message}))
        self._finish(queue, NOT_FOUND, [], False, code)

    def _finish(
        self,
        queue: list[Event],
        text: str,
        citations: list[dict[str, str]],
        found: bool,
        outcome: str,
    ) -> None:
        self.outcome = outcome
        elapsed_ms = int((time.monotonic() - self.started) * 1000)
        queue.append(("answer", {"text": text, "citations": citations, "found": found}))
        queue.append(
            (
                "done",
                {
                    "session_id": self.session_id,
                    "steps": self.steps,
                    "outcome": outcome,
                    "tokens": {
                        "input": self.budget.input_tokens,
                        "output": self.budget.output_tokens,
                    },
                    "elapsed_ms": elapsed_ms,
                },
            )
        )
        self._count_exploration(outcome)
        logger.info(
            "exploration %s ended: outcome=%s steps=%d tokens_in=%d tokens_out=%d elapsed_ms=%d",
            self.session_id,
            outcome,
            self.steps,
            self.budget.input_tokens,
            self.budget.output_tokens,
            elapsed_ms,
        )

    # -- helpers ------------------------------------------------------------------------------

    async def _timed(self, work: Awaitable[T]) -> T:
        """`work`, cancelled when the exploration's wall clock runs out."""
        try:
            async with asyncio.timeout_at(self.deadline):
                return await work
        except TimeoutError:
            raise _Timeout from None

    async def _note(self, text: str, step: int) -> None:
        self.transport.tool = None
        # Out of time: the next step finds the clock run out.
        with contextlib.suppress(_Timeout):
            await self._timed(self.notes.post(text, step))

    def _count_step(self, tool: str, ok: bool) -> None:
        if self.metrics is not None:
            self.metrics.counter("lorebase.guide.steps", "Tool steps of explorations").add(
                1, {"tool": tool, "success": str(ok).lower()}
            )

    def _count_tokens(self, prompt_tokens: int, completion_tokens: int) -> None:
        if self.metrics is not None:
            counter = self.metrics.counter("lorebase.guide.tokens", "Model tokens of explorations")
            counter.add(prompt_tokens, {"direction": "input"})
            counter.add(completion_tokens, {"direction": "output"})

    def _count_exploration(self, outcome: str) -> None:
        if self.metrics is not None:
            self.metrics.counter("lorebase.guide.explorations", "Explorations by outcome").add(
                1, {"outcome": outcome}
            )


def _kind_of_args(names: DomainNames, args: dict[str, Any]) -> str | None:
    """The Kind a tool's arguments are about (its `kind`, or the Kind of its first ref)."""
    kind = args.get("kind")
    if isinstance(kind, str) and kind in names.kinds:
        return kind
    for member in ("ref", "refs", "start"):
        value = args.get(member)
        first = value[0] if isinstance(value, list) and value else value
        if isinstance(first, str):
            found = names.kind_of(first)
            if found:
                return found
    return None
