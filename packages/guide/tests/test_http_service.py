"""Guide as a service: health and readiness, CORS preflights, unknown routes, the server span
and metrics of each request, and logs that hold no value of a request."""

from __future__ import annotations

import logging
from pathlib import Path

import httpx
import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from packages.guide.tests.conftest import (
    LiveKeeper,
    answering_explorer,
    guide_settings,
    serve_guide,
)

from lorebase_guide.app import create_app
from lorebase_guide.service import Guide
from lorebase_guide.telemetry import EMBEDDINGS, REFUSED, REQUEST_DURATION, REQUESTS
from lorebase_inference.testing import ScriptedModelServer
from lorebase_keeper.app import create_app as create_keeper_app
from lorebase_keeper.testing import assert_problem, serve_in_thread
from lorebase_platform.settings import Settings
from lorebase_store import Store

QUESTION = {"domain": "supply", "question": "Which zanzibarian quokkas supply gearboxes?"}


def test_healthz_and_readyz(guide: str) -> None:
    health = httpx.get(f"{guide}/healthz")
    assert health.status_code == 200
    assert health.json() == {"status": "ok"}
    ready = httpx.get(f"{guide}/readyz")
    assert ready.status_code == 200
    assert ready.json() == {"status": "ready", "keeper": "ok"}


def test_readyz_fails_while_keeper_is_stopped(
    tmp_path: Path, scripted_model: ScriptedModelServer
) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'lorebase.sqlite'}")
    try:
        app = create_keeper_app(Settings(keeper={"auth": {"mode": "none"}}), store=store)
        with (
            serve_in_thread(app) as keeper_url,
            serve_guide(guide_settings(keeper_url, scripted_model)) as url,
        ):
            assert httpx.get(f"{url}/readyz").status_code == 200
        with serve_guide(guide_settings(keeper_url, scripted_model)) as url:
            assert httpx.get(f"{url}/healthz").status_code == 200
            assert_problem(httpx.get(f"{url}/readyz"), 503, "keeper_unavailable")
    finally:
        store.close()


def test_a_preflight_from_an_allowed_origin(guide: str) -> None:
    response = httpx.options(
        f"{guide}/explore",
        headers={
            "Origin": "http://app.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type, x-csrf-token",
        },
    )
    assert response.status_code == 204
    assert response.headers["access-control-allow-origin"] == "http://app.example"
    assert response.headers["access-control-allow-credentials"] == "true"
    assert "POST" in response.headers["access-control-allow-methods"]
    allowed = response.headers["access-control-allow-headers"].lower()
    assert {"authorization", "content-type", "x-csrf-token"} <= {
        name.strip() for name in allowed.split(",")
    }
    assert response.headers["access-control-expose-headers"] == "Retry-After"


@pytest.mark.parametrize(
    "origin",
    [pytest.param("http://evil.example", id="other"), pytest.param(None, id="none")],
)
def test_a_preflight_from_another_origin_is_refused(guide: str, origin: str | None) -> None:
    headers = {"Access-Control-Request-Method": "POST"}
    if origin is not None:
        headers["Origin"] = origin
    response = httpx.options(f"{guide}/explore", headers=headers)
    assert_problem(response, 403, "origin_not_allowed")
    assert "access-control-allow-origin" not in response.headers


def test_default_origins_apply_while_allowed_origins_is_empty(
    keeper: LiveKeeper, scripted_model: ScriptedModelServer, caplog: pytest.LogCaptureFixture
) -> None:
    settings = guide_settings(
        keeper.url,
        scripted_model,
        http={"allowed_origins": [], "default_origins": ["http://localhost:5173"]},
    )
    with caplog.at_level(logging.WARNING, logger="lorebase_guide"), serve_guide(settings) as url:
        assert "allowed_origins is empty" in caplog.text
        allowed = httpx.post(
            f"{url}/explore", json=QUESTION, headers={"Origin": "http://localhost:5173/"}
        )
        assert_problem(allowed, 401, "unauthorized")
        refused = httpx.post(
            f"{url}/explore", json=QUESTION, headers={"Origin": "http://app.example"}
        )
        assert_problem(refused, 403, "origin_not_allowed")


