"""endpoint_for: a task's overrides over inference.llm, and its secrets resolved."""

from __future__ import annotations

import pytest

from lorebase_core.errors import SecretError
from lorebase_inference import endpoint_for
from lorebase_platform.settings import LlmSettings, PricePerMillionTokens


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
