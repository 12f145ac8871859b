"""The collection check: a whole run collects the tests recorded, per package and backend.

Speed must come from cheaper setup and both cores, never from fewer cases (docs/testing.md).
`tests/suite/collection-counts.json` records how many tests a whole run collects, per package
(`packages/keeper`, `tests/web`, ...) and per backend (`sqlite` and `postgresql` for the cases
of the backend parameter, `any` for the rest). A whole run (`make pytest`: no paths, no `-k`,
`-m`, `--lf` or `--deselect`) that collects a different number in any cell fails before a test
runs, naming the cells:

- fewer: a change dropped cases; bring them back (or, when dropping them is the point, record
  the new counts and say why in the commit);
- more: record them, so that a later drop is seen: `make test-counts` (or
  `pytest --record-collection-counts --collect-only -q`).

The counts are made from node ids, so they are the same with and without pytest-xdist (whose
controller sees only the ids its workers collected).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import pytest

COUNTS = Path(
    os.environ.get("LOREBASE_TEST_COUNTS") or Path(__file__).with_name("collection-counts.json")
)
"""The recorded counts ($LOREBASE_TEST_COUNTS names another file: the check's own test)."""

Counts = dict[str, dict[str, int]]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--record-collection-counts",
        action="store_true",
        help=f"write what this whole run collects to {COUNTS.name} (docs/testing.md)",
    )


def count(node_ids: Iterable[str]) -> Counts:
    """Tests per package (its first two path parts) and backend (a `sqlite` or `postgresql`
    among the parameter ids, else `any`)."""
    found: Counter[tuple[str, str]] = Counter()
    for node_id in node_ids:
        path, _, name = node_id.partition("::")
        package = "/".join(Path(path).parts[:2])
        params = name.partition("[")[2].rstrip("]").split("-") if "[" in name else []
        backend = next((b for b in ("postgresql", "sqlite") if b in params), "any")
        found[package, backend] += 1
    counts: Counts = {}
    for (package, backend), number in sorted(found.items()):
        counts.setdefault(package, {})[backend] = number
    return counts


def differences(recorded: Counts, collected: Counts) -> list[str]:
    """`package backend: recorded -> collected` for every cell that differs."""
    lines = []
    for package in sorted(set(recorded) | set(collected)):
        before, after = recorded.get(package, {}), collected.get(package, {})
        for backend in sorted(set(before) | set(after)):
            if before.get(backend, 0) != after.get(backend, 0):
                lines.append(
                    f"{package} {backend}: {before.get(backend, 0)} -> {after.get(backend, 0)}"
                )
    return lines


def _whole_run(config: pytest.Config) -> bool:
    """No selection narrowed what was collected."""
    option = config.option
    return not (
        config.args_source != pytest.Config.ArgsSource.TESTPATHS  # paths were given
        or option.keyword
        or option.markexpr
        or getattr(option, "lf", False)
        or getattr(option, "deselect", None)
    )


def check(config: pytest.Config, node_ids: list[str], *, errors: bool = False) -> None:
    """Record the counts, or fail the run when a whole run collected other counts. A run whose
    collection failed somewhere (`errors`) is left to report that error, and records nothing."""
    if errors:
        return
    collected = count(node_ids)
    if config.getoption("record_collection_counts"):
        if not _whole_run(config):
            raise pytest.UsageError(
                "--record-collection-counts records a whole run: no paths, -k, -m, --lf or "
                "--deselect"
            )
        COUNTS.write_text(json.dumps(collected, indent=2, sort_keys=True) + "\n")
        return
    if not _whole_run(config) or not COUNTS.is_file():
        return
    changed = differences(json.loads(COUNTS.read_text()), collected)
    if changed:
        raise pytest.UsageError(
            f"this run collected other numbers of tests than {COUNTS} records "
            "(recorded -> collected):\n  "
            + "\n  ".join(changed)
            + "\nFewer means cases were dropped: bring them back. More (or fewer on purpose): "
            "record them with `make test-counts` and commit the file (docs/testing.md)."
        )


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    if getattr(session.config, "workerinput", None) is not None:
        return  # an xdist worker: its controller (which collects nothing itself) checks
    check(session.config, [item.nodeid for item in session.items], errors=session.testsfailed > 0)


class XdistController:
    """Checks the ids the first worker collected (every worker collects the same)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.checked = False
        self.errors = False

    @pytest.hookimpl
    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        self.errors = self.errors or report.failed  # a worker's, reported before it finishes

    @pytest.hookimpl
    def pytest_xdist_node_collection_finished(self, node: object, ids: list[str]) -> None:
        if not self.checked:
            self.checked = True
            check(self.config, ids, errors=self.errors)


def pytest_configure(config: pytest.Config) -> None:
    controller = getattr(config, "workerinput", None) is None
    if controller and getattr(config.option, "numprocesses", None):  # pytest-xdist's -n
        config.pluginmanager.register(XdistController(config), "collection-counts-xdist")
