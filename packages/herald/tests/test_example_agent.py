"""The example agent (examples/agent) end to end: a scripted model, Herald over stdio, Keeper.

The agent starts Herald itself as a child process (`python -m lorebase_herald`, the key in
the child's environment), exactly as it does from a shell; the model is a
`ScriptedModelServer` playing the conversation, whose callable items read values (the write's
task name, a Proposal id) out of the request, as a real model would.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from examples.agent import (
    AgentError,
    Credentials,
    RunOptions,
    RunReport,
    find_credentials,
    run_agent,
)
from examples.agent.herald_process import KEY_VARIABLE, herald_parameters

from lorebase_client import LorebaseClient
from lorebase_inference.testing import LocalModelServer, RecordedRequest, ScriptedModelServer
from lorebase_keeper.testing import wait_for_session
from lorebase_platform.settings import LlmSettings

from .conftest import ROOT, LiveKeeper

pytestmark = pytest.mark.anyio

Item = Callable[[RecordedRequest], dict[str, Any]]


def call(tool: str, args: dict[str, Any], thought: str = "I need to read more.") -> dict[str, Any]:
    """A model step calling `tool`."""
    return {
        "thought": thought,
        "action": "call",
        "tool": tool,
        "args": args,
        "answer": "",
        "citations": [],
    }


def answer(text: str, citations: list[str], thought: str = "I can answer.") -> dict[str, Any]:
    """A model step answering."""
    return {
        "thought": thought,
        "action": "answer",
        "tool": "",
        "args": {},
        "answer": text,
        "citations": citations,
    }


def last_message(request: RecordedRequest) -> str:
    content: str = request.body["messages"][-1]["content"]
    return content


def system_message(request: RecordedRequest) -> str:
    content: str = request.body["messages"][0]["content"]
    return content


def agent_credentials(keeper: LiveKeeper) -> Credentials:
    return Credentials(keeper.url, keeper.keys["agent"], "file", key_file=keeper.key_files["agent"])


async def run(keeper: LiveKeeper, server: ScriptedModelServer, options: RunOptions) -> RunReport:
    llm = LlmSettings(base_url=server.base_url, model="scripted")
    return await run_agent(options, agent_credentials(keeper), llm)


def notes_and_tools(
    keeper: LiveKeeper, report: RunReport, steps: int
) -> tuple[list[str], set[str]]:
    session = wait_for_session(keeper.store, "svc_agent", report.session_id, steps)
    notes = [step.note for step in session.steps if step.note is not None]
    tools = {step.tool for step in session.steps if step.tool is not None}
    return notes, tools


async def test_a_risk_review_dry_runs_then_writes_and_opens_a_proposal(keeper: LiveKeeper) -> None:
    parameters = {"supplier": "S-1001", "severity": "critical", "reason": "risk score 90"}

    def write(request: RecordedRequest) -> dict[str, Any]:
        task = re.search(r'task "(risk-review-s-1001-[0-9a-f]+)"', system_message(request))
        assert task is not None
        return call(
            "lorebase_execute",
            {
                "operation": "flag_supplier_risk",
                "parameters": parameters,
                "task": task.group(1),
                "intent": "risk score 90 with an open risk flag",
            },
            thought="The dry run shows one RiskFlag; now the write.",
        )

    def report_proposal(request: RecordedRequest) -> dict[str, Any]:
        found = re.search(r"prp_[0-9A-Z]+", last_message(request))
        proposal_id = found.group(0) if found else "no proposal"
        return answer(f"Flagged critical; Proposal {proposal_id}.", ["Supplier/S-1001"])

    script: list[dict[str, Any] | Item] = [
        call(
            "lorebase_context",
            {"refs": ["Supplier/S-1001"], "lens": "supplier_risk"},
            thought="Read S-1001 with its risk flags and contracts.",
        ),
        call(
            "lorebase_execute",
            {"operation": "flag_supplier_risk", "parameters": parameters, "dry_run": True},
            thought="Risk 90: flag it critical, dry run first.",
        ),
        write,
        report_proposal,
    ]
    with ScriptedModelServer(script) as server:
        report = await run(keeper, server, RunOptions(task="risk-review", supplier="S-1001"))
    [episode] = report.episodes
    assert [step.outcome for step in episode.tool_steps] == ["ok", "ok", "ok"]
    [proposal_id] = episode.proposals
    assert episode.answer == f"Flagged critical; Proposal {proposal_id}."
    assert episode.citations.kept == ["Supplier/S-1001"]
    with LorebaseClient(keeper.url, api_key=keeper.keys["reviewer"]) as reviewer:
        proposal = reviewer.proposal("supply", proposal_id)
    assert proposal["status"] == "open"
    assert proposal["source_ref"].startswith("agent/svc_agent/risk-review-s-1001-")
    assert re.fullmatch(r"agent-[0-9a-f]{16}", report.session_id)
    notes, tools = notes_and_tools(keeper, report, steps=7)
    assert {"lorebase_context", "lorebase_execute"} <= tools
    assert notes[0] == "Read S-1001 with its risk flags and contracts. [next: lorebase_context]"
    assert len(notes) == 4
    assert f"lorebase trace show {report.session_id}" in report.render()
    assert report.tokens.prompt > 0
    assert report.tokens.completion > 0


async def test_an_answer_keeps_the_citations_read_and_drops_an_invented_one(
    keeper: LiveKeeper,
) -> None:
    script = [
        call("lorebase_record", {"kind": "Supplier", "key": "S-1001"}),
        answer(
            "Kavsen Alloys Sp. z o.o. in Poznan, risk score 90.",
            ["Supplier/S-1001", "Supplier/S-4242", "Supplier/S-1001"],
        ),
    ]
    question = "Where is supplier S-1001 and how risky is it?"
    with ScriptedModelServer(script) as server:
        report = await run(keeper, server, RunOptions(task="ask", question=question))
        system = system_message(server.requests[0])
    [episode] = report.episodes
    assert episode.citations.kept == ["Supplier/S-1001"]
    assert episode.citations.dropped == ["Supplier/S-4242"]
    assert "dropped citations (in no tool result): Supplier/S-4242" in report.render()
    assert question in system
    assert (
        "- lorebase_record(domain: str, key: str, kind?: str, lineage?: bool, branch?: str, "
        "at?: str): One Record"
    ) in system
    assert report.answered


async def test_an_unknown_tool_a_tool_error_and_a_write_without_dry_run_reach_the_model(
    keeper: LiveKeeper,
) -> None:
    script = [
        call("lorebase_teleport", {}),
        call("lorebase_record", {"kind": "Supplier", "key": "S-9999"}),
        call(
            "lorebase_execute",
            {
                "operation": "flag_supplier_risk",
                "parameters": {"supplier": "S-1001", "severity": "low", "reason": "test"},
                "task": "skip the dry run",
                "intent": "test",
            },
        ),
        answer("I could not find S-9999.", []),
    ]
    head = keeper.store.log("supply", limit=1)[0].id
    with ScriptedModelServer(script) as server:
        report = await run(keeper, server, RunOptions(task="ask", question="Who is S-9999?"))
        shown = [last_message(request) for request in server.requests[1:]]
    [episode] = report.episodes
    assert [step.outcome for step in episode.tool_steps] == [
        "unknown-tool",
        "tool-error",
        "refused",
    ]
    assert shown[0].startswith("There is no tool 'lorebase_teleport': nothing was called.")
    assert "lorebase_record failed (a tool error)" in shown[1]
    assert "record-not-found" in shown[1]
    assert shown[2].startswith("Not called: run lorebase_execute with dry_run true")
    assert episode.answer == "I could not find S-9999."
    assert keeper.store.log("supply", limit=1)[0].id == head


async def test_the_questions_task_answers_each_example_question(keeper: LiveKeeper) -> None:
    examples = keeper.store.schema("supply").domain.examples
    script = [answer(f"answer {number}", []) for number in range(len(examples))]
    with ScriptedModelServer(script) as server:
        report = await run(keeper, server, RunOptions(task="questions"))
        system = system_message(server.requests[0])
    assert [episode.goal.title for episode in report.episodes] == list(examples)
    assert [episode.answer for episode in report.episodes] == [
        f"answer {number}" for number in range(len(examples))
    ]
    assert f"Example questions of the Domain supply:\n- {examples[0]}" in system
    notes, tools = notes_and_tools(keeper, report, steps=len(examples) + 1)
    assert "lorebase_schema" in tools
    assert len(notes) == len(examples)


async def test_the_last_step_may_only_answer(keeper: LiveKeeper) -> None:
    script = [
        call("lorebase_schema", {"kinds": ["Contract"]}),
        answer("C-3013 changed twice after its import.", ["Contract/C-3013"]),
    ]
    with ScriptedModelServer(script) as server:
        report = await run(
            keeper, server, RunOptions(task="contract-history", contract="C-3013", max_steps=2)
        )
        first, last = server.requests
    [episode] = report.episodes
    assert episode.steps == 2
    assert report.answered
    schema = last.body["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["action"]["enum"] == ["answer"]
    assert "This is your last step" in last_message(last)
    assert "This is your last step" not in last_message(first)


async def test_a_model_that_will_not_answer_on_the_last_step_ends_the_run(
    keeper: LiveKeeper,
) -> None:
    script = [call("lorebase_schema", {"kinds": ["Supplier"]})] * 4
    with ScriptedModelServer(script) as server, pytest.raises(AgentError, match="model"):
        await run(
            keeper, server, RunOptions(task="contract-history", contract="C-3013", max_steps=2)
        )


async def test_an_unreachable_keeper_fails_before_herald_starts() -> None:
    with ScriptedModelServer([]) as server:
        llm = LlmSettings(base_url=server.base_url, model="scripted")
        credentials = Credentials(f"http://127.0.0.1:{free_port()}", "lbk_secret", "file")
        with pytest.raises(AgentError, match=r"cannot be reached .* is it running") as raised:
            await run_agent(RunOptions(task="ask", question="q"), credentials, llm)
        assert server.requests == []
    assert "lbk_secret" not in str(raised.value)


def test_herald_gets_the_key_and_the_session_through_its_environment_only(
    keeper: LiveKeeper,
) -> None:
    parameters = herald_parameters(agent_credentials(keeper), "agent-0123456789abcdef")
    assert parameters.command == sys.executable
    assert parameters.args == ["-m", "lorebase_herald"]
    env = parameters.env or {}
    assert env["LOREBASE__HERALD__KEEPER__API_KEY"] == f"secret://env/{KEY_VARIABLE}"
    assert env[KEY_VARIABLE] == keeper.keys["agent"]
    assert env["LOREBASE__HERALD__KEEPER__BASE_URL"] == keeper.url
    assert env["LOREBASE__HERALD__TRACE__SESSION_ID"] == "agent-0123456789abcdef"
    assert env["LOREBASE__HERALD__TRACE__OPT_IN"] == "true"
    assert keeper.keys["agent"] not in json.dumps(parameters.args)


def test_the_model_server_down_ends_the_command_with_a_clear_error(keeper: LiveKeeper) -> None:
    command = [
        sys.executable,
        "-m",
        "examples.agent",
        "--task",
        "ask",
        "Which parts have a single supplier?",
        "--keeper",
        keeper.url,
        "--api-key-file",
        str(keeper.key_files["agent"]),
        "--llm-url",
        f"http://127.0.0.1:{free_port()}/v1",
        "--model",
        "down",
    ]
    environment = {name: value for name, value in os.environ.items() if name != "LOREBASE_CONFIG"}
    done = subprocess.run(
        command, cwd=ROOT, env=environment, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1, done.stderr
    assert "the model cannot be used (model-unavailable)" in done.stderr
    assert "model 'down' at 127.0.0.1:" in done.stderr
    assert "cannot be reached" in done.stderr
    assert keeper.keys["agent"] not in done.stderr + done.stdout


def free_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_the_key_comes_from_the_file_then_the_environment_then_the_profile(
    keeper: LiveKeeper, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    profiles = tmp_path / "profiles.toml"
    profiles.write_text('[agent]\nurl = "http://127.0.0.1:9"\napi_key = "lbk_profile"\n')
    monkeypatch.delenv("LOREBASE_URL", raising=False)
    monkeypatch.setenv("LOREBASE_API_KEY", "lbk_environment")
    from_file = find_credentials(api_key_file=keeper.key_files["agent"], profiles_file=profiles)
    assert (from_file.api_key, from_file.source) == (keeper.keys["agent"], "file")
    assert from_file.keeper_url == "http://127.0.0.1:8080"
    from_environment = find_credentials(profiles_file=profiles)
    assert (from_environment.api_key, from_environment.source) == ("lbk_environment", "environment")
    monkeypatch.delenv("LOREBASE_API_KEY")
    from_profile = find_credentials(profiles_file=profiles)
    assert (from_profile.api_key, from_profile.keeper_url) == ("lbk_profile", "http://127.0.0.1:9")
    assert "lbk_profile" not in repr(from_profile)
    with pytest.raises(AgentError, match="no API key: pass --api-key-file"):
        find_credentials(profiles_file=tmp_path / "missing.toml")


async def test_a_herald_that_does_not_start_ends_the_run_with_a_clear_error(
    keeper: LiveKeeper, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("herald:\n  max_result_tokens: not a number\n")
    monkeypatch.setenv("LOREBASE_CONFIG", str(broken))  # passed on to the child only
    with ScriptedModelServer([]) as server:
        with pytest.raises(AgentError, match=r"Herald did not start .*: Connection closed"):
            await run(keeper, server, RunOptions(task="ask", question="q"))
        assert server.requests == []


@pytest.mark.model
async def test_the_agent_on_a_real_local_model_takes_valid_steps_to_a_cited_answer(
    keeper: LiveKeeper, local_model: LocalModelServer
) -> None:
    """The plumbing on a real model (not its wisdom): every step it takes is valid, its tool
    calls reach Keeper through Herald, and it answers with a citation it read."""
    # a step reads every tool answer so far on 2 shared cores: a loaded machine takes minutes
    llm = LlmSettings(base_url=local_model.base_url, model=local_model.model, timeout_s=600)
    options = RunOptions(task="contract-history", contract="C-3013", max_steps=3)
    report = await run_agent(options, agent_credentials(keeper), llm)
    [episode] = report.episodes
    assert episode.answer, report.render()
    assert episode.tool_steps, report.render()
    assert episode.citations.kept, report.render()
    assert report.tokens.prompt > 0
    _, tools = notes_and_tools(keeper, report, len(episode.tool_steps))
    assert tools, report.render()


def test_a_citation_is_the_ref_written_in_it() -> None:
    from examples.agent.citations import check_citations

    checked = check_citations(
        ["Contract/C-3013 in supply/main @ 487c450d9309", "Contract/C-3013", "Part/P-1 (made up)"],
        {"Contract/C-3013"},
    )
    assert checked.kept == ["Contract/C-3013"]
    assert checked.dropped == ["Part/P-1"]
