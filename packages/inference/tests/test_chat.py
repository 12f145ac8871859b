"""ChatModel.structured against the scripted model server: modes, step-down, repair, errors."""

from __future__ import annotations

import json
import socket
from typing import Any

import pytest

from lorebase_core.errors import ModelAnswerInvalid, ModelUnavailable
from lorebase_inference import ChatEndpoint, ChatModel, endpoint_for
from lorebase_inference.testing import RecordedRequest, Reply, ScriptedModelServer, estimated_tokens
from lorebase_platform.settings import LlmSettings, PricePerMillionTokens

pytestmark = pytest.mark.anyio

STEP = {
    "type": "object",
    "properties": {
        "steps": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"tool": {"enum": ["search", "explain"]}, "args": {"type": "object"}},
                "required": ["tool"],
            },
        }
    },
    "required": ["steps"],
}
GOOD = {"steps": [{"tool": "search", "args": {"q": "supplier"}}]}
BAD = {"steps": [{"tool": "x"}]}
ASK = [{"role": "user", "content": "Which supplier is riskiest?"}]


def _endpoint(server: ScriptedModelServer, **members: Any) -> ChatEndpoint:
    return ChatEndpoint(base_url=server.base_url, model="scripted", **members)


async def _ask(endpoint: ChatEndpoint, **options: Any) -> Any:
    async with ChatModel(endpoint) as model:
        return await model.structured(ASK, STEP, name="explore_step", **options)


async def test_json_schema_mode_accepted() -> None:
    with ScriptedModelServer([GOOD]) as server:
        answer = await _ask(_endpoint(server, api_key="k-1", headers={"x-org": "o"}))
    assert (answer.value, answer.mode, answer.repaired) == (GOOD, "json_schema", False)
    assert answer.raw_text == json.dumps(GOOD)
    (request,) = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer k-1"
    assert request.headers["x-org"] == "o"
    assert request.body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "explore_step", "schema": STEP, "strict": True},
    }
    assert request.body["messages"] == ASK
    assert request.body["temperature"] == 0.0


async def test_request_options_caps_and_extra_body() -> None:
    with ScriptedModelServer([GOOD, GOOD]) as server:
        endpoint = _endpoint(
            server, temperature=None, max_tokens=300, extra_body={"thinking": {"type": "disabled"}}
        )
        await _ask(endpoint, max_tokens=1000)
        await _ask(endpoint, max_tokens=50)
    first, second = (request.body for request in server.requests)
    assert "temperature" not in first
    assert "authorization" not in server.requests[0].headers
    assert (first["max_tokens"], second["max_tokens"]) == (300, 50)
    assert first["thinking"] == {"type": "disabled"}


async def test_a_refusal_steps_down_to_prompt_mode_and_is_remembered() -> None:
    with ScriptedModelServer([GOOD, GOOD], refuse_json_schema=True) as server:
        endpoint = _endpoint(server)
        first = await _ask(endpoint)
        second = await _ask(endpoint)
    assert (first.mode, second.mode) == ("prompt", "prompt")
    formats = [request.body.get("response_format", {}).get("type") for request in server.requests]
    assert formats == ["json_schema", "json_object", "json_object"]
    system = server.requests[1].body["messages"][0]
    assert system["role"] == "system"
    assert system["content"].startswith("Answer with one JSON object only, valid against this JSON")
    assert json.dumps(STEP, separators=(",", ":")) in system["content"]


async def test_prompt_mode_joins_an_existing_system_message() -> None:
    with ScriptedModelServer([GOOD], refuse_json_schema=True) as server:
        async with ChatModel(_endpoint(server)) as model:
            messages = [{"role": "system", "content": "You explore."}, *ASK]
            await model.structured(messages, STEP, name="explore_step")
    sent = server.requests[-1].body["messages"]
    assert [message["role"] for message in sent] == ["system", "user"]
    assert sent[0]["content"].startswith("You explore.\n\nAnswer with one JSON object only")


async def test_json_object_refused_too_sends_no_response_format() -> None:
    script = [Reply(422, "json_object not supported"), GOOD]
    with ScriptedModelServer(script, refuse_json_schema=True) as server:
        answer = await _ask(_endpoint(server))
    assert answer.mode == "prompt"
    assert "response_format" not in server.requests[-1].body
    assert len(server.requests) == 3


async def test_a_refusal_on_the_last_mode_is_model_unavailable() -> None:
    script = [Reply(400, "no"), Reply(400, "no")]
    with (
        ScriptedModelServer(script, refuse_json_schema=True) as server,
        pytest.raises(ModelUnavailable, match="HTTP 400"),
    ):
        await _ask(_endpoint(server))


async def test_an_invalid_answer_gets_one_repair_call() -> None:
    with ScriptedModelServer([BAD, GOOD]) as server:
        answer = await _ask(_endpoint(server))
    assert (answer.value, answer.repaired) == (GOOD, True)
    repair = server.requests[1].body["messages"]
    assert repair[:2] == [*ASK, {"role": "assistant", "content": json.dumps(BAD)}]
    assert repair[2]["role"] == "user"
    assert "/steps/0/tool" in repair[2]["content"]
    assert len(repair[2]["content"]) < 400


