"""Guide's limits: per principal (rate, concurrency), per process (slots, credential checks,
tracked callers), each a 429 with its code and Retry-After; unverified callers never count."""

from __future__ import annotations

import concurrent.futures

import httpx
import pytest
from packages.guide.tests.conftest import LiveKeeper, guide_settings, serve_guide
from packages.guide.tests.test_http_stop import QUESTION, Slow, _wait

from lorebase_core.errors import CallerConcurrencyLimited, CallerRateLimited, GuideBusy
from lorebase_guide.limits import CallerLimits
from lorebase_inference.testing import ScriptedModelServer
from lorebase_keeper.testing import assert_problem
from lorebase_platform.settings import GuideLimitSettings

EMBED = {"text": "late deliveries", "mode": "query"}


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_rate_window_slides_over_a_minute() -> None:
    clock = Clock()
    limits = CallerLimits(GuideLimitSettings(explorations_per_minute=2), clock=clock)
    limits.admit_exploration("usr_a").release()
    clock.now += 30
    limits.admit_exploration("usr_a").release()
    with pytest.raises(CallerRateLimited) as refused:
        limits.admit_exploration("usr_a")
    assert refused.value.retry_after_s == 30
    limits.admit_exploration("usr_b").release()  # another principal has its own window
    clock.now += 30.5
    limits.admit_exploration("usr_a").release()


def test_slots_per_caller_and_per_process() -> None:
    limits = CallerLimits(GuideLimitSettings(max_concurrent_per_caller=1, max_concurrent=2))
    first = limits.admit_exploration("usr_a")
    with pytest.raises(CallerConcurrencyLimited):
        limits.admit_exploration("usr_a")
    second = limits.admit_exploration("usr_b")
    with pytest.raises(GuideBusy):
        limits.admit_exploration("usr_c")
    first.release()
    first.release()  # once only
    assert limits.running == 1
    limits.admit_exploration("usr_c")
    second.release()


def test_a_full_table_of_active_callers_refuses_new_ones() -> None:
    clock = Clock()
    limits = CallerLimits(GuideLimitSettings(max_tracked_callers=2), clock=clock)
    limits.admit_embed("usr_a")
    clock.now += 10
    limits.admit_embed("usr_b")
    with pytest.raises(GuideBusy) as refused:
        limits.admit_embed("usr_c")
    assert refused.value.retry_after_s == 50
    clock.now += 30
    limits.admit_embed("usr_a")  # known callers go on
    clock.now += 35
    limits.admit_embed("usr_c")  # usr_b idle for a minute: forgotten, usr_a kept
    assert limits.tracked() == 2
    limits.admit_embed("usr_a")
    with pytest.raises(GuideBusy):
        limits.admit_embed("usr_b")


def test_a_running_caller_is_never_forgotten() -> None:
    clock = Clock()
    limits = CallerLimits(GuideLimitSettings(max_tracked_callers=1), clock=clock)
    slot = limits.admit_exploration("usr_a")
    clock.now += 500
    with pytest.raises(GuideBusy):
        limits.admit_embed("usr_b")
    slot.release()
    limits.admit_embed("usr_b")


def test_explorations_per_minute_are_counted_per_principal_not_per_key(
    keeper: LiveKeeper, scripted_model: ScriptedModelServer
) -> None:
    second_key = keeper.store.create_key("usr_suppliers").secret
    settings = guide_settings(keeper.url, scripted_model, limits={"explorations_per_minute": 2})
    scripted_model.add({"text": "a"}, {"text": "b"}, {"text": "c"})
    with serve_guide(settings) as url:
        for key in (keeper.keys["revoked"], "lbk_unknown") * 3:  # unverified: never counted
            assert (
                httpx.post(f"{url}/explore", json=QUESTION, headers=bearer(key)).status_code == 401
            )
        for key in (keeper.keys["suppliers"], second_key):
            response = httpx.post(f"{url}/explore", json=QUESTION, headers=bearer(key))
            assert response.status_code == 200
        refused = httpx.post(f"{url}/explore", json=QUESTION, headers=bearer(second_key))
        assert_problem(refused, 429, "rate")
        assert 1 <= int(refused.headers["retry-after"]) <= 60
        assert refused.json()["retry_after_s"] == int(refused.headers["retry-after"])
        other = httpx.post(f"{url}/explore", json=QUESTION, headers=bearer(keeper.keys["admin"]))
        assert other.status_code == 200
    assert len(scripted_model.requests) == 3


