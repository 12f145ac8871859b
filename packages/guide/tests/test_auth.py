"""Guide forwards the caller's credential exactly as docs/guide.md's table says, and nothing
of its own: Authorization as it came; Keeper's session cookie and its CSRF token, the token
checked against the session; nothing, only with allow_anonymous."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from packages.guide.tests.conftest import (
    LiveKeeper,
    events_of,
    guide_settings,
    serve_guide,
)

from lorebase_inference.testing import ScriptedModelServer
from lorebase_keeper.app import create_app as create_keeper_app
from lorebase_keeper.testing import assert_problem, serve_in_thread
from lorebase_platform.settings import Settings
from lorebase_store import Store

QUESTION = {"domain": "supply", "question": "Which suppliers are in Italy?"}
CREDENTIAL_HEADERS = {"authorization", "cookie", "x-csrf-token"}


def sign_in(keeper: LiveKeeper, profile: str = "suppliers") -> tuple[str, str]:
    """A browser session on Keeper: the cookie's value and the session's CSRF token."""
    response = httpx.post(
        f"{keeper.url}/api/v1/auth/session", json={"api_key": keeper.keys[profile]}
    )
    assert response.status_code == 201, response.text
    return response.cookies["lorebase_session"], response.json()["csrf_token"]


def forwarded(keeper: LiveKeeper, mark: int) -> list[dict[str, str]]:
    """The credential headers of each request Keeper got since `mark`."""
    return [
        {name: value for name, value in request.headers.items() if name in CREDENTIAL_HEADERS}
        for request in keeper.requests_since(mark)
    ]


def test_a_session_cookie_and_its_token_explore_as_the_signed_in_user(
    keeper: LiveKeeper, scripted_model: ScriptedModelServer, guide: str
) -> None:
    cookie, token = sign_in(keeper)
    scripted_model.add({"text": "a"})
    mark = keeper.mark()
    response = httpx.post(
        f"{guide}/explore",
        json=QUESTION,
        headers={
            "Cookie": f"theme=dark; lorebase_session={cookie}; other=1",
            "X-CSRF-Token": token,
            "Origin": "http://app.example",
        },
    )
    assert response.status_code == 200, response.text
    assert [name for name, _ in events_of(response.text)][-1] == "done"
    requests = keeper.requests_since(mark)
    assert [request.path for request in requests] == [
        "/api/v1/auth/session",
        "/api/v1/auth/whoami",
    ]
    # that one cookie and the token, nothing else: not the page's other cookies
    expected = {"cookie": f"lorebase_session={cookie}", "x-csrf-token": token}
    assert forwarded(keeper, mark) == [expected, expected]
    assert "origin" not in requests[1].headers


def test_a_wrong_csrf_token_is_refused_before_any_work(
    keeper: LiveKeeper, scripted_model: ScriptedModelServer, guide: str
) -> None:
    cookie, token = sign_in(keeper)
    altered = ("y" if token[0] == "x" else "x") + token[1:]  # one token in 64 starts with x
    for wrong in (altered, "nonsense"):
        response = httpx.post(
            f"{guide}/explore",
            json=QUESTION,
            headers={"Cookie": f"lorebase_session={cookie}", "X-CSRF-Token": wrong},
        )
        assert_problem(response, 403, "csrf")
    mark = keeper.mark()
    missing = httpx.post(
        f"{guide}/explore", json=QUESTION, headers={"Cookie": f"lorebase_session={cookie}"}
    )
    assert_problem(missing, 403, "csrf")
    assert keeper.requests_since(mark) == []  # refused without asking Keeper
    assert scripted_model.requests == []


@pytest.mark.parametrize(
    "value",
    [
        pytest.param("lbs_short", id="short"),
        pytest.param("lbk_" + "a" * 43, id="an-api-key"),
        pytest.param("lbs_" + "a" * 42 + "/", id="bad-character"),
        pytest.param('"lbs_' + "a" * 43 + '"', id="quoted-junk"),
    ],
)
def test_a_malformed_session_cookie_is_refused_without_being_forwarded(
    keeper: LiveKeeper, scripted_model: ScriptedModelServer, guide: str, value: str
) -> None:
    mark = keeper.mark()
    response = httpx.post(
        f"{guide}/explore",
        json=QUESTION,
        headers={"Cookie": f"lorebase_session={value}x", "X-CSRF-Token": "t"},
    )
    assert_problem(response, 401, "unauthorized")
    assert keeper.requests_since(mark) == []
    assert scripted_model.requests == []


def test_an_ended_session_is_refused(
    keeper: LiveKeeper, scripted_model: ScriptedModelServer, guide: str
) -> None:
    cookie, token = sign_in(keeper)
    ended = httpx.delete(
        f"{keeper.url}/api/v1/auth/session",
        headers={"Cookie": f"lorebase_session={cookie}", "X-CSRF-Token": token},
    )
    assert ended.status_code == 204
    response = httpx.post(
        f"{guide}/explore",
        json=QUESTION,
        headers={"Cookie": f"lorebase_session={cookie}", "X-CSRF-Token": token},
    )
    assert_problem(response, 401, "unauthorized")
    assert scripted_model.requests == []


def test_the_host_prefixed_cookie_is_the_one_forwarded(
    keeper: LiveKeeper, scripted_model: ScriptedModelServer, guide: str
) -> None:
    cookie, token = sign_in(keeper)
    mark = keeper.mark()
    response = httpx.post(
        f"{guide}/explore",
        json=QUESTION,
        headers={"Cookie": f"__Host-lorebase_session={cookie}", "X-CSRF-Token": token},
    )
    # This Keeper's cookie is not Secure, so it does not read the __Host- name: Guide forwarded
    # that cookie (and only it), and Keeper found no session in it.
    assert_problem(response, 401, "unauthorized")
    assert forwarded(keeper, mark) == [
        {"cookie": f"__Host-lorebase_session={cookie}", "x-csrf-token": token}
    ]


def test_authorization_is_forwarded_unchanged_and_alone(
    keeper: LiveKeeper, scripted_model: ScriptedModelServer, guide: str
) -> None:
    cookie, token = sign_in(keeper)
    scripted_model.add({"text": "a"})
    mark = keeper.mark()
    authorization = f"Bearer {keeper.keys['suppliers']}"
    response = httpx.post(
        f"{guide}/explore",
        json=QUESTION,
        headers={
            "Authorization": authorization,
            "Cookie": f"lorebase_session={cookie}",
            "X-CSRF-Token": token,
            "X-Lorebase-Principal": "usr_admin",
        },
    )
    assert response.status_code == 200
    assert forwarded(keeper, mark) == [{"authorization": authorization}]
    assert "x-lorebase-principal" not in keeper.requests_since(mark)[0].headers


def test_guide_never_sends_the_environments_api_key(
    keeper: LiveKeeper,
    scripted_model: ScriptedModelServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LOREBASE_API_KEY", keeper.keys["admin"])
    settings = guide_settings(keeper.url, scripted_model, http={"allow_anonymous": True})
    with serve_guide(settings) as url:
        mark = keeper.mark()
        response = httpx.post(f"{url}/explore", json=QUESTION)
        # anonymous: nothing forwarded, and this Keeper (api_key mode) refuses nobody's request
        assert_problem(response, 401, "unauthorized")
        scripted_model.add({"text": "a"})
        authorization = f"Bearer {keeper.keys['suppliers']}"
        assert (
            httpx.post(
                f"{url}/explore", json=QUESTION, headers={"Authorization": authorization}
            ).status_code
            == 200
        )
    assert forwarded(keeper, mark) == [{}, {"authorization": authorization}]
    assert all(
        keeper.keys["admin"] not in value
        for request in keeper.requests_since(mark)
        for value in request.headers.values()
    )
    assert all(
        keeper.keys["admin"] not in value
        for request in scripted_model.requests
        for value in request.headers.values()
    )


@pytest.fixture(scope="module")
def open_keeper(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Keeper in auth mode none (every request is the local administrator), empty."""
    path: Path = tmp_path_factory.mktemp("open-keeper") / "lorebase.sqlite"
    store = Store.open(f"sqlite:///{path}")
    try:
        app = create_keeper_app(Settings(keeper={"auth": {"mode": "none"}}), store=store)
        with serve_in_thread(app) as url:
            yield url
    finally:
        store.close()


def test_anonymous_callers_need_allow_anonymous(
    open_keeper: str, scripted_model: ScriptedModelServer
) -> None:
    with serve_guide(guide_settings(open_keeper, scripted_model)) as url:
        assert_problem(httpx.post(f"{url}/explore", json=QUESTION), 401, "unauthorized")
    assert scripted_model.requests == []
    scripted_model.add({"text": "a"})
    settings = guide_settings(open_keeper, scripted_model, http={"allow_anonymous": True})
    with serve_guide(settings) as url:
        response = httpx.post(f"{url}/explore", json=QUESTION)
    assert response.status_code == 200
    assert len(scripted_model.requests) == 1
