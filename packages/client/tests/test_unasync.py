"""The sync client is the async one unasynced: scripts/unasync.py --check, as `make lint` runs it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "scripts" / "unasync.py"
PACKAGE = ROOT / "packages" / "client" / "src" / "lorebase_client"


def unasync(*arguments: str | Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(SCRIPT), *map(str, arguments)]
    return subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT)


@pytest.fixture
def package_copy(tmp_path: Path) -> Path:
    """The client's `_async/` and `_sync/` as committed, in a folder of their own."""
    copy = tmp_path / "lorebase_client"
    for folder in ("_async", "_sync"):
        shutil.copytree(PACKAGE / folder, copy / folder, ignore=shutil.ignore_patterns("*.pyc"))
    return copy


def test_the_committed_sync_client_is_in_step() -> None:
    done = unasync("--check")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout == ""


def _edit_sync(copy: Path) -> str:
    path = copy / "_sync" / "client.py"
    path.write_text(path.read_text(encoding="utf-8") + "\nEDITED = True\n", encoding="utf-8")
    return "-EDITED = True"


def _edit_async(copy: Path) -> str:
    path = copy / "_async" / "trace.py"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("is True", "is not False"), encoding="utf-8")
    return '+        return answer.get("recorded") is not False'


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(_edit_sync, id="a-generated-module-edited"),
        pytest.param(_edit_async, id="a-source-changed-without-make-unasync"),
    ],
)
def test_check_fails_with_a_diff_on_a_copy_out_of_step(
    package_copy: Path, edit: Callable[[Path], str]
) -> None:
    line = edit(package_copy)
    done = unasync("--check", "--package", package_copy)
    assert done.returncode == 1
    assert line in done.stdout.splitlines()
    assert "out of step with _async/: run `make unasync`" in done.stdout


def test_unasync_writes_the_copy_back_in_step(package_copy: Path) -> None:
    _edit_sync(package_copy)
    (package_copy / "_sync" / "gone.py").write_text('"""A module without a source."""\n')
    assert unasync("--package", package_copy).returncode == 1  # it names gone.py
    (package_copy / "_sync" / "gone.py").unlink()
    done = unasync("--check", "--package", package_copy)
    assert done.returncode == 0, done.stdout
    for path in (PACKAGE / "_sync").glob("*.py"):
        assert (package_copy / "_sync" / path.name).read_text() == path.read_text()
