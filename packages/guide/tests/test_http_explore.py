"""POST /explore over real HTTP: the stream, its budgets, and every refusal before it."""

from __future__ import annotations

import httpx
import pytest
from packages.guide.tests.conftest import (
    LiveKeeper,
    answering_explorer,
    events_of,
    guide_settings,
    serve_guide,
)

from lorebase_inference.testing import ScriptedModelServer
from lorebase_keeper.testing import assert_problem

QUESTION = {"domain": "supply", "branch": None, "question": "Which suppliers are in Italy?"}


def bearer(keeper: LiveKeeper, profile: str = "admin") -> dict[str, str]:
    return {"Authorization": f"Bearer {keeper.keys[profile]}"}


def test_an_exploration_streams_its_events(
    keeper: LiveKeeper, scripted_model: ScriptedModelServer, guide: str
) -> None:
    scripted_model.add({"text": "looking"})
    response = httpx.post(
        f"{guide}/explore", json={**QUESTION, "max_steps": 3}, headers=bearer(keeper)
    )
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    assert response.headers["cache-control"] == "no-store"
    events = events_of(response.text)
    assert [name for name, _ in events] == ["session", "thought", "answer", "done"]
    session = events[0][1]
    assert session["max_steps"] == 3
    assert session["domain"] == "supply"
    assert events[1][1]["text"] == "looking"
    assert len(scripted_model.requests) == 1


def test_the_request_only_lowers_the_budgets(
    keeper: LiveKeeper, scripted_model: ScriptedModelServer
) -> None:
    seen: list[tuple[int, int]] = []

    async def recording(exploration, caller, **kwargs):  # type: ignore[no-untyped-def]
        seen.append((exploration.max_steps, exploration.budget))
        async for event in answering_explorer(exploration, caller, **kwargs):
            yield event

    settings = guide_settings(keeper.url, scripted_model, agent={"max_steps": 5})
    scripted_model.add({"text": "a"}, {"text": "b"})
    with serve_guide(settings, explorer=recording) as url:
        for extra in ({"max_steps": 50, "budget": 10**9}, {"max_steps": 2, "budget": 300}):
            response = httpx.post(
                f"{url}/explore", json={**QUESTION, **extra}, headers=bearer(keeper)
            )
            assert response.status_code == 200
    assert seen == [(5, 40000), (2, 300)]


@pytest.mark.parametrize(
    ("body", "paths"),
    [
        pytest.param({**QUESTION, "question": "  "}, ["question"], id="blank-question"),
        pytest.param({**QUESTION, "question": "x" * 1001}, ["question"], id="long-question"),
        pytest.param({"domain": "supply"}, ["question"], id="no-question"),
        pytest.param({**QUESTION, "domain": ""}, ["domain"], id="empty-domain"),
        pytest.param({**QUESTION, "branch": 3}, ["branch"], id="branch-not-text"),
        pytest.param({**QUESTION, "limit": 3}, ["limit"], id="unknown-member"),
        pytest.param({**QUESTION, "max_steps": 0}, ["max_steps"], id="no-steps"),
        pytest.param({**QUESTION, "budget": -1}, ["budget"], id="negative-budget"),
        pytest.param({**QUESTION, "max_steps": True}, ["max_steps"], id="steps-boolean"),
        pytest.param({**QUESTION, "max_steps": 2.5}, ["max_steps"], id="steps-fraction"),
        pytest.param({**QUESTION, "question": "a\x00b"}, ["question"], id="nul"),
        pytest.param(["a list"], [""], id="not-an-object"),
        pytest.param(
            {"question": "", "budget": 0, "extra": 1},
            ["budget", "domain", "extra", "question"],
            id="every-issue",
        ),
    ],
)
def test_a_bad_body_is_refused_with_its_issues_and_costs_nothing(
    keeper: LiveKeeper,
    scripted_model: ScriptedModelServer,
    guide: str,
    body: object,
    paths: list[str],
) -> None:
    mark = keeper.mark()
    response = httpx.post(f"{guide}/explore", json=body, headers=bearer(keeper))
    document = assert_problem(response, 422, "invalid-input")
    assert sorted(issue["path"] for issue in document["issues"]) == paths
    assert scripted_model.requests == []
    assert keeper.requests_since(mark) == []


