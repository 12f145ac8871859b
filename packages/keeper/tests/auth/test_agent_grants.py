"""The agent grants of docs/auth.md, run as written, then an agent's task write with them.

The example's `lorebase key create` and `lorebase grant add` lines are read from the page and run
against the database; the key they print then writes through Keeper the way docs/writes.md says
an agent does. The grants the page once showed (viewer on main) are kept as the counter-example:
a task write needs the Operation's permission on the branch it targets.
"""

from __future__ import annotations

import re
import shlex

import click
import pytest
from click.testing import CliRunner
from packages.keeper.tests.cli.test_access import keeper_over
from packages.keeper.tests.conftest import ROOT

from lorebase_keeper.cli.access import grant, key
from lorebase_keeper.testing import assert_problem, grant_key
from lorebase_store import Store

pytestmark = pytest.mark.anyio

AUTH_MD = ROOT / "docs" / "auth.md"
SUPPLY = "/api/v1/domains/supply"
TASK = {
    "parameters": {"supplier": "S-1001", "severity": "high", "reason": "Two late deliveries"},
    "task": "q4-audit",
    "intent": "Flag S-1001 after the Q4 delivery audit",
}
COMMANDS: dict[str, click.Group] = {"key": key, "grant": grant}


def documented_example() -> list[list[str]]:
    """The `key create` and `grant add` lines of the page's API-key example, as arguments."""
    section = AUTH_MD.read_text(encoding="utf-8").split("## API keys", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block is not None, "docs/auth.md lost its API-key example"
    lines = [line.split("#", 1)[0] for line in block.group(1).splitlines()]
    return [
        shlex.split(line)[1:]
        for line in lines
        if line.startswith(("lorebase key create", "lorebase grant add"))
    ]


def run_as_written(database_url: str) -> str:
    """Run the example against the database; the secret `lorebase key create` printed."""
    secret = None
    runner = CliRunner(env={"LOREBASE_CONFIG": None})
    for args in documented_example():
        group, *rest = args
        result = runner.invoke(
            COMMANDS[group], [*rest, "--database", database_url], catch_exceptions=False
        )
        assert result.exit_code == 0, (args, result.output)
        if rest[0] == "create":
            secret = result.stdout.strip()
    assert secret is not None
    return secret


def test_the_example_is_a_service_principal_with_editor_on_main_and_agent_branches() -> None:
    assert documented_example() == [
        ["key", "create", "svc_risk", "--type", "service", "--description", "risk agent"],
        ["grant", "add", "svc_risk", "editor", "--domain", "supply", "--branch", "main"],
        ["grant", "add", "svc_risk", "editor", "--domain", "supply", "--branch", "agent/*"],
    ]


async def test_the_documented_agent_grants_make_a_task_write_a_proposal(
    database_url: str, supply: Store
) -> None:
    secret = run_as_written(database_url)
    execute = f"{SUPPLY}/operations/flag_supplier_risk/execute"
    flags = f"{SUPPLY}/kinds/Supplier/records/S-1001/links/risk_flags"
    async with keeper_over(supply, secret) as http:
        before = (await http.get(flags)).json()
        direct = await http.post(execute, json={"parameters": TASK["parameters"]})
        assert_problem(direct, 409, "review-required")
        proposed = await http.post(execute, json=TASK)
        assert proposed.status_code == 202, proposed.text
        body = proposed.json()
        assert (body["status"], body["branch"], body["target"]) == (
            "proposed",
            "agent/svc_risk/q4-audit",
            "main",
        )
        assert body["proposal"]["created"] is True
        assert (await http.get(body["proposal"]["url"])).status_code == 200
        assert (await http.get(flags)).json() == before  # main waits for a reviewer's merge


async def test_viewer_on_main_refuses_the_task_write_naming_the_permission(
    database_url: str, supply: Store
) -> None:
    secret = grant_key(
        supply, "svc_reader", kind="service", domain="supply", role="viewer", branch="main"
    )
    supply.add_grant("svc_reader", domain="supply", role="editor", branch="agent/*")
    async with keeper_over(supply, secret) as http:
        refused = await http.post(f"{SUPPLY}/operations/flag_supplier_risk/execute", json=TASK)
    problem = assert_problem(refused, 403, "forbidden")
    assert problem["permission"] == "operation.execute"
    assert [branch.name for branch in supply.branches("supply")] == ["main"]
