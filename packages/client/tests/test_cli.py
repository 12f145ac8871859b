"""The read commands of `lorebase` against the live Keeper (CliRunner, and one real process)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from click.testing import CliRunner, Result
from packages.client.tests.conftest import Env, serve_in_thread

from lorebase_client import AsyncLorebaseClient, LorebaseClient
from lorebase_client.cli import main
from lorebase_keeper.app import create_app
from lorebase_platform.settings import Settings

if TYPE_CHECKING:
    from conftest import LiveKeeper


def _run(args: list[str], env: Env, *, input: str | None = None) -> Result:
    return CliRunner().invoke(main, args, env=env, input=input)


def _json(result: Result) -> dict[str, object]:
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert isinstance(document, dict)
    return document


def test_the_program_lists_client_and_server_commands() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    listed = {line.split()[0] for line in result.stdout.split("Commands:")[1].splitlines() if line}
    client = {"branch", "diff", "query", "record", "schema", "traverse"}
    server = {"import", "key", "log", "serve"}  # from Keeper, through the entry points
    assert client | server <= listed


def test_a_server_command_still_loads_from_its_entry_point() -> None:
    result = CliRunner().invoke(main, ["serve", "--help"])
    assert result.exit_code == 0
    assert "Start Keeper" in result.stdout


def test_schema(env: Env, keeper: LiveKeeper) -> None:
    document = _json(_run(["schema"], env))
    assert document["revision"] == keeper.supply_head
    assert "Supplier" in [kind["name"] for kind in document["kinds"]]


def test_schema_compact_and_markdown(env: Env) -> None:
    compact = _json(_run(["schema", "--format", "compact", "--kinds", "Part,Supplier"], env))
    assert [relation["name"] for relation in compact["relations"]] == ["supplied_by"]
    text = _run(["schema", "--format", "markdown"], env).stdout
    assert text.startswith("# Schema: supply/main\n")


def test_schema_at_and_domain_options_win_over_the_environment(
    env: Env, keeper: LiveKeeper
) -> None:
    result = _run(["schema", "--domain", "supply", "--at", keeper.supply_import], env)
    assert _json(result)["revision"] == keeper.supply_import
    notes = _json(_run(["schema", "--domain", "notes"], env))
    assert notes["domain"] == "notes"


def test_record_get_prints_indented_json(env: Env) -> None:
    result = _run(["record", "get", "Supplier", "S-1001", "--links", "--lineage"], env)
    document = _json(result)
    assert result.stdout.startswith('{\n  "domain": "supply",\n')
    assert document["title"] == "Kavsen Alloys Sp. z o.o."
    assert "links" in document
    assert "lineage" in document


def test_record_get_with_an_awkward_key(env: Env, keeper: LiveKeeper) -> None:
    key = keeper.note_keys["slash"]
    document = _json(_run(["record", "get", "Note", key, "--domain", "notes"], env))
    assert document["key"] == key


def test_record_list_and_links(env: Env) -> None:
    page = _json(_run(["record", "list", "Supplier", "--limit", "3"], env))
    assert [record["key"] for record in page["records"]] == ["S-1001", "S-1002", "S-1003"]
    cursor = page["next_cursor"]
    assert isinstance(cursor, str)
    after = _json(_run(["record", "list", "Supplier", "--limit", "1", "--cursor", cursor], env))
    assert [record["key"] for record in after["records"]] == ["S-1004"]
    links = _json(_run(["record", "links", "Supplier", "S-1001", "supplies"], env))
    assert links["direction"] == "inverse"


def test_record_history_with_values_and_limit(env: Env) -> None:
    result = _run(["record", "history", "Contract", "C-3013", "--values", "--limit", "1"], env)
    document = _json(result)
    changes = document["changes"]
    assert isinstance(changes, list)
    assert len(changes) == 1
    assert "before" in changes[0]
    assert document["next_cursor"] is not None


def test_record_history_of_one_attribute(env: Env) -> None:
    args = ["record", "history", "Supplier", "S-1001", "--attribute", "risk_score", "--values"]
    raised, created = _json(_run(args, env))["changes"]
    assert (raised["before"], raised["after"]) == ({"risk_score": "72"}, {"risk_score": "90"})
    assert created["attributes"] == ["risk_score"]


def test_record_lineage_at_a_revision(env: Env, keeper: LiveKeeper) -> None:
    args = ["record", "lineage", "Supplier", "S-1001", "--at", keeper.supply_import]
    document = _json(_run(args, env))
    assert document["revision"] == keeper.supply_import


def test_record_explain_as_markdown_and_json(env: Env) -> None:
    markdown = _run(["record", "explain", "Supplier", "S-1001", "--markdown"], env)
    assert markdown.exit_code == 0, markdown.output
    assert markdown.stdout.startswith("# Explain: Supplier/S-1001: Kavsen Alloys Sp. z o.o.\n")
    assert markdown.stdout.endswith("\n")
    assert not markdown.stdout.endswith("\n\n")
    document = _json(_run(["record", "explain", "Supplier", "S-1001"], env))
    assert document["revision"] is not None


def test_diff(env: Env, keeper: LiveKeeper) -> None:
    document = _json(_run(["diff", "import/2026-10-01", "v1"], env))
    assert (document["from"], document["to"]) == (keeper.supply_import, keeper.supply_head)


def test_branch_create_list_and_show(env: Env, keeper: LiveKeeper) -> None:
    name = f"cli/{uuid.uuid4().hex[:8]}"
    args = ["branch", "create", name, "--from", "main", "--at", "import/2026-10-01"]
    created = _json(_run([*args, "--mode", "copy"], env))
    assert (created["name"], created["mode"], created["head"]) == (
        name,
        "copy",
        keeper.supply_import,
    )
    listed = _json(_run(["branch", "list"], env))
    assert name in [branch["name"] for branch in listed["branches"]]
    assert _json(_run(["branch", "show", name], env))["head"] == keeper.supply_import
    record = _json(_run(["record", "get", "Supplier", "S-1001", "--branch", name], env))
    assert record["values"]["risk_score"] == "72"


# -- errors -----------------------------------------------------------------------------------


def test_a_problem_is_reported_on_stderr_with_exit_code_1(env: Env) -> None:
    result = _run(["record", "get", "Suplier", "x"], env)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == (
        "error: Unknown Kind: Kind 'Suplier' does not exist in Domain 'supply'; did you mean "
        "'Supplier'? Kinds: Contract, Part, Plant, PurchaseOrder, RiskFlag, Supplier "
        "[kind-not-found]\n"
    )


def test_issues_are_listed_under_the_problem(env: Env) -> None:
    result = _run(["record", "list", "Supplier", "--limit", "5000"], env)
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "error: Invalid input: limit must be between 1 and 1000 [invalid-input]",
        "  limit: 5000 is not between 1 and 1000",
    ]


def test_history_with_a_narrowed_key(env: Env, keeper: LiveKeeper) -> None:
    narrowed = {**env, "LOREBASE_API_KEY": keeper.viewer_key}
    result = _run(["record", "history", "Supplier", "S-1001"], narrowed)
    assert result.exit_code == 1
    assert "[history-forbidden]" in result.stderr


def test_no_api_key_is_unauthorized(env: Env) -> None:
    result = _run(["schema"], {**env, "LOREBASE_API_KEY": None})
    assert result.exit_code == 1
    assert result.stderr.startswith("error: Unauthorized: This request needs an API key")


def test_a_dot_dot_key_is_refused_before_any_request(env: Env) -> None:
    result = _run(["record", "get", "Supplier", ".."], {**env, "LOREBASE_URL": _closed_url()})
    assert result.exit_code == 1
    assert "key '..' cannot be sent as a path segment" in result.stderr
    assert "[invalid-path-segment]" in result.stderr


def _closed_url() -> str:
    """The URL of a port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def test_keeper_unreachable(env: Env) -> None:
    url = _closed_url()
    result = _run(["schema", "--url", url], env)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: cannot reach Keeper at {url}: ")
    assert "Is it running? Start one with `lorebase serve`" in result.stderr


