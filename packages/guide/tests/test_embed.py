"""POST /embed: a vector of the configured embedding model, prefixed by mode, or a refusal."""

from __future__ import annotations

import httpx
import pytest
from packages.guide.tests.conftest import LiveKeeper, guide_settings, serve_guide

from lorebase_inference.testing import ScriptedModelServer
from lorebase_keeper.testing import assert_problem


def bearer(keeper: LiveKeeper, profile: str = "suppliers") -> dict[str, str]:
    return {"Authorization": f"Bearer {keeper.keys[profile]}"}


def embedding_requests(server: ScriptedModelServer) -> list[list[str]]:
    return [r.body["input"] for r in server.requests if r.path.endswith("/embeddings")]


def test_a_query_text_becomes_a_vector_of_the_configured_model(
    keeper: LiveKeeper, scripted_model: ScriptedModelServer
) -> None:
    settings = guide_settings(keeper.url, scripted_model)
    settings.inference.embeddings.query_prefix = "query: "
    settings.inference.embeddings.document_prefix = "passage: "
    with serve_guide(settings) as url:
        query = httpx.post(f"{url}/embed", json={"text": "late deliveries"}, headers=bearer(keeper))
        document = httpx.post(
            f"{url}/embed",
            json={"text": "late deliveries", "mode": "document"},
            headers=bearer(keeper),
        )
    assert query.status_code == 200, query.text
    answer = query.json()
    assert set(answer) == {"model", "dims", "mode", "vector"}
    assert answer["model"] == "all-MiniLM-L6-v2"
    assert answer["mode"] == "query"
    assert answer["dims"] == len(answer["vector"]) == 384
    assert document.json()["mode"] == "document"
    assert document.json()["vector"] != answer["vector"]
    assert embedding_requests(scripted_model) == [
        ["query: late deliveries"],
        ["passage: late deliveries"],
    ]


@pytest.mark.parametrize(
    ("body", "paths"),
    [
        pytest.param({"text": ""}, ["text"], id="empty"),
        pytest.param({"text": "x" * 2001}, ["text"], id="too-long"),
        pytest.param({"text": "a", "mode": "passage"}, ["mode"], id="mode"),
        pytest.param({"text": "a", "model": "other"}, ["model"], id="unknown-member"),
        pytest.param({"text": ["a"]}, ["text"], id="not-text"),
    ],
)
def test_a_bad_embedding_request_is_refused(
    keeper: LiveKeeper,
    scripted_model: ScriptedModelServer,
    guide: str,
    body: dict[str, object],
    paths: list[str],
) -> None:
    response = httpx.post(f"{guide}/embed", json=body, headers=bearer(keeper))
    document = assert_problem(response, 422, "invalid-input")
    assert [issue["path"] for issue in document["issues"]] == paths
    assert scripted_model.requests == []


def test_embedding_needs_a_verified_credential(
    keeper: LiveKeeper, scripted_model: ScriptedModelServer, guide: str
) -> None:
    for headers in ({}, bearer(keeper, "revoked")):
        response = httpx.post(f"{guide}/embed", json={"text": "a"}, headers=headers)
        assert_problem(response, 401, "unauthorized")
    assert scripted_model.requests == []


def test_no_usable_embedding_model_is_502(
    keeper: LiveKeeper, scripted_model: ScriptedModelServer
) -> None:
    settings = guide_settings(keeper.url, scripted_model)
    settings.inference.embeddings.base_url = "http://127.0.0.1:9/v1"
    with serve_guide(settings) as url:
        response = httpx.post(f"{url}/embed", json={"text": "secret words"}, headers=bearer(keeper))
    document = assert_problem(response, 502, "embedding-unavailable")
    assert "secret words" not in document["detail"]
