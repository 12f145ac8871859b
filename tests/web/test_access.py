"""Signing in and what refusals look like: a bad key (401), a read the grants refuse (403), a Kind
outside a grant narrowed to Kinds (docs/auth.md), and the session sign-in (the HttpOnly cookie
plus X-CSRF-Token on every write)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, Request, expect
from tests.web.browsing import answer, nav, open_screen, sign_in, step
from tests.web.conftest import BrowserLog, Stack

from lorebase_inference.testing import ScriptedModelServer

pytestmark = pytest.mark.web

# Chromium logs every answer >= 400 to a fetch as a console error ("Failed to load resource:
# the server responded with a status of 401 (Unauthorized)"); the tests below provoke exactly
# those refusals, so each allows its own status and nothing else.
REFUSED = r"^console\.error: Failed to load resource: the server responded with a status of {}"


def test_a_bad_key_is_refused_with_401(page: Page, stack: Stack, browser_log: BrowserLog) -> None:
    browser_log.allow(REFUSED.format(401))
    page.goto(stack.url + "/")
    page.get_by_label("API key").fill("lbk_000000000000_this-key-does-not-exist")
    page.get_by_role("button", name="Sign in").click()
    alert = page.get_by_role("alert")
    expect(alert.get_by_role("heading", name=re.compile(r"^401 "))).to_be_visible()
    expect(alert).to_contain_text("You are not signed in, or your key or session has ended")
    expect(page.get_by_role("heading", name="Sign in to Lorebase")).to_be_visible()
    expect(page.get_by_role("heading", name="Domains")).to_have_count(0)


def test_a_read_the_grants_refuse_says_403(
    page: Page, stack: Stack, browser_log: BrowserLog
) -> None:
    # usr_suppliers' only grant is narrowed to Supplier: history reads (the overview's recent
    # changes) need a grant that is not narrowed: 403 history-forbidden (docs/auth.md).
    browser_log.allow(REFUSED.format(403))
    open_screen(page, stack, "/supply/", "suppliers")
    expect(page.get_by_role("heading", name="Supply chain of Corvane Industries")).to_be_visible()
    alert = page.get_by_role("alert").filter(
        has=page.get_by_role("heading", name=re.compile("^403"))
    )
    expect(alert).to_contain_text("Your grants do not allow this")
    expect(alert).to_contain_text("history-forbidden")
    # The Kinds the grant leaves out are not listed.
    expect(page.get_by_role("link", name="Supplier", exact=True)).to_be_visible()
    expect(page.get_by_role("link", name="Part", exact=True)).to_have_count(0)


def test_a_kind_outside_a_narrowed_grant_says_so(
    page: Page, stack: Stack, browser_log: BrowserLog
) -> None:
    browser_log.allow(REFUSED.format(404))
    # The Revision picker lists the branch's changes, a history read: 403 history-forbidden
    # under a grant narrowed to Kinds (the picker then offers the head only).
    browser_log.allow(REFUSED.format(403) + r".*/branches/main/changes\?")
    open_screen(page, stack, "/supply/kinds/Part", "suppliers")
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("your grants do not include it")
    expect(alert).to_contain_text("kind-not-found")
    expect(page.get_by_role("table", name="Part Records")).to_have_count(0)
    # The Kind it may read still shows.
    page.goto(stack.url + "/supply/kinds/Supplier")  # a reload signs out in token mode
    sign_in(page, stack.url + "/supply/kinds/Supplier", stack.keys["suppliers"])
    table = page.get_by_role("table", name="Supplier Records")
    expect(table.get_by_role("link", name="S-1001", exact=True)).to_be_visible()


def test_session_sign_in_uses_the_cookie_and_the_csrf_token(
    page: Page,
    stack: Stack,
    keeper_session: str,
    browser_log: BrowserLog,
    script: ScriptedModelServer,
) -> None:
    # At start the app asks GET /auth/session whether a cookie from before signs it in: 401
    # before signing in and after signing out, by design (session.tsx).
    browser_log.allow(REFUSED.format(401) + r".*/api/v1/auth/session\)$")
    writes: list[Request] = []
    page.on(
        "request",
        lambda request: (
            writes.append(request)
            if request.method not in ("GET", "HEAD")
            and ("/api/" in request.url or request.url.startswith(stack.guide_url))
            else None
        ),
    )
    sign_in(page, keeper_session + "/", stack.keys["reviewer"])
    expect(page.get_by_role("heading", name="Domains", level=1)).to_be_visible()
    [cookie] = [c for c in page.context.cookies() if c["name"] == "lorebase_session"]
    assert cookie["httpOnly"] is True
    assert cookie["sameSite"] == "Strict" or cookie["sameSite"] == "Lax", cookie
    assert "lbk_" not in page.evaluate("() => document.cookie + JSON.stringify(localStorage)")

    # A reload keeps the session (token mode would sign out).
    page.reload()
    expect(page.get_by_role("heading", name="Domains", level=1)).to_be_visible()
    expect(page.get_by_text("usr_reviewer")).to_be_visible()

    # A write of the app (the Records table's POST /query) carries the cookie and the token.
    page.get_by_role("link", name="supply", exact=True).click()
    page.get_by_role("link", name="Supplier", exact=True).click()
    expect(page.get_by_role("table", name="Supplier Records")).to_contain_text("S-1001")
    query = next(r for r in writes if r.url.endswith("/api/v1/domains/supply/query"))
    headers = query.all_headers()
    assert "authorization" not in headers
    assert "lorebase_session=" in headers.get("cookie", "")
    assert re.fullmatch(r"\S{16,}", headers.get("x-csrf-token", "")), headers

    # Explore asks Guide on its own port (as `make demo` runs it) with the cookie and the token:
    # the cookie is the same site's, and Guide checks the token with Keeper.
    script.add(
        step("get", {"ref": "Supplier/S-1001"}, "Read the supplier."),
        answer("S-1001 is Kavsen Alloys.", ["Supplier/S-1001"]),
    )
    nav(page, "Explore")
    page.get_by_role("textbox", name="Question").fill("Who is S-1001?")
    page.get_by_role("button", name="Ask", exact=True).click()
    expect(page.get_by_role("region", name="Answer")).to_contain_text(
        "S-1001 is Kavsen Alloys.", timeout=30_000
    )
    asked = next(r for r in writes if r.url == stack.guide_url + "/explore")
    guide_headers = asked.all_headers()
    assert "authorization" not in guide_headers
    assert guide_headers.get("x-csrf-token") == headers["x-csrf-token"]

    # Signing out ends the session in Keeper: DELETE /auth/session with the token.
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("heading", name="Sign in to Lorebase")).to_be_visible()
    ended = next(r for r in writes if r.method == "DELETE")
    assert ended.url.endswith("/api/v1/auth/session")
    assert ended.all_headers().get("x-csrf-token") == headers["x-csrf-token"]
    response = ended.response()
    assert response is not None
    assert response.status in (200, 204)
    page.reload()
    expect(page.get_by_role("heading", name="Sign in to Lorebase")).to_be_visible()
