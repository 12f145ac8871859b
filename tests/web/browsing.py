"""What the web tests do as a user: sign in, open a screen, save its screenshot, check that no
payload ran (tests/web/conftest.py starts the stack and the browser)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect
from tests.web.conftest import ROOT, SCREENSHOTS_ENV, Stack

from lorebase_client import LorebaseClient


def sign_in(page: Page, url: str, key: str) -> None:
    """Open `url` (any screen: the sign-in shows first), paste `key` and sign in."""
    page.goto(url)
    expect(page.get_by_role("heading", name="Sign in to Lorebase")).to_be_visible()
    page.get_by_label("API key").fill(key)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Sign in to Lorebase")).to_have_count(0)


def open_screen(page: Page, stack: Stack, path: str, profile: str = "admin") -> None:
    """Sign in as `profile` at `path` of the app (token mode keeps the key in the page's memory,
    so each test signs in on the screen it opens)."""
    sign_in(page, stack.url + path, stack.keys[profile])


def nav(page: Page, label: str) -> None:
    """Click `label` in the navigation of the Domain."""
    page.get_by_role("navigation", name="Domain").get_by_role(
        "link", name=label, exact=True
    ).click()


def shot(page: Page, name: str) -> None:
    """The screen as <$LOREBASE_WEB_SCREENSHOTS>/<name>.png (the viewport, 1280x800), when set."""
    folder = os.environ.get(SCREENSHOTS_ENV)
    if folder:
        target = Path(folder) if Path(folder).is_absolute() else ROOT / folder
        target.mkdir(parents=True, exist_ok=True)
        page.wait_for_load_state("networkidle")
        page.screenshot(path=target / f"{name}.png")


def open_proposal(stack: Stack, key: str, risk_score: int) -> dict[str, Any]:
    """The Proposal the agent opens by running update_supplier with a task (docs/tutorial.md)."""
    with LorebaseClient(stack.url, api_key=stack.keys["agent"]) as agent:
        answer = agent.execute(
            "supply",
            "update_supplier",
            {"key": key, "risk_score": risk_score},
            task=f"audit-{key.lower()}-{risk_score}",
            intent=f"The audit of {key} found two missed delivery dates",
            message=f"Raise the risk of {key} to {risk_score} after the audit",
            idempotency_key=f"web-{key}-{risk_score}",
        )
    assert answer["status"] == "proposed", answer
    return dict(answer["proposal"])


def step(action: str, args: dict[str, Any], thought: str = "Reading.") -> dict[str, Any]:
    """One step of the exploration loop as the model answers it (packages/guide)."""
    return {"thought": thought, "action": action, "args": args}


def answer(text: str, citations: list[str]) -> dict[str, Any]:
    """The model's final step: `text`, citing Records it read."""
    facts = [f"{ref} was read" for ref in citations]
    return step("answer", {"facts": facts, "answer": text, "citations": citations, "found": True})


XSS_PAYLOADS = (
    '<img src=x onerror="window.__xss=1">',
    "<script>window.__xss=1</script>",
    "javascript:window.__xss=1",
)


def assert_no_xss(page: Page) -> None:
    """No payload ran: window.__xss unset, no <img src=x>, no javascript: link."""
    ran = page.evaluate(
        """() => ({
            xss: typeof window.__xss,
            img: [...document.querySelectorAll('img')].filter(i => i.getAttribute('src') === 'x').length,
            scripts: [...document.querySelectorAll('script')].filter(s => s.textContent.includes('__xss')).length,
            links: [...document.querySelectorAll('[href]')].filter(a => /^\\s*javascript:/i.test(a.getAttribute('href'))).length,
            handlers: [...document.querySelectorAll('*')].filter(e => [...e.attributes].some(a => /^on/i.test(a.name) && a.value.includes('__xss'))).length,
        })"""
    )
    assert ran == {"xss": "undefined", "img": 0, "scripts": 0, "links": 0, "handlers": 0}, ran