def test_keeper_unreachable_names_the_url_of_the_environment(env: Env) -> None:
    url = _closed_url()
    result = _run(["record", "get", "Supplier", "S-1001"], {**env, "LOREBASE_URL": url})
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: cannot reach Keeper at {url}: ")
    assert "`lorebase serve`, or point --url (or $LOREBASE_URL) at yours" in result.stderr


@pytest.fixture(scope="module")
def open_keeper(keeper: LiveKeeper) -> Iterator[str]:
    """A Keeper in auth mode none over the same database: every request is the local admin."""
    app = create_app(Settings(keeper={"auth": {"mode": "none"}}), store=keeper.store)
    with serve_in_thread(app) as url:
        yield url


def test_a_key_sent_to_a_keeper_in_auth_mode_none_is_said_unused(
    env: Env, open_keeper: str
) -> None:
    result = _run(["schema"], {**env, "LOREBASE_URL": open_keeper})
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["domain"] == "supply"
    assert result.stderr == (
        f"warning: Keeper at {open_keeper} runs in auth mode none: the API key was not used "
        "(every request acts as the local administrator)\n"
    )
    failed = _run(["record", "get", "Nope", "x"], {**env, "LOREBASE_URL": open_keeper})
    assert failed.exit_code == 1
    assert "warning: Keeper at" in failed.stderr


