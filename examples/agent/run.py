"""One run of the agent: check Keeper and the key, start Herald, then the loop on each goal.

```python
report = await run_agent(RunOptions(task="ask", question="Who supplies P-10028?"),
                         find_credentials(), load_settings().inference.llm)
print(report.render())
```
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import httpx
from examples.agent.credentials import Credentials
from examples.agent.errors import AgentError
from examples.agent.herald_process import herald_parameters, new_session_id
from examples.agent.loop import AgentLoop, NoteTaker
from examples.agent.prompt import ToolLine
from examples.agent.report import RunReport
from examples.agent.tasks import Goal, TaskName, contract_history, question, risk_review
from mcp import Client
from mcp.shared.exceptions import MCPError

from lorebase_client import DEFAULT_URL, AsyncLorebaseClient
from lorebase_core.errors import LorebaseError, ModelAnswerInvalid, ModelUnavailable
from lorebase_inference import ChatModel, endpoint_for
from lorebase_platform.settings import LlmSettings

MODEL_TASK = "agent"
"""The task name of `inference.llm.tasks` the agent's model comes from."""


@dataclass(frozen=True, kw_only=True)
class RunOptions:
    """What to run: the task, its subject and the loop's limits."""

    task: TaskName
    domain: str = "supply"
    supplier: str = "S-1001"
    contract: str = "C-3013"
    question: str | None = None
    max_steps: int = 8
    max_result_tokens: int | None = None
    """herald.max_result_tokens of the Herald child (None: Herald's default)."""


async def run_agent(
    options: RunOptions,
    credentials: Credentials,
    llm: LlmSettings,
    *,
    session_id: str | None = None,
) -> RunReport:
    """Run `options.task` as the principal of `credentials` with the model of `llm`.

    Raises:
        AgentError: Keeper unreachable or refusing the key, Herald not starting, the model
            unavailable or answering invalid steps, a Domain without example questions.
    """
    if options.task == "ask" and not options.question:
        raise AgentError('the task ask needs a question: --task ask "Which parts ..."')
    session = session_id or new_session_id()
    report = RunReport(
        task=options.task, session_id=session, trace_command=trace_command(credentials, session)
    )
    try:
        endpoint = endpoint_for(llm, MODEL_TASK)
    except LorebaseError as error:
        raise AgentError(f"the model's settings cannot be used: {error.detail}") from None
    async with AsyncLorebaseClient(credentials.keeper_url, api_key=credentials.api_key) as keeper:
        await check_keeper(keeper, credentials)
        async with (
            ChatModel(endpoint) as model,
            herald_session(credentials, options, session) as mcp,
        ):
            listed = await mcp.list_tools()
            tools = [ToolLine.of(tool) for tool in listed.tools]
            examples: list[str] = []
            if options.task == "questions":
                examples = await example_questions(mcp, options.domain)
            loop = AgentLoop(
                mcp,
                model,
                tools,
                NoteTaker(keeper, session, options.domain, report),
                options.domain,
                max_steps=options.max_steps,
                examples=examples,
            )
            for goal in goals_of(options, examples, session):
                try:
                    report.episodes.append(await loop.run(goal))
                except (ModelUnavailable, ModelAnswerInvalid) as error:
                    earlier = report.tokens.prompt > 0
                    steps = f" (the steps so far: {report.trace_command})" if earlier else ""
                    raise AgentError(
                        f"the model cannot be used ({error.code}): {error.detail}{steps}"
                    ) from None
    return report


async def check_keeper(keeper: AsyncLorebaseClient, credentials: Credentials) -> None:
    """Fail early and clearly when Keeper is down or refuses the key.

    Raises:
        AgentError: Keeper cannot be reached or does not take the key.
    """
    try:
        await keeper.whoami()
    except httpx.TransportError as error:
        raise AgentError(
            f"Keeper at {credentials.keeper_url} cannot be reached ({type(error).__name__}); "
            f"is it running? `make demo` starts one"
        ) from None
    except LorebaseError as error:
        raise AgentError(
            f"Keeper at {credentials.keeper_url} refused the agent's key from "
            f"{credentials.source} ({error.code}): {error.detail}"
        ) from None


@asynccontextmanager
async def herald_session(
    credentials: Credentials, options: RunOptions, session_id: str
) -> AsyncIterator[Client]:
    """Herald started over stdio as a child process, and the MCP client of it."""
    parameters = herald_parameters(
        credentials, session_id, max_result_tokens=options.max_result_tokens
    )
    client = Client(parameters)
    try:
        await client.__aenter__()
    except Exception as error:
        reason = startup_failure(error)
        if reason is None:
            raise
        raise AgentError(
            f"Herald did not start (python -m lorebase_herald): {reason}; its own message, "
            f"if any, is above"
        ) from None
    try:
        yield client
    finally:
        await client.__aexit__(None, None, None)


def startup_failure(error: BaseException) -> str | None:
    """What stopped Herald's start (the SDK wraps it in task-group exception groups), or None
    for an error of another kind."""
    if isinstance(error, MCPError):
        return error.message
    if isinstance(error, OSError):
        return str(error)
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            reason = startup_failure(inner)
            if reason is not None:
                return reason
    return None


async def example_questions(mcp: Client, domain: str) -> list[str]:
    """The Domain's example questions, read through lorebase_schema.

    Raises:
        AgentError: the schema cannot be read or holds no example questions.
    """
    result = await mcp.call_tool("lorebase_schema", {"domain": domain})
    content = result.structured_content or {}
    if result.is_error:
        problem = content.get("problem") or {}
        raise AgentError(
            f"cannot read the schema of {domain!r}: {problem.get('detail', 'a tool error')}"
        )
    examples = (content.get("result") or {}).get("examples") or []
    if not examples:
        raise AgentError(f"the Domain {domain!r} has no example questions (domain.examples)")
    return [str(example) for example in examples]


def goals_of(options: RunOptions, examples: list[str], session_id: str) -> list[Goal]:
    """The goals of the task: one per example question, else one."""
    if options.task == "questions":
        return [question(text) for text in examples]
    if options.task == "risk-review":
        write_task = f"risk-review-{options.supplier.lower()}-{secrets.token_hex(4)}"
        return [risk_review(options.supplier, write_task)]
    if options.task == "contract-history":
        return [contract_history(options.contract)]
    assert options.question is not None
    return [question(options.question)]


def trace_command(credentials: Credentials, session_id: str) -> str:
    """How to read the run's trace with the same key: `lorebase trace show <session>`."""
    command = f"uv run lorebase trace show {session_id}"
    if credentials.profile is not None:
        command += f" --profile {credentials.profile}"
    if credentials.keeper_url != DEFAULT_URL and credentials.profile is None:
        command += f" --url {credentials.keeper_url}"
    if credentials.key_file is not None:
        command = f"LOREBASE_API_KEY=$(cat {credentials.key_file}) {command}"
    return command
