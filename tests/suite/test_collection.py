"""The collection check (tests/suite/collection.py): counts per package and backend, and the
run it fails."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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


def test_a_whole_run_that_collects_fewer_fails_before_any_test(tmp_path: Path) -> None:
    """A copy of the counts with one more test than there is: pytest exits with a usage error
    naming the cell (the real file is left alone: `--collect-only` runs against a copy)."""
    recorded = json.loads(COUNTS.read_text())
    recorded["packages/platform"]["any"] += 1
    counts = tmp_path / "counts.json"
    counts.write_text(json.dumps(recorded))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "--collect-only", "-p", "no:cacheprovider"],
        cwd=ROOT,
        env={**os.environ, "LOREBASE_TEST_COUNTS": str(counts)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 4, done.stdout[-2000:] + done.stderr[-2000:]
    platform = recorded["packages/platform"]["any"]
    assert f"packages/platform any: {platform} -> {platform - 1}" in done.stdout + done.stderr
