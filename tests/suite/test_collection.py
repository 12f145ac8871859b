"""The collection check (tests/suite/collection.py): counts per package and backend, and the
run it fails."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.suite.collection import COUNTS, count, differences

ROOT = Path(__file__).resolve().parents[2]


def test_ids_are_counted_by_package_and_by_backend_parameter() -> None:
    counts = count(
        [
            "packages/store/tests/test_a.py::test_x[sqlite]",
            "packages/store/tests/test_a.py::test_x[postgresql]",
            "packages/store/tests/test_a.py::test_y[asyncio-postgresql-long]",
            "packages/store/tests/test_a.py::test_postgresql_words_in_a_name",
            "packages/keeper/tests/sub/test_b.py::TestC::test_z[sqlite-x]",
            "tests/web/test_w.py::test_w",
        ]
    )
    assert counts == {
        "packages/keeper": {"sqlite": 1},
        "packages/store": {"any": 1, "postgresql": 2, "sqlite": 1},
        "tests/web": {"any": 1},
    }


def test_differences_name_every_cell_that_moved() -> None:
    recorded = {"packages/store": {"sqlite": 3, "postgresql": 3}, "tests/web": {"any": 2}}
    collected = {"packages/store": {"sqlite": 3, "postgresql": 2}, "packages/new": {"any": 1}}
    assert differences(recorded, collected) == [
        "packages/new any: 0 -> 1",
        "packages/store postgresql: 3 -> 2",
        "tests/web any: 2 -> 0",
    ]
    assert differences(recorded, recorded) == []


def test_the_recorded_counts_name_every_package() -> None:
    recorded = json.loads(COUNTS.read_text())
    packages = {f"packages/{path.name}" for path in (ROOT / "packages").iterdir() if path.is_dir()}
    assert packages <= set(recorded)
    assert sum(sum(cells.values()) for cells in recorded.values()) > 6000


TINY_SUITE = {
    "pytest.ini": "[pytest]\ntestpaths = packages\n",
    "packages/one/tests/test_one.py": (
        "import pytest\n\n"
        "@pytest.mark.parametrize('backend', ['sqlite', 'postgresql'])\n"
        "def test_each(backend):\n    pass\n\n"
        "def test_plain():\n    pass\n"
    ),
}
"""A suite of three tests (one package: a case per backend and one without), so that the
check's own runs start in a second instead of collecting the whole suite."""


@pytest.mark.parametrize("workers", [["-p", "no:xdist"], ["-n", "2"]], ids=["one", "xdist"])
@pytest.mark.parametrize(
    ("recorded", "status", "said"),
    [
        pytest.param(2, 4, "packages/one any: 2 -> 1", id="fewer"),
        pytest.param(0, 4, "packages/one any: 0 -> 1", id="more"),
        pytest.param(1, 0, "3 passed", id="as-recorded"),
    ],
)
def test_a_whole_run_is_checked_before_any_test(
    tmp_path: Path, workers: list[str], recorded: int, status: int, said: str
) -> None:
    """The plugin in a real pytest run, in one process and under pytest-xdist (whose controller
    checks what its workers collected): other counts stop the run with exit 4 naming the cell,
    the recorded ones let it run."""
    for name, text in TINY_SUITE.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    counts = tmp_path / "counts.json"
    counts.write_text(json.dumps({"packages/one": {"any": recorded, "postgresql": 1, "sqlite": 1}}))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "tests.suite.collection", *workers],
        cwd=tmp_path,
        env={**os.environ, "LOREBASE_TEST_COUNTS": str(counts), "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        check=False,
    )
    output = done.stdout + done.stderr
    assert done.returncode == status, output[-2000:]
    assert said in output
    if status:
        assert "passed" not in output  # stopped before the first test
