"""Rate limits and quotas per principal and class: classes, headers, 429s, modes (docs/auth.md)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from packages.keeper.tests.conftest import client_of

from lorebase_core.errors import UnsafeSettings
from lorebase_keeper.app import create_app
from lorebase_keeper.auth.rate_classes import RATE_CLASSES
from lorebase_keeper.testing import Keys, assert_problem, serve_in_thread
from lorebase_platform import RateLimiter, WindowLimiter
from lorebase_platform.settings import Settings
from lorebase_store import Store

pytestmark = pytest.mark.anyio

API = "/api/v1/domains/supply"
FLAG = {
    "parameters": {"supplier": "S-1001", "severity": "high", "reason": "Two late deliveries"},
    "task": "q4-audit",
    "intent": "Flag S-1001 after the Q4 delivery audit",
    "idempotency_key": "q4-audit-S-1001-flag",
}
GENEROUS = {"per_minute": 6000, "burst": 600}


def limited(**rate_limits: Any) -> Settings:
    return Settings(
        keeper={
            "auth": {"mode": "api_key", "authz": {"grants_cache_ttl_s": 0}},
            "rate_limits": rate_limits,
        }
    )


def classes(**limits: dict[str, Any]) -> dict[str, Any]:
    """Every class generous but those given."""
    return {name: limits.get(name, GENEROUS) for name in ("reads", "writes", "search", "context")}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def refused_as(response: httpx.Response, code: str, rate_class: str) -> dict[str, object]:
    document = assert_problem(response, 429, code)
    assert document["class"] == rate_class
    assert response.headers["Retry-After"] == str(document["retry_after_s"])
    assert int(response.headers["Retry-After"]) >= 1
    assert response.headers["RateLimit-Remaining"] == "0"
    return document


def test_every_route_of_the_app_has_a_class(tmp_path: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'lorebase.sqlite'}")
    app = create_app(limited(), store=store)
    routes = [
        f"{method.upper()} {path}"
        for path, operations in app.openapi()["paths"].items()
        for method in operations
    ]
    store.close()
    missing = [route for route in routes if route not in RATE_CLASSES]
    assert not missing, f"give these routes a class in routes/rate_classes.py: {missing}"


async def test_answers_carry_the_headers_and_a_refusal_says_when_to_retry(
    supply: Store, keys: Keys
) -> None:
    # a token every 10 s: none comes back while the test runs
    app = create_app(limited(classes=classes(reads={"per_minute": 6, "burst": 2})), store=supply)
    async with client_of(app, Keys.header(keys.viewer)) as http:
        first = await http.get(f"{API}/schema")
        assert first.status_code == 200
        assert first.headers["RateLimit-Limit"] == "6"
        assert first.headers["RateLimit-Remaining"] == "1"
        assert first.headers["RateLimit-Policy"] == "6;w=60;burst=2"
        assert 1 <= int(first.headers["RateLimit-Reset"]) <= 10
        assert (await http.get(f"{API}/schema")).headers["RateLimit-Remaining"] == "0"
        refused = await http.get(f"{API}/schema")
        document = refused_as(refused, "rate-limited", "reads")
        assert document["limit"] == 6
        assert "keeper.rate_limits.classes.reads" in str(document["detail"])
        assert refused.headers["RateLimit-Policy"] == "6;w=60;burst=2"
    async with client_of(
        app, Keys.header(keys.admin)
    ) as other:  # another principal has its own bucket
        assert (await other.get(f"{API}/schema")).status_code == 200


async def test_unauthenticated_requests_are_not_charged(supply: Store, keys: Keys) -> None:
    app = create_app(limited(classes=classes(reads={"per_minute": 1, "burst": 1})), store=supply)
    async with client_of(app, Keys.header("lbk_not_a_key")) as stranger:
        for _ in range(3):
            refused = await stranger.get(f"{API}/schema")
            assert_problem(refused, 401, "unauthorized")
            assert "RateLimit-Remaining" not in refused.headers
    async with client_of(app, Keys.header(keys.viewer)) as http:
        assert (await http.get(f"{API}/schema")).status_code == 200


async def test_health_and_sign_in_routes_are_not_limited(supply: Store, keys: Keys) -> None:
    app = create_app(limited(classes=classes(reads={"per_minute": 1, "burst": 1})), store=supply)
    async with client_of(app, Keys.header(keys.viewer)) as http:
        for _ in range(3):
            answer = await http.get("/healthz")
            assert answer.status_code == 200
            assert "RateLimit-Limit" not in answer.headers
        assert (await http.get(f"{API}/schema")).status_code == 200


async def test_each_class_has_its_own_bucket(supply: Store, keys: Keys) -> None:
    one = {"per_minute": 1, "burst": 1}
    app = create_app(limited(classes=classes(reads=one, search=one, context=one)), store=supply)
    async with client_of(app, Keys.header(keys.admin)) as http:
        search = {"q": "Kavsen"}
        assert (await http.post(f"{API}/search", json=search)).status_code == 200
        refused_as(await http.post(f"{API}/search", json=search), "rate-limited", "search")
        refused_as(
            await http.post(f"{API}/resolve", json={"text": "Kavsen"}), "rate-limited", "search"
        )
        pack = {"refs": ["Supplier/S-1001"], "format": "json"}
        assert (await http.post(f"{API}/context", json=pack)).status_code == 200
        refused_as(await http.post(f"{API}/context", json=pack), "rate-limited", "context")
        query = {"kind": "Supplier", "limit": 1}
        assert (await http.post(f"{API}/query", json=query)).status_code == 200  # a read
        refused_as(await http.get(f"{API}/schema"), "rate-limited", "reads")


async def test_a_domain_overrides_a_class_for_the_paths_of_that_domain(
    supply: Store, keys: Keys
) -> None:
    settings = limited(domains={"supply": {"reads": {"per_minute": 1, "burst": 1}}})
    app = create_app(settings, store=supply)
    async with client_of(app, Keys.header(keys.admin)) as http:
        first = await http.get(f"{API}/schema")
        assert first.headers["RateLimit-Policy"] == "1;w=60;burst=1"
        document = refused_as(await http.get(f"{API}/schema"), "rate-limited", "reads")
        assert "keeper.rate_limits.domains.supply.reads" in str(document["detail"])
        listed = await http.get("/api/v1/domains")  # no Domain in the path: the class's default
        assert listed.status_code == 200
        assert listed.headers["RateLimit-Limit"] == "6000"


async def test_a_refill_lets_requests_through_again(supply: Store, keys: Keys) -> None:
    app = create_app(limited(classes=classes(reads={"per_minute": 60, "burst": 1})), store=supply)
    clock = Clock()
    app.state.keeper.authenticator.limits.limiter = RateLimiter(clock=clock)
    async with client_of(app, Keys.header(keys.viewer)) as http:
        assert (await http.get(f"{API}/schema")).status_code == 200
        refused = await http.get(f"{API}/schema")
        assert refused_as(refused, "rate-limited", "reads")["retry_after_s"] == 1
        clock.now += 1
        assert (await http.get(f"{API}/schema")).status_code == 200


async def test_an_agent_flow_write_counts_once_in_writes(supply: Store, keys: Keys) -> None:
    supply.add_grant("svc_agent", domain="supply", role="editor", branch="main")
    app = create_app(limited(classes=classes(writes={"per_minute": 60, "burst": 5})), store=supply)
    async with client_of(app, Keys.header(keys.agent)) as http:
        answer = await http.post(f"{API}/operations/flag_supplier_risk/execute", json=FLAG)
        assert answer.status_code == 202, answer.text
        assert answer.json()["branch_created"] is True
        assert answer.headers["RateLimit-Remaining"] == "4"
        assert answer.headers["RateLimit-Policy"] == "60;w=60;burst=5"
        read = await http.get(f"{API}/schema")  # the flow's reads and writes left reads alone
        assert read.headers["RateLimit-Remaining"] == "599"


async def test_notes_count_as_writes(supply: Store, keys: Keys) -> None:
    app = create_app(limited(classes=classes(writes={"per_minute": 1, "burst": 2})), store=supply)
    async with client_of(app, Keys.header(keys.agent)) as http:
        note = await http.post("/api/v1/trace/sessions/s-1/notes", json={"text": "thinking"})
        assert note.status_code == 202
        assert (note.headers["RateLimit-Policy"], note.headers["RateLimit-Remaining"]) == (
            "1;w=60;burst=2",
            "1",
        )
        branch = await http.post(f"{API}/branches", json={"name": "agent/svc_agent/x"})
        assert branch.headers["RateLimit-Remaining"] == "0"
        refused_as(
            await http.post("/api/v1/trace/sessions/s-1/notes", json={"text": "again"}),
            "rate-limited",
            "writes",
        )


async def test_a_daily_quota_refuses_until_utc_midnight(supply: Store, keys: Keys) -> None:
    quota = {"per_minute": 600, "burst": 60, "per_day": 2}
    app = create_app(limited(classes=classes(search=quota)), store=supply)
    async with client_of(app, Keys.header(keys.viewer)) as http:
        search = {"q": "Kavsen"}
        first = await http.post(f"{API}/search", json=search)
        assert first.headers["RateLimit-Policy"] == "600;w=60;burst=60, 2;w=86400"
        second = await http.post(f"{API}/search", json=search)
        assert (second.headers["RateLimit-Limit"], second.headers["RateLimit-Remaining"]) == (
            "2",
            "0",
        )
        refused = await http.post(f"{API}/search", json=search)
        document = refused_as(refused, "quota-exceeded", "search")
        assert document["limit"] == 2
        assert 0 < int(refused.headers["Retry-After"]) <= 86_400
        assert "per UTC day" in str(document["detail"])
        assert (await http.get(f"{API}/schema")).status_code == 200  # reads have no quota


async def test_a_request_refused_before_its_route_runs_is_charged_once(
    supply: Store, keys: Keys
) -> None:
    app = create_app(limited(classes=classes(reads={"per_minute": 1, "burst": 1})), store=supply)
    async with client_of(app, Keys.header(keys.viewer)) as http:
        invalid = await http.get(f"{API}/kinds/Supplier/records", params={"limit": "many"})
        assert_problem(invalid, 422, "invalid-input")
        assert invalid.headers["RateLimit-Remaining"] == "0"
        again = await http.get(f"{API}/kinds/Supplier/records", params={"limit": "many"})
        refused_as(again, "rate-limited", "reads")  # a 429, not a 500 from the 422's handler
        refused_as(await http.get(f"{API}/kinds/Nope/records"), "rate-limited", "reads")


async def test_limits_can_be_turned_off(supply: Store, keys: Keys) -> None:
    settings = limited(enabled=False, classes=classes(reads={"per_minute": 1, "burst": 1}))
    app = create_app(settings, store=supply)
    async with client_of(app, Keys.header(keys.viewer)) as http:
        for _ in range(3):
            answer = await http.get(f"{API}/schema")
            assert answer.status_code == 200
            assert "RateLimit-Limit" not in answer.headers


def _hammer(urls: list[str], key: str, path: str, count: int) -> list[int]:
    """`count` requests at once, spread over `urls`; the statuses."""
    statuses: list[int] = []
    start = threading.Barrier(count)

    def one(url: str) -> None:
        with httpx.Client(base_url=url, headers=Keys.header(key), timeout=30) as http:
            start.wait()
            statuses.append(http.get(path).status_code)

    threads = [threading.Thread(target=one, args=(urls[i % len(urls)],)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return statuses


def test_concurrent_callers_over_http_get_no_more_than_the_burst(supply: Store, keys: Keys) -> None:
    # one token a minute: nothing refills while the test runs
    app = create_app(limited(classes=classes(reads={"per_minute": 1, "burst": 5})), store=supply)
    with serve_in_thread(app) as url:
        statuses = _hammer([url], keys.viewer, f"{API}/schema", 16)
    assert sorted(statuses) == [200] * 5 + [429] * 11


def test_mode_shared_refuses_to_start_on_sqlite(tmp_path: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'lorebase.sqlite'}")
    with pytest.raises(UnsafeSettings) as refused:
        create_app(limited(mode="shared"), store=store)
    store.close()
    message = str(refused.value)
    assert "keeper.rate_limits.mode" in message
    assert "'process'" in message


def _pinned(app: FastAPI, wall: Callable[[], float]) -> None:
    limiter = app.state.keeper.authenticator.limits.limiter
    assert isinstance(limiter, WindowLimiter)
    limiter.wall = wall  # one minute window for the whole test, wherever the clock is


def test_mode_shared_counts_one_window_across_two_keepers(
    supply: Store, keys: Keys, database_url: str
) -> None:
    if supply.backend == "sqlite":
        pytest.skip("mode shared refuses SQLite (test_mode_shared_refuses_to_start_on_sqlite)")
    settings = limited(mode="shared", classes=classes(reads={"per_minute": 6, "burst": 1}))
    minute = int(time.time() // 60) + 60  # an hour ahead: rows nobody prunes during the test

    def wall() -> float:
        return minute * 60.0 + 30

    second_store = Store.open(database_url)
    try:
        first_app = create_app(settings, store=supply)
        second_app = create_app(settings, store=second_store)
        for app in (first_app, second_app):
            _pinned(app, wall)
            # built before the threads serve: FastAPI builds it under warnings.catch_warnings,
            # which two threads at once would clobber
            app.openapi()
        with serve_in_thread(first_app) as first, serve_in_thread(second_app) as second:
            statuses = _hammer([first, second], keys.viewer, f"{API}/schema", 16)
            assert sorted(statuses) == [200] * 6 + [429] * 10
            with httpx.Client(base_url=second, headers=Keys.header(keys.viewer)) as http:
                refused = http.get(f"{API}/schema")
            assert refused.status_code == 429
            assert refused.headers["RateLimit-Policy"] == "6;w=60"
            assert refused.headers["Retry-After"] == "30"
    finally:
        second_store.close()
