"""Browser sessions: sign in, read, sign out; the cookie, expiry, revocation, fixation, Origin."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from packages.keeper.tests.conftest import Keys
from packages.keeper.tests.test_app import assert_problem

from lorebase_core.sessions import SESSION_ID, csrf_token, session_digest
from lorebase_core.values import format_datetime
from lorebase_keeper.access_commands import key, session
from lorebase_keeper.app import create_app
from lorebase_keeper.testing import serve_in_thread
from lorebase_platform.settings import Settings
from lorebase_store import Store, api_key_id
from lorebase_store import tables as t

pytestmark = pytest.mark.anyio

SIGN_IN = "/api/v1/auth/session"
JSON = {"Content-Type": "application/json"}


def session_settings(mode: str = "api_key", **sessions: Any) -> Settings:
    return Settings(
        keeper={
            "auth": {"mode": mode, "authz": {"grants_cache_ttl_s": 0}, "sessions": sessions},
            "http": {"allowed_origins": ["https://app.example"]},
        }
    )


@pytest.fixture
async def browser(supply: Store) -> AsyncIterator[httpx.AsyncClient]:
    """A client with a cookie jar and no credential of its own, as a browser is."""
    app = create_app(session_settings(), store=supply)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://keeper.test"
    ) as client:
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
    supply: Store, keys: Keys, secure: bool, name: str, flags: set[str]
) -> None:
    settings = session_settings(cookie_secure=secure, absolute_timeout_s=3600)
    app = create_app(settings, store=supply)
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


def _age(store: Store, session_id: str, **columns: timedelta) -> None:
    now = datetime.now(UTC)
    with store.engine.begin() as connection:
        connection.execute(
            t.auth_sessions.update()
            .where(t.auth_sessions.c.id_digest == session_digest(session_id))
            .values({name: format_datetime(now - age) for name, age in columns.items()})
        )


@pytest.mark.parametrize(
    "column", [pytest.param("last_seen_at", id="idle"), pytest.param("expires_at", id="absolute")]
)
async def test_expiry(browser: httpx.AsyncClient, supply: Store, keys: Keys, column: str) -> None:
    await browser.post(SIGN_IN, json={"api_key": keys.viewer})
    session_id = browser.cookies["lorebase_session"]
    assert (await browser.get("/api/v1/auth/whoami")).status_code == 200
    _age(supply, session_id, **{column: timedelta(days=30)})
    problem = assert_problem(await browser.get("/api/v1/auth/whoami"), 401, "unauthorized")
    assert "sign in again" in str(problem["detail"]).lower()
    assert session_id not in str(problem["detail"])
    assert_problem(await browser.get(SIGN_IN), 401, "unauthorized")


async def test_revoked_with_the_key_and_with_the_principal(
    browser: httpx.AsyncClient, supply: Store, keys: Keys, tmp_path: Any
) -> None:
    await browser.post(SIGN_IN, json={"api_key": keys.viewer})
    assert (await browser.get("/api/v1/auth/whoami")).status_code == 200
    ended = supply.revoke_key(api_key_id(keys.viewer) or "")
    assert ended.sessions_ended == 1
    assert_problem(await browser.get("/api/v1/auth/whoami"), 401, "unauthorized")

    await browser.post(SIGN_IN, json={"api_key": keys.admin})
    assert (await browser.get("/api/v1/auth/whoami")).status_code == 200
    assert supply.revoke_principal_sessions("usr_admin") == 1
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


@pytest.mark.parametrize(
    "value",
    [
        pytest.param("garbage", id="garbage"),
        pytest.param("lbs_short", id="short"),
        pytest.param("lbs_" + "!" * 43, id="bad-characters"),
        pytest.param("lbk_" + "a" * 43, id="other-prefix"),
    ],
)
async def test_malformed_cookie_is_refused_without_a_lookup(
    browser: httpx.AsyncClient, value: str
) -> None:
    browser.cookies.set("lorebase_session", value)
    problem = assert_problem(await browser.get("/api/v1/auth/whoami"), 401, "unauthorized")
    assert "does not hold a session id" in str(problem["detail"])
    assert value not in str(problem["detail"])
    assert_problem(await browser.get(SIGN_IN), 401, "unauthorized")


async def test_an_unknown_session_is_refused(browser: httpx.AsyncClient) -> None:
    browser.cookies.set("lorebase_session", "lbs_" + "A" * 43)
    assert_problem(await browser.get("/api/v1/auth/whoami"), 401, "unauthorized")


async def test_a_bearer_credential_has_no_session(browser: httpx.AsyncClient, keys: Keys) -> None:
    problem = assert_problem(
        await browser.get(SIGN_IN, headers=Keys.header(keys.viewer)), 401, "unauthorized"
    )
    assert "bearer credential has no session" in str(problem["detail"])
    problem = assert_problem(await browser.get(SIGN_IN), 401, "unauthorized")
    assert "no session cookie" in str(problem["detail"])
    assert_problem(await browser.delete(SIGN_IN), 401, "unauthorized")


@pytest.mark.parametrize(
    ("body", "code"),
    [
        pytest.param({}, "invalid-input", id="empty"),
        pytest.param([], "invalid-input", id="array"),
        pytest.param({"api_key": ""}, "invalid-input", id="blank-key"),
        pytest.param({"api_key": 5}, "invalid-input", id="key-not-a-string"),
        pytest.param({"api_key": "x", "code": "c"}, "invalid-input", id="both"),
        pytest.param({"api_key": "x", "extra": 1}, "invalid-input", id="unknown-member"),
        pytest.param({"code": "c"}, "invalid-input", id="code-without-verifier"),
    ],
)
async def test_bad_sign_in_bodies(
    browser: httpx.AsyncClient, supply: Store, body: Any, code: str
) -> None:
    assert_problem(await browser.post(SIGN_IN, json=body), 422, code)
    assert "lorebase_session" not in browser.cookies
    with supply.engine.connect() as connection:
        assert connection.execute(t.auth_sessions.select()).first() is None


async def test_bad_key_and_malformed_json(browser: httpx.AsyncClient, keys: Keys) -> None:
    problem = assert_problem(
        await browser.post(SIGN_IN, json={"api_key": keys.viewer[:-2] + "zz"}), 401, "unauthorized"
    )
    assert keys.viewer[:-2] not in str(problem["detail"])
    assert_problem(
        await browser.post(SIGN_IN, content=b"{not json", headers=JSON), 400, "malformed-json"
    )
    assert "lorebase_session" not in browser.cookies


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        pytest.param({"Origin": "http://keeper.test"}, 201, id="own-origin"),
        pytest.param({"Origin": "https://app.example"}, 201, id="allowed-origin"),
        pytest.param({"Origin": "https://evil.example"}, 403, id="other-origin"),
        pytest.param({"Origin": "null"}, 403, id="null-origin"),
        pytest.param({"Content-Type": "text/plain"}, 403, id="text-plain"),
        pytest.param(
            {"Content-Type": "application/x-www-form-urlencoded"}, 403, id="form-urlencoded"
        ),
    ],
)
async def test_login_csrf(
    browser: httpx.AsyncClient, keys: Keys, headers: dict[str, str], status: int
) -> None:
    body = ('{"api_key": "%s"}' % keys.viewer).encode()
    response = await browser.post(SIGN_IN, content=body, headers={**JSON, **headers})
    if status == 201:
        assert response.status_code == 201
    else:
        assert_problem(response, 403, "csrf")
        assert "lorebase_session" not in browser.cookies


@pytest.mark.parametrize(
    ("settings", "body"),
    [
        pytest.param(Settings(keeper={"auth": {"mode": "none"}}), {"api_key": "k"}, id="mode-none"),
        pytest.param(session_settings(enabled=False), {"api_key": "k"}, id="sessions-off"),
        pytest.param(
            session_settings(),
            {"code": "c", "code_verifier": "v", "redirect_uri": "https://x/cb"},
            id="oidc-in-api-key-mode",
        ),
        pytest.param(session_settings("oidc"), {"api_key": "k"}, id="key-in-oidc-mode"),
    ],
)
async def test_sign_in_unavailable(supply: Store, settings: Settings, body: Any) -> None:
    app = create_app(settings, store=supply)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1"
    ) as client:
        assert_problem(await client.post(SIGN_IN, json=body), 409, "sign-in-unavailable")
        assert "set-cookie" not in (await client.post(SIGN_IN, json=body)).headers


async def test_a_key_session_ends_when_the_mode_stops_taking_keys(
    supply: Store, keys: Keys
) -> None:
    settings = session_settings()
    made = supply.create_session(
        "usr_viewer",
        method="api_key",
        key_id=api_key_id(keys.viewer),
        settings=settings.keeper.auth.sessions,
    )
    app = create_app(session_settings("oidc"), store=supply)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://keeper.test"
    ) as client:
        client.cookies.set("lorebase_session", made.session_id)
        assert_problem(await client.get("/api/v1/auth/whoami"), 401, "unauthorized")


def _iter_sessions(store: Store) -> Iterator[Any]:
    with store.engine.connect() as connection:
        yield from connection.execute(t.auth_sessions.select())


async def test_sessions_limit_per_principal(supply: Store, keys: Keys) -> None:
    app = create_app(session_settings(max_per_principal=2), store=supply)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://keeper.test"
    ) as client:
        for _ in range(3):
            client.cookies.clear()
            assert (await client.post(SIGN_IN, json={"api_key": keys.viewer})).status_code == 201
    live = [row for row in _iter_sessions(supply) if row.revoked_at is None]
    assert len(live) == 2
