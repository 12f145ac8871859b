"""Browser sessions: sign in, read, sign out; the cookie, expiry, revocation, fixation, Origin."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from packages.keeper.tests.conftest import client_of

from lorebase_core.sessions import SESSION_ID, csrf_token
from lorebase_keeper.app import create_app
from lorebase_keeper.cli.access import key, session
from lorebase_keeper.testing import Keys, assert_problem, make_keys, serve_in_thread
from lorebase_platform.settings import Settings
from lorebase_store import SessionVisibility, Store, api_key_id
from lorebase_store.testing import age_session, session_rows

pytestmark = pytest.mark.anyio

SIGN_IN = "/api/v1/auth/session"
JSON = {"Content-Type": "application/json"}


def session_settings(mode: str = "api_key", **sessions: Any) -> Settings:
    # an OIDC mode needs an issuer and client id to start; none of these tests reaches it
    oidc = {"issuer": "http://127.0.0.1:9", "client_id": "lorebase-web"}
    return Settings(
        keeper={
            "auth": {
                "mode": mode,
                "authz": {"grants_cache_ttl_s": 0},
                "sessions": sessions,
                "oidc": oidc,
            },
            "http": {"allowed_origins": ["https://app.example"]},
        }
    )


@pytest.fixture
def keys(store: Store) -> Keys:
    """Principals and keys without the supply example: most tests here read no data."""
    return make_keys(store)


@pytest.fixture
async def browser(store: Store) -> AsyncIterator[httpx.AsyncClient]:
    """A client with a cookie jar and no credential of its own, as a browser is."""
    app = create_app(session_settings(), store=store)
    async with client_of(app) as client:
        yield client


def _cookie(response: httpx.Response) -> str:
    return response.headers["set-cookie"]


def test_lifecycle_over_real_http(supply: Store, keys: Keys) -> None:
    app = create_app(session_settings(), store=supply)
    with serve_in_thread(app) as url, httpx.Client(base_url=url) as client:
        signed_in = client.post(SIGN_IN, json={"api_key": keys.viewer})
        assert signed_in.status_code == 201
        answer = signed_in.json()
        assert set(answer) == {
            "principal",
            "type",
            "method",
            "created_at",
            "expires_at",
            "idle_expires_at",
            "csrf_token",
        }
        assert (answer["principal"], answer["type"], answer["method"]) == (
            "usr_viewer",
            "user",
            "api_key",
        )
        assert signed_in.headers["cache-control"] == "no-store"
        session_id = client.cookies["lorebase_session"]
        assert SESSION_ID.match(session_id)
        assert answer["csrf_token"] == csrf_token(session_id)
        assert session_id not in signed_in.text

        read = client.get(SIGN_IN)
        assert read.status_code == 200
        assert read.json()["csrf_token"] == answer["csrf_token"]
        assert read.headers["cache-control"] == "no-store"
        whoami = client.get("/api/v1/auth/whoami").json()
        assert (whoami["principal"], whoami["authenticated_by"]) == ("usr_viewer", "session")
        assert client.get("/api/v1/domains/supply/schema").status_code == 200

        assert_problem(client.delete(SIGN_IN), 403, "csrf")
        signed_out = client.delete(SIGN_IN, headers={"X-CSRF-Token": answer["csrf_token"]})
        assert signed_out.status_code == 204
        assert "Max-Age=0" in _cookie(signed_out)
        assert "lorebase_session" not in client.cookies
        client.cookies.set("lorebase_session", session_id)
        assert_problem(client.get("/api/v1/auth/whoami"), 401, "unauthorized")
        assert_problem(client.get(SIGN_IN), 401, "unauthorized")


@pytest.mark.parametrize(
    ("secure", "name", "flags"),
    [
        pytest.param(False, "lorebase_session", {"HttpOnly", "SameSite=Lax", "Path=/"}, id="plain"),
        pytest.param(
            True,
            "__Host-lorebase_session",
            {"HttpOnly", "SameSite=Lax", "Path=/", "Secure"},
            id="secure",
        ),
    ],
)
async def test_cookie_attributes(
    store: Store, keys: Keys, secure: bool, name: str, flags: set[str]
) -> None:
    settings = session_settings(cookie_secure=secure, absolute_timeout_s=3600)
    app = create_app(settings, store=store)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="https://keeper.test"
    ) as client:
        signed_in = await client.post(SIGN_IN, json={"api_key": keys.viewer})
        cookie_name, _, rest = _cookie(signed_in).partition("=")
        value, *attributes = rest.split("; ")
        assert cookie_name == name
        assert SESSION_ID.match(value)
        assert set(attributes) == flags | {"Max-Age=3600"}
        assert "Secure" not in attributes or secure
        # only the configured name is read
        other = "lorebase_session" if secure else "__Host-lorebase_session"
        client.cookies.clear()
        client.cookies.set(other, value)
        assert_problem(await client.get(SIGN_IN), 401, "unauthorized")
        client.cookies.clear()
        client.cookies.set(name, value)
        assert (await client.get(SIGN_IN)).status_code == 200


async def test_idle_and_absolute_expiry(
    browser: httpx.AsyncClient, store: Store, keys: Keys
) -> None:
    for column in ("last_seen_at", "expires_at"):
        await browser.post(SIGN_IN, json={"api_key": keys.viewer})
        session_id = browser.cookies["lorebase_session"]
        assert (await browser.get("/api/v1/auth/whoami")).status_code == 200
        age_session(store, session_id, **{column: timedelta(days=30)})
        problem = assert_problem(await browser.get("/api/v1/auth/whoami"), 401, "unauthorized")
        assert "sign in again" in str(problem["detail"]).lower(), column
        assert session_id not in str(problem["detail"])
        assert_problem(await browser.get(SIGN_IN), 401, "unauthorized")


async def test_revoked_with_the_key_and_with_the_principal(
    browser: httpx.AsyncClient, store: Store, keys: Keys, tmp_path: Any
) -> None:
    await browser.post(SIGN_IN, json={"api_key": keys.viewer})
    assert (await browser.get("/api/v1/auth/whoami")).status_code == 200
    ended = store.revoke_key(api_key_id(keys.viewer) or "")
    assert ended.sessions_ended == 1
    assert_problem(await browser.get("/api/v1/auth/whoami"), 401, "unauthorized")

    await browser.post(SIGN_IN, json={"api_key": keys.admin})
    assert (await browser.get("/api/v1/auth/whoami")).status_code == 200
    assert store.revoke_principal_sessions("usr_admin") == 1
    assert_problem(await browser.get("/api/v1/auth/whoami"), 401, "unauthorized")


def test_cli_says_how_many_sessions_ended(database_url: str, tmp_path: Any) -> None:
    store = Store.open(database_url)
    try:
        store.ensure_principal("usr_ada")
        made = store.create_key("usr_ada")
        settings = session_settings().keeper.auth.sessions
        store.create_session("usr_ada", method="api_key", key_id=made.info.id, settings=settings)
        store.create_session("usr_ada", method="oidc", settings=settings)
    finally:
        store.close()
    runner = CliRunner()
    revoked = runner.invoke(key, ["revoke", made.info.id, "--database", database_url])
    assert revoked.exit_code == 0, revoked.output
    assert "1 browser session signed in with it ended" in revoked.output
    ended = runner.invoke(session, ["revoke", "--principal", "usr_ada", "--database", database_url])
    assert ended.exit_code == 0, ended.output
    assert "1 browser session of usr_ada ended" in ended.output
    unknown = runner.invoke(
        session, ["revoke", "--principal", "usr_nobody", "--database", database_url]
    )
    assert unknown.exit_code == 1
    assert "usr_nobody" in unknown.output


async def test_fixation_a_new_id_and_the_old_one_dead(
    browser: httpx.AsyncClient, keys: Keys
) -> None:
    await browser.post(SIGN_IN, json={"api_key": keys.viewer})
    first = browser.cookies["lorebase_session"]
    await browser.post(SIGN_IN, json={"api_key": keys.admin})
    second = browser.cookies["lorebase_session"]
    assert second != first
    browser.cookies.set("lorebase_session", first)
    assert_problem(await browser.get("/api/v1/auth/whoami"), 401, "unauthorized")
    browser.cookies.set("lorebase_session", second)
    assert (await browser.get("/api/v1/auth/whoami")).json()["principal"] == "usr_admin"


MALFORMED = ["garbage", "lbs_short", "lbs_" + "!" * 43, "lbk_" + "a" * 43, "lbs_" + "A" * 44]


async def test_malformed_and_unknown_cookies(browser: httpx.AsyncClient) -> None:
    for value in MALFORMED:
        browser.cookies.set("lorebase_session", value)
        problem = assert_problem(await browser.get("/api/v1/auth/whoami"), 401, "unauthorized")
        assert "does not hold a session id" in str(problem["detail"]), value
        assert value not in str(problem["detail"])
        assert_problem(await browser.get(SIGN_IN), 401, "unauthorized")
    browser.cookies.set("lorebase_session", "lbs_" + "A" * 43)
    problem = assert_problem(await browser.get("/api/v1/auth/whoami"), 401, "unauthorized")
    assert "has ended" in str(problem["detail"])


async def test_a_bearer_credential_has_no_session(browser: httpx.AsyncClient, keys: Keys) -> None:
    problem = assert_problem(
        await browser.get(SIGN_IN, headers=Keys.header(keys.viewer)), 401, "unauthorized"
    )
    assert "bearer credential has no session" in str(problem["detail"])
    problem = assert_problem(await browser.get(SIGN_IN), 401, "unauthorized")
    assert "no session cookie" in str(problem["detail"])
    assert_problem(await browser.delete(SIGN_IN), 401, "unauthorized")


BAD_BODIES = [
    {},
    [],
    "api_key",
    {"api_key": ""},
    {"api_key": 5},
    {"api_key": "x", "code": "c"},
    {"api_key": "x", "extra": 1},
    {"code": "c"},
    {"code": "c", "code_verifier": "v", "redirect_uri": 3},
]


async def test_bad_sign_in_bodies(browser: httpx.AsyncClient, store: Store) -> None:
    for body in BAD_BODIES:
        problem = assert_problem(await browser.post(SIGN_IN, json=body), 422, "invalid-input")
        assert problem["issues"], body
    assert "lorebase_session" not in browser.cookies
    assert session_rows(store) == []


async def test_bad_key_and_malformed_json(browser: httpx.AsyncClient, keys: Keys) -> None:
    problem = assert_problem(
        await browser.post(SIGN_IN, json={"api_key": keys.viewer[:-2] + "zz"}), 401, "unauthorized"
    )
    assert keys.viewer[:-2] not in str(problem["detail"])
    assert_problem(
        await browser.post(SIGN_IN, content=b"{not json", headers=JSON), 400, "malformed-json"
    )
    assert "lorebase_session" not in browser.cookies


LOGIN_CSRF = [
    ({"Origin": "http://keeper.test"}, 201),
    ({"Origin": "https://app.example"}, 201),
    ({"Origin": "https://evil.example"}, 403),
    ({"Origin": "http://keeper.test.evil.example"}, 403),
    ({"Origin": "null"}, 403),
    ({"Content-Type": "text/plain"}, 403),
    ({"Content-Type": "application/x-www-form-urlencoded"}, 403),
    ({"Content-Type": "multipart/form-data; boundary=x"}, 403),
]


async def test_login_csrf(browser: httpx.AsyncClient, store: Store, keys: Keys) -> None:
    body = json.dumps({"api_key": keys.viewer}).encode()
    for headers, status in LOGIN_CSRF:
        browser.cookies.clear()
        response = await browser.post(SIGN_IN, content=body, headers={**JSON, **headers})
        if status == 201:
            assert response.status_code == 201, headers
        else:
            assert_problem(response, 403, "csrf")
            assert "lorebase_session" not in browser.cookies
    assert len(session_rows(store)) == 2


UNAVAILABLE = [
    (Settings(keeper={"auth": {"mode": "none"}}), {"api_key": "k"}),
    (session_settings(enabled=False), {"api_key": "k"}),
    (session_settings(), {"code": "c", "code_verifier": "v", "redirect_uri": "https://x/cb"}),
    (session_settings("oidc"), {"api_key": "k"}),
]


async def test_sign_in_unavailable(store: Store) -> None:
    for settings, body in UNAVAILABLE:
        app = create_app(settings, store=store)
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1"
        ) as client:
            response = await client.post(SIGN_IN, json=body)
            assert_problem(response, 409, "sign-in-unavailable")
            assert "set-cookie" not in response.headers


async def test_a_key_session_ends_when_the_mode_stops_taking_keys(store: Store, keys: Keys) -> None:
    settings = session_settings()
    made = store.create_session(
        "usr_viewer",
        method="api_key",
        key_id=api_key_id(keys.viewer),
        settings=settings.keeper.auth.sessions,
    )
    app = create_app(session_settings("oidc"), store=store)
    async with client_of(app) as client:
        client.cookies.set("lorebase_session", made.session_id)
        assert_problem(await client.get("/api/v1/auth/whoami"), 401, "unauthorized")


async def test_sessions_limit_per_principal(store: Store, keys: Keys) -> None:
    app = create_app(session_settings(max_per_principal=2), store=store)
    async with client_of(app) as client:
        for _ in range(3):
            client.cookies.clear()
            assert (await client.post(SIGN_IN, json={"api_key": keys.viewer})).status_code == 201
    live = [row for row in session_rows(store) if row["revoked_at"] is None]
    assert len(live) == 2


async def test_web_marker_and_cookie_requests_stay_out_of_trace_all(
    supply: Store, keys: Keys
) -> None:
    settings = Settings(
        keeper={
            "auth": {
                "mode": "api_key",
                "authz": {"grants_cache_ttl_s": 0},
                "sessions": {"cookie_name": "kb_sess"},
            },
            "trace": {"enabled": True, "flush_interval_s": 0.05, "trace_all": True},
        }
    )
    app = create_app(settings, store=supply)
    recorder = app.state.keeper.recorder

    def traced(principal: str) -> int:
        assert recorder.flush(10)
        visibility = SessionVisibility(own=principal, others_in=None, others_outside=True)
        found = supply.trace_sessions(visibility=visibility, actor=principal, limit=100)
        return sum(summary.calls for summary in found.sessions)

    async with client_of(app) as client:
        await client.post(SIGN_IN, json={"api_key": keys.viewer})
        assert "kb_sess" in client.cookies
        await client.get("/api/v1/domains/supply/schema")
        marked = {**Keys.header(keys.admin), "X-Lorebase-Client": "web"}
        await client.get("/api/v1/domains/supply/schema", headers=marked)
        assert traced("usr_viewer") == 0
        assert traced("usr_admin") == 0
        client.cookies.clear()
        await client.get("/api/v1/domains/supply/schema", headers=Keys.header(keys.admin))
        assert traced("usr_admin") == 1
