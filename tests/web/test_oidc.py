"""Signing in to the web app at a real OpenID Connect provider (tests/oidc, the code flow with
PKCE): the app sends the browser to the issuer, the person signs in there, and the app trades
the code for Keeper's session cookie. A Keeper in auth mode api_key+oidc offers both sign-ins."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from tests.web.conftest import BrowserLog, KeeperProcess, Stack, keeper_env

from lorebase_keeper.testing import OIDC_AUDIENCE, OidcProvider, free_port

pytestmark = pytest.mark.web


@pytest.fixture(scope="module")
def oidc_keeper(stack: Stack, web_dist: Path) -> Iterator[tuple[str, OidcProvider]]:
    """A Keeper on the stack's database taking API keys and the provider's sign-ins; members of
    the provider's group supply-reviewers (alice) are viewers of supply."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with OidcProvider(redirect_uris=[f"{url}/auth/callback"]) as provider:
        env = keeper_env(stack.directory, web_dist, None, None, "session")
        env.update(
            {
                "LOREBASE__KEEPER__AUTH__OIDC__ISSUER": provider.issuer,
                "LOREBASE__KEEPER__AUTH__OIDC__CLIENT_ID": "lorebase-web",
                "LOREBASE__KEEPER__AUTH__OIDC__AUDIENCE": json.dumps([OIDC_AUDIENCE]),
                "LOREBASE__KEEPER__AUTH__OIDC__REDIRECT_URIS": json.dumps([f"{url}/auth/callback"]),
                "LOREBASE__KEEPER__AUTH__OIDC__SCOPES": json.dumps(
                    ["openid", "profile", "email", "groups"]
                ),
                "LOREBASE__KEEPER__AUTH__OIDC__GROUPS_CLAIM": "groups",
                "LOREBASE__KEEPER__AUTH__OIDC__GROUPS": json.dumps(
                    {"supply-reviewers": [{"domain": "supply", "role": "viewer"}]}
                ),
            }
        )
        keeper = KeeperProcess(
            port,
            stack.directory / "keeper-oidc.log",
            env,
            "--database",
            stack.database_url,
            auth="api_key+oidc",
        )
        try:
            yield keeper.url, provider
        finally:
            keeper.stop()


def allow_the_providers_pages(browser_log: BrowserLog) -> None:
    """What the provider's own pages (oidc-provider's development interactions, not ours) log
    here: their Google font does not load offline, and the provider serves no favicon; and the
    app's first GET /auth/session answers 401 before anyone signed in (session.tsx)."""
    browser_log.allow(r"ERR_NAME_NOT_RESOLVED \(https://fonts\.googleapis\.com/")
    browser_log.allow(r"status of 404 .*\(http://127\.0\.0\.1:\d+/favicon\.ico\)$")
    browser_log.allow(r"status of 401 .*/api/v1/auth/session\)$")


def sign_in_at_the_issuer(page: Page, login: str) -> None:
    """The provider's development login (any password) and, the first time, its consent."""
    page.get_by_role("button", name="Sign in with your organisation").click()
    page.wait_for_url(re.compile(r"^http://127\.0\.0\.1:\d+/interaction/"))
    page.locator("input[name=login]").fill(login)
    page.locator("input[name=password]").fill("any")
    page.locator("button[type=submit]").click()
    for _ in range(3):  # consent pages until the provider sends the browser back
        page.wait_for_load_state()
        if "/interaction/" not in page.url:
            break
        page.locator("button[type=submit]").click()


def test_a_person_signs_in_at_the_issuer_and_lands_where_they_were(
    page: Page, oidc_keeper: tuple[str, OidcProvider], browser_log: BrowserLog
) -> None:
    allow_the_providers_pages(browser_log)
    url, _provider = oidc_keeper
    page.goto(url + "/supply/kinds/Supplier")
    expect(page.get_by_role("heading", name="Sign in to Lorebase")).to_be_visible()
    expect(page.get_by_label("API key")).to_be_visible()  # api_key+oidc takes both

    sign_in_at_the_issuer(page, "alice")
    expect(page.get_by_role("table", name="Supplier Records")).to_contain_text("S-1001")
    assert page.url == url + "/supply/kinds/Supplier"
    expect(page.get_by_text("alice", exact=True)).to_be_visible()
    [cookie] = [c for c in page.context.cookies() if c["name"] == "lorebase_session"]
    assert cookie["httpOnly"] is True
    stored = page.evaluate("() => JSON.stringify(sessionStorage) + JSON.stringify(localStorage)")
    assert "lorebase.oidc" not in stored  # the verifier is used once and dropped


def test_a_return_the_app_did_not_start_is_refused(
    page: Page, oidc_keeper: tuple[str, OidcProvider], browser_log: BrowserLog
) -> None:
    allow_the_providers_pages(browser_log)
    url, _provider = oidc_keeper
    page.goto(url + "/auth/callback?code=forged&state=forged")
    expect(page.get_by_role("heading", name="Sign in to Lorebase")).to_be_visible()
    expect(page.get_by_role("alert")).to_contain_text("This sign-in was not started here")
    assert page.url == url + "/"
