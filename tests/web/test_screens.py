"""Each screen of the web app loads after signing in, with its data and no console error
(docs/web.md). `LOREBASE_WEB_SCREENSHOTS=docs/web` saves each screen for docs/web.md."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect
from tests.web.browsing import answer, nav, open_proposal, open_screen, shot, step
from tests.web.conftest import Stack

from lorebase_inference.testing import ScriptedModelServer

pytestmark = pytest.mark.web

SUPPLY_TITLE = "Supply chain of Corvane Industries"


@pytest.fixture(scope="module")
def proposal(stack: Stack) -> dict[str, Any]:
    """An open Proposal of the agent: the risk of S-1007 raised to 81."""
    return open_proposal(stack, "S-1007", 81)


def test_sign_in(page: Page, stack: Stack) -> None:
    page.goto(stack.url + "/")
    expect(page.get_by_role("heading", name="Sign in to Lorebase")).to_be_visible()
    expect(page.get_by_label("API key")).to_be_visible()
    expect(page.get_by_role("button", name="Sign in")).to_be_enabled()
    shot(page, "sign-in")


def test_domains(page: Page, stack: Stack) -> None:
    open_screen(page, stack, "/")
    expect(page.get_by_role("heading", name="Domains", level=1)).to_be_visible()
    expect(page.get_by_role("link", name="supply", exact=True)).to_be_visible()
    expect(page.get_by_role("link", name="xss", exact=True)).to_be_visible()
    expect(page.get_by_text("usr_admin")).to_be_visible()
    shot(page, "domains")


def test_overview(page: Page, stack: Stack) -> None:
    open_screen(page, stack, "/")
    page.get_by_role("link", name="supply", exact=True).click()
    expect(page.get_by_role("heading", name=SUPPLY_TITLE, level=1)).to_be_visible()
    kinds = page.get_by_role("table").filter(has_text="Records").first
    row = kinds.get_by_role("row").filter(has=page.get_by_role("link", name="Supplier", exact=True))
    expect(row.get_by_role("cell").nth(1)).to_have_text(re.compile(r"^\d+$"))
    expect(page.get_by_text("healthy").or_(page.get_by_text("has problems"))).to_be_visible()
    changes = page.get_by_role("list").filter(has_text="Import the supply example data")
    expect(changes.get_by_text("Raise the risk of S-1001")).to_be_visible()
    shot(page, "overview")


def test_records_of_supplier(page: Page, stack: Stack) -> None:
    open_screen(page, stack, "/supply/kinds/Supplier")
    expect(page.get_by_role("heading", name="Supplier", level=1)).to_be_visible()
    table = page.get_by_role("table", name="Supplier Records")
    expect(table.get_by_role("link", name="S-1001", exact=True)).to_be_visible()
    row = table.get_by_role("row").filter(has=page.get_by_role("link", name="S-1001", exact=True))
    expect(row.get_by_role("cell").nth(1)).to_have_text("Kavsen Alloys Sp. z o.o.")
    shot(page, "records")


def test_record_s_1001(page: Page, stack: Stack) -> None:
    open_screen(page, stack, "/supply/kinds/Supplier/S-1001")
    expect(page.get_by_role("heading", name="Kavsen Alloys Sp. z o.o.", level=1)).to_be_visible()
    values = page.get_by_role("table", name="Values")
    risk = values.get_by_role("row").filter(has=page.get_by_role("rowheader", name="risk_score"))
    expect(risk.get_by_role("cell").first).to_have_text("90")
    expect(page.get_by_role("link", name="Open on the Canvas")).to_be_visible()
    shot(page, "record")


def test_canvas(page: Page, stack: Stack) -> None:
    open_screen(page, stack, "/supply/canvas?ref=Supplier/S-1001")
    expect(page.get_by_role("heading", name="Canvas", level=1)).to_be_visible()
    expect(page.locator("canvas").first).to_be_visible()
    page.wait_for_function(
        "() => window.__lorebaseCanvas && window.__lorebaseCanvas.graph.order > 1"
    )
    shot(page, "canvas")


def test_proposals(page: Page, stack: Stack, proposal: dict[str, Any]) -> None:
    open_screen(page, stack, "/supply/proposals", "reviewer")
    expect(page.get_by_role("heading", name="Proposals", level=1)).to_be_visible()
    row = page.get_by_role("row").filter(has_text=proposal["title"])
    expect(row.get_by_role("link", name=proposal["id"])).to_be_visible()
    expect(row.get_by_role("cell", name="open", exact=True)).to_be_visible()
    shot(page, "proposals")


def test_proposal(page: Page, stack: Stack, proposal: dict[str, Any]) -> None:
    open_screen(page, stack, f"/supply/proposals/{proposal['id']}", "reviewer")
    expect(page.get_by_role("heading", name=proposal["title"]).first).to_be_visible()
    expect(page.get_by_text("S-1007").first).to_be_visible()
    expect(page.get_by_role("button", name=re.compile("^Approve")).first).to_be_visible()
    shot(page, "proposal")


def test_explore(page: Page, stack: Stack, script: ScriptedModelServer) -> None:
    script.add(
        step("get", {"ref": "Part/P-10007"}, "Read the first of the parts the query found."),
        answer(
            "Three parts have a single supplier: P-10007, P-10019 and P-10033.",
            ["Part/P-10007", "Part/P-10019", "Part/P-10033"],
        ),
    )
    open_screen(page, stack, "/supply/")
    nav(page, "Explore")
    expect(page.get_by_role("heading", name="Explore", level=1)).to_be_visible()
    # An example question asks at once.
    page.get_by_role("button", name="Which parts have a single supplier?").click()
    expect(page.get_by_role("textbox", name="Question")).to_have_value(
        "Which parts have a single supplier?"
    )
    answered = page.get_by_role("region", name="Answer")
    expect(answered).to_contain_text("Three parts have a single supplier", timeout=30_000)
    expect(answered.get_by_role("link", name="Part/P-10033")).to_be_visible()
    expect(page.get_by_role("link", name="View trace")).to_be_visible()
    shot(page, "explore")


def test_agent_activity(page: Page, stack: Stack) -> None:
    open_screen(page, stack, "/supply/agent-activity")
    expect(page.get_by_role("heading", name="Agent activity", level=1)).to_be_visible()
    expect(page.get_by_role("heading", name="Sessions")).to_be_visible()
    shot(page, "agent-sessions")


def test_retrieval_lab(page: Page, stack: Stack) -> None:
    open_screen(page, stack, "/supply/lab")
    expect(page.get_by_role("heading", name="Retrieval lab", level=1)).to_be_visible()
    expect(page.get_by_role("group", name="Example questions")).to_be_visible()
    shot(page, "retrieval-lab")
