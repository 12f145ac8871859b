"""endpoint_for: a task's overrides over inference.llm, and its secrets resolved."""

from __future__ import annotations

from pathlib import Path

import pytest

from lorebase_core.errors import SecretError
from lorebase_inference import ChatModel, endpoint_for
from lorebase_inference.testing import ScriptedModelServer
from lorebase_platform.settings import LlmSettings, PricePerMillionTokens, Settings, load_settings


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_MAIN_KEY", "main-key")
    monkeypatch.setenv("TEST_TASK_KEY", "k2")


def _llm(**tasks: dict[str, object]) -> LlmSettings:
    return LlmSettings.model_validate(
        {
            "base_url": "http://main.test/v1",
            "model": "main-model",
            "api_key": "secret://env/TEST_MAIN_KEY",
            "headers": {"x-main": "main-header"},
            "temperature": 0.2,
            "max_tokens": 500,
            "tasks": tasks,
        }
    )


def test_no_task_is_the_main_endpoint() -> None:
    endpoint = endpoint_for(_llm())
    assert (endpoint.base_url, endpoint.model, endpoint.api_key) == (
        "http://main.test/v1",
        "main-model",
        "main-key",
    )
    assert endpoint.headers == {"x-main": "main-header"}
    assert endpoint.temperature == 0.2
    assert endpoint_for(_llm(), "unconfigured") == endpoint


def test_a_task_on_the_same_base_url_inherits_key_and_headers() -> None:
    endpoint = endpoint_for(_llm(explore={"model": "big", "max_tokens": 100}), "explore")
    assert (endpoint.model, endpoint.max_tokens) == ("big", 100)
    assert endpoint.api_key == "main-key"
    assert endpoint.headers == {"x-main": "main-header"}


def test_a_task_on_another_base_url_never_takes_the_main_key_or_headers() -> None:
    bare = endpoint_for(_llm(explore={"base_url": "http://other.test/v1"}), "explore")
    assert bare.api_key is None
    assert bare.headers == {}
    own = endpoint_for(
        _llm(
            explore={
                "base_url": "http://other.test/v1",
                "api_key": "secret://env/TEST_TASK_KEY",
                "headers": {"h": "v"},
            }
        ),
        "explore",
    )
    assert (own.api_key, own.headers) == ("k2", {"h": "v"})


def test_a_task_writing_null_sends_no_temperature_and_reports_no_cost() -> None:
    llm = _llm(
        explore={"temperature": None, "price_per_million_tokens": None},
        agent={"model": "m"},
    )
    llm.price_per_million_tokens = PricePerMillionTokens(input=1, output=2)
    explore = endpoint_for(llm, "explore")
    assert (explore.temperature, explore.price) == (None, None)
    agent = endpoint_for(llm, "agent")
    assert agent.temperature == 0.2
    assert agent.price == PricePerMillionTokens(input=1, output=2)


