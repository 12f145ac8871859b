"""The loop of docs/agents.md by clicking, as a person follows it in the web app: find S-1001,
travel to the first Revision, open the Canvas from the Record, ask Explore (the scripted model
reads S-1001 and cites it) and open its trace, then approve and merge the agent's Proposal as
the reviewer."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect
from tests.web.browsing import answer, nav, open_proposal, shot, sign_in, step
from tests.web.conftest import Stack

from lorebase_client import LorebaseClient
from lorebase_inference.testing import ScriptedModelServer

pytestmark = pytest.mark.web

KAVSEN = "Kavsen Alloys Sp. z o.o."


def risk_score(page: Page) -> str:
    values = page.get_by_role("table", name="Values")
    row = values.get_by_role("row").filter(has=page.get_by_role("rowheader", name="risk_score"))
    return row.get_by_role("cell").first.inner_text().strip()


def test_find_travel_canvas(page: Page, stack: Stack) -> None:
    sign_in(page, stack.url + "/", stack.keys["admin"])
    page.get_by_role("link", name="supply", exact=True).click()
    page.get_by_role("link", name="Supplier", exact=True).click()
    page.get_by_role("table", name="Supplier Records").get_by_role(
        "link", name="S-1001", exact=True
    ).click()
    expect(page.get_by_role("heading", name=KAVSEN, level=1)).to_be_visible()
    expect(page.get_by_role("table", name="Values")).to_contain_text("90")
    assert risk_score(page) == "90"  # the head: revisions/0002 raised it

    # The Revision picker: the first Revision, the import, where the score was 72.
    picker = page.get_by_role("group", name="Read point").get_by_label("Revision")
    first = picker.locator("option", has_text="Import the supply example data")
    picker.select_option(first.get_attribute("value"))
    expect(page).to_have_url(re.compile(r"[?&]at=3595fb1145de"))
    expect(page.get_by_text(re.compile(r"Reading at 3595fb1145de"))).to_be_visible()
    expect(page.get_by_role("heading", name=KAVSEN, level=1)).to_be_visible()
    expect(
        page.get_by_role("table", name="Values")
        .get_by_role("row")
        .filter(has=page.get_by_role("rowheader", name="risk_score"))
        .get_by_role("cell")
        .first
    ).to_have_text("72")

    # The Canvas from the Record: S-1001 and its neighbours, drawn by sigma.
    page.get_by_role("link", name="Open on the Canvas").click()
    expect(page.get_by_role("heading", name="Canvas", level=1)).to_be_visible()
    page.wait_for_function(
        "() => window.__lorebaseCanvas?.graph.hasNode('Supplier/S-1001')"
        " && window.__lorebaseCanvas.graph.order > 1"
    )
    label = page.evaluate(
        "() => window.__lorebaseCanvas.graph.getNodeAttribute('Supplier/S-1001', 'label')"
    )
    assert label == KAVSEN


def test_explore_and_its_trace(page: Page, stack: Stack, script: ScriptedModelServer) -> None:
    question = "What is the risk score of supplier S-1001?"
    script.add(
        step("get", {"ref": "Supplier/S-1001"}, "Read the supplier the question names."),
        answer("Kavsen Alloys (S-1001) has a risk score of 90.", ["Supplier/S-1001"]),
    )
    sign_in(page, stack.url + "/supply/", stack.keys["admin"])
    nav(page, "Explore")
    page.get_by_role("textbox", name="Question").fill(question)
    page.get_by_role("button", name="Ask", exact=True).click()
    answered = page.get_by_role("region", name="Answer")
    expect(answered).to_contain_text("has a risk score of 90", timeout=30_000)
    cited = answered.get_by_role("link", name="Supplier/S-1001")
    expect(cited).to_have_attribute("href", re.compile(r"^/supply/kinds/Supplier/S-1001"))
    assert script.remaining == 0

    page.get_by_role("link", name="View trace").click()
    expect(page.get_by_role("heading", name="Agent activity", level=1)).to_be_visible()
    expect(page.get_by_role("heading", name=re.compile(r"^Session guide-"))).to_be_visible()
    expect(page.get_by_text("usr_admin").last).to_be_visible()
    touched = page.get_by_role("list", name="Touched Records")
    expect(touched.get_by_role("link", name="Supplier/S-1001")).to_be_visible(timeout=15_000)
    shot(page, "agent-activity")

    # The touched Record leads to its page.
    touched.get_by_role("link", name="Supplier/S-1001").click()
    expect(page.get_by_role("heading", name=KAVSEN, level=1)).to_be_visible()


def test_review_and_merge_a_proposal(page: Page, stack: Stack) -> None:
    proposal = open_proposal(stack, "S-1024", 72)
    sign_in(page, stack.url + "/supply/", stack.keys["reviewer"])
    nav(page, "Proposals")
    expect(page.get_by_role("heading", name="Proposals", level=1)).to_be_visible()
    row = page.get_by_role("row").filter(has_text=proposal["title"])
    row.get_by_role("link", name=proposal["id"]).click()
    expect(page.get_by_role("heading", name=proposal["title"], level=1)).to_be_visible()
    expect(page.get_by_text("S-1024").first).to_be_visible()

    page.get_by_role("button", name="Approve", exact=True).click()
    reviews = page.get_by_role("region", name="Reviews")
    expect(reviews.get_by_text("approve")).to_be_visible()
    merge = page.get_by_role("region", name="Merge")
    expect(merge.get_by_role("button", name="Merge", exact=True)).to_be_enabled()
    merge.get_by_role("button", name="Merge", exact=True).click()
    expect(merge.get_by_role("status")).to_contain_text("Merged into main")

    with LorebaseClient(stack.url, api_key=stack.keys["admin"]) as admin:
        merged = admin.record("supply", "Supplier", "S-1024")
        assert merged["values"]["risk_score"] == "72"
        assert admin.proposal("supply", proposal["id"])["status"] == "merged"