def test_concurrent_and_busy_over_http(
    keeper: LiveKeeper, scripted_model: ScriptedModelServer
) -> None:
    slow = Slow()
    settings = guide_settings(
        keeper.url, scripted_model, limits={"max_concurrent_per_caller": 1, "max_concurrent": 2}
    )
    with serve_guide(settings, explorer=slow) as url:  # type: ignore[arg-type]
        with (
            httpx.stream(
                "POST", f"{url}/explore", json=QUESTION, headers=bearer(keeper.keys["suppliers"])
            ) as first,
            httpx.stream(
                "POST", f"{url}/explore", json=QUESTION, headers=bearer(keeper.keys["admin"])
            ) as second,
        ):
            assert first.status_code == second.status_code == 200
            _wait(lambda: slow.started == 2)
            again = httpx.post(
                f"{url}/explore", json=QUESTION, headers=bearer(keeper.keys["suppliers"])
            )
            assert_problem(again, 429, "concurrent")
            assert again.headers["retry-after"] == "5"
            third = httpx.post(
                f"{url}/explore", json=QUESTION, headers=bearer(keeper.keys["reviewer"])
            )
            assert_problem(third, 429, "busy")
        _wait(lambda: slow.finished == 2)


def test_credential_checks_at_once_are_bounded(
    keeper: LiveKeeper, scripted_model: ScriptedModelServer
) -> None:
    settings = guide_settings(
        keeper.url, scripted_model, limits={"max_concurrent_verifications": 1}
    )
    keeper.recording.whoami_delay_s = 0.5
    try:
        with (
            serve_guide(settings) as url,
            concurrent.futures.ThreadPoolExecutor(2) as pool,
        ):
            answers = list(
                pool.map(
                    lambda key: httpx.post(f"{url}/embed", json=EMBED, headers=bearer(key)),
                    [keeper.keys["admin"], keeper.keys["suppliers"]],
                )
            )
    finally:
        keeper.recording.whoami_delay_s = 0.0
    statuses = sorted(answer.status_code for answer in answers)
    assert statuses == [200, 429]
    [refused] = [answer for answer in answers if answer.status_code == 429]
    assert_problem(refused, 429, "busy")
    assert refused.headers["retry-after"] == "1"


def test_a_full_caller_table_refuses_a_new_caller_with_busy(
    keeper: LiveKeeper, scripted_model: ScriptedModelServer
) -> None:
    settings = guide_settings(keeper.url, scripted_model, limits={"max_tracked_callers": 1})
    with serve_guide(settings) as url:
        for key in ("lbk_unknown", keeper.keys["revoked"]):
            assert httpx.post(f"{url}/embed", json=EMBED, headers=bearer(key)).status_code == 401
        assert (
            httpx.post(f"{url}/embed", json=EMBED, headers=bearer(keeper.keys["admin"])).status_code
            == 200
        )
        refused = httpx.post(f"{url}/embed", json=EMBED, headers=bearer(keeper.keys["suppliers"]))
        assert_problem(refused, 429, "busy")
        assert 1 <= int(refused.headers["retry-after"]) <= 60


def test_embeds_per_minute(keeper: LiveKeeper, scripted_model: ScriptedModelServer) -> None:
    settings = guide_settings(keeper.url, scripted_model, limits={"embeds_per_minute": 2})
    with serve_guide(settings) as url:
        statuses = [
            httpx.post(f"{url}/embed", json=EMBED, headers=bearer(keeper.keys["admin"])).status_code
            for _ in range(3)
        ]
        refused = httpx.post(f"{url}/embed", json=EMBED, headers=bearer(keeper.keys["admin"]))
    assert statuses == [200, 200, 429]
    assert_problem(refused, 429, "rate")
    assert len([r for r in scripted_model.requests if r.path.endswith("/embeddings")]) == 2