@pytest.mark.parametrize(
    ("content", "code"),
    [
        pytest.param(b"{not json", "malformed-json", id="not-json"),
        pytest.param(b"\xff\xfe{}", "malformed-json", id="not-utf8"),
        pytest.param(b"[" * 100_00 + b"]" * 100_00, "body-too-large", id="too-large"),
    ],
)
def test_a_body_that_is_not_json_or_too_large_is_refused(
    keeper: LiveKeeper, scripted_model: ScriptedModelServer, guide: str, content: bytes, code: str
) -> None:
    response = httpx.post(
        f"{guide}/explore",
        content=content,
        headers={**bearer(keeper), "Content-Type": "application/json"},
    )
    assert_problem(response, 413 if code == "body-too-large" else 400, code)
    assert scripted_model.requests == []


def test_a_chunked_body_is_refused_with_411(
    keeper: LiveKeeper, scripted_model: ScriptedModelServer, guide: str
) -> None:
    def chunks():  # type: ignore[no-untyped-def]
        yield b'{"domain": "supply", '
        yield b'"question": "q"}'

    response = httpx.post(f"{guide}/explore", content=chunks(), headers=bearer(keeper))
    assert "content-length" not in response.request.headers
    assert_problem(response, 411, "length-required")
    assert scripted_model.requests == []


@pytest.mark.parametrize(
    ("headers", "status", "code"),
    [
        pytest.param({}, 401, "unauthorized", id="no-credential"),
        pytest.param({"Authorization": "Bearer lbk_nonsense"}, 401, "unauthorized", id="unknown"),
        pytest.param({"Authorization": ""}, 401, "unauthorized", id="empty-authorization"),
        pytest.param({"Origin": "http://evil.example"}, 403, "origin_not_allowed", id="origin"),
        pytest.param({"Sec-Fetch-Site": "cross-site"}, 403, "cross_site", id="cross-site"),
    ],
)
def test_refusals_before_the_stream_cost_no_model_call(
    keeper: LiveKeeper,
    scripted_model: ScriptedModelServer,
    guide: str,
    headers: dict[str, str],
    status: int,
    code: str,
) -> None:
    response = httpx.post(f"{guide}/explore", json=QUESTION, headers=headers)
    assert_problem(response, status, code)
    if status == 401:
        assert response.headers["www-authenticate"] == "Bearer"
    assert scripted_model.requests == []


def test_a_revoked_key_is_refused_by_keeper_before_any_work(
    keeper: LiveKeeper, scripted_model: ScriptedModelServer, guide: str
) -> None:
    mark = keeper.mark()
    response = httpx.post(f"{guide}/explore", json=QUESTION, headers=bearer(keeper, "revoked"))
    assert_problem(response, 401, "unauthorized")
    assert [request.path for request in keeper.requests_since(mark)] == ["/api/v1/auth/whoami"]
    assert scripted_model.requests == []


def test_an_origin_check_comes_before_the_body_and_the_credential(
    keeper: LiveKeeper, scripted_model: ScriptedModelServer, guide: str
) -> None:
    response = httpx.post(
        f"{guide}/explore", content=b"{not json", headers={"Origin": "http://evil.example"}
    )
    assert_problem(response, 403, "origin_not_allowed")
    assert "access-control-allow-origin" not in response.headers


def test_an_allowed_origin_reads_the_stream_and_the_refusals(
    keeper: LiveKeeper, scripted_model: ScriptedModelServer, guide: str
) -> None:
    origin = {"Origin": "http://app.example"}
    refused = httpx.post(f"{guide}/explore", json=QUESTION, headers=origin)
    assert_problem(refused, 401, "unauthorized")
    assert refused.headers["access-control-allow-origin"] == "http://app.example"
    assert refused.headers["access-control-expose-headers"] == "Retry-After"
    scripted_model.add({"text": "a"})
    response = httpx.post(f"{guide}/explore", json=QUESTION, headers={**origin, **bearer(keeper)})
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == "http://app.example"
    assert response.headers["access-control-allow-credentials"] == "true"


def test_keeper_down_is_502_and_costs_nothing(scripted_model: ScriptedModelServer) -> None:
    settings = guide_settings("http://127.0.0.1:9", scripted_model)
    with serve_guide(settings) as url:
        response = httpx.post(
            f"{url}/explore", json=QUESTION, headers={"Authorization": "Bearer lbk_x"}
        )
    document = assert_problem(response, 502, "keeper_unavailable")
    assert "lbk_x" not in document["detail"]
    assert scripted_model.requests == []
