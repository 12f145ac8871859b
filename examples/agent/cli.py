"""`python -m examples.agent`: the command line of the example agent.

    uv run python -m examples.agent --task questions
    uv run python -m examples.agent --task risk-review --supplier S-1001
    uv run python -m examples.agent --task contract-history --contract C-3013
    uv run python -m examples.agent --task ask "Which parts have a single supplier?"

Exit status: 0 when every question got an answer, 1 when one did not (within --max-steps) or
the run failed (the message says why), 2 for a bad command line.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from examples.agent.credentials import DEFAULT_PROFILE, find_credentials
from examples.agent.errors import AgentError
from examples.agent.run import MODEL_TASK, RunOptions, run_agent
from examples.agent.tasks import TASK_NAMES

from lorebase_core.errors import LorebaseError
from lorebase_platform.settings import LlmSettings, LlmTaskSettings, load_settings

PROGRAM = "python -m examples.agent"


def parser() -> argparse.ArgumentParser:
    """The command line's parser."""
    made = argparse.ArgumentParser(
        prog=PROGRAM,
        description="A process agent: Lorebase through Herald (MCP over stdio) and any "
        "OpenAI-compatible chat model with structured output.",
    )
    made.add_argument("--task", required=True, choices=TASK_NAMES, help="what to do")
    made.add_argument("question", nargs="?", help="the question of --task ask")
    made.add_argument("--supplier", default="S-1001", help="the Supplier of risk-review")
    made.add_argument("--contract", default="C-3013", help="the Contract of contract-history")
    made.add_argument("--domain", default="supply", help="the Domain (default: supply)")
    made.add_argument(
        "--max-steps", type=int, default=8, help="model steps per question (default: 8)"
    )
    made.add_argument(
        "--keeper",
        help="Keeper's URL (default: the profile's, $LOREBASE_URL, http://127.0.0.1:8080)",
    )
    made.add_argument("--api-key-file", type=Path, help="a file holding the agent's API key")
    made.add_argument(
        "--profile",
        default=DEFAULT_PROFILE,
        help="the profile holding the key when neither --api-key-file nor $LOREBASE_API_KEY "
        "gives one (default: agent, written by `make demo`)",
    )
    made.add_argument(
        "--profiles-file",
        type=Path,
        help="the profiles file (default: "
        "$LOREBASE_PROFILES, else ~/.local/share/lorebase/profiles.toml)",
    )
    made.add_argument("--config", type=Path, help="settings file (default: $LOREBASE_CONFIG)")
    made.add_argument("--llm-url", help="OpenAI-compatible endpoint, over inference.llm")
    made.add_argument("--model", help="the chat model, over inference.llm")
    made.add_argument(
        "--max-result-tokens",
        type=int,
        help="herald.max_result_tokens of the Herald child: smaller for small context windows",
    )
    return made


def llm_settings(
    llm: LlmSettings, base_url: str | None = None, model: str | None = None
) -> LlmSettings:
    """`inference.llm` with --llm-url and --model set on the agent's task.

    A new URL drops the task's own key and headers: a key is only sent where it was configured.
    """
    if base_url is None and model is None:
        return llm
    task = llm.tasks.get(MODEL_TASK, LlmTaskSettings())
    update: dict[str, object] = {}
    if base_url is not None:
        update.update(base_url=base_url, api_key=None, headers=None)
    if model is not None:
        update["model"] = model
    tasks = {**llm.tasks, MODEL_TASK: task.model_copy(update=update)}
    return llm.model_copy(update={"tasks": tasks})


def main(argv: list[str] | None = None) -> int:
    """Run the agent; the exit status (0: answered)."""
    arguments = parser().parse_args(argv)
    if arguments.max_steps < 1:
        parser().error("--max-steps must be at least 1")
    options = RunOptions(
        task=arguments.task,
        domain=arguments.domain,
        supplier=arguments.supplier,
        contract=arguments.contract,
        question=arguments.question,
        max_steps=arguments.max_steps,
        max_result_tokens=arguments.max_result_tokens,
    )
    try:
        settings = load_settings(arguments.config)
        credentials = find_credentials(
            keeper_url=arguments.keeper,
            api_key_file=arguments.api_key_file,
            profile=arguments.profile,
            profiles_file=arguments.profiles_file,
        )
        llm = llm_settings(settings.inference.llm, arguments.llm_url, arguments.model)
        report = asyncio.run(run_agent(options, credentials, llm))
    except AgentError as error:
        print(f"{PROGRAM}: {error}", file=sys.stderr)
        return 1
    except (LorebaseError, ValueError) as error:
        print(f"{PROGRAM}: the settings cannot be used: {error}", file=sys.stderr)
        return 1
    print(report.render())
    if not report.answered:
        print(f"{PROGRAM}: a question got no answer within --max-steps", file=sys.stderr)
        return 1
    return 0