async def test_a_repair_still_invalid_is_model_answer_invalid() -> None:
    with (
        ScriptedModelServer([BAD, "I cannot answer in JSON."]) as server,
        pytest.raises(ModelAnswerInvalid) as raised,
    ):
        await _ask(_endpoint(server))
    assert "/: not json" in raised.value.detail
    assert raised.value.to_problem()["code"] == "model-answer-invalid"
    # Both calls were answered: their tokens are on the error (the caller counts them).
    assert raised.value.prompt_tokens > 0
    assert raised.value.completion_tokens > 0
    assert "prompt_tokens" not in raised.value.to_problem()
    assert raised.value.status == 502

    with (
        ScriptedModelServer([BAD, BAD]) as server,
        pytest.raises(ModelAnswerInvalid, match="explore_step") as raised,
    ):
        await _ask(_endpoint(server))
    assert "/steps/0/tool: 'x' is not one of ['search', 'explain']" in raised.value.detail


async def test_fenced_json_is_accepted() -> None:
    fenced = f"Here it is:\n```json\n{json.dumps(GOOD, indent=2)}\n```\n"
    with ScriptedModelServer([fenced]) as server:
        answer = await _ask(_endpoint(server))
    assert (answer.value, answer.repaired, answer.raw_text) == (GOOD, False, fenced)


async def test_a_server_that_is_down_is_model_unavailable_without_the_key() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    endpoint = ChatEndpoint(
        base_url=f"http://127.0.0.1:{port}/v1", model="down-model", api_key="sk-secret-1"
    )
    with pytest.raises(ModelUnavailable) as raised:
        await _ask(endpoint)
    detail = raised.value.detail
    assert f"127.0.0.1:{port}" in detail
    assert "down-model" in detail
    assert "sk-secret-1" not in detail
    assert "riskiest" not in detail


async def test_an_error_status_is_model_unavailable_without_the_prompt() -> None:
    script = [GOOD, Reply(503, "overloaded: Which supplier is riskiest?")]
    with ScriptedModelServer(script) as server:
        endpoint = _endpoint(server)
        await _ask(endpoint)
        with pytest.raises(ModelUnavailable, match="HTTP 503") as raised:
            await _ask(endpoint)
    assert "riskiest" not in raised.value.detail
    assert raised.value.to_problem()["code"] == "model-unavailable"


async def test_a_slow_server_times_out() -> None:
    def slow(request: RecordedRequest) -> dict[str, Any]:
        import time

        time.sleep(0.3)
        return GOOD

    with (
        ScriptedModelServer([slow]) as server,
        pytest.raises(ModelUnavailable, match=r"did not answer within 0\.1 s"),
    ):
        await _ask(_endpoint(server, timeout_s=0.1))


async def test_a_success_that_is_no_completion_is_model_unavailable() -> None:
    with (
        ScriptedModelServer([Reply(200, {"choices": []})]) as server,
        pytest.raises(ModelUnavailable, match="not a chat completion"),
    ):
        await _ask(_endpoint(server))


async def test_usage_and_cost_add_up_over_the_repair_call() -> None:
    price = PricePerMillionTokens(input=2.0, output=10.0)
    with ScriptedModelServer([BAD, GOOD]) as server:
        answer = await _ask(_endpoint(server, price=price))
    prompts = [
        estimated_tokens("".join(message["content"] for message in request.body["messages"]))
        for request in server.requests
    ]
    completions = [estimated_tokens(json.dumps(BAD)), estimated_tokens(json.dumps(GOOD))]
    assert answer.usage.prompt_tokens == sum(prompts)
    assert answer.usage.completion_tokens == sum(completions)
    assert answer.usage.cost_usd == pytest.approx(
        (sum(prompts) * 2.0 + sum(completions) * 10.0) / 1_000_000
    )
    with ScriptedModelServer([GOOD]) as server:
        assert (await _ask(_endpoint(server))).usage.cost_usd is None


async def test_tasks_send_only_the_keys_of_their_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_MAIN_KEY", "main-key")
    monkeypatch.setenv("TEST_TASK_KEY", "task-key")
    with ScriptedModelServer([GOOD, GOOD]) as main, ScriptedModelServer([GOOD]) as other:
        llm = LlmSettings.model_validate(
            {
                "base_url": main.base_url,
                "api_key": "secret://env/TEST_MAIN_KEY",
                "headers": {"x-main": "main-header"},
                "tasks": {
                    "explore": {
                        "base_url": other.base_url,
                        "api_key": "secret://env/TEST_TASK_KEY",
                    },
                    "agent": {"model": "agent-model"},
                },
            }
        )
        await _ask(endpoint_for(llm, "explore"))
        await _ask(endpoint_for(llm, "agent"))
        await _ask(endpoint_for(llm))
    (explore,) = other.requests
    assert explore.headers["authorization"] == "Bearer task-key"
    assert "x-main" not in explore.headers
    assert "main-key" not in json.dumps(explore.headers)
    agent, plain = main.requests
    assert agent.body["model"] == "agent-model"
    assert agent.headers["authorization"] == "Bearer main-key"
    assert agent.headers["x-main"] == "main-header"
    assert plain.body["model"] == LlmSettings().model
