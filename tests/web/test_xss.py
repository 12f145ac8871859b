"""Titles and values that are markup or javascript: URLs show as text, everywhere the app shows
them: the Domain's overview, the Records table, the Record page, the Canvas and an Explore answer
quoting them. The xss Domain (tests/web/xss) is imported, a real write, before Keeper starts;
each payload sets window.__xss if it ever runs."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect
from tests.web.browsing import (
    XSS_PAYLOADS,
    answer,
    assert_no_xss,
    nav,
    open_screen,
    step,
)
from tests.web.conftest import Stack

from lorebase_inference.testing import ScriptedModelServer

pytestmark = pytest.mark.web

IMG, SCRIPT, JAVASCRIPT = XSS_PAYLOADS


def test_the_overview_and_the_records_table(page: Page, stack: Stack) -> None:
    open_screen(page, stack, "/")
    page.get_by_role("link", name="xss", exact=True).click()
    expect(page.get_by_role("heading", name=f"{SCRIPT}Payloads", level=1)).to_be_visible()
    expect(page.get_by_text(f"{IMG} Notes whose text is markup.")).to_be_visible()
    assert_no_xss(page)

    page.get_by_role("link", name="Note", exact=True).click()
    table = page.get_by_role("table", name="Note Records")
    for key, title in (("N-1", IMG), ("N-2", SCRIPT), ("N-3", JAVASCRIPT)):
        row = table.get_by_role("row").filter(has=page.get_by_role("link", name=key, exact=True))
        expect(row.get_by_role("cell").nth(1)).to_have_text(title)
    expect(table.get_by_text("javascript:window.__xss=1//https://example.com")).to_be_visible()
    assert_no_xss(page)


def test_the_record_page(page: Page, stack: Stack) -> None:
    open_screen(page, stack, "/xss/kinds/Note/N-1")
    expect(page.get_by_role("heading", name=IMG, level=1)).to_be_visible()
    values = page.get_by_role("table", name="Values")
    expect(values.get_by_text(JAVASCRIPT, exact=True)).to_be_visible()
    expect(values.get_by_text(SCRIPT, exact=True)).to_be_visible()
    assert_no_xss(page)
    page.get_by_role("tab", name="Links").click()
    expect(page.get_by_role("tabpanel")).to_contain_text("refers_to")
    assert_no_xss(page)
    page.get_by_role("tab", name="History").click()
    expect(page.get_by_role("tabpanel")).to_contain_text("Import the xss test data")
    page.get_by_role("tab", name="Explain").click()
    expect(page.get_by_role("tabpanel")).not_to_be_empty()
    assert_no_xss(page)


def test_the_canvas(page: Page, stack: Stack) -> None:
    open_screen(page, stack, "/xss/canvas?ref=Note/N-1")
    expect(page.get_by_role("heading", name="Canvas", level=1)).to_be_visible()
    page.wait_for_function("() => window.__lorebaseCanvas?.graph.order === 3")
    labels = page.evaluate("() => window.__lorebaseCanvas.graph.mapNodes((_, a) => a.label).sort()")
    assert labels == sorted(XSS_PAYLOADS)
    # Click N-2's node where sigma drew it: its panel shows the title as text.
    page.wait_for_timeout(500)  # the layout settles
    box = page.get_by_role("img", name="Canvas of 3 Records and 3 Links").bounding_box()
    assert box is not None
    at = page.evaluate(
        """() => { const {sigma, graph} = window.__lorebaseCanvas;
                   return sigma.graphToViewport(graph.getNodeAttributes('Note/N-2')); }"""
    )
    page.mouse.click(box["x"] + at["x"], box["y"] + at["y"])
    selected = page.get_by_role("region", name="Selected Record")
    expect(selected.get_by_role("heading", name=SCRIPT)).to_be_visible()
    assert_no_xss(page)


def test_an_explore_answer_quoting_the_payloads(
    page: Page, stack: Stack, script: ScriptedModelServer
) -> None:
    quoted = f"Note N-1 is called {IMG}, N-2 {SCRIPT}, see [this]({JAVASCRIPT})."
    script.add(
        step("get", {"ref": "Note/N-1"}, f"Read N-1 {IMG}"),
        step("get", {"ref": "Note/N-2"}, f"Read N-2 {SCRIPT}"),
        answer(quoted, ["Note/N-1", "Note/N-2"]),
    )
    open_screen(page, stack, "/xss/")
    nav(page, "Explore")
    page.get_by_role("textbox", name="Question").fill(f"What are the notes called? {IMG}")
    page.get_by_role("button", name="Ask", exact=True).click()
    answered = page.get_by_role("region", name="Answer")
    expect(answered.get_by_text(quoted, exact=True)).to_be_visible(timeout=30_000)
    expect(answered.get_by_role("link", name="Note/N-1")).to_be_visible()
    expect(page.get_by_text(f"Read N-2 {SCRIPT}").first).to_be_visible()
    assert script.remaining == 0
    assert_no_xss(page)
