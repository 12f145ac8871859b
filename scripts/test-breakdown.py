"""Where the time of a pytest run went, per package and backend, from its JUnit report.

`make pytest` writes test-results/pytest.xml; this prints a Markdown table of the tests and
seconds (setup, call and teardown together, summed over the workers) per package and backend,
the figures of docs/testing.md:

    uv run python scripts/test-breakdown.py [test-results/pytest.xml]
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ElementTree
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.suite.collection import count  # noqa: E402  (the one reading of node ids)


def node_id(case: ElementTree.Element) -> str:
    """The pytest node id of a JUnit test case (`classname` is the dotted module path)."""
    parts = case.get("classname", "").split(".")
    name = case.get("name", "")
    for split in range(len(parts), 0, -1):
        path = Path(*parts[:split]).with_suffix(".py")
        if (ROOT / path).is_file():
            return "::".join([path.as_posix(), *parts[split:], name])
    return f"{'/'.join(parts)}::{name}"


def main() -> None:
    report = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "test-results" / "pytest.xml")
    seconds: dict[tuple[str, str], float] = defaultdict(float)
    tests: dict[tuple[str, str], int] = defaultdict(int)
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        identifier = node_id(case)
        [(package, cells)] = count([identifier]).items()
        [backend] = cells
        seconds[package, backend] += float(case.get("time", "0"))
        tests[package, backend] += 1
    total = sum(seconds.values())
    print("| package | backend | tests | seconds | share |")
    print("| --- | --- | ---: | ---: | ---: |")
    for key in sorted(seconds, key=lambda key: -seconds[key]):
        print(
            f"| {key[0]} | {key[1]} | {tests[key]} | {seconds[key]:.0f} "
            f"| {100 * seconds[key] / total:.0f}% |"
        )
    print(f"| all | | {sum(tests.values())} | {total:.0f} | 100% |")


if __name__ == "__main__":
    main()
