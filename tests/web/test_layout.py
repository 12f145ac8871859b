"""The layout on a tablet (768 px wide) and keyboard use: no screen scrolls sideways (wide tables
scroll inside their own box), the skip link is the first stop of Tab and moves focus to the
screen, focus is visible, and the Record's sections are tabs the arrow keys move between."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect
from tests.web.browsing import nav, open_screen
from tests.web.conftest import Stack

pytestmark = pytest.mark.web

TABLET = {"width": 768, "height": 1024}


def assert_no_sideways_scroll(page: Page) -> None:
    page.wait_for_load_state("networkidle")
    overflow = page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 1, f"{page.url} is {overflow} px wider than the {TABLET['width']} px screen"


def test_screens_fit_a_tablet(page: Page, stack: Stack) -> None:
    page.set_viewport_size(TABLET)
    open_screen(page, stack, "/supply/")
    expect(page.get_by_role("heading", name="Kinds")).to_be_visible()
    assert_no_sideways_scroll(page)
    page.get_by_role("link", name="Supplier", exact=True).click()
    expect(page.get_by_role("table", name="Supplier Records")).to_contain_text("S-1001")
    assert_no_sideways_scroll(page)
    page.get_by_role("link", name="S-1001", exact=True).click()
    expect(page.get_by_role("table", name="Values")).to_be_visible()
    assert_no_sideways_scroll(page)
    for screen in ("Canvas", "Proposals", "Explore", "Agent activity", "Retrieval lab"):
        nav(page, screen)
        expect(page.get_by_role("heading", name=screen, level=1)).to_be_visible()
        assert_no_sideways_scroll(page)


def test_keyboard_reaches_the_screen_and_the_record_tabs(page: Page, stack: Stack) -> None:
    open_screen(page, stack, "/supply/kinds/Supplier/S-1001")
    expect(page.get_by_role("table", name="Values")).to_be_visible()
    page.evaluate(
        "() => document.activeElement instanceof HTMLElement && document.activeElement.blur()"
    )
    page.keyboard.press("Tab")
    skip = page.get_by_role("link", name="Skip to the content")
    expect(skip).to_be_focused()
    outline = skip.evaluate("(e) => getComputedStyle(e).outlineStyle")
    assert outline not in ("", "none"), "the focused skip link shows no outline"
    page.keyboard.press("Enter")
    expect(page.locator("main")).to_be_focused()

    values = page.get_by_role("tab", name="Values")
    values.focus()
    page.keyboard.press("ArrowRight")
    links = page.get_by_role("tab", name="Links")
    expect(links).to_be_focused()
    expect(links).to_have_attribute("aria-selected", "true")
    expect(page.get_by_role("tabpanel")).to_contain_text("supplies")