def test_secret_refs_are_resolved(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_LLM_KEY", "from-env")
    monkeypatch.setenv("TEST_LLM_WORKSPACE", "ws-1")
    llm = _llm(
        explore={
            "base_url": "http://other.test/v1",
            "api_key": "secret://env/TEST_LLM_KEY",
            "headers": {"workspace": "secret://env/TEST_LLM_WORKSPACE"},
        }
    )
    endpoint = endpoint_for(llm, "explore")
    assert endpoint.api_key == "from-env"
    assert endpoint.headers == {"workspace": "ws-1"}
    assert "from-env" not in repr(endpoint)


def test_an_unresolved_secret_ref_says_which(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TEST_LLM_MISSING", raising=False)
    llm = _llm()
    llm.api_key = "secret://env/TEST_LLM_MISSING"
    with pytest.raises(SecretError, match="TEST_LLM_MISSING"):
        endpoint_for(llm)


def test_a_key_written_as_itself_is_refused() -> None:
    with pytest.raises(ValueError, match="secret://"):
        LlmSettings.model_validate({"api_key": "sk-literal"})
    with pytest.raises(ValueError, match="secret://"):
        LlmSettings.model_validate({"tasks": {"agent": {"api_key": "sk-literal"}}})


GUIDE_EXAMPLE = """
inference:
  llm:
    base_url: {main_url}
    model: qwen2.5:7b-instruct
    api_key: secret://env/TEST_MAIN_KEY
    headers: {{x-main: main-header}}
    tasks:
      explore:
        base_url: {task_url}
        model: claude-haiku-5-5
        api_key: secret://file/{key_file}
        headers:                           # organization-level keys only
          anthropic-workspace-id: secret://file/{workspace_file}
        temperature: null
        json_schema_strict: true
        extra_body: {{thinking: {{type: disabled}}}}
        price_per_million_tokens: {{input: 0.10, output: 0.50}}
        max_concurrency: 2
"""


def _guide_example(tmp_path: Path, main_url: str, task_url: str) -> Settings:
    """Settings from a YAML file holding docs' Anthropic example, its secrets in files."""
    (tmp_path / "anthropic_api_key").write_text("sk-task-key\n")
    (tmp_path / "anthropic_workspace_id").write_text("ws-42\n")
    config = tmp_path / "lorebase.yaml"
    config.write_text(
        GUIDE_EXAMPLE.format(
            main_url=main_url,
            task_url=task_url,
            key_file=tmp_path / "anthropic_api_key",
            workspace_file=tmp_path / "anthropic_workspace_id",
        )
    )
    return load_settings(config)


def test_the_anthropic_example_resolves_as_documented(tmp_path: Path) -> None:
    settings = _guide_example(tmp_path, "http://ollama:11434/v1", "https://api.anthropic.com/v1/")
    explore = endpoint_for(settings.inference.llm, "explore")
    assert (explore.base_url, explore.model) == (
        "https://api.anthropic.com/v1/",
        "claude-haiku-5-5",
    )
    assert explore.api_key == "sk-task-key"
    assert explore.headers == {"anthropic-workspace-id": "ws-42"}
    assert explore.temperature is None
    assert explore.json_schema_strict is True
    assert explore.extra_body == {"thinking": {"type": "disabled"}}
    assert explore.price == PricePerMillionTokens(input=0.10, output=0.50)
    assert explore.max_concurrency == 2
    main = endpoint_for(settings.inference.llm)
    assert (main.api_key, main.headers, main.temperature) == (
        "main-key",
        {"x-main": "main-header"},
        0.0,
    )


@pytest.mark.anyio
async def test_a_task_on_another_endpoint_sends_only_its_own_key_and_headers(
    tmp_path: Path,
) -> None:
    answer = {"n": 1}
    with ScriptedModelServer([answer]) as main, ScriptedModelServer([answer]) as task:
        # The trailing slash, as in the documented base_url, changes nothing.
        settings = _guide_example(tmp_path, main.base_url, task.base_url + "/")
        llm = settings.inference.llm
        async with ChatModel(endpoint_for(llm, "explore")) as model:
            explored = await model.structured([{"role": "user", "content": "?"}], _N, name="n")
        async with ChatModel(endpoint_for(llm, "extract")) as model:
            await model.structured([{"role": "user", "content": "?"}], _N, name="n")
    (to_task,) = task.requests
    assert to_task.path == "/v1/chat/completions"
    assert to_task.headers["authorization"] == "Bearer sk-task-key"
    assert to_task.headers["anthropic-workspace-id"] == "ws-42"
    assert "x-main" not in to_task.headers
    assert "temperature" not in to_task.body
    assert to_task.body["thinking"] == {"type": "disabled"}
    assert to_task.body["response_format"]["json_schema"]["strict"] is True
    assert explored.usage.cost_usd == pytest.approx(
        (explored.usage.prompt_tokens * 0.10 + explored.usage.completion_tokens * 0.50) / 1e6
    )
    (to_main,) = main.requests  # a task without overrides is the main endpoint
    assert to_main.headers["authorization"] == "Bearer main-key"
    assert to_main.headers["x-main"] == "main-header"
    assert "anthropic-workspace-id" not in to_main.headers


_N = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
