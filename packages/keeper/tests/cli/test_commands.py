"""The lorebase program as a user runs it: a real database, real HTTP, and a real process for
each command (the other cases run it in process, with click's CliRunner)."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner
from packages.keeper.tests.conftest import ROOT, wait_until_ready

from lorebase_client.cli import main
from lorebase_core.changes import UpsertRecord
from lorebase_keeper.testing import free_port
from lorebase_store import Store
from lorebase_store.testing import commit_changes

SUPPLY = ROOT / "examples" / "supply"
LOREBASE = [sys.executable, "-m", "lorebase_client.cli"]


@dataclass(frozen=True)
class Ran:
    returncode: int
    stdout: str
    stderr: str


def run(*args: str, database: str, process: bool = False) -> Ran:
    """`lorebase ARGS --database DATABASE`: in this process (click's CliRunner), or as a real
    process of the installed program (`process=True`: one test per command does, since
    starting one costs a second or more)."""
    if not process:
        result = CliRunner().invoke(
            main, [*args, "--database", database], env={"LOREBASE_CONFIG": ""}
        )
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        return Ran(result.exit_code, result.stdout, result.stderr)
    done = subprocess.run(
        [*LOREBASE, *args, "--database", database],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "LOREBASE_CONFIG": ""},
    )
    return Ran(done.returncode, done.stdout, done.stderr)


def test_import_then_log_show_the_supply_revisions(database_url: str) -> None:
    """Real processes of the installed program, for `import` and `log`."""
    imported = run("import", str(SUPPLY), database=database_url, process=True)
    assert imported.returncode == 0, imported.stderr
    assert "Domain 'supply' created" in imported.stdout
    assert "Raise the risk of S-1001" in imported.stdout
    log = run("log", "supply", database=database_url, process=True)
    assert log.returncode == 0, log.stderr
    lines = log.stdout.splitlines()
    assert lines[-1].endswith("usr_loader: Import the supply example data")
    assert "operation usr_editor: Raise the risk of S-1001" in lines[-2]
    again = run("import", str(SUPPLY), "--create-only", database=database_url, process=True)
    assert again.returncode == 0
    assert "nothing imported" in again.stdout


def test_the_same_folder_imported_again_changes_nothing(database_url: str) -> None:
    """`make demo` imports with --create-only; the README's `lorebase import` then reverts
    nothing: the folder means its data and its revisions/."""
    assert run("import", str(SUPPLY), "--create-only", database=database_url).returncode == 0
    before = run("log", "supply", database=database_url).stdout
    again = run("import", str(SUPPLY), database=database_url)
    assert again.returncode == 0, again.stderr
    assert "nothing changed, no Revision was made" in again.stdout
    assert run("log", "supply", database=database_url).stdout == before


def test_an_import_over_an_operation_is_refused_listing_it_unless_overwrite(
    database_url: str,
) -> None:
    assert run("import", str(SUPPLY), database=database_url).returncode == 0
    store = Store.open(database_url)
    try:
        lowered = commit_changes(
            store, [UpsertRecord("Supplier", "S-1001", {"risk_score": 50})], message="Lower it"
        )
    finally:
        store.close()
    before = run("log", "supply", database=database_url).stdout
    refused = run("import", str(SUPPLY), database=database_url)
    assert refused.returncode == 1
    assert "would overwrite 1 value(s)" in refused.stderr
    assert "--overwrite" in refused.stderr
    assert (
        f'Supplier/S-1001 risk_score: "50" (now) -> "90" (the folder), set by {lowered.id[:12]} '
        "(operation, usr_tester: Lower it)"
    ) in refused.stderr
    assert run("log", "supply", database=database_url).stdout == before  # nothing written
    written = run("import", str(SUPPLY), "--overwrite", database=database_url)
    assert written.returncode == 0, written.stderr
    assert "replaced 1 value(s) set since (--overwrite)" in written.stdout
    assert "Supplier/S-1001 risk_score" in written.stdout
    assert "nothing changed" in run("import", str(SUPPLY), database=database_url).stdout


def test_a_refused_import_prints_every_problem_and_exits_1(tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    (broken / "data").mkdir(parents=True)
    (broken / "schema.yaml").write_text((SUPPLY / "schema.yaml").read_text())
    (broken / "data" / "Plant.csv").write_text("plant_code,name,city,country\nPL-01,,Poznan,pl\n")
    database = f"sqlite:///{tmp_path / 'db.sqlite'}"
    result = run("import", str(broken), database=database, process=True)
    assert result.returncode == 1
    assert "nothing was written" in result.stderr
    assert "data/Plant.csv:2" in result.stderr
    assert run("log", "supply", database=database).returncode == 1


def test_serve_answers_on_loopback(tmp_path: Path) -> None:
    port = free_port()
    database = f"sqlite:///{tmp_path / 'db.sqlite'}"
    output = tmp_path / "keeper.log"
    with output.open("w") as log:
        process = subprocess.Popen(
            [*LOREBASE, "serve", "--port", str(port), "--database", database],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        response = wait_until_ready(f"http://127.0.0.1:{port}", process, output, timeout_s=30)
        assert response.json() == {"status": "ready", "database": "sqlite"}
    finally:
        process.terminate()
        process.wait(timeout=10)