def test_unknown_routes_and_methods_are_problems(guide: str) -> None:
    assert_problem(httpx.get(f"{guide}/explore/../admin"), 404, "not-found")
    assert_problem(httpx.get(f"{guide}/explore"), 405, "method-not-allowed")


def test_each_request_has_a_server_span_and_metrics(
    keeper: LiveKeeper, scripted_model: ScriptedModelServer
) -> None:
    spans = InMemorySpanExporter()
    app = create_app(
        guide_settings(keeper.url, scripted_model),
        explorer=answering_explorer,
        span_exporters=[spans],
    )
    guide: Guide = app.state.guide
    scripted_model.add({"text": "a"})
    parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    with serve_in_thread(app, name="guide") as url:
        headers = {"Authorization": f"Bearer {keeper.keys['admin']}", "traceparent": parent}
        assert httpx.post(f"{url}/explore", json=QUESTION, headers=headers).status_code == 200
        assert httpx.post(f"{url}/embed", json={"text": "a"}, headers=headers).status_code == 200
        assert httpx.post(f"{url}/explore", json=QUESTION).status_code == 401
    metrics = guide.telemetry.metrics
    assert metrics.value(REQUESTS, {"route": "/explore", "method": "POST", "status": "200"}) == 1
    assert metrics.value(REQUESTS, {"route": "/explore", "method": "POST", "status": "401"}) == 1
    assert metrics.count(REQUEST_DURATION) == 3
    assert metrics.value(REFUSED, {"reason": "unauthorized"}) == 1
    assert metrics.value(EMBEDDINGS, {"mode": "query", "outcome": "ok"}) == 1
    server = [span for span in spans.get_finished_spans() if span.name == "POST /explore"]
    assert len(server) == 2
    assert server[0].context.trace_id == int("0af7651916cd43dd8448eb211c80319c", 16)
    assert server[0].attributes is not None
    assert server[0].attributes["http.response.status_code"] == 200


def test_logs_hold_no_value_of_a_request(
    keeper: LiveKeeper, scripted_model: ScriptedModelServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    scripted_model.add({"text": "thinking about zanzibarian quokkas"})
    key = keeper.keys["admin"]
    with serve_guide(guide_settings(keeper.url, scripted_model)) as url:
        headers = {"Authorization": f"Bearer {key}"}
        response = httpx.post(f"{url}/explore", json=QUESTION, headers=headers)
        assert response.status_code == 200
        assert "quokkas" in response.text
        httpx.post(f"{url}/embed", json={"text": "zanzibarian words"}, headers=headers)
        httpx.post(f"{url}/explore", json={**QUESTION, "budget": 0}, headers=headers)
    logged = "\n".join(f"{record.name} {record.getMessage()}" for record in caplog.records).lower()
    assert "lorebase_guide.access post /explore 200" in logged
    for word in ("zanzibarian", "quokkas", "gearboxes", key.lower(), "bearer"):
        assert word not in logged


def test_an_unexpected_error_is_a_generic_500_logged_without_its_message(
    keeper: LiveKeeper, scripted_model: ScriptedModelServer, caplog: pytest.LogCaptureFixture
) -> None:
    def failing(exploration, caller, **_):  # type: ignore[no-untyped-def]
        raise RuntimeError(f"failed on {exploration.question}")

    caplog.set_level(logging.DEBUG)
    with serve_guide(guide_settings(keeper.url, scripted_model), explorer=failing) as url:
        response = httpx.post(
            f"{url}/explore",
            json=QUESTION,
            headers={"Authorization": f"Bearer {keeper.keys['admin']}"},
        )
        assert_problem(response, 500, "internal")
        # the slot came back: the next request is not refused as concurrent
        again = httpx.post(
            f"{url}/explore",
            json=QUESTION,
            headers={"Authorization": f"Bearer {keeper.keys['admin']}"},
        )
        assert again.status_code == 500
    assert "quokkas" not in response.text
    assert "quokkas" not in caplog.text
    assert "unexpected error: RuntimeError" in caplog.text
