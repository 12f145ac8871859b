"""The scripted model server itself: OpenAI's shapes, the script, embeddings and models."""

from __future__ import annotations

import json
import math

import httpx
import pytest

from lorebase_inference.testing import RecordedRequest, Reply, ScriptedModelServer

CHAT = {"model": "m", "messages": [{"role": "user", "content": "abcdefgh"}]}


def test_a_completion_has_openais_shape() -> None:
    with ScriptedModelServer(["hello", {"a": 1}]) as server, httpx.Client() as http:
        first = http.post(f"{server.base_url}/chat/completions", json=CHAT).json()
        second = http.post(f"{server.base_url}/chat/completions", json=CHAT).json()
    assert first["object"] == "chat.completion"
    assert first["model"] == "m"
    assert isinstance(first["id"], str)
    assert isinstance(first["created"], int)
    assert first["choices"] == [
        {"index": 0, "message": {"role": "assistant", "content": "hello"}, "finish_reason": "stop"}
    ]
    assert first["usage"] == {"prompt_tokens": 2, "completion_tokens": 2, "total_tokens": 4}
    assert json.loads(second["choices"][0]["message"]["content"]) == {"a": 1}
    assert server.base_url.startswith("http://127.0.0.1:")
    assert server.base_url.endswith("/v1")


def test_requests_are_recorded_with_lower_case_headers() -> None:
    with ScriptedModelServer(["ok"]) as server, httpx.Client() as http:
        http.post(f"{server.base_url}/chat/completions", json=CHAT, headers={"X-Trace": "t-1"})
    (request,) = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["x-trace"] == "t-1"
    assert request.body == CHAT


def test_callables_answer_from_the_request_and_replies_go_as_they_are() -> None:
    def echo(request: RecordedRequest) -> str:
        return request.body["messages"][-1]["content"].upper()

    script = [echo, Reply(429, "slow down"), Reply(200, {"odd": True})]
    with ScriptedModelServer(script) as server, httpx.Client() as http:
        url = f"{server.base_url}/chat/completions"
        echoed = http.post(url, json=CHAT).json()
        limited = http.post(url, json=CHAT)
        odd = http.post(url, json=CHAT)
    assert echoed["choices"][0]["message"]["content"] == "ABCDEFGH"
    assert limited.status_code == 429
    assert limited.json()["error"]["message"] == "slow down"
    assert odd.json() == {"odd": True}
    assert server.remaining == 0


def test_an_exhausted_script_answers_500_and_records_it() -> None:
    with ScriptedModelServer(["only"]) as server, httpx.Client() as http:
        url = f"{server.base_url}/chat/completions"
        http.post(url, json=CHAT)
        exhausted = http.post(url, json=CHAT)
        server.add("more")
        again = http.post(url, json=CHAT)
    assert exhausted.status_code == 500
    assert "no answer left for request 2" in exhausted.json()["error"]["message"]
    assert again.json()["choices"][0]["message"]["content"] == "more"
    assert len(server.requests) == 3


def test_refuse_json_schema_takes_no_script_item() -> None:
    schema_format = {"type": "json_schema", "json_schema": {"name": "n", "schema": {}}}
    with ScriptedModelServer(["ok"], refuse_json_schema=True) as server, httpx.Client() as http:
        url = f"{server.base_url}/chat/completions"
        refused = http.post(url, json={**CHAT, "response_format": schema_format})
        accepted = http.post(url, json={**CHAT, "response_format": {"type": "json_object"}})
    assert refused.status_code == 400
    assert "json_schema not supported" in refused.json()["error"]["message"]
    assert accepted.json()["choices"][0]["message"]["content"] == "ok"


@pytest.mark.parametrize("dims", [pytest.param(384, id="default"), pytest.param(8, id="eight")])
def test_embeddings_are_deterministic_unit_vectors(dims: int) -> None:
    scripted = ScriptedModelServer() if dims == 384 else ScriptedModelServer(dims=dims)
    with scripted as server, httpx.Client() as http:
        url = f"{server.base_url}/embeddings"
        first = http.post(url, json={"model": "e", "input": ["alpha", "beta"]}).json()
        again = http.post(url, json={"model": "e", "input": "alpha"}).json()
    assert first["object"] == "list"
    assert [item["index"] for item in first["data"]] == [0, 1]
    alpha, beta = (item["embedding"] for item in first["data"])
    assert len(alpha) == dims
    assert math.isclose(math.fsum(value * value for value in alpha), 1.0)
    assert again["data"][0]["embedding"] == alpha
    assert alpha != beta
    assert first["usage"]["prompt_tokens"] == 3  # ceil(5 / 4) + ceil(4 / 4)


def test_models_and_unknown_paths() -> None:
    with ScriptedModelServer(model="tiny") as server, httpx.Client() as http:
        models = http.get(f"{server.base_url}/models").json()
        missing = http.post(f"{server.base_url}/completions", json={})
    assert [model["id"] for model in models["data"]] == ["tiny"]
    assert missing.status_code == 404


def test_base_url_needs_a_started_server() -> None:
    with pytest.raises(RuntimeError, match="not started"):
        _ = ScriptedModelServer().base_url