def test_no_warning_without_a_key_or_with_a_keeper_that_uses_it(env: Env, open_keeper: str) -> None:
    keyless = _run(["schema"], {**env, "LOREBASE_URL": open_keeper, "LOREBASE_API_KEY": None})
    assert (keyless.exit_code, keyless.stderr) == (0, "")
    checked = _run(["schema"], env)
    assert (checked.exit_code, checked.stderr) == (0, "")


def test_a_url_that_is_not_one(env: Env) -> None:
    result = _run(["schema", "--url", "http://[::1"], env)
    assert result.exit_code == 1
    assert result.stderr.startswith("error: 'http://[::1' is not a URL")


def test_domain_is_required(env: Env) -> None:
    result = _run(["schema"], {**env, "LOREBASE_DOMAIN": None})
    assert result.exit_code == 2
    assert "Missing option '--domain'" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(["query"], "give a query document", id="nothing-to-query"),
        pytest.param(["query", "--kind", "Supplier", "--where", "{"], "not JSON", id="bad-where"),
        pytest.param(["query", "-"], "expected a JSON object", id="not-an-object"),
        pytest.param(
            ["branch", "create", "x", "--mode", "fork"], "'fork' is not one of", id="mode"
        ),
        pytest.param(
            ["traverse", "--start", "Supplier/S-1001"], "Missing option '--path'", id="path"
        ),
    ],
)
def test_usage_errors_exit_with_2(env: Env, args: list[str], message: str) -> None:
    result = _run(args, env, input="[1, 2]")
    assert result.exit_code == 2, result.output
    assert message in result.stderr


def test_the_installed_program_in_a_real_process(keeper: LiveKeeper) -> None:
    program = shutil.which("lorebase", path=str(Path(sys.executable).parent))
    assert program is not None, "the lorebase script is not installed next to this Python"
    env = {
        **os.environ,
        "LOREBASE_URL": keeper.url,
        "LOREBASE_API_KEY": keeper.admin_key,
        "LOREBASE_DOMAIN": "supply",
    }
    finished = subprocess.run(
        [program, "record", "get", "Supplier", "S-1001"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert finished.returncode == 0, finished.stderr
    assert json.loads(finished.stdout)["values"]["risk_score"] == "90"
    failed = subprocess.run(
        [program, "record", "get", "Supplier", "S-9999"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert failed.returncode == 1
    assert "[record-not-found]" in failed.stderr


def test_the_clients_say_when_keeper_did_not_use_their_key(
    keeper: LiveKeeper, open_keeper: str
) -> None:
    with LorebaseClient(open_keeper, api_key=keeper.admin_key) as unused:
        unused.schema("supply")
        assert unused.key_unused
    with (
        LorebaseClient(open_keeper) as keyless,
        LorebaseClient(keeper.url, api_key=keeper.admin_key) as used,
    ):
        keyless.schema("supply")
        used.schema("supply")
        assert not keyless.key_unused
        assert not used.key_unused


@pytest.mark.anyio
async def test_the_async_client_says_when_keeper_did_not_use_its_key(
    keeper: LiveKeeper, open_keeper: str
) -> None:
    async with AsyncLorebaseClient(open_keeper, api_key=keeper.admin_key) as unused:
        await unused.schema("supply")
        assert unused.key_unused
